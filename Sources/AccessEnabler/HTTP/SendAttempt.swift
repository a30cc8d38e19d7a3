// SPDX-License-Identifier: Apache-2.0

/// One call of `RequestExecutor.send`: the SDK's send policy (docs/OUTAGE.md, `Backoff`) as a pure
/// machine, driven by `send`. Events in, actions out; no I/O, no awaits, no clock, no locks: the
/// pacing wait, the outage breaker's verdict and hold, the jitter and the task's cancellation come
/// in as event data. What calls share (the token bucket, the 429 recovery pacing, the
/// `OutageBreaker`) stays in the executor under its locks; an action says when to read or change it.
///
/// The policy, rule by rule (`SendAttemptTests` checks each):
/// - A request that cannot be framed safely (`HTTPRequest.framingProblem`) is not sent.
/// - Every attempt is paced (Adobe's rate; one per second while a 429 recovers), then admitted by
///   the outage breaker: while it holds, the call fails at once with `.unavailable`, but for the
///   repeat after a short `Retry-After`, which goes out when the hold ends even if another request
///   is the breaker's probe by then.
/// - Every exchange is recorded by the breaker: a 5xx, or a connection refused, timed out or
///   broken, is an outage answer; a cancelled, TLS-failed or too large one is neutral.
/// - A request that could not connect was never sent: it is sent once more, whatever the call.
/// - An idempotent call (`Retry.idempotent`) is repeated after a broken exchange or a 5xx, at most
///   `Backoff.maxServerRetries` times (for a 5xx: one budget with the `retry` actions).
/// - An error answer whose enhanced error says `retry` / `retry-after` is repeated at most
///   `Backoff.maxActionRetries` times, after its `Retry-After` or the backoff curve.
/// - A 5xx's `Retry-After` opened the breaker for that long (plus up to a quarter). A call that may
///   be repeated waits a short one (`inCallRetryAfterMillis`) out, once, until the hold ends, and
///   sends its request once more; a long one, or a second one, ends the call with that answer.
/// - A 429 is repeated at most `Backoff.maxThrottleRetries` times, after its `Retry-After` (within
///   `Backoff.throttleMillis`) or its slot in the recovery pacing, whichever is later; then the call
///   fails with `.throttled`.
/// - Every failure the host will see is in the log with its request, but an error status that is
///   an answer of the operation (`answers`) and a cancellation.
///
/// States (`State`): `idle` → `pacing` → (`sleeping(then: .admit)`) → `admitting` → `sending` →
/// `recording` → `finished`, or back through `sleeping(then: .pace)` (a repeat) or `slowingDown`
/// and `sleeping(then: .admit)` (a 429: its wait took a pacing slot already).
struct SendAttempt: Sendable {
    enum Action: Sendable {
        /// Reserve the request's pacing slot (the token bucket's and, while a 429 recovers, the
        /// recovery pacing's: the longer wait); answer with `paced(waitNanos:cancelled:)`.
        case reservePacingSlot
        /// Sleep on the executor's clock; answer with `slept(cancelled:)`.
        case sleep(millis: Int64)
        /// Ask the outage breaker whether the request may go out now (`OutageBreaker.admit`);
        /// answer with `admitted(_:)`.
        case admit
        /// Send the request; answer with `answered(_:)` or `failed(_:)`.
        case send
        /// Feed the exchange's end to the outage breaker (`OutageBreaker.record`); answer with
        /// `recorded(holdMillis:jitterMillis:)`.
        case record(OutageBreaker.Outcome)
        /// Give an answer's Date header to the server clock (`ServerClock.observe`).
        case observeServerDate(String?)
        /// A 429 means Adobe's bucket is empty: drain the token bucket, pace every request one per
        /// second for `recoveryMillis` from now, and reserve this request's slot in that pacing;
        /// answer with `slowedDown(slotNanos:)`.
        case slowDown(recoveryMillis: Int64)
        case log(LogLevel, String)
        /// The call's answer (also an error status: the caller reads it).
        case finish(HTTPResponse)
        /// The call fails with `error`.
        case fail(ServiceError)
    }

    enum State: Sendable {
        case idle
        /// Waiting for the pacing slot.
        case pacing
        /// Waiting; then pacing the repeat (`.pace`), or the attempt goes out (`.admit`).
        case sleeping(then: AfterSleep)
        /// Waiting for the outage breaker's verdict.
        case admitting
        /// The request is out.
        case sending
        /// The exchange ended; the breaker is recording it.
        case recording(Result<HTTPResponse, TransportError>)
        /// A 429 (its own wait, `throttleWaitMillis`); its slot in the recovery pacing is being reserved.
        case slowingDown(throttleWaitMillis: Int64)
        /// The call answered or failed.
        case finished
    }

    enum AfterSleep: Sendable {
        /// A repeat: paced like any request.
        case pace
        /// The pacing wait itself, or a 429's wait (which took its pacing slot): the request goes out.
        case admit
    }

    let request: HTTPRequest
    let operation: String
    let retry: RequestExecutor.Retry
    /// Error statuses that are an answer of the operation, not a failure (V1's 404 "no token").
    let answers: Set<Int>
    /// The longest 5xx `Retry-After` waited out within the call (`Backoff.maxInCallRetryAfterMillis`,
    /// at most the request timeout).
    let inCallRetryAfterMillis: Int64
    private(set) var state: State = .idle

    /// 429s repeated so far.
    private(set) var throttled = 0
    /// Repeats after a `retry` / `retry-after` action.
    private(set) var actionRetries = 0
    /// Whether the one repeat of a request that could not connect was made.
    private(set) var connectRetried = false
    /// Repeats of an idempotent call after a 5xx or a broken exchange.
    private(set) var serverRetries = 0
    /// A 5xx's short `Retry-After` was waited out (once per call).
    private(set) var waitedRetryAfter = false
    /// The next attempt is the repeat at the end of that hold: it goes out even if the breaker
    /// holds by then (another request may be its probe).
    private(set) var repeatAtHoldEnd = false
    /// Whether the last exchange got an answer (any status) rather than a transport failure.
    private(set) var lastExchangeAnswered = false

    init(
        _ request: HTTPRequest, operation: String, retry: RequestExecutor.Retry, answers: Set<Int>,
        inCallRetryAfterMillis: Int64
    ) {
        self.request = request
        self.operation = operation
        self.retry = retry
        self.answers = answers
        self.inCallRetryAfterMillis = inCallRetryAfterMillis
    }

    // MARK: Retries, for the metrics

    /// The repeat counters at one moment (`retryReason(since:)` compares two).
    struct RetryCounts: Equatable {
        var throttled = 0, actionRetries = 0, serverRetries = 0
        var connectRetried = false, waitedRetryAfter = false
    }

    var retryCounts: RetryCounts {
        RetryCounts(
            throttled: throttled, actionRetries: actionRetries, serverRetries: serverRetries,
            connectRetried: connectRetried, waitedRetryAfter: waitedRetryAfter)
    }

    /// Why the last event decided to send the request again (`ae.http.retries`' `ae.retry.reason`),
    /// nil when it did not: `429`, `retry_after`, `adobe_action`, `5xx`, `broken`, `connect`.
    func retryReason(since before: RetryCounts) -> String? {
        let now = retryCounts
        if now.throttled > before.throttled { return "429" }
        if now.waitedRetryAfter && !before.waitedRetryAfter { return "retry_after" }
        if now.actionRetries > before.actionRetries { return "adobe_action" }
        if now.serverRetries > before.serverRetries { return lastExchangeAnswered ? "5xx" : "broken" }
        if now.connectRetried && !before.connectRetried { return "connect" }
        return nil
    }

    // MARK: Events

    mutating func start() -> [Action] {
        guard case .idle = state else { preconditionFailure("SendAttempt.start in \(state)") }
        // A second line of defence behind the checks of the host's input: nothing with a control
        // character reaches the wire (CR/LF in a header value would add headers of its own).
        if let problem = request.framingProblem {
            return [.log(.error, "\(operation): not sent: \(problem)")] + fail(.transport(.failed("not sent: \(problem)")))
        }
        state = .pacing
        return [.reservePacingSlot]
    }

    /// The pacing slot is `waitNanos` away; `cancelled`: the task's cancellation after reserving it.
    mutating func paced(waitNanos: UInt64, cancelled: Bool) -> [Action] {
        guard case .pacing = state else { preconditionFailure("SendAttempt.paced in \(state)") }
        if waitNanos > 0 {
            // Adobe counts arrivals: the burst's first request (a new connection) arrives later
            // after its send than paced ones do, so Adobe's refill starts later than ours; a paced
            // request waits a tenth longer to stay behind it.
            return sleep(Limits.millis(roundingUp: waitNanos + waitNanos / 10), then: .admit)
        }
        return cancelled ? fail(.transport(.cancelled)) : admit()
    }

    /// A wait ended; `cancelled`: the task was cancelled by then.
    mutating func slept(cancelled: Bool) -> [Action] {
        guard case .sleeping(let next) = state else { preconditionFailure("SendAttempt.slept in \(state)") }
        if cancelled { return fail(.transport(.cancelled)) }
        switch next {
        case .pace:
            state = .pacing
            return [.reservePacingSlot]
        case .admit:
            return admit()
        }
    }

    mutating func admitted(_ verdict: OutageBreaker.Verdict) -> [Action] {
        guard case .admitting = state else { preconditionFailure("SendAttempt.admitted in \(state)") }
        if case .holdBack(let retryIn, let reason, let status) = verdict, !repeatAtHoldEnd {
            return [.log(.info, "\(operation): not sent, Adobe is failing (\(reason)); next attempt in \(retryIn) ms")]
                + fail(.unavailable(retryInMillis: retryIn, reason: reason, httpStatus: status))
        }
        repeatAtHoldEnd = false
        state = .sending
        return [.send]
    }

    /// Adobe answered (any status).
    mutating func answered(_ response: HTTPResponse) -> [Action] {
        guard case .sending = state else { preconditionFailure("SendAttempt.answered in \(state)") }
        state = .recording(.success(response))
        lastExchangeAnswered = true
        guard response.status >= 500 else { return [.record(.answered)] }
        return [
            .record(
                .outage(
                    reason: "HTTP \(response.status)", httpStatus: response.status,
                    retryAfterMillis: Backoff.retryAfter(response)))
        ]
    }

    /// The exchange produced no answer.
    mutating func failed(_ error: TransportError) -> [Action] {
        guard case .sending = state else { preconditionFailure("SendAttempt.failed in \(state)") }
        state = .recording(.failure(error))
        lastExchangeAnswered = false
        let outage = Self.brokeAfterSending(error) || error.isConnectFailure
        return [.record(outage ? .outage(reason: error.summary, retryAfterMillis: nil) : .neutral)]
    }

    /// The breaker recorded the exchange. `holdMillis`: how long it holds requests back right after
    /// (`OutageBreaker.holdMillis`, read under the same lock; nil when it does not); `jitterMillis`:
    /// a draw of `Backoff.jitter()` for a repeat's wait.
    mutating func recorded(holdMillis: Int64?, jitterMillis: Int64) -> [Action] {
        guard case .recording(let result) = state else { preconditionFailure("SendAttempt.recorded in \(state)") }
        switch result {
        case .success(let response): return decide(response, holdMillis: holdMillis, jitterMillis: jitterMillis)
        case .failure(let error): return decide(error, jitterMillis: jitterMillis)
        }
    }

    /// The 429's slot in the recovery pacing is `slotNanos` away.
    mutating func slowedDown(slotNanos: UInt64) -> [Action] {
        guard case .slowingDown(let throttleWait) = state else { preconditionFailure("SendAttempt.slowedDown in \(state)") }
        let wait = max(throttleWait, Limits.millis(roundingUp: slotNanos))
        return [.log(.warning, "\(operation): throttled (429); retrying in \(wait) ms")] + sleep(wait, then: .admit)
    }

    // MARK: Decisions

    private mutating func decide(_ error: TransportError, jitterMillis: Int64) -> [Action] {
        if case .cannotConnect = error, !connectRetried {
            // The request was never sent: trying again once is safe for every method.
            connectRetried = true
            return [.log(.warning, "\(operation): \(error.summary); retrying once")]
                + sleep(Backoff.reconnect(jitter: jitterMillis), then: .pace)
        }
        if retry == .idempotent, serverRetries < Backoff.maxServerRetries, Self.brokeAfterSending(error) {
            serverRetries += 1
            let wait = Backoff.retry(attempt: serverRetries, jitter: jitterMillis)
            return [.log(.warning, "\(operation): \(error.summary); retry \(serverRetries) in \(wait) ms")]
                + sleep(wait, then: .pace)
        }
        // Every failure that reaches a callback is in the log too, with its request (issue 28).
        let log: [Action] =
            error == .cancelled ? [] : [.log(.warning, "\(request.logLabel) (\(operation)) failed: \(error.summary)")]
        return log + fail(.transport(error))
    }

    private mutating func decide(_ response: HTTPResponse, holdMillis: Int64?, jitterMillis: Int64) -> [Action] {
        let status = response.status
        let seen: [Action] = [
            .observeServerDate(response.header("Date")), .log(.debug, "\(request.method) \(operation) -> \(status)"),
        ]
        let failure = status >= 400 ? RequestExecutor.failure(from: response) : nil
        // A 5xx with Retry-After opened the outage breaker for that long: every call is held back
        // (Retry-After across calls). A call that may be repeated waits a short one out
        // (`inCallRetryAfterMillis`) and sends its request once more when the hold ends; a long
        // one, or a second one, is not repeated: the host gets its error now.
        let serverRetryAfter = status >= 500 ? Backoff.retryAfter(response) : nil
        let waitAcrossCalls = serverRetryAfter.map { $0 > inCallRetryAfterMillis || waitedRetryAfter } ?? false
        if status >= 400, status != 429, !waitAcrossCalls, actionRetries < Backoff.maxActionRetries,
            case .enhanced(let error, _) = failure, error.action == "retry" || error.action == "retry-after"
        {
            // Adobe says the call may succeed if repeated: bounded, exponential, with jitter.
            actionRetries += 1
            let wait =
                serverRetryAfter.map { holdAfter(retryAfter: $0, holdMillis: holdMillis) }
                ?? Backoff.retryAfter(response) ?? Backoff.retry(attempt: actionRetries, jitter: jitterMillis)
            let line = "\(operation): \(error.code) (action \(error.action ?? "")); retry \(actionRetries) in \(wait) ms"
            return seen + [.log(.warning, line)] + sleep(wait, then: .pace)
        }
        // (One budget with the `retry` actions above: at most three attempts in all.)
        if retry == .idempotent, status >= 500, !waitAcrossCalls, serverRetries + actionRetries < Backoff.maxServerRetries {
            serverRetries += 1
            let wait =
                serverRetryAfter.map { holdAfter(retryAfter: $0, holdMillis: holdMillis) }
                ?? Backoff.retry(attempt: serverRetries, jitter: jitterMillis)
            return seen + [.log(.warning, "\(operation): HTTP \(status); retry \(serverRetries) in \(wait) ms")]
                + sleep(wait, then: .pace)
        }
        guard status == 429 else {
            state = .finished
            guard let failure, !answers.contains(status) else { return seen + [.finish(response)] }
            // The flow names the failure to the host; the log names the request and Adobe's code.
            return seen + [
                .log(.warning, "\(request.logLabel) (\(operation)) -> HTTP \(status) \(failure.enhancedError.code)"),
                .finish(response),
            ]
        }
        guard throttled < Backoff.maxThrottleRetries else {
            return seen + [.log(.warning, "\(request.logLabel) (\(operation)) -> HTTP 429: still throttled after \(throttled) retries")]
                + fail(.throttled)
        }
        throttled += 1
        state = .slowingDown(throttleWaitMillis: Backoff.throttleWait(response))
        return seen + [.slowDown(recoveryMillis: Backoff.throttleRecoveryMillis)]
    }

    /// The wait before the one repeat of a call after a 5xx's short `Retry-After`: until the outage
    /// breaker's hold (which that answer opened: `Retry-After` plus up to a quarter) ends. Marks the
    /// call so that it repeats no second time, and its repeat so that it goes out then.
    private mutating func holdAfter(retryAfter: Int64, holdMillis: Int64?) -> Int64 {
        waitedRetryAfter = true
        repeatAtHoldEnd = true
        return holdMillis ?? retryAfter
    }

    /// A timeout or a broken exchange: worth repeating an idempotent call (not TLS, a too large
    /// answer or a cancellation, which a repeat would meet again).
    private static func brokeAfterSending(_ error: TransportError) -> Bool {
        switch error {
        case .timedOut, .failed: true
        case .cannotConnect, .tls, .bodyTooLarge, .cancelled: false
        }
    }

    private mutating func sleep(_ millis: Int64, then next: AfterSleep) -> [Action] {
        state = .sleeping(then: next)
        return [.sleep(millis: millis)]
    }

    private mutating func admit() -> [Action] {
        state = .admitting
        return [.admit]
    }

    private mutating func fail(_ error: ServiceError) -> [Action] {
        state = .finished
        return [.fail(error)]
    }
}
