// SPDX-License-Identifier: Apache-2.0

/// What the partner framework says about the viewer, without interrupting them: permission,
/// provider and expiry — the content of the `AP-Partner-Framework-Status` header.
package struct PartnerStatus: Sendable, Equatable {
    /// Which question of the partner's failed: the permission (checkAccessStatus) or the account
    /// metadata (the provider and its expiry).
    package enum ErrorSource: Sendable, Equatable { case permission, provider }

    package var access: PartnerAccess
    package var providerID: String?
    package var expirationDate: Int64?
    /// The partner failed (error or no reply): APPL / APPL_ERROR.
    package var error: PartnerError?
    package var errorSource: ErrorSource

    package init(access: PartnerAccess, providerID: String? = nil, expirationDate: Int64? = nil, error: PartnerError? = nil,
                 errorSource: ErrorSource = .permission)
    {
        self.access = access
        self.providerID = providerID
        self.expirationDate = expirationDate
        self.error = error
        self.errorSource = errorSource
    }

    /// Why the status may not be sent, by the cookbook's rules and Adobe's header page; nil when it
    /// is usable: permission granted, provider id present and known to the configuration, and an
    /// expiration date (Adobe's header page marks `expirationDate` required: a platform that gives
    /// none cannot be used for single sign-on, docs/PARTNER-SSO.md) in the future.
    package func problem(at now: Int64, configuration: RequestorConfiguration?) -> String? {
        if let error { return "the partner failed (\(error.summary))" }
        guard access.status == .granted else { return "permission is \(access.status.wireName)" }
        guard let providerID, !providerID.isEmpty else { return "no provider id" }
        if let configuration, configuration.mvpd(platformMappingID: providerID) == nil {
            return "provider \(providerID) is not in the configuration"
        }
        guard let expirationDate else { return "the platform gave no authentication expiration date" }
        if expirationDate <= now { return "the provider authentication expired" }
        return nil
    }

    /// Adobe's `invalid_header_pfs_*` code for the status's problem (nil when usable): the code
    /// Adobe would answer if it were sent, so that a decision never sent reads as one refused.
    package func refusalCode(at now: Int64, configuration: RequestorConfiguration?) -> String? {
        guard problem(at: now, configuration: configuration) != nil else { return nil }
        if error != nil, errorSource == .permission { return "invalid_header_pfs_permission_access_not_present" }
        switch access.status {
        case .granted: break
        case .notDetermined: return "invalid_header_pfs_permission_access_not_determined"
        case .denied, .restricted: return "invalid_header_pfs_permission_access_not_granted"
        }
        guard let providerID, !providerID.isEmpty, error == nil,
              configuration.map({ $0.mvpd(platformMappingID: providerID) != nil }) ?? true
        else { return "invalid_header_pfs_provider_id_not_determined" }
        return "invalid_header_pfs_provider_info_expired"
    }

    /// The MVPD the platform account maps to (its `platformMappingId`).
    package func mvpd(in configuration: RequestorConfiguration) -> MVPD? {
        providerID.flatMap { configuration.mvpd(platformMappingID: $0) }
    }

    /// `AP-Partner-Framework-Status`: Base64 of the JSON of Adobe's header page — `accessStatus`,
    /// the provider `id` and `expirationDate` (ms, as a string, as Adobe's samples write it), and
    /// the optional `error` object (`code`, `message`) on the side whose question failed.
    package var headerValue: String {
        var permission: [String: JSONValue] = ["accessStatus": .string(access.status.wireName)]
        var provider: [String: JSONValue] = [:]
        if let providerID { provider["id"] = .string(providerID) }
        if let expirationDate { provider["expirationDate"] = .string(String(expirationDate)) }
        if let error {
            var object: [String: JSONValue] = ["code": .string(error.code.wireName)]
            if let detail = error.detail { object["message"] = .string(detail) }
            switch errorSource {
            case .permission: permission["error"] = .object(object)
            case .provider: provider["error"] = .object(object)
            }
        }
        let status: JSONValue = ["frameworkPermissionInfo": .object(permission), "frameworkProviderInfo": .object(provider)]
        return Encoding.base64(status.jsonText)
    }
}

/// "Is this profile usable now?" — the one predicate every call asks (checkAuthentication,
/// getAuthentication, authorization, preauthorization, getMetadata, the silent exchange): a
/// regular, TempPass or degraded profile while its `notAfter` lasts; a partner (`appleSSO`) profile
/// only while, in addition, the platform's status is usable (permission granted, provider known,
/// expiry in the future) and names that profile's MVPD — without it no decision may be asked.
package enum ProfileUse {
    /// A profile made through the platform's single sign-on, which needs the partner status.
    package static func isPartnerProfile(_ profile: Profile) -> Bool { profile.type == "appleSSO" }

    package static func isUsable(_ profile: Profile, at now: Int64, partner: PartnerStatus?,
                                 configuration: RequestorConfiguration?) -> Bool
    {
        guard profile.isValid(at: now) else { return false }
        guard isPartnerProfile(profile) else { return true }
        guard let partner, let configuration, partner.problem(at: now, configuration: configuration) == nil else { return false }
        return partner.mvpd(in: configuration)?.id == profile.mvpd
    }

    /// The profile the calls use among `profiles`: the selected MVPD's if usable, else the usable
    /// one that lasts longest (Adobe's advice when several exist).
    package static func current(_ profiles: [Profile], selected: String?, at now: Int64, partner: PartnerStatus?,
                                configuration: RequestorConfiguration?) -> Profile?
    {
        let usable = profiles.filter { isUsable($0, at: now, partner: partner, configuration: configuration) }
        if let selected, let profile = usable.first(where: { $0.mvpd == selected }) { return profile }
        return usable.max { $0.notAfter < $1.notAfter }
    }
}

extension RequestorConfiguration {
    package func mvpd(platformMappingID id: String) -> MVPD? { mvpds.first { $0.platformMappingId == id } }

    /// MVPDs the platform picker may offer: partner SSO enabled and shown in the platform picker.
    package var pickerMVPDs: [MVPD] {
        mvpds.filter { $0.enablePlatformServices && $0.displayInPlatformPicker && $0.platformMappingId != nil }
    }

    /// The picker's supported and featured provider ids (platform ids), after the host's filter:
    /// `TV_PROVIDERS` keeps and orders (MVPD ids; non-SSO ones ignored), `FEATURED_TV_PROVIDERS`
    /// must also be in TV_PROVIDERS. With no SSO MVPD the filter is ignored (and no picker shows).
    package func pickerProviders(filter: JSONValue?) -> (supported: [String], featured: [String]) {
        let candidates = pickerMVPDs
        guard !candidates.isEmpty else { return ([], []) }
        let byID = Dictionary(candidates.map { ($0.id, $0) }) { first, _ in first }
        let wanted = filter?["TV_PROVIDERS"]?.arrayValue?.compactMap(\.stringValue)
        let kept = wanted.map { $0.compactMap { byID[$0] } } ?? candidates
        let keptIDs = Set(kept.map(\.id))
        let featured = (filter?["FEATURED_TV_PROVIDERS"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            .filter { keptIDs.contains($0) }.compactMap { byID[$0]?.platformMappingId }
        return (kept.compactMap(\.platformMappingId), featured)
    }

    /// The SAML issuer the platform must be given as channel identifier.
    package static func samlIssuer(forBaseURL baseURL: String) -> String {
        baseURL.contains("auth-staging") ? "https://saml.sp.auth-staging.adobe.com" : "https://saml.sp.auth.adobe.com"
    }
}
