// SPDX-License-Identifier: Apache-2.0

/// Sends requests for the backends: paces them within Adobe's throttle, honours 429
/// (Retry-After, bounded), retries a request that could not even connect, and turns HTTP
/// answers into typed results or `ServiceError`s. How often and after how long it repeats a call
/// is the SDK's one retry policy (`Backoff`); every wait sleeps through the injected clock.
package final class RequestExecutor: Sendable {
    package let transport: any HTTPTransport
    private let bucket: Locked<TokenBucket>
    /// After a 429, every request (new ones and retries) goes out one per second, Adobe's rate,
    /// until the throttle has been quiet for `Backoff.throttleRecoveryMillis`: concurrent requests
    /// then retry one after another instead of all at once.
    private let recovery = Locked<(bucket: TokenBucket, until: UInt64)>((TokenBucket(capacity: 1, perSecond: 1), 0))
    /// Holds requests back at once while Adobe is known down (`OutageBreaker`).
    private let breaker = Locked(OutageBreaker())
    private let logger: Logger
    /// What the waits (pacing, backoff, throttle) sleep on; the pacing itself is measured on the
    /// monotonic clock.
    private let clock: any WallClock

    /// What may be retried beyond throttling, `retry` actions and unsent requests.
    package enum Retry: Sendable {
        /// Only what every call may retry.
        case standard
        /// Also a 5xx answer and an exchange that broke or timed out after it was sent: the call
        /// has no effect that a repeat would double (DCR's client-credentials token).
        case idempotent
    }

    private let serverClock: ServerClock?

    /// The breaker's time (monotonic nanoseconds) and its random draw (`0...upper` ms): injected by
    /// tests.
    private let monotonic: @Sendable () -> UInt64
    private let draw: @Sendable (Int64) -> Int64
    /// The longest 5xx `Retry-After` waited for within its call (then the request goes out once
    /// more): `Backoff.maxInCallRetryAfterMillis`, at most the request timeout.
    private let inCallRetryAfterMillis: Int64

    package init(
        transport: any HTTPTransport, requestsPerSecond: Double, serverClock: ServerClock? = nil, logger: Logger,
        clock: any WallClock = SystemClock(), requestTimeoutMillis: Int = Defaults.requestTimeoutMillis,
        monotonic: @escaping @Sendable () -> UInt64 = monotonicNanos,
        draw: @escaping @Sendable (Int64) -> Int64 = { Int64.random(in: 0...max($0, 0)) }
    ) {
        self.inCallRetryAfterMillis = min(Backoff.maxInCallRetryAfterMillis, Int64(max(requestTimeoutMillis, 0)))
        self.monotonic = monotonic
        self.draw = draw
        self.transport = transport
        self.serverClock = serverClock
        self.bucket = Locked(TokenBucket(perSecond: requestsPerSecond))
        self.logger = logger
        self.clock = clock
    }

    /// `answers`: error statuses that are an answer of the operation, not a failure (V1's 404 "no
    /// token"): not logged as failures.
    package func send(
        _ request: HTTPRequest, operation: String, retry: Retry = .standard, answers: Set<Int> = []
    ) async throws(ServiceError)
        -> HTTPResponse
    {
        // A second line of defence behind the checks of the host's input: nothing with a control
        // character reaches the wire (CR/LF in a header value would add headers of its own).
        if let problem = request.framingProblem {
            logger.error("\(operation): not sent: \(problem)")
            throw .transport(.failed("not sent: \(problem)"))
        }
        var throttled = 0
        var actionRetries = 0
        var connectRetried = false
        var serverRetries = 0
        var paced = false
        // A 5xx's short Retry-After was waited for (once per call); the repeat goes out even if
        // another request is the breaker's probe by then.
        var waitedRetryAfter = false
        var repeatAfterHold = false
        while true {
            if !paced {
                let now = monotonicNanos()
                let wait = max(
                    bucket.withLock { $0.reserve(nowNanos: now) },
                    recovery.withLock { $0.until > now ? $0.bucket.reserve(nowNanos: now) : 0 })
                // Adobe counts arrivals: the burst's first request (a new connection) arrives later
                // after its send than paced ones do, so Adobe's refill starts later than ours; a
                // paced request waits a tenth longer to stay behind it.
                if wait > 0 { try await sleep(millis: Limits.millis(roundingUp: wait + wait / 10)) }
            }
            paced = false
            if Task.isCancelled { throw .transport(.cancelled) }
            if case .holdBack(let retryIn, let reason, let status) = breaker.withLock({ $0.admit(nowNanos: monotonic()) }),
                !repeatAfterHold
            {
                logger.info("\(operation): not sent, Adobe is failing (\(reason)); next attempt in \(retryIn) ms")
                throw .unavailable(retryInMillis: retryIn, reason: reason, httpStatus: status)
            }
            repeatAfterHold = false
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
                let outcome: OutageBreaker.Outcome =
                    response.status >= 500
                    ? .outage(
                        reason: "HTTP \(response.status)", httpStatus: response.status,
                        retryAfterMillis: Backoff.retryAfter(response))
                    : .answered
                breaker.withLock { $0.record(outcome, nowNanos: monotonic(), random: draw) }
            } catch {
                breaker.withLock {
                    $0.record(
                        Self.brokeAfterSending(error) || error.isConnectFailure
                            ? .outage(reason: error.summary, retryAfterMillis: nil) : .neutral,
                        nowNanos: monotonic(), random: draw)
                }
                if case .cannotConnect = error, !connectRetried {
                    // The request was never sent: trying again once is safe for every method.
                    connectRetried = true
                    logger.warning("\(operation): \(error.summary); retrying once")
                    try await sleep(millis: Backoff.reconnect())
                    continue
                }
                if retry == .idempotent, serverRetries < Backoff.maxServerRetries, Self.brokeAfterSending(error) {
                    serverRetries += 1
                    let wait = Backoff.retry(attempt: serverRetries)
                    logger.warning("\(operation): \(error.summary); retry \(serverRetries) in \(wait) ms")
                    try await sleep(millis: wait)
                    continue
                }
                // Every failure that reaches a callback is in the log too, with its request (issue 28).
                if error != .cancelled { logger.warning("\(request.logLabel) (\(operation)) failed: \(error.summary)") }
                throw .transport(error)
            }
            serverClock?.observe(dateHeader: response.header("Date"))
            logger.debug("\(request.method) \(operation) -> \(response.status)")
            // A 5xx with Retry-After opened the outage breaker for that long: every call is held back
            // (Retry-After across calls). A call that may be repeated waits a short one out
            // (`inCallRetryAfterMillis`) and sends its request once more when the hold ends; a long
            // one, or a second one, is not repeated: the host gets its error now.
            let serverRetryAfter = response.status >= 500 ? Backoff.retryAfter(response) : nil
            let waitAcrossCalls = serverRetryAfter.map { $0 > inCallRetryAfterMillis || waitedRetryAfter } ?? false
            if response.status >= 400, response.status != 429, !waitAcrossCalls, actionRetries < Backoff.maxActionRetries,
                case .enhanced(let error, _) = Self.failure(from: response),
                error.action == "retry" || error.action == "retry-after"
            {
                // Adobe says the call may succeed if repeated: bounded, exponential, with jitter.
                actionRetries += 1
                let wait =
                    serverRetryAfter.map { holdAfter(retryAfter: $0, waited: &waitedRetryAfter, sendAtEnd: &repeatAfterHold) }
                    ?? Backoff.retryAfter(response) ?? Backoff.retry(attempt: actionRetries)
                logger.warning("\(operation): \(error.code) (action \(error.action ?? "")); retry \(actionRetries) in \(wait) ms")
                try await sleep(millis: wait)
                continue
            }
            // (One budget with the `retry` actions above: at most three attempts in all.)
            if retry == .idempotent, response.status >= 500, !waitAcrossCalls,
                serverRetries + actionRetries < Backoff.maxServerRetries
            {
                serverRetries += 1
                let wait =
                    serverRetryAfter.map { holdAfter(retryAfter: $0, waited: &waitedRetryAfter, sendAtEnd: &repeatAfterHold) }
                    ?? Backoff.retry(attempt: serverRetries)
                logger.warning("\(operation): HTTP \(response.status); retry \(serverRetries) in \(wait) ms")
                try await sleep(millis: wait)
                continue
            }
            guard response.status == 429 else {
                if response.status >= 400, !answers.contains(response.status) {
                    // The flow names the failure to the host; the log names the request and Adobe's code.
                    let code = Self.failure(from: response).enhancedError.code
                    logger.warning("\(request.logLabel) (\(operation)) -> HTTP \(response.status) \(code)")
                }
                return response
            }
            guard throttled < Backoff.maxThrottleRetries else {
                logger.warning("\(request.logLabel) (\(operation)) -> HTTP 429: still throttled after \(throttled) retries")
                throw .throttled
            }
            throttled += 1
            let now = monotonicNanos()
            let retryAfter = Backoff.throttleWait(response)
            bucket.withLock { $0.drain(nowNanos: now) }
            let slot = recovery.withLock { state -> UInt64 in
                state.until = now + Limits.nanoseconds(millis: Backoff.throttleRecoveryMillis)
                return state.bucket.reserve(nowNanos: now)
            }
            let wait = max(retryAfter, Limits.millis(roundingUp: slot))
            logger.warning("\(operation): throttled (429); retrying in \(wait) ms")
            try await sleep(millis: wait)
            paced = true
        }
    }

    /// The wait before the one repeat of a call after a 5xx's short `Retry-After`: until the outage
    /// breaker's hold (which that answer opened: `Retry-After` plus up to a quarter) ends. Marks the
    /// call so that it repeats no second time, and its repeat so that it goes out then.
    private func holdAfter(retryAfter: Int64, waited: inout Bool, sendAtEnd: inout Bool) -> Int64 {
        waited = true
        sendAtEnd = true
        return breaker.withLock { $0.holdMillis(nowNanos: monotonic()) } ?? retryAfter
    }

    /// A timeout or a broken exchange: worth repeating an idempotent call (not TLS, a too large
    /// answer or a cancellation, which a repeat would meet again).
    private static func brokeAfterSending(_ error: TransportError) -> Bool {
        switch error {
        case .timedOut, .failed: true
        case .cannotConnect, .tls, .bodyTooLarge, .cancelled: false
        }
    }

    /// Opens a connection to `url`'s host in the background without a request
    /// (`HTTPTransport.preconnect`); not while Adobe is known down.
    package func preconnect(to url: String) {
        guard case .closed = breaker.withLock({ $0.state }) else { return }
        transport.preconnect(to: url)
    }

    /// The breaker's state, for tests and diagnostics.
    package var outageBreaker: OutageBreaker { breaker.withLock { $0 } }

    /// Cancellable sleep on the executor's clock: a cancelled task ends the call with
    /// `.transport(.cancelled)`.
    private func sleep(millis: Int64) async throws(ServiceError) {
        await clock.sleep(millis: millis)
        if Task.isCancelled { throw .transport(.cancelled) }
    }

    /// Decodes a success answer, or turns an error answer into a `ServiceError`.
    package static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, operation: String)
        throws(ServiceError) -> T
    {
        try read(response, operation: operation) { try JSON.decode(type, from: $0) }
    }

    /// `decode` for a model read straight from Jansson's nodes (the decisions: JSONNodeDecodable).
    package static func decode<T: JSONNodeDecodable>(_ type: T.Type, from response: HTTPResponse, operation: String)
        throws(ServiceError) -> T
    {
        try read(response, operation: operation) { try JSON.decode(type, from: $0) }
    }

    private static func read<T>(_ response: HTTPResponse, operation: String, _ decode: ([UInt8]) throws -> T)
        throws(ServiceError) -> T
    {
        guard (200..<300).contains(response.status) else { throw failure(from: response) }
        guard let mediaType = response.mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json")
        else {
            throw .malformed(operation: operation, detail: "content type \(response.mediaType ?? "none")")
        }
        do {
            return try decode(response.body)
        } catch let error as DecodingError {
            throw .malformed(operation: operation, detail: Self.describe(error))
        } catch {
            throw .malformed(operation: operation, detail: "not JSON")
        }
    }

    /// The error an HTTP error answer carries: Adobe's enhanced error, DCR's OAuth error, or none.
    package static func failure(from response: HTTPResponse) -> ServiceError {
        if response.status == 429 { return .throttled }
        if response.mediaType?.contains(text: "json") == true,
            let body = try? JSON.decode(JSONValue.self, from: response.body)
        {
            if body["code"]?.stringValue != nil, let error = try? JSON.decode(EnhancedError.self, from: response.body) {
                return .enhanced(error, httpStatus: response.status)
            }
            if let code = body["error"]?.stringValue { return .registration(code: code, httpStatus: response.status) }
        }
        return .http(status: response.status)
    }

    /// Names the JSON path of a decoding failure, never the values (they may be secrets).
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "body" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)): missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)): wrong type"
        case .dataCorrupted(let context): return "\(path(context)): invalid JSON"
        @unknown default: return "invalid JSON"
        }
    }
}
