// SPDX-License-Identifier: Apache-2.0

/// Adobe's advice for a decision whose item-level error says `retry`: ask again, at most twice,
/// after a backoff. The flows count the attempts; the driver waits `Backoff.itemRetry(attempt:)`
/// (this curve plus jitter) before feeding the timer event back.
enum ItemRetry {
    /// Repeats after the first answer (so at most 3 requests).
    static let maxAttempts = Backoff.maxActionRetries

    /// 500 ms for the first repeat, 1 s for the second (jitter not included).
    static func baseDelayNanos(attempt: Int) -> UInt64 {
        UInt64(Backoff.baseMillis(attempt: attempt)) * 1_000_000
    }

    /// True when `error` asks for the same request again.
    static func asksRetry(_ error: EnhancedError?) -> Bool { error?.action == "retry" }
}
