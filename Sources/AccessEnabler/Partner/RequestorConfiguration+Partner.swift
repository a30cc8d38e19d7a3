// SPDX-License-Identifier: Apache-2.0

/// What the platform picker and the partner exchange need of the requestor configuration.
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
        baseURL.contains(text: "auth-staging") ? "https://saml.sp.auth-staging.adobe.com" : "https://saml.sp.auth.adobe.com"
    }
}
