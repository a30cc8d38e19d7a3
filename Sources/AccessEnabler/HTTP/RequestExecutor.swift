// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// Sends requests for the backends: paces them within Adobe's throttle, honours 429
/// (Retry-After, bounded), retries a request that could not even connect, and turns HTTP
/// answers into typed results or `ServiceError`s.
package final class RequestExecutor: Sendable {
    package let transport: any HTTPTransport
    private let bucket: Locked<TokenBucket>
    /// After a 429, every request (new ones and retries) goes out one per second, Adobe's rate,
    /// until the throttle has been quiet for `recoveryNanos`: concurrent requests then retry one
    /// after another instead of all at once.
    private let recovery = Locked<(bucket: TokenBucket, until: UInt64)>((TokenBucket(capacity: 1, perSecond: 1), 0))
    private static let recoveryNanos: UInt64 = 10_000_000_000
    private let logger: Logger
    private let maxThrottleRetries = 10
    /// Retries of an answer whose enhanced error says `retry` / `retry-after` (Adobe: "max 2–3 times").
    private let maxActionRetries = 2
    /// Retries of a call that is idempotent by design after a 5xx or a broken exchange.
    private let maxServerRetries = 2

    /// What may be retried beyond throttling, `retry` actions and unsent requests.
    package enum Retry: Sendable {
        /// Only what every call may retry.
        case standard
        /// Also a 5xx answer and an exchange that broke or timed out after it was sent: the call
        /// has no effect that a repeat would double (DCR's client-credentials token).
        case idempotent
    }

    private let serverClock: ServerClock?

    package init(transport: any HTTPTransport, requestsPerSecond: Double, serverClock: ServerClock? = nil, logger: Logger) {
        self.transport = transport
        self.serverClock = serverClock
        self.bucket = Locked(TokenBucket(perSecond: requestsPerSecond))
        self.logger = logger
    }

    package func send(_ request: HTTPRequest, operation: String, retry: Retry = .standard) async throws(ServiceError)
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
        while true {
            if !paced {
                let now = monotonicNanos()
                let wait = max(bucket.withLock { $0.reserve(nowNanos: now) },
                               recovery.withLock { $0.until > now ? $0.bucket.reserve(nowNanos: now) : 0 })
                // Adobe counts arrivals: the burst's first request (a new connection) arrives later
                // after its send than paced ones do, so Adobe's refill starts later than ours; a
                // paced request waits a tenth longer to stay behind it.
                if wait > 0 { try await Self.sleep(nanoseconds: wait + wait / 10) }
            }
            paced = false
            if Task.isCancelled { throw .transport(.cancelled) }
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                if case .cannotConnect = error, !connectRetried {
                    // The request was never sent: trying again once is safe for every method.
                    connectRetried = true
                    logger.warning("\(operation): \(error.summary); retrying once")
                    try await Self.sleep(nanoseconds: 250_000_000 + Self.jitter())
                    continue
                }
                if retry == .idempotent, serverRetries < maxServerRetries, Self.brokeAfterSending(error) {
                    serverRetries += 1
                    let wait = Self.backoff(serverRetries)
                    logger.warning("\(operation): \(error.summary); retry \(serverRetries) in \(wait / 1_000_000) ms")
                    try await Self.sleep(nanoseconds: wait)
                    continue
                }
                throw .transport(error)
            }
            serverClock?.observe(dateHeader: response.header("Date"))
            logger.debug("\(request.method) \(operation) -> \(response.status)")
            if response.status >= 400, response.status != 429, actionRetries < maxActionRetries,
                case .enhanced(let error, _) = Self.failure(from: response),
                error.action == "retry" || error.action == "retry-after"
            {
                // Adobe says the call may succeed if repeated: bounded, exponential, with jitter.
                actionRetries += 1
                let wait = Self.retryAfter(response) ?? Self.backoff(actionRetries)
                logger.warning("\(operation): \(error.code) (action \(error.action ?? "")); retry \(actionRetries) in \(wait / 1_000_000) ms")
                try await Self.sleep(nanoseconds: wait)
                continue
            }
            // (One budget with the `retry` actions above: at most three attempts in all.)
            if retry == .idempotent, response.status >= 500, serverRetries + actionRetries < maxServerRetries {
                serverRetries += 1
                let wait = Self.retryAfter(response) ?? Self.backoff(serverRetries)
                logger.warning("\(operation): HTTP \(response.status); retry \(serverRetries) in \(wait / 1_000_000) ms")
                try await Self.sleep(nanoseconds: wait)
                continue
            }
            guard response.status == 429 else { return response }
            guard throttled < maxThrottleRetries else { throw .throttled }
            throttled += 1
            let now = monotonicNanos()
            let retryAfter = Self.throttleWait(response)
            bucket.withLock { $0.drain(nowNanos: now) }
            let slot = recovery.withLock { state -> UInt64 in
                state.until = now + Self.recoveryNanos
                return state.bucket.reserve(nowNanos: now)
            }
            let wait = max(retryAfter, slot)
            logger.warning("\(operation): throttled (429); retrying in \(wait / 1_000_000) ms")
            try await Self.sleep(nanoseconds: wait)
            paced = true
        }
    }

    /// How long a 429 asks to wait: `Retry-After` seconds within 1–60 s (1 s when absent or not a
    /// number of seconds that fits: a 2^64 or a date is not trusted).
    static func throttleWait(_ response: HTTPResponse) -> UInt64 {
        let seconds = response.header("Retry-After").flatMap { Int64($0[...].trimmingSpaces()) } ?? 1
        return UInt64(seconds.clamped(to: 1...60)) * 1_000_000_000
    }

    /// `Retry-After` in seconds (at most 60 s), or nil when absent or not a number of seconds.
    static func retryAfter(_ response: HTTPResponse) -> UInt64? {
        response.header("Retry-After").flatMap { UInt64($0[...].trimmingSpaces()) }.map { min($0, 60) * 1_000_000_000 }
    }

    /// 0.5 s, 1 s, 2 s, … for retry `attempt` (1-based, capped at 8 s), plus jitter.
    static func backoff(_ attempt: Int) -> UInt64 {
        (500_000_000 << UInt64(attempt.clamped(to: 1...5) - 1)) + jitter()
    }

    /// A timeout or a broken exchange: worth repeating an idempotent call (not TLS, a too large
    /// answer or a cancellation, which a repeat would meet again).
    private static func brokeAfterSending(_ error: TransportError) -> Bool {
        switch error {
        case .timedOut, .failed: true
        case .cannotConnect, .tls, .bodyTooLarge, .cancelled: false
        }
    }

    /// Up to 250 ms, so clients that failed together do not retry together.
    static func jitter() -> UInt64 { UInt64.random(in: 0...250_000_000) }

    /// Cancellable sleep: a cancelled task ends the call with `.transport(.cancelled)`.
    package static func sleep(nanoseconds: UInt64) async throws(ServiceError) {
        do { try await Task.sleep(nanoseconds: nanoseconds) } catch { throw .transport(.cancelled) }
    }

    /// Decodes a success answer, or turns an error answer into a `ServiceError`.
    package static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, operation: String)
        throws(ServiceError) -> T
    {
        guard (200..<300).contains(response.status) else { throw failure(from: response) }
        guard let mediaType = response.mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json")
        else {
            throw .malformed(operation: operation, detail: "content type \(response.mediaType ?? "none")")
        }
        do {
            return try JSON.decode(type, from: response.body)
        } catch let error as DecodingError {
            throw .malformed(operation: operation, detail: Self.describe(error))
        } catch {
            throw .malformed(operation: operation, detail: "not JSON")
        }
    }

    /// The error an HTTP error answer carries: Adobe's enhanced error, DCR's OAuth error, or none.
    package static func failure(from response: HTTPResponse) -> ServiceError {
        if response.status == 429 { return .throttled }
        if response.mediaType?.contains("json") == true,
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
