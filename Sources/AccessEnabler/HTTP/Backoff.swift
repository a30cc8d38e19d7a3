// SPDX-License-Identifier: Apache-2.0

/// The SDK's one retry policy: how many times a call is repeated and how long it waits before
/// each repeat, in milliseconds. RequestExecutor uses it for whole calls (an unsent request, a
/// `retry` enhanced error, a 5xx of an idempotent call, a 429), the engine for the items of a
/// decision answer whose error says `retry`, the outage breaker for how long it holds every call
/// back. Waits are jittered so that clients that failed together do not retry together, and every
/// wait a server asks for is bounded.
package enum Backoff {
    /// The first repeat's base delay; each further attempt doubles it.
    package static let firstMillis: Int64 = 500
    /// Attempts past this one wait as long as it does (0.5, 1, 2, 4, then 8 s).
    package static let maxDoublingAttempt = 5
    /// Random extra delay added to every backoff.
    package static let jitterMillis: ClosedRange<Int64> = 0...250
    /// The base delay before sending again a request that could not even connect.
    package static let reconnectMillis: Int64 = 250
    /// A 429's wait: its `Retry-After` within these bounds (1 s when absent or unreadable).
    package static let throttleMillis: ClosedRange<Int64> = 1_000...60_000
    /// The longest `Retry-After` honoured on a `retry-after` action or a 5xx.
    package static let maxRetryAfterMillis: Int64 = 60_000
    /// A 5xx's `Retry-After` up to this long (and no longer than the request timeout) is waited for
    /// within its call, whose request then goes out once more; a longer one fails the call at once
    /// and the outage breaker holds the next calls back for it.
    package static let maxInCallRetryAfterMillis: Int64 = 5_000
    /// The outage breaker's first hold is a random time up to this; each further opening doubles it.
    package static let outageFirstMillis: Int64 = 2_000
    /// The ceiling of any outage hold: a box is back at most this long after Adobe is.
    package static let outageMaxMillis: Int64 = 30_000
    /// After a 429, every request goes out at Adobe's rate (one per second) until the throttle has
    /// been quiet this long.
    package static let throttleRecoveryMillis: Int64 = 10_000

    /// Repeats of a call answered 429 before the SDK gives up (`ServiceError.throttled`).
    package static let maxThrottleRetries = 10
    /// Repeats of an answer whose enhanced error says `retry` / `retry-after` (Adobe: "max 2–3
    /// times"), for a call and for the items of a decision answer alike.
    package static let maxActionRetries = 2
    /// Repeats of an idempotent call after a 5xx or a broken exchange (one budget with the
    /// `retry` actions: at most three attempts in all).
    package static let maxServerRetries = 2

    /// A random delay within `jitterMillis`.
    package static func jitter() -> Int64 { Int64.random(in: jitterMillis) }

    /// The curve without its jitter, for repeat `attempt` (1-based): 0.5 s, 1 s, 2 s, … (capped at
    /// 8 s). For a driver that adds the jitter itself (`jitter()`).
    package static func baseMillis(attempt: Int) -> Int64 {
        doubling(from: firstMillis, attempt: attempt, upTo: firstMillis << Int64(maxDoublingAttempt - 1))
    }

    /// `first`, doubled for each attempt after the first (1-based), at most `ceiling`: the one
    /// exponential curve, for a call's repeats and for the outage breaker's holds.
    private static func doubling(from first: Int64, attempt: Int, upTo ceiling: Int64) -> Int64 {
        min(ceiling, first << Int64(attempt.clamped(to: 1...32) - 1))
    }

    /// The ceiling of the outage breaker's draw after its `opening`-th opening in a row (1-based):
    /// 2 s, 4 s, 8 s, 16 s, then 30 s.
    package static func outageCeiling(opening: Int) -> Int64 {
        doubling(from: outageFirstMillis, attempt: opening, upTo: outageMaxMillis)
    }

    /// How long the outage breaker holds every call back after its `opening`-th opening, in
    /// milliseconds. After a 5xx's `Retry-After` (ms, > 0): that long plus up to a quarter more;
    /// else full jitter (AWS's "full jitter": clients that failed together spread out instead of
    /// returning together), a uniform draw in `0...outageCeiling(opening:)`. `random(upper)` draws
    /// uniformly in `0...upper`.
    package static func outageHold(opening: Int, retryAfterMillis: Int64?, random: (Int64) -> Int64) -> Int64 {
        if let retryAfterMillis, retryAfterMillis > 0 { return retryAfterMillis + random(retryAfterMillis / 4) }
        return random(outageCeiling(opening: opening))
    }

    /// The wait before repeat `attempt` (1-based): `baseMillis(attempt:)` plus jitter.
    package static func retry(attempt: Int) -> Int64 { retry(attempt: attempt, jitter: jitter()) }

    /// `retry(attempt:)` with its jitter drawn by the caller (`jitter()`: a pure machine such as
    /// `SendAttempt` gets it as event data).
    package static func retry(attempt: Int, jitter: Int64) -> Int64 { baseMillis(attempt: attempt) + jitter }

    /// The wait before asking again the items of a decision answer whose error action is `retry`
    /// (engine: getAuthorization, preauthorize), repeat `attempt` (1-based, at most
    /// `maxActionRetries`): the same curve as a call's (0.5 s, then 1 s, plus jitter).
    package static func itemRetry(attempt: Int) -> Int64 { retry(attempt: attempt) }

    /// The wait before sending again a request that could not connect: 250 ms plus jitter.
    package static func reconnect() -> Int64 { reconnect(jitter: jitter()) }

    /// `reconnect()` with its jitter drawn by the caller.
    package static func reconnect(jitter: Int64) -> Int64 { reconnectMillis + jitter }

    /// How long a 429 asks to wait: `Retry-After` seconds within `throttleMillis` (1 s when absent
    /// or not a number of seconds that fits: a 2^64 or a date is not trusted).
    package static func throttleWait(_ response: HTTPResponse) -> Int64 {
        let seconds = response.header("Retry-After").flatMap { Int64($0[...].trimmingSpaces()) } ?? 1
        return seconds.clamped(to: throttleMillis.lowerBound / 1_000...throttleMillis.upperBound / 1_000) * 1_000
    }

    /// `Retry-After` in milliseconds (at most `maxRetryAfterMillis`), or nil when absent or not a
    /// number of seconds.
    package static func retryAfter(_ response: HTTPResponse) -> Int64? {
        response.header("Retry-After").flatMap { UInt64($0[...].trimmingSpaces()) }
            .map { Int64(min($0, UInt64(maxRetryAfterMillis / 1_000))) * 1_000 }
    }
}
