// SPDX-License-Identifier: Apache-2.0

/// "Is this profile usable now?" — the one predicate every call asks (checkAuthentication,
/// getAuthentication, authorization, preauthorization, getMetadata, the silent exchange): a
/// regular, TempPass or degraded profile while its `notAfter` lasts; a partner (`appleSSO`) profile
/// only while, in addition, the platform's status is usable (permission granted, provider known,
/// its expiry, if any, in the future) and names that profile's MVPD — without it no decision may be asked.
package enum ProfileUse {
    /// A profile made through the platform's single sign-on, which needs the partner status.
    package static func isPartnerProfile(_ profile: Profile) -> Bool { profile.type == "appleSSO" }

    package static func isUsable(
        _ profile: Profile, at now: Int64, partner: PartnerStatus?,
        configuration: RequestorConfiguration?
    ) -> Bool {
        guard profile.isValid(at: now) else { return false }
        guard isPartnerProfile(profile) else { return true }
        guard let partner, let configuration, partner.problem(at: now, configuration: configuration) == nil else { return false }
        return partner.mvpd(in: configuration)?.id == profile.mvpd
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
