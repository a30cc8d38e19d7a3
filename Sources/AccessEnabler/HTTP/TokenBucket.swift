// SPDX-License-Identifier: Apache-2.0

/// Client-side pacing that mirrors Adobe's throttle (a one-time burst of 10, then 1 request per
/// second per device), so the SDK spaces its own requests instead of collecting 429s.
/// Pure: callers pass the time and sleep for the returned delay.
package struct TokenBucket: Sendable {
    package let capacity: Double
    package let perSecond: Double
    private var tokens: Double
    private var lastNanos: UInt64?

    /// `perSecond <= 0` disables pacing.
    package init(capacity: Int = Defaults.requestBurst, perSecond: Double) {
        self.capacity = Double(capacity)
        self.perSecond = perSecond
        self.tokens = Double(capacity)
    }

    /// Takes one token; returns how many nanoseconds the caller must wait before sending.
    /// A caller that must wait owns a token that arrives in the future (tokens may go negative),
    /// so concurrent callers queue up one interval apart.
    package mutating func reserve(nowNanos: UInt64) -> UInt64 {
        guard perSecond > 0 else { return 0 }
        if let lastNanos, nowNanos > lastNanos {
            tokens = min(capacity, tokens + Double(nowNanos - lastNanos) / 1e9 * perSecond)
        }
        lastNanos = max(lastNanos ?? nowNanos, nowNanos)
        tokens -= 1
        return tokens >= 0 ? 0 : Limits.nanoseconds(seconds: -tokens / perSecond)
    }

    /// A 429 means the server's bucket is empty: spend ours too, so the next requests wait.
    package mutating func drain(nowNanos: UInt64) {
        _ = reserve(nowNanos: nowNanos)
        tokens = min(tokens, 0)
    }
}
