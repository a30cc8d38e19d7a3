// SPDX-License-Identifier: Apache-2.0

/// Adobe's advice for a decision whose item-level error says `retry`: ask again, at most twice,
/// after a backoff. The flows count the attempts; the driver waits `baseDelayNanos(attempt:)`
/// plus its jitter (`RequestExecutor.jitter()`, 0–250 ms) before feeding the timer event back.
enum ItemRetry {
    /// Repeats after the first answer (so at most 3 requests).
    static let maxAttempts = 2

    /// 500 ms for the first repeat, 1 s for the second (jitter not included).
    static func baseDelayNanos(attempt: Int) -> UInt64 {
        500_000_000 << UInt64(max(0, attempt - 1))
    }

    /// True when `error` asks for the same request again.
    static func asksRetry(_ error: EnhancedError?) -> Bool { error?.action == "retry" }
}
