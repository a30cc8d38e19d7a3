// SPDX-License-Identifier: Apache-2.0

/// Arithmetic on numbers that come from outside (Adobe's answers, the store, the host): the result
/// is clamped to the type's range instead of trapping on overflow. Every time, TTL and length the
/// SDK computes with goes through these or through `Limits` (docs/THREAT-MODEL.md, "Numbers").
extension Int64 {
    /// `self + other`, clamped to Int64's range.
    package func clampedAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to Int64's range.
    package func clampedSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }

    /// `self * other`, clamped to Int64's range.
    package func clampedMultiplied(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
    }
}

extension Comparable {
    /// Clamped into `range`.
    package func clamped(to range: ClosedRange<Self>) -> Self { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

/// The ranges the SDK accepts for numbers from outside, and conversions that cannot trap.
package enum Limits {
    /// Epoch milliseconds Adobe may send (notAfter, expires, …): 0 (1970) to the end of year 9999.
    /// Values outside are clamped (a negative expiry is simply past; a later one is "far away").
    package static let epochMillis: ClosedRange<Int64> = 0...253_402_300_799_999

    /// DCR `expires_in` (seconds): at most 30 days. Adobe's access tokens live 24 hours; a longer
    /// claim is trusted up to this bound (a 401 renews the token early anyway).
    package static let accessTokenSeconds: ClosedRange<Int64> = 0...2_592_000

    /// How long a registration code (authentication session) is polled: at most 24 hours, whatever
    /// `notAfter` Adobe's answer carries (its codes live 30 minutes by default).
    package static let codeLifetimeMillis: Int64 = 86_400_000

    /// Second-screen polling: Adobe documents 3–5 s; never faster than 3 s, never slower than 60 s.
    package static let pollIntervalMillis: ClosedRange<Int> = 3_000...60_000

    /// The longest wait for a partner (platform SSO) reply: 10 minutes.
    package static let partnerTimeoutMillis: ClosedRange<Int> = 1...600_000

    /// Nanoseconds of `millis` (negative: 0), without overflow.
    package static func nanoseconds(millis: Int64) -> UInt64 {
        millis <= 0 ? 0 : UInt64(millis.clamped(to: 0...(Int64.max / 1_000_000))) * 1_000_000
    }

    /// Nanoseconds of `millis` (negative: 0), without overflow.
    package static func nanoseconds(millis: Int) -> UInt64 { nanoseconds(millis: Int64(millis)) }

    /// Milliseconds of `nanoseconds`, rounded up (a wait is never cut short), without overflow.
    package static func millis(roundingUp nanoseconds: UInt64) -> Int64 {
        Int64(clamping: nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1))
    }

    /// Nanoseconds of `seconds` (NaN, negative: 0; capped at `maxSeconds`), without trapping.
    package static func nanoseconds(seconds: Double, maxSeconds: Double = 3_600) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return seconds == .infinity ? UInt64(maxSeconds * 1e9) : 0 }
        return UInt64(Swift.min(seconds, maxSeconds) * 1e9)
    }
}
