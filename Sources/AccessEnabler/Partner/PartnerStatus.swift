// SPDX-License-Identifier: Apache-2.0

/// What the partner framework says about the viewer, without interrupting them: permission,
/// provider and expiry — the content of the `AP-Partner-Framework-Status` header.
package struct PartnerStatus: Sendable, Equatable {
    package var access: PartnerAccess
    package var providerID: String?
    package var expirationDate: Int64?
    /// The partner failed (error or no reply): APPL / APPL_ERROR.
    package var error: PartnerError?

    package init(access: PartnerAccess, providerID: String? = nil, expirationDate: Int64? = nil, error: PartnerError? = nil) {
        self.access = access
        self.providerID = providerID
        self.expirationDate = expirationDate
        self.error = error
    }

    /// Why the status may not be sent, by the cookbook's rules (permission granted, provider id
    /// present and known to the configuration, expiration in the future); nil when valid.
    package func problem(at now: Int64, configuration: RequestorConfiguration?) -> String? {
        if let error { return "the partner failed (\(error.summary))" }
        guard access.status == .granted else { return "permission is \(access.status.wireName)" }
        guard let providerID, !providerID.isEmpty else { return "no provider id" }
        if let configuration, configuration.mvpd(platformMappingID: providerID) == nil {
            return "provider \(providerID) is not in the configuration"
        }
        if let expirationDate, expirationDate <= now { return "the provider authentication expired" }
        return nil
    }

    /// The MVPD the platform account maps to (its `platformMappingId`).
    package func mvpd(in configuration: RequestorConfiguration) -> MVPD? {
        providerID.flatMap { configuration.mvpd(platformMappingID: $0) }
    }

    /// `AP-Partner-Framework-Status`: Base64 of the JSON (expirationDate in ms, as a string).
    package var headerValue: String {
        var provider: [String: JSONValue] = [:]
        if let providerID { provider["id"] = .string(providerID) }
        if let expirationDate { provider["expirationDate"] = .string(String(expirationDate)) }
        let status: JSONValue = [
            "frameworkPermissionInfo": ["accessStatus": .string(access.status.wireName)],
            "frameworkProviderInfo": .object(provider),
        ]
        return Encoding.base64(status.jsonText)
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
