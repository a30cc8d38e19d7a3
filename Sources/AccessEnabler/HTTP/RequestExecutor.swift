// SPDX-License-Identifier: Apache-2.0

/// Sends requests for the backends: paces them within Adobe's throttle, honours 429
/// (Retry-After, bounded), retries a request that could not even connect, and turns HTTP
/// answers into typed results or `ServiceError`s. What it does for one call is decided by a pure
/// machine (`SendAttempt`, the policy of docs/OUTAGE.md); `send` drives it against what calls
/// share (the pacing buckets, the outage breaker) under their locks. How often and after how long
/// it repeats a call is the SDK's one retry policy (`Backoff`); every wait sleeps through the
/// injected clock.
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
    /// Where each exchange, retry and the breaker's state are counted (docs/METRICS.md).
    package let metrics: Metrics

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
        draw: @escaping @Sendable (Int64) -> Int64 = { Int64.random(in: 0...max($0, 0)) },
        metrics: Metrics = Metrics()
    ) {
        self.metrics = metrics
        self.inCallRetryAfterMillis = min(Backoff.maxInCallRetryAfterMillis, Int64(max(requestTimeoutMillis, 0)))
        self.monotonic = monotonic
        self.draw = draw
        self.transport = transport
        self.serverClock = serverClock
        self.bucket = Locked(TokenBucket(perSecond: requestsPerSecond))
        self.logger = logger
        self.clock = clock
    }

    /// Sends `request` as the send policy says (`SendAttempt`: pacing, the outage breaker, repeats,
    /// `Retry-After`, 429s) and returns its answer, also an error status. `answers`: error statuses
    /// that are an answer of the operation, not a failure (V1's 404 "no token"): not logged as failures.
    package func send(
        _ request: HTTPRequest, operation: String, retry: Retry = .standard, answers: Set<Int> = []
    ) async throws(ServiceError)
        -> HTTPResponse
    {
        var attempt = SendAttempt(
            request, operation: operation, retry: retry, answers: answers, inCallRetryAfterMillis: inCallRetryAfterMillis)
        var actions = attempt.start()
        var sentAt: UInt64 = 0
        while true {
            switch actions.removeFirst() {
            case .reservePacingSlot: actions = attempt.paced(waitNanos: reservePacingSlot(), cancelled: Task.isCancelled)
            case .sleep(let millis):
                await clock.sleep(millis: millis)
                actions = attempt.slept(cancelled: Task.isCancelled)
            case .admit: actions = attempt.admitted(breaker.withLock { $0.admit(nowNanos: monotonic()) })
            case .send:
                sentAt = monotonicNanos()
                do {
                    let response = try await transport.send(request)
                    count(request, operation, status: response.status, error: nil, since: sentAt, received: response.body.count)
                    actions = attempt.answered(response)
                } catch {
                    count(request, operation, status: nil, error: error.metricType, since: sentAt, received: 0)
                    actions = attempt.failed(error)
                }
            case .record(let outcome):
                let before = attempt.retryCounts
                actions = attempt.recorded(holdMillis: record(outcome), jitterMillis: Backoff.jitter())
                if let reason = attempt.retryReason(since: before) { metrics.add(MetricCatalog.retries, [operation, reason]) }
            case .observeServerDate(let date): serverClock?.observe(dateHeader: date)
            case .slowDown(let millis): actions = attempt.slowedDown(slotNanos: slowDown(recoveryMillis: millis))
            case .log(let level, let message): logger.log(level, message)
            case .finish(let response): return response
            case .fail(let error): throw error
            }
        }
    }

    /// One exchange in the metrics: its duration from `sentAt`, its answer's status or its failure.
    private func count(_ request: HTTPRequest, _ operation: String, status: Int?, error: String?, since sentAt: UInt64, received: Int) {
        metrics.exchange(
            operation: operation, method: request.method, host: request.host, status: status, error: error,
            seconds: Double(monotonicNanos() &- sentAt) / 1e9, sentBytes: request.body?.count ?? 0, receivedBytes: received)
    }

    /// The outage breaker's state as a gauge: 0 closed, 1 open, 2 probing.
    package var outageGauge: Double {
        switch breaker.withLock({ $0.state }) {
        case .closed: 0
        case .open: 1
        case .probing: 2
        }
    }

    /// Reserves one request's pacing slot: Adobe's rate (`bucket`) and, while a 429 recovers, one
    /// per second (`recovery`). Returns the wait until it, in nanoseconds.
    private func reservePacingSlot() -> UInt64 {
        let now = monotonicNanos()
        return max(
            bucket.withLock { $0.reserve(nowNanos: now) },
            recovery.withLock { $0.until > now ? $0.bucket.reserve(nowNanos: now) : 0 })
    }

    /// Feeds one exchange's end to the outage breaker; returns how long it holds requests back
    /// after it (nil: it does not).
    private func record(_ outcome: OutageBreaker.Outcome) -> Int64? {
        breaker.withLock {
            $0.record(outcome, nowNanos: monotonic(), random: draw)
            return $0.holdMillis(nowNanos: monotonic())
        }
    }

    /// After a 429: Adobe's bucket is empty, so ours is drained, and every request is paced one per
    /// second for `recoveryMillis`. Returns the wait until this request's slot in that pacing.
    private func slowDown(recoveryMillis: Int64) -> UInt64 {
        let now = monotonicNanos()
        bucket.withLock { $0.drain(nowNanos: now) }
        return recovery.withLock { state -> UInt64 in
            state.until = now + Limits.nanoseconds(millis: recoveryMillis)
            return state.bucket.reserve(nowNanos: now)
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
