// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The outage breaker: the machine state × event, then the executor that consults it.
@Suite struct OutageBreakerTests {
    private static let second: UInt64 = 1_000_000_000
    private static let outage = OutageBreaker.Outcome.outage(reason: "HTTP 503", httpStatus: 503)

    /// Draws the ceiling each time (the longest wait full jitter can pick), recording the ceilings.
    private final class Ceilings: @unchecked Sendable {
        var asked: [Int64] = []
        func draw(_ upper: Int64) -> Int64 { asked.append(upper); return upper }
    }

    @Test func oneFailedCallsAttemptsOpenItAndASuccessInBetweenStartsTheCountAgain() {
        var breaker = OutageBreaker()
        let ceilings = Ceilings()
        breaker.record(Self.outage, nowNanos: 0, random: ceilings.draw)
        breaker.record(Self.outage, nowNanos: 0, random: ceilings.draw)
        breaker.record(.answered, nowNanos: 0, random: ceilings.draw)
        #expect(breaker.state == .closed(failures: 0))
        for _ in 1..<OutageBreaker.threshold { breaker.record(Self.outage, nowNanos: 0, random: ceilings.draw) }
        #expect(breaker.admit(nowNanos: 0) == .send)
        breaker.record(Self.outage, nowNanos: 0, random: ceilings.draw)
        #expect(ceilings.asked == [Backoff.outageFirstMillis])
        #expect(breaker.admit(nowNanos: 1) == .holdBack(retryInMillis: 2_000, reason: "HTTP 503", httpStatus: 503))
    }

    @Test func whileOpenNothingIsSentThenOneProbeGoesOutAlone() {
        var breaker = OutageBreaker()
        for _ in 0..<OutageBreaker.threshold { breaker.record(Self.outage, nowNanos: 0, random: { $0 }) }
        #expect(breaker.admit(nowNanos: Self.second) == .holdBack(retryInMillis: 1_000, reason: "HTTP 503", httpStatus: 503))
        #expect(breaker.admit(nowNanos: 2 * Self.second) == .send)
        #expect(breaker.state == .probing(openings: 1))
        // The probe is out: everyone else waits for its answer.
        #expect(breaker.admit(nowNanos: 2 * Self.second) == .holdBack(retryInMillis: 0, reason: "HTTP 503", httpStatus: 503))
        breaker.record(.answered, nowNanos: 3 * Self.second)
        #expect(breaker.state == .closed(failures: 0))
        #expect(breaker.admit(nowNanos: 3 * Self.second) == .send)
    }

    @Test func eachFailedProbeDoublesTheCeilingUpToItsMaximum() {
        var breaker = OutageBreaker()
        let ceilings = Ceilings()
        var now: UInt64 = 0
        for _ in 0..<OutageBreaker.threshold { breaker.record(Self.outage, nowNanos: now, random: ceilings.draw) }
        for _ in 0..<8 {
            now += 60 * Self.second
            #expect(breaker.admit(nowNanos: now) == .send)
            breaker.record(.outage(reason: "cannot connect", retryAfterMillis: nil), nowNanos: now, random: ceilings.draw)
        }
        #expect(ceilings.asked == [2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000, 30_000])
        #expect(breaker.reason == "cannot connect")
        // Full jitter: a draw of 0 lets the next request probe at once.
        breaker.record(.answered, nowNanos: now)
        for _ in 0..<OutageBreaker.threshold { breaker.record(Self.outage, nowNanos: now, random: { _ in 0 }) }
        #expect(breaker.admit(nowNanos: now) == .send)
    }

    @Test func retryAfterOnA5xxOpensAtOnceForThatLongPlusAtMostAQuarter() {
        var breaker = OutageBreaker()
        breaker.record(.outage(reason: "HTTP 503", httpStatus: 503, retryAfterMillis: 20_000), nowNanos: 0, random: { $0 })
        #expect(breaker.admit(nowNanos: 0) == .holdBack(retryInMillis: 25_000, reason: "HTTP 503", httpStatus: 503))
        #expect(breaker.admit(nowNanos: 25 * Self.second) == .send)
    }

    @Test func lateFailuresOfConcurrentRequestsDoNotLengthenTheDraw() {
        var breaker = OutageBreaker()
        let ceilings = Ceilings()
        for _ in 0..<OutageBreaker.threshold + 4 { breaker.record(Self.outage, nowNanos: 0, random: ceilings.draw) }
        #expect(ceilings.asked == [Backoff.outageFirstMillis])
    }

    @Test func cancelledOrTLSExchangesSayNothingAboutAdobeButFreeTheProbe() {
        var breaker = OutageBreaker()
        breaker.record(.neutral, nowNanos: 0)
        #expect(breaker.state == .closed(failures: 0))
        for _ in 0..<OutageBreaker.threshold { breaker.record(Self.outage, nowNanos: 0, random: { _ in 1_000 }) }
        #expect(breaker.admit(nowNanos: Self.second) == .send)
        breaker.record(.neutral, nowNanos: Self.second)
        #expect(breaker.state == .open(untilNanos: Self.second, openings: 1))
        #expect(breaker.admit(nowNanos: Self.second) == .send)
    }

    // MARK: The executor

    private struct NoWaits: WallClock {
        func nowMillis() -> Int64 { 0 }
        func sleep(millis: Int64) async {}
    }

    private final class Scripted: HTTPTransport, @unchecked Sendable {
        let statuses: Locked<[Int]>
        let sent = Locked(0)
        init(_ statuses: [Int]) { self.statuses = Locked(statuses) }
        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            sent.withLock { $0 += 1 }
            let status = statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            if status == 0 { throw .cannotConnect("Connection refused") }
            return HTTPResponse(status: status, headers: [], body: [])
        }
        func shutdown() {}
    }

    /// A decision call that failed three times opens the breaker: the next call is held back at
    /// once with a named error and sends nothing; after the draw a probe goes out and its success
    /// closes the breaker.
    @Test func theExecutorHoldsCallsBackWhileOpenAndProbesAfterTheDraw() async throws {
        let now = Locked<UInt64>(0)
        let transport = Scripted([0, 0, 503])
        let executor = RequestExecutor(
            transport: transport, requestsPerSecond: 0, logger: .silent, clock: NoWaits(),
            monotonic: { now.withLock { $0 } }, draw: { _ in 1_500 })
        let request = HTTPRequest(method: "GET", url: "https://x/a")
        // First call: refused, retried once, refused (two outage answers); second: a 503.
        await #expect(throws: ServiceError.self) { try await executor.send(request, operation: "a") }
        let second = try await executor.send(request, operation: "b")
        #expect(second.status == 503)
        #expect(transport.sent.withLock { $0 } == 3)
        do {
            _ = try await executor.send(request, operation: "c")
            Issue.record("not held back")
        } catch {
            guard case .unavailable(let retryIn, let reason, let status) = error else { throw error }
            #expect(retryIn == 1_500 && reason == "HTTP 503" && status == 503)
            #expect(error.enhancedError.code == "service_unavailable")
            #expect(error.enhancedError.message?.contains("sends again in 2 s") == true)
        }
        #expect(transport.sent.withLock { $0 } == 3)
        now.withLock { $0 = 1_500_000_000 }
        #expect(try await executor.send(request, operation: "d").status == 200)
        #expect(executor.outageBreaker.state == .closed(failures: 0))
        #expect(transport.sent.withLock { $0 } == 4)
    }

    /// A clock whose sleeps advance the breaker's monotonic time; records them.
    private final class Advancing: WallClock, @unchecked Sendable {
        let now = Locked<UInt64>(0)
        let slept = Locked<[Int64]>([])
        func nowMillis() -> Int64 { Int64(now.withLock { $0 } / 1_000_000) }
        func sleep(millis: Int64) async {
            slept.withLock { $0.append(millis) }
            now.withLock { $0 += UInt64(max(millis, 0)) * 1_000_000 }
        }
    }

    /// Answers each request with the next (status, Retry-After seconds) of its script, then 200.
    private final class RetryAfterScript: HTTPTransport, @unchecked Sendable {
        let answers: Locked<[(Int, String?)]>
        let sent = Locked(0)
        init(_ answers: [(Int, String?)]) { self.answers = Locked(answers) }
        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            sent.withLock { $0 += 1 }
            let (status, retryAfter) = answers.withLock { $0.isEmpty ? (200, nil) : $0.removeFirst() }
            return HTTPResponse(status: status, headers: retryAfter.map { [("Retry-After", $0)] } ?? [], body: [])
        }
        func shutdown() {}
    }

    private func executor(_ transport: RetryAfterScript, _ clock: Advancing, timeout: Int = 30_000) -> RequestExecutor {
        RequestExecutor(
            transport: transport, requestsPerSecond: 0, logger: .silent, clock: clock, requestTimeoutMillis: timeout,
            monotonic: { clock.now.withLock { $0 } }, draw: { $0 })
    }

    /// An idempotent call (DCR's token) answered 503 with `Retry-After: 1`: the call waits out the
    /// breaker's hold (1 s plus at most a quarter: the draw here takes it all) and sends once more;
    /// that answer closes the breaker.
    @Test func aShortRetryAfterOnA5xxIsWaitedOutWithinTheCallAndTheRequestRepeatedOnce() async throws {
        let clock = Advancing()
        let transport = RetryAfterScript([(503, "1")])
        let executor = executor(transport, clock)
        let request = HTTPRequest(method: "POST", url: "https://x/o/client/token")
        #expect(try await executor.send(request, operation: "token", retry: .idempotent).status == 200)
        #expect(transport.sent.withLock { $0 } == 2)
        #expect(clock.slept.withLock { $0 } == [1_250])
        #expect(executor.outageBreaker.state == .closed(failures: 0))
    }

    /// Only once per call: a second 503 with Retry-After ends the call with that answer, and the
    /// breaker holds the next call back.
    @Test func aSecondRetryAfterInTheSameCallIsNotWaitedFor() async throws {
        let clock = Advancing()
        let transport = RetryAfterScript([(503, "1"), (503, "1")])
        let executor = executor(transport, clock)
        let request = HTTPRequest(method: "POST", url: "https://x/o/client/token")
        #expect(try await executor.send(request, operation: "token", retry: .idempotent).status == 503)
        #expect(transport.sent.withLock { $0 } == 2)
        await #expect(throws: ServiceError.self) { try await executor.send(request, operation: "token", retry: .idempotent) }
        #expect(transport.sent.withLock { $0 } == 2)
    }

    /// A Retry-After longer than the call's budget (5 s, or the request timeout when shorter) is not
    /// waited for: the call ends at once with the 503, and the breaker holds the next call back
    /// without a request.
    @Test(arguments: [("6", 30_000), ("2", 1_500)])
    func aLongRetryAfterFailsTheCallAtOnceAndTheBreakerHolds(retryAfter: String, timeout: Int) async throws {
        let clock = Advancing()
        let transport = RetryAfterScript([(503, retryAfter)])
        let executor = executor(transport, clock, timeout: timeout)
        let request = HTTPRequest(method: "POST", url: "https://x/o/client/token")
        #expect(try await executor.send(request, operation: "token", retry: .idempotent).status == 503)
        #expect(clock.slept.withLock { $0 }.isEmpty)
        do {
            _ = try await executor.send(request, operation: "token", retry: .idempotent)
            Issue.record("not held back")
        } catch {
            guard case .unavailable(_, "HTTP 503", 503) = error else { throw error }
        }
        #expect(transport.sent.withLock { $0 } == 1)
    }

    /// A call that is not repeatable (no `retry` action, not idempotent) is not repeated after a
    /// short Retry-After either: the host gets the 503, and the breaker holds.
    @Test func aCallThatIsNotRepeatableIsNotRepeatedAfterAShortRetryAfter() async throws {
        let clock = Advancing()
        let transport = RetryAfterScript([(503, "1")])
        let executor = executor(transport, clock)
        let request = HTTPRequest(method: "GET", url: "https://x/decisions")
        #expect(try await executor.send(request, operation: "decision").status == 503)
        #expect(transport.sent.withLock { $0 } == 1 && clock.slept.withLock { $0 }.isEmpty)
    }
}
