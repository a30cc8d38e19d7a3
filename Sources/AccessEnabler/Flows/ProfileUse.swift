// SPDX-License-Identifier: Apache-2.0

/// "Is this profile usable now?" — the one predicate every call asks (checkAuthentication,
/// getAuthentication, authorization, preauthorization, getMetadata, the silent exchange): a
/// regular, TempPass or degraded profile while its `notAfter` lasts; a partner (`appleSSO`) profile
/// only while, in addition, the platform's status is usable (permission granted, provider known,
/// its expiry, if any, in the future) and names that profile's MVPD — without it no decision may be asked
/// —, or while the viewer's permission is all it lacks and its MVPD does not enforce it (`permissionNotEnforced`).
package enum ProfileUse {
    /// A profile made through the platform's single sign-on, which needs the partner status.
    package static func isPartnerProfile(_ profile: Profile) -> Bool { profile.type == "appleSSO" }

    package static func isUsable(
        _ profile: Profile, at now: Int64, partner: PartnerStatus?,
        configuration: RequestorConfiguration?
    ) -> Bool {
        guard profile.isValid(at: now) else { return false }
        guard isPartnerProfile(profile) else { return true }
        guard let partner, let configuration else { return false }
        if partner.problem(at: now, configuration: configuration) == nil {
            return partner.mvpd(in: configuration)?.id == profile.mvpd
        }
        return permissionNotEnforced(for: profile.mvpd, partner, configuration)
    }

    /// The viewer's permission decision does not count for `mvpd`: its integration says
    /// `enforcePlatformPermissions: false` (TVE Dashboard: "Enforce Platform Permission controls if
    /// the user's decision to Allow or Deny platform access to their TV Provider subscription is
    /// respected"), and the platform's status says only that the permission is not granted (no
    /// partner failure). Then the MVPD's partner profile stays usable, and its decisions carry the
    /// status as it is. Absent or true: the permission must be granted (the cookbooks).
    package static func permissionNotEnforced(
        for mvpd: String, _ partner: PartnerStatus, _ configuration: RequestorConfiguration
    ) -> Bool {
        partner.error == nil && partner.access.status != .granted
            && configuration.mvpd(mvpd)?.enforcePlatformPermissions == false
    }

    /// Whether setRequestor's profiles request carries the status: when it is usable, or when an
    /// MVPD's integration does not enforce the permission the status lacks (so that Adobe lists
    /// that MVPD's partner profile).
    package static func statusWorthSending(
        _ partner: PartnerStatus, at now: Int64, configuration: RequestorConfiguration?
    ) -> Bool {
        if partner.problem(at: now, configuration: configuration) == nil { return true }
        guard let configuration else { return false }
        return configuration.mvpds.contains { permissionNotEnforced(for: $0.id, partner, configuration) }
    }

    /// The profile the calls use among `profiles`: the selected MVPD's if usable, else the usable
    /// one that lasts longest (Adobe's advice when several exist).
    package static func current(
        _ profiles: [Profile], selected: String?, at now: Int64, partner: PartnerStatus?,
        configuration: RequestorConfiguration?
    ) -> Profile? {
        let usable = profiles.filter { isUsable($0, at: now, partner: partner, configuration: configuration) }
        if let selected, let profile = usable.first(where: { $0.mvpd == selected }) { return profile }
        return usable.max { $0.notAfter < $1.notAfter }
    }
}
