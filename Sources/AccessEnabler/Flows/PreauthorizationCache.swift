// SPDX-License-Identifier: Apache-2.0

/// The in-memory cache of preauthorization decisions, by MVPD and resource, on the monotonic
/// clock in milliseconds (`now` comes from the driver). The driver keeps one per client, gives it
/// to `PreauthorizationFlow.start`, applies the flow's `updateCache` actions, and empties it at
/// logout and when the requestor id changes.
struct PreauthorizationCache: Sendable {
    /// How long a decision is used (cache on, LOCAL_CACHE not disabled): 5 minutes.
    static let lifetimeMillis = UInt64(Defaults.preauthorizationCacheMillis)

    struct Key: Hashable, Sendable {
        var mvpd: String
        var resource: String
    }

    struct Entry: Hashable, Sendable {
        var authorized: Bool
        var error: EnhancedError?
        var expiresAt: UInt64
    }

    /// Decisions of one flow to remember, all until `expiresAt`.
    struct Update: Hashable, Sendable {
        var mvpd: String
        var decisions: [String: PreauthorizationFlow.Verdict]
        var expiresAt: UInt64
    }

    private(set) var entries: [Key: Entry] = [:]

    init() {}

    /// The decision for `resource` of `mvpd` while it lasts (`expiresAt > now`).
    func decision(mvpd: String, resource: String, at now: UInt64) -> PreauthorizationFlow.Verdict? {
        guard let entry = entries[Key(mvpd: mvpd, resource: resource)], entry.expiresAt > now else { return nil }
        return PreauthorizationFlow.Verdict(authorized: entry.authorized, error: entry.error)
    }

    mutating func apply(_ update: Update) {
        for (resource, verdict) in update.decisions {
            entries[Key(mvpd: update.mvpd, resource: resource)] = Entry(
                authorized: verdict.authorized, error: verdict.error,
                expiresAt: update.expiresAt)
        }
    }

    mutating func removeAll() { entries = [:] }
}
