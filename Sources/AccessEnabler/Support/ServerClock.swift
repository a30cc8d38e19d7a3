// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Adobe's clock as seen from this box. Validity (access token, profiles, codes, cache ages) is
/// judged against it, so a set-top that boots in 1970 or drifts by hours neither treats valid
/// tokens as expired nor uses expired ones.
///
/// Each answer's `Date` header (RFC 9110 IMF-fixdate) anchors Adobe's time to the boot clock
/// (CLOCK_BOOTTIME: never jumps, counts suspend, is the same for every process of one boot), so
/// later readings follow the anchor whatever the wall clock does. The anchor is kept in the store
/// with the boot id, so the app's other processes of the same boot start with it; across boots
/// the latest server time seen is a lower bound for "now" (a box back at 1970 does not judge
/// against 1970). Before any anchor the local wall clock stands, raised to that bound.
package final class ServerClock: WallClock, Sendable {
    /// Adobe's time (ms since the epoch) at a boot-clock reading (ms).
    package struct Anchor: Sendable, Equatable {
        package var serverMillis: Int64
        package var bootMillis: Int64
        package init(serverMillis: Int64, bootMillis: Int64) {
            self.serverMillis = serverMillis
            self.bootMillis = bootMillis
        }
    }

    /// A new `Date` moves the anchor only when it disagrees by more than this (the header has a
    /// resolution of one second, and network delay adds to it).
    package static let toleranceMillis: Int64 = 2_000

    private let local: any WallClock
    private let boot: @Sendable () -> Int64
    private let state: Locked<(anchor: Anchor?, floor: Anchor?)>
    /// Called with each new anchor (the store persists it).
    private let onAnchor: @Sendable (Anchor) -> Void

    /// - Parameters:
    ///   - local: the box's wall clock (injected by tests).
    ///   - boot: the boot clock in ms (injected by tests).
    ///   - anchor: an anchor of this boot, from the store.
    ///   - latestServerMillis: the latest server time ever seen (any boot), from the store.
    /// Sleeps on the local clock (a server-time offset does not change durations).
    package func sleep(millis: Int64) async { await local.sleep(millis: millis) }

    package init(
        local: any WallClock, boot: @escaping @Sendable () -> Int64 = bootMillis, anchor: Anchor? = nil,
        latestServerMillis: Int64? = nil, onAnchor: @escaping @Sendable (Anchor) -> Void = { _ in }
    ) {
        self.local = local
        self.boot = boot
        self.onAnchor = onAnchor
        let floor = latestServerMillis.map { Anchor(serverMillis: $0, bootMillis: boot()) }
        state = Locked((anchor, floor))
    }

    package func nowMillis() -> Int64 {
        let bootNow = boot()
        let (anchor, floor) = state.withLock { $0 }
        if let anchor { return anchor.serverMillis.clampedAdding(bootNow.clampedSubtracting(anchor.bootMillis)) }
        let localNow = local.nowMillis()
        guard let floor else { return localNow }
        return max(localNow, floor.serverMillis.clampedAdding(bootNow.clampedSubtracting(floor.bootMillis)))
    }

    /// True once an answer (or another process of this boot) told Adobe's time.
    package var isAnchored: Bool { state.withLock { $0.anchor != nil } }

    /// Adobe's time minus the box's wall clock, in ms; nil until an answer (or another process of
    /// this boot) told Adobe's time.
    package var skewMillis: Int64? {
        guard isAnchored else { return nil }
        return nowMillis().clampedSubtracting(local.nowMillis())
    }

    /// Learns from an answer's `Date` header, received at boot-clock `receivedAt`.
    package func observe(dateHeader: String?, receivedAt: Int64? = nil) {
        guard let dateHeader, let seconds = HTTPDate.parse(dateHeader) else { return }
        // The header truncates to the second: Adobe's time at reception is in [D, D + 1 s).
        let candidate = Anchor(serverMillis: seconds * 1000 + 500, bootMillis: receivedAt ?? boot())
        let changed = state.withLock { state -> Bool in
            if let anchor = state.anchor {
                let predicted = anchor.serverMillis.clampedAdding(candidate.bootMillis.clampedSubtracting(anchor.bootMillis))
                let drift = predicted.clampedSubtracting(candidate.serverMillis)
                guard drift > Self.toleranceMillis || drift < -Self.toleranceMillis else { return false }
            }
            state.anchor = candidate
            return true
        }
        if changed { onAnchor(candidate) }
    }

    /// CLOCK_BOOTTIME in ms.
    package static func bootMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// This boot's id (random per boot, from the kernel); "" when unavailable.
    package static let bootID: String = SystemFile.firstLine("/proc/sys/kernel/random/boot_id") ?? ""
}

/// HTTP dates (RFC 9110 §5.6.7). Only IMF-fixdate, which every server of Adobe's and ours sends;
/// the obsolete RFC 850 and asctime forms are not read (the clock then waits for the next answer).
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since the epoch of "Sun, 06 Nov 1994 08:49:37 GMT", or nil.
    package static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = digits(parts[1], 2), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])),
            let year = digits(parts[3], 4), year >= 1970
        else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, let hour = digits(time[0], 2), let minute = digits(time[1], 2),
            let second = digits(time[2], 2), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        return daysFromCivil(year: year, month: month + 1, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The value of exactly `count` ASCII digits.
    private static func digits(_ text: Substring, _ count: Int) -> Int? {
        guard text.utf8.count == count, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
