// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The one retry policy.
@Suite struct BackoffTests {
    @Test func theCurveDoublesFromHalfASecondUpTo8Seconds() {
        for (attempt, base) in [(1, Int64(500)), (2, 1_000), (3, 2_000), (4, 4_000), (5, 8_000), (9, 8_000), (0, 500)] {
            #expect(Backoff.baseMillis(attempt: attempt) == base)
            for _ in 0..<20 { #expect((base...base + 250).contains(Backoff.retry(attempt: attempt)), "attempt \(attempt)") }
        }
        for _ in 0..<20 {
            #expect((500...750).contains(Backoff.itemRetry(attempt: 1)))
            #expect((1_000...1_250).contains(Backoff.itemRetry(attempt: 2)))
            #expect((250...500).contains(Backoff.reconnect()))
        }
    }

    /// The outage breaker's curve: full jitter under a ceiling that doubles per opening from 2 s up
    /// to 30 s; after a 5xx's Retry-After, that long plus up to a quarter more.
    @Test func theOutageHoldIsFullJitterUnderADoublingCeilingOrRetryAfterPlusAQuarter() {
        #expect((1...8).map(Backoff.outageCeiling(opening:)) == [2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000])
        #expect(Backoff.outageCeiling(opening: 0) == 2_000 && Backoff.outageCeiling(opening: .max) == 30_000)
        var asked: [Int64] = []
        func hold(_ opening: Int, _ retryAfter: Int64?, drawing answer: (Int64) -> Int64) -> Int64 {
            Backoff.outageHold(opening: opening, retryAfterMillis: retryAfter) {
                asked.append($0); return answer($0)
            }
        }
        #expect(hold(3, nil) { _ in 123 } == 123)
        #expect(hold(1, 0) { $0 } == 2_000)
        #expect(hold(1, 20_000) { $0 } == 25_000)
        #expect(hold(9, 1_000) { _ in 0 } == 1_000)
        #expect(asked == [8_000, 2_000, 5_000, 250])
        for _ in 0..<50 {
            #expect((0...2_000).contains(Backoff.outageHold(opening: 1, retryAfterMillis: nil) { Int64.random(in: 0...$0) }))
        }
    }

    /// A request that could not connect is sent again after the policy's wait, slept on the
    /// executor's clock.
    @Test func theExecutorWaitsOnItsClock() async throws {
        final class FailsOnce: HTTPTransport, @unchecked Sendable {
            let calls = Locked(0)
            func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
                if calls.withLock({
                    $0 += 1; return $0
                }) == 1 {
                    throw .cannotConnect("refused")
                }
                return HTTPResponse(status: 200, headers: [], body: [])
            }
            func shutdown() {}
        }
        let clock = ManualClock(0)
        let transport = FailsOnce()
        let executor = RequestExecutor(transport: transport, requestsPerSecond: 0, logger: .silent, clock: clock)
        let sending = Task { try await executor.send(HTTPRequest(method: "GET", url: "https://x/a"), operation: "test") }
        await untilSleeping(clock)
        #expect(transport.calls.withLock { $0 } == 1)
        clock.advance(Backoff.reconnectMillis + Backoff.jitterMillis.upperBound)
        #expect(try await sending.value.status == 200)
        #expect(transport.calls.withLock { $0 } == 2)
    }
}
