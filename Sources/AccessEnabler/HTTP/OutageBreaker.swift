// SPDX-License-Identifier: Apache-2.0

/// The client's circuit breaker for an Adobe outage: thousands of boxes that keep retrying a
/// failing service are how one outage becomes two. Pure: the caller passes the monotonic time and
/// the random source; RequestExecutor asks `admit` before every request and `record`s what came
/// back.
///
/// States:
/// - `closed(failures)`: requests go out; `failures` counts outage answers in a row. The
///   `threshold`-th (one call's attempts), or a 5xx that carries `Retry-After`, opens it.
/// - `open(until, openings)`: nothing is sent; every request is held back at once with
///   `.unavailable` (a named error, no wait on the wire). How long is `Backoff.outageHold`: full
///   jitter, a random time in `0…min(30 s, 2 s·2^(openings-1))`, or the server's `Retry-After`
///   plus up to a quarter more. (The one call whose short `Retry-After` RequestExecutor waits out
///   sends its repeat at `until` even if another request is probing.)
/// - `probing(openings)`: `until` passed; exactly one request goes out as the probe and the others
///   are still held back. An answer that is not an outage closes the breaker; an outage answer
///   opens it again for a longer draw.
///
/// Outage answers: HTTP 5xx, a connection that could not be made, timed out or broke. Any other
/// answer (2xx–4xx, 429: the throttle has its own pacing) proves Adobe is up. A cancelled or
/// TLS-failed exchange says nothing about Adobe and changes nothing (a probe that ends so lets
/// the next request probe).
package struct OutageBreaker: Sendable, Equatable {
    /// Outage answers in a row that open the breaker: one call's attempts (its first try and the
    /// two retries `Backoff` allows), so one failed call opens it and no call is cut short.
    package static let threshold = 1 + Backoff.maxServerRetries

    package enum State: Sendable, Equatable {
        case closed(failures: Int)
        case open(untilNanos: UInt64, openings: Int)
        case probing(openings: Int)
    }

    /// What `admit` decides for one request.
    package enum Verdict: Sendable, Equatable {
        case send
        /// Not sent: Adobe is known down; the breaker lets a probe out in `retryInMillis`. `reason`
        /// and `httpStatus` (0: no answer) name the outage answer that opened it.
        case holdBack(retryInMillis: Int64, reason: String, httpStatus: Int)
    }

    /// How one exchange ended, for `record`.
    package enum Outcome: Sendable, Equatable {
        /// Adobe answered (any status below 500, 429 included).
        case answered
        /// A 5xx (with its `Retry-After` in milliseconds, when it had one) or a connection that
        /// could not be made, timed out or broke; `reason` names it for the held-back error.
        case outage(reason: String, httpStatus: Int = 0, retryAfterMillis: Int64? = nil)
        /// Cancelled, TLS failure, answer too large: not about Adobe's health.
        case neutral
    }

    package private(set) var state: State = .closed(failures: 0)
    /// The outage answer that opened the breaker (and its HTTP status, 0 for none), named in every
    /// held-back error.
    package private(set) var reason = ""
    package private(set) var httpStatus = 0

    package init() {}

    /// Whether a request may go out now; in `probing` only one may until it is recorded.
    package mutating func admit(nowNanos: UInt64) -> Verdict {
        switch state {
        case .closed:
            return .send
        case .open(let until, let openings):
            guard nowNanos >= until else {
                return .holdBack(
                    retryInMillis: Limits.millis(roundingUp: until - nowNanos), reason: reason, httpStatus: httpStatus)
            }
            state = .probing(openings: openings)
            return .send
        case .probing:
            // The probe is still out: wait for it (its answer decides); the next draw is unknown.
            return .holdBack(retryInMillis: 0, reason: reason, httpStatus: httpStatus)
        }
    }

    /// How long the breaker still holds requests back (milliseconds, rounded up), or nil when it
    /// is not open or its hold has passed. Changes nothing.
    package func holdMillis(nowNanos: UInt64) -> Int64? {
        guard case .open(let until, _) = state, nowNanos < until else { return nil }
        return Limits.millis(roundingUp: until - nowNanos)
    }

    /// Feeds an exchange's end. `random(upper)` draws uniformly in `0...upper` (milliseconds).
    package mutating func record(
        _ outcome: Outcome, nowNanos: UInt64, random: (Int64) -> Int64 = { Int64.random(in: 0...$0) }
    ) {
        switch (outcome, state) {
        case (.answered, _):
            state = .closed(failures: 0)
        case (.neutral, .probing(let openings)):
            state = .open(untilNanos: nowNanos, openings: openings)
        case (.neutral, _):
            break
        case (.outage(let why, let status, let retryAfter), .closed(let failures)):
            if failures + 1 >= Self.threshold || retryAfter != nil {
                httpStatus = status
                open(openings: 1, reason: why, retryAfterMillis: retryAfter, nowNanos: nowNanos, random: random)
            } else {
                state = .closed(failures: failures + 1)
            }
        case (.outage(let why, let status, let retryAfter), .probing(let openings)):
            httpStatus = status
            open(openings: openings + 1, reason: why, retryAfterMillis: retryAfter, nowNanos: nowNanos, random: random)
        case (.outage, .open):
            // A request sent before the breaker opened: the draw already made stands (concurrent
            // failures of one moment do not lengthen it).
            break
        }
    }

    private mutating func open(
        openings: Int, reason why: String, retryAfterMillis: Int64?, nowNanos: UInt64, random: (Int64) -> Int64
    ) {
        let millis = Backoff.outageHold(opening: openings, retryAfterMillis: retryAfterMillis, random: random)
        reason = why
        state = .open(untilNanos: nowNanos &+ Limits.nanoseconds(millis: max(millis, 0)), openings: openings)
    }
}
