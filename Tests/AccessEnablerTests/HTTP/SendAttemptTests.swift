// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// The send policy (docs/OUTAGE.md, `Backoff`) without transport, clock or locks: one row per rule.
/// A row scripts what the world answers (the transport, the pacing, the outage breaker, the task's
/// cancellation) and lists the actions `SendAttempt` takes, in order, as `RequestExecutor.send`
/// would perform them. The jitter is always 100 ms: a first repeat waits 500 + 100 ms, a second
/// 1000 + 100 ms, a reconnect 250 + 100 ms.
@Suite struct SendAttemptTests {
    /// One rule: the world's script and the trace it must produce.
    struct Row: Sendable, CustomTestStringConvertible {
        var rule: String
        var retry: RequestExecutor.Retry = .standard
        var answers: Set<Int> = []
        var request = HTTPRequest(method: "GET", url: "https://sp.auth.example/api/v2/REF/decisions?x=1")
        /// The longest 5xx Retry-After waited out within the call.
        var inCallRetryAfterMillis: Int64 = Backoff.maxInCallRetryAfterMillis
        /// What each `send` meets, in order (every one must be used).
        var exchanges: [Result<HTTPResponse, TransportError>] = []
        /// The breaker's verdict for each `admit` (`.send` once they are used up).
        var verdicts: [OutageBreaker.Verdict] = []
        /// The breaker's hold after each `record` (nil once they are used up).
        var holds: [Int64?] = []
        /// The wait of each pacing slot, then of each 429's recovery slot, in nanoseconds (0 once
        /// they are used up).
        var pacing: [UInt64] = []
        var slots: [UInt64] = []
        /// The task counts as cancelled once this many sleeps have ended (0: from the start).
        var cancelledAfterSleeps: Int?
        var trace: [String]

        var testDescription: String { rule }
    }

    static let jitter: Int64 = 100
    static let label = "GET sp.auth.example/api/v2/REF/decisions"

    static func answer(
        _ status: Int, retryAfter: String? = nil, code: String? = nil, action: String? = nil, date: String? = nil
    ) -> Result<HTTPResponse, TransportError> {
        var headers: [(name: String, value: String)] = []
        if let retryAfter { headers.append(("Retry-After", retryAfter)) }
        if let date { headers.append(("Date", date)) }
        guard let code else { return .success(HTTPResponse(status: status, headers: headers)) }
        headers.append(("Content-Type", "application/json"))
        let body = "{\"status\": \(status), \"code\": \"\(code)\"" + (action.map { ", \"action\": \"\($0)\"" } ?? "") + "}"
        return .success(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
    }

    /// Adobe's 503 whose enhanced error says `retry` (the emulator's outage answer).
    static func retry503(retryAfter: String? = nil) -> Result<HTTPResponse, TransportError> {
        answer(503, retryAfter: retryAfter, code: "internal_server_error", action: "retry")
    }

    /// A request going out and its answer recorded.
    static func sent(_ status: Int, _ outcome: String, admit: String = "send") -> [String] {
        ["pace", "admit -> \(admit)", "send -> \(status)", "record \(outcome)", "debug: GET decision -> \(status)"]
    }

    static func failedExchange(_ error: String, _ outcome: String) -> [String] {
        ["pace", "admit -> send", "send -> \(error)", "record \(outcome)"]
    }

    static let outage503 = "outage(HTTP 503, 503)"

    static let rows: [Row] = [
        Row(
            rule: "an answer goes out paced and admitted, and is the call's result",
            exchanges: [answer(200, date: "Sat, 28 Nov 2026 03:00:00 GMT")],
            trace: [
                "pace", "admit -> send", "send -> 200", "record answered", "server date Sat, 28 Nov 2026 03:00:00 GMT",
                "debug: GET decision -> 200", "finish 200",
            ]),
        Row(
            rule: "a pacing wait is slept a tenth longer, rounded up, then the request goes out",
            exchanges: [answer(200)], pacing: [1_000_000_001],
            trace: ["pace", "sleep 1101", "admit -> send", "send -> 200", "record answered", "debug: GET decision -> 200", "finish 200"]),
        Row(
            rule: "a request that cannot be framed safely is not sent",
            request: HTTPRequest(method: "GET", url: "https://x/a", headers: [("AP-Visitor-Identifier", "a\r\nX: 1")]),
            trace: [
                "error: decision: not sent: header AP-Visitor-Identifier contains a control character",
                "fail transport: not sent: header AP-Visitor-Identifier contains a control character",
            ]),

        // Connections that cannot be made: never sent, so tried again once whatever the call.
        Row(
            rule: "a refused connection is tried again once, for any call",
            exchanges: [.failure(.cannotConnect("refused")), answer(200)],
            trace: failedExchange("cannot connect (refused)", "outage(cannot connect (refused), 0)") + [
                "warning: decision: cannot connect (refused); retrying once", "sleep 350",
            ] + sent(200, "answered") + ["finish 200"]),
        Row(
            rule: "a second refused connection fails the call, logged with its request",
            retry: .idempotent, exchanges: [.failure(.cannotConnect("refused")), .failure(.cannotConnect("refused"))],
            trace: failedExchange("cannot connect (refused)", "outage(cannot connect (refused), 0)") + [
                "warning: decision: cannot connect (refused); retrying once", "sleep 350",
            ] + failedExchange("cannot connect (refused)", "outage(cannot connect (refused), 0)") + [
                "warning: \(label) (decision) failed: cannot connect (refused)", "fail transport: cannot connect (refused)",
            ]),

        // Exchanges that broke after the request went out: repeated by an idempotent call only.
        Row(
            rule: "a broken exchange of a standard call is not repeated",
            exchanges: [.failure(.failed("connection reset"))],
            trace: failedExchange("connection reset", "outage(connection reset, 0)") + [
                "warning: \(label) (decision) failed: connection reset", "fail transport: connection reset",
            ]),
        Row(
            rule: "an idempotent call repeats a timeout or a broken exchange up to Backoff.maxServerRetries times",
            retry: .idempotent, exchanges: [.failure(.timedOut), .failure(.failed("connection reset")), .failure(.timedOut)],
            trace: failedExchange("timed out", "outage(timed out, 0)") + [
                "warning: decision: timed out; retry 1 in 600 ms", "sleep 600",
            ] + failedExchange("connection reset", "outage(connection reset, 0)") + [
                "warning: decision: connection reset; retry 2 in 1100 ms", "sleep 1100",
            ] + failedExchange("timed out", "outage(timed out, 0)") + [
                "warning: \(label) (decision) failed: timed out", "fail transport: timed out",
            ]),
        Row(
            rule: "a too large answer says nothing about Adobe and is not repeated, even by an idempotent call",
            retry: .idempotent, exchanges: [.failure(.bodyTooLarge(limit: 10))],
            trace: failedExchange("answer larger than 10 bytes", "neutral") + [
                "warning: \(label) (decision) failed: answer larger than 10 bytes",
                "fail transport: answer larger than 10 bytes",
            ]),

        // 5xx.
        Row(
            rule: "a standard call's 5xx without a retry action is its answer, logged as a failure",
            exchanges: [answer(500)],
            trace: sent(500, "outage(HTTP 500, 500)") + ["warning: \(label) (decision) -> HTTP 500 http_500", "finish 500"]),
        Row(
            rule: "an idempotent call repeats a 5xx up to Backoff.maxServerRetries times",
            retry: .idempotent, exchanges: [answer(503), answer(502), answer(500)],
            trace: sent(503, outage503) + ["warning: decision: HTTP 503; retry 1 in 600 ms", "sleep 600"]
                + sent(502, "outage(HTTP 502, 502)") + ["warning: decision: HTTP 502; retry 2 in 1100 ms", "sleep 1100"]
                + sent(500, "outage(HTTP 500, 500)") + ["warning: \(label) (decision) -> HTTP 500 http_500", "finish 500"]),

        // Adobe's enhanced errors that say `retry` / `retry-after`.
        Row(
            rule: "an answer whose action is retry is repeated up to Backoff.maxActionRetries times",
            exchanges: [retry503(), retry503(), retry503()],
            trace: sent(503, outage503)
                + ["warning: decision: internal_server_error (action retry); retry 1 in 600 ms", "sleep 600"]
                + sent(503, outage503)
                + ["warning: decision: internal_server_error (action retry); retry 2 in 1100 ms", "sleep 1100"]
                + sent(503, outage503)
                + ["warning: \(label) (decision) -> HTTP 503 internal_server_error", "finish 503"]),
        Row(
            rule: "a 4xx whose action is retry-after waits its Retry-After",
            exchanges: [answer(400, retryAfter: "3", code: "too_early", action: "retry-after"), answer(200)],
            trace: sent(400, "answered")
                + ["warning: decision: too_early (action retry-after); retry 1 in 3000 ms", "sleep 3000"]
                + sent(200, "answered") + ["finish 200"]),
        Row(
            rule: "an idempotent call's 5xx repeats and retry actions share one budget: three attempts in all",
            retry: .idempotent, exchanges: [retry503(), answer(503), answer(503)],
            trace: sent(503, outage503)
                + ["warning: decision: internal_server_error (action retry); retry 1 in 600 ms", "sleep 600"]
                + sent(503, outage503) + ["warning: decision: HTTP 503; retry 1 in 600 ms", "sleep 600"]
                + sent(503, outage503) + ["warning: \(label) (decision) -> HTTP 503 http_503", "finish 503"]),

        // A 5xx's Retry-After: it opened the breaker; a short one is waited out once, within the call.
        Row(
            rule: "a short 5xx Retry-After is waited out until the hold ends, and the repeat goes out even while the breaker holds",
            retry: .idempotent, exchanges: [answer(503, retryAfter: "1"), answer(200)],
            verdicts: [.send, .holdBack(retryInMillis: 0, reason: "HTTP 503", httpStatus: 503)], holds: [1_250],
            trace: sent(503, "outage(HTTP 503, 503, retry-after 1000 ms)")
                + ["warning: decision: HTTP 503; retry 1 in 1250 ms", "sleep 1250"]
                + sent(200, "answered", admit: "hold back 0 ms") + ["finish 200"]),
        Row(
            rule: "a retry action's 5xx with a short Retry-After waits the hold out (the Retry-After when the breaker holds no more)",
            exchanges: [retry503(retryAfter: "1"), answer(200)],
            trace: sent(503, "outage(HTTP 503, 503, retry-after 1000 ms)")
                + ["warning: decision: internal_server_error (action retry); retry 1 in 1000 ms", "sleep 1000"]
                + sent(200, "answered") + ["finish 200"]),
        Row(
            rule: "a second short 5xx Retry-After in one call is not waited for: the answer ends the call",
            retry: .idempotent, exchanges: [answer(503, retryAfter: "1"), answer(503, retryAfter: "1")], holds: [1_250, 1_250],
            trace: sent(503, "outage(HTTP 503, 503, retry-after 1000 ms)")
                + ["warning: decision: HTTP 503; retry 1 in 1250 ms", "sleep 1250"]
                + sent(503, "outage(HTTP 503, 503, retry-after 1000 ms)")
                + ["warning: \(label) (decision) -> HTTP 503 http_503", "finish 503"]),
        Row(
            rule: "a long 5xx Retry-After is not waited for: the answer ends the call",
            retry: .idempotent, exchanges: [retry503(retryAfter: "6")], holds: [7_000],
            trace: sent(503, "outage(HTTP 503, 503, retry-after 6000 ms)")
                + ["warning: \(label) (decision) -> HTTP 503 internal_server_error", "finish 503"]),
        Row(
            rule: "a 5xx Retry-After longer than the request timeout is long",
            retry: .idempotent, inCallRetryAfterMillis: 1_500, exchanges: [answer(503, retryAfter: "2")],
            trace: sent(503, "outage(HTTP 503, 503, retry-after 2000 ms)")
                + ["warning: \(label) (decision) -> HTTP 503 http_503", "finish 503"]),

        // The outage breaker.
        Row(
            rule: "while the breaker holds, the call fails at once with .unavailable and sends nothing",
            verdicts: [.holdBack(retryInMillis: 1_500, reason: "HTTP 503", httpStatus: 503)],
            trace: [
                "pace", "admit -> hold back 1500 ms", "info: decision: not sent, Adobe is failing (HTTP 503); next attempt in 1500 ms",
                "fail unavailable: 1500 ms, HTTP 503, 503",
            ]),

        // 429: Adobe's throttle.
        Row(
            rule: "a 429 waits its Retry-After or its recovery slot, whichever is later, and goes out without pacing again",
            exchanges: [answer(429, retryAfter: "2"), answer(429), answer(200)], slots: [3_000_000_001, 0],
            trace: sent(429, "answered")
                + ["slow down for 10000 ms", "warning: decision: throttled (429); retrying in 3001 ms", "sleep 3001"]
                + Array(sent(429, "answered").dropFirst())
                + ["slow down for 10000 ms", "warning: decision: throttled (429); retrying in 1000 ms", "sleep 1000"]
                + Array(sent(200, "answered").dropFirst()) + ["finish 200"]),
        Row(
            rule: "a 429 is repeated Backoff.maxThrottleRetries times, then the call fails with .throttled",
            exchanges: Array(repeating: answer(429), count: Backoff.maxThrottleRetries + 1),
            trace: sent(429, "answered")
                + (0..<Backoff.maxThrottleRetries).flatMap { _ in
                    ["slow down for 10000 ms", "warning: decision: throttled (429); retrying in 1000 ms", "sleep 1000"]
                        + Array(sent(429, "answered").dropFirst())
                }
                + ["warning: \(label) (decision) -> HTTP 429: still throttled after 10 retries", "fail throttled"]),

        // Cancellation.
        Row(
            rule: "a call cancelled before its request goes out sends nothing",
            exchanges: [], cancelledAfterSleeps: 0, trace: ["pace", "fail transport: cancelled"]),
        Row(
            rule: "a pacing wait is slept out before the cancellation is seen",
            pacing: [1_000_000], cancelledAfterSleeps: 0, trace: ["pace", "sleep 2", "fail transport: cancelled"]),
        Row(
            rule: "a call cancelled during a wait before a repeat does not repeat",
            exchanges: [.failure(.cannotConnect("refused"))], cancelledAfterSleeps: 1,
            trace: failedExchange("cannot connect (refused)", "outage(cannot connect (refused), 0)") + [
                "warning: decision: cannot connect (refused); retrying once", "sleep 350", "fail transport: cancelled",
            ]),
        Row(
            rule: "a cancelled exchange says nothing about Adobe and is not logged as a failure",
            retry: .idempotent, exchanges: [.failure(.cancelled)],
            trace: failedExchange("cancelled", "neutral") + ["fail transport: cancelled"]),

        // Error statuses that are answers.
        Row(
            rule: "an error status the operation answers with is not logged as a failure",
            answers: [404], exchanges: [answer(404, code: "no_token")],
            trace: sent(404, "answered") + ["finish 404"]),
        Row(
            rule: "any other error status is logged with its request and Adobe's code",
            answers: [404], exchanges: [answer(403, code: "authorization_denied_by_mvpd")],
            trace: sent(403, "answered")
                + ["warning: \(label) (decision) -> HTTP 403 authorization_denied_by_mvpd", "finish 403"]),
    ]

    @Test(arguments: rows)
    func theSendPolicy(_ row: Row) {
        #expect(Self.run(row) == row.trace)
    }

    /// Why each repeat was made (`ae.http.retries`' reasons, docs/METRICS.md), rule by rule.
    static let retryReasons: [(rule: String, reasons: [String])] = [
        ("an answer goes out paced and admitted, and is the call's result", []),
        ("a refused connection is tried again once, for any call", ["connect"]),
        ("an idempotent call repeats a timeout or a broken exchange up to Backoff.maxServerRetries times", ["broken", "broken"]),
        ("an idempotent call repeats a 5xx up to Backoff.maxServerRetries times", ["5xx", "5xx"]),
        ("an answer whose action is retry is repeated up to Backoff.maxActionRetries times", ["adobe_action", "adobe_action"]),
        (
            "a short 5xx Retry-After is waited out until the hold ends, and the repeat goes out even while the breaker holds",
            ["retry_after"]
        ),
        (
            "a 429 is repeated Backoff.maxThrottleRetries times, then the call fails with .throttled",
            Array(repeating: "429", count: Backoff.maxThrottleRetries)
        ),
    ]

    @Test(arguments: retryReasons.indices)
    func eachRepeatHasItsReason(_ index: Int) throws {
        let (rule, expected) = Self.retryReasons[index]
        let row = try #require(Self.rows.first { $0.rule == rule }, "no row \(rule)")
        var reasons: [String] = []
        _ = Self.run(row, reasons: &reasons)
        #expect(reasons == expected, "\(rule)")
    }

    /// Plays `RequestExecutor.send` against the row's script; returns the actions as text.
    static func run(_ row: Row) -> [String] {
        var reasons: [String] = []
        return run(row, reasons: &reasons)
    }

    /// `run`, also collecting the reason of each repeat (`SendAttempt.retryReason`), as the executor counts them.
    static func run(_ row: Row, reasons: inout [String]) -> [String] {
        var attempt = SendAttempt(
            row.request, operation: "decision", retry: row.retry, answers: row.answers,
            inCallRetryAfterMillis: row.inCallRetryAfterMillis)
        var exchanges = row.exchanges[...]
        var verdicts = row.verdicts[...]
        var holds = row.holds[...]
        var pacing = row.pacing[...]
        var slots = row.slots[...]
        var sleeps = 0
        var trace: [String] = []
        func cancelled() -> Bool { row.cancelledAfterSleeps.map { sleeps >= $0 } ?? false }
        var actions = attempt.start()
        while !actions.isEmpty, trace.count < 1_000 {
            switch actions.removeFirst() {
            case .reservePacingSlot:
                trace.append("pace")
                actions = attempt.paced(waitNanos: pacing.popFirst() ?? 0, cancelled: cancelled())
            case .sleep(let millis):
                trace.append("sleep \(millis)")
                sleeps += 1
                actions = attempt.slept(cancelled: cancelled())
            case .admit:
                let verdict = verdicts.popFirst() ?? .send
                if case .holdBack(let retryIn, _, _) = verdict {
                    trace.append("admit -> hold back \(retryIn) ms")
                } else {
                    trace.append("admit -> send")
                }
                actions = attempt.admitted(verdict)
            case .send:
                switch exchanges.popFirst() {
                case .success(let response):
                    trace.append("send -> \(response.status)")
                    actions = attempt.answered(response)
                case .failure(let error):
                    trace.append("send -> \(error.summary)")
                    actions = attempt.failed(error)
                case nil:
                    Issue.record("a request more than the script has")
                    return trace
                }
            case .record(let outcome):
                trace.append("record \(describe(outcome))")
                let before = attempt.retryCounts
                actions = attempt.recorded(holdMillis: holds.popFirst() ?? nil, jitterMillis: jitter)
                if let reason = attempt.retryReason(since: before) { reasons.append(reason) }
            case .observeServerDate(let date):
                if let date { trace.append("server date \(date)") }
            case .slowDown(let millis):
                trace.append("slow down for \(millis) ms")
                actions = attempt.slowedDown(slotNanos: slots.popFirst() ?? 0)
            case .log(let level, let message):
                trace.append("\(level): \(message)")
            case .finish(let response):
                trace.append("finish \(response.status)")
                #expect(actions.isEmpty)
            case .fail(let error):
                trace.append("fail \(describe(error))")
                #expect(actions.isEmpty)
            }
        }
        guard case .finished = attempt.state else {
            Issue.record("the call did not end: \(attempt.state)")
            return trace
        }
        #expect(exchanges.isEmpty, "requests the call did not send")
        return trace
    }

    static func describe(_ outcome: OutageBreaker.Outcome) -> String {
        switch outcome {
        case .answered: "answered"
        case .neutral: "neutral"
        case .outage(let reason, let status, let retryAfter):
            "outage(\(reason), \(status)\(retryAfter.map { ", retry-after \($0) ms" } ?? ""))"
        }
    }

    static func describe(_ error: ServiceError) -> String {
        switch error {
        case .transport(let error): "transport: \(error.summary)"
        case .throttled: "throttled"
        case .unavailable(let retryIn, let reason, let status): "unavailable: \(retryIn) ms, \(reason), \(status)"
        default: "\(error)"
        }
    }
}

/// `RequestExecutor.send` performs the machine's actions: its log lines, waits and requests.
@Suite struct SendDriverTests {
    private final class Script: HTTPTransport, @unchecked Sendable {
        let answers: Locked<[Result<HTTPResponse, TransportError>]>
        let sent = Locked(0)
        init(_ answers: [Result<HTTPResponse, TransportError>]) { self.answers = Locked(answers) }
        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            sent.withLock { $0 += 1 }
            let answer = answers.withLock { $0.isEmpty ? .success(HTTPResponse(status: 200)) : $0.removeFirst() }
            return try answer.get()
        }
        func shutdown() {}
    }

    private final class Sleeps: WallClock, @unchecked Sendable {
        let slept = Locked<[Int64]>([])
        func nowMillis() -> Int64 { 0 }
        func sleep(millis: Int64) async { slept.withLock { $0.append(millis) } }
    }

    /// A refused connection, a 429 and a `retry` action, then the answer: every line of the log.
    @Test func theExecutorLogsWaitsAndSendsAsTheMachineSays() async throws {
        let lines = Locked<[String]>([])
        let logger = Logger(maxLevel: .debug) { level, text in lines.withLock { $0.append("\(level): \(text)") } }
        let transport = Script([
            .failure(.cannotConnect("refused")), SendAttemptTests.answer(429, retryAfter: "2"), SendAttemptTests.retry503(),
        ])
        let clock = Sleeps()
        let executor = RequestExecutor(transport: transport, requestsPerSecond: 0, logger: logger, clock: clock)
        let request = HTTPRequest(method: "GET", url: "https://sp.auth.example/api/v2/REF/decisions")
        #expect(try await executor.send(request, operation: "decision").status == 200)
        #expect(transport.sent.withLock { $0 } == 4)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 6)
        #expect(logged.first == "warning: decision: cannot connect (refused); retrying once")
        #expect(
            Array(logged.dropFirst().prefix(3)) == [
                "debug: GET decision -> 429", "warning: decision: throttled (429); retrying in 2000 ms",
                "debug: GET decision -> 503",
            ])
        #expect(logged[4].hasPrefix("warning: decision: internal_server_error (action retry); retry 1 in "))
        #expect(Array(logged.suffix(1)) == ["debug: GET decision -> 200"])
        // The reconnect, the 429's Retry-After (the recovery pacing's first slot is free), the
        // retry action's backoff, then the recovery pacing's next slot (a second, a tenth longer).
        let slept = clock.slept.withLock { $0 }
        #expect(slept.count == 4 && slept[1] == 2_000)
        #expect((250...500).contains(slept[0]))
        #expect((500...750).contains(slept[2]))
        #expect((1...1_100).contains(slept[3]))
    }
}
