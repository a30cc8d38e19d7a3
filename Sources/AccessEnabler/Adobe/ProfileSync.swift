// SPDX-License-Identifier: Apache-2.0

/// Profiles that GET /profiles does not list (REST API V2 §4.8: it answers regular and SSO
/// profiles; `temporary` and `degraded` ones come from the per-MVPD and per-code endpoints).
enum ProfileSync {
    /// Adobe's profiles plus the stored TempPass profiles (valid or over: an expired one still
    /// says N111) and valid degraded ones of MVPDs Adobe's answer does not have.
    static func merged(_ adobe: [Profile], stored: [Profile], now: Int64) -> [Profile] {
        let answered = Set(adobe.map(\.mvpd))
        let kept = stored.filter { profile in
            !answered.contains(profile.mvpd) && (profile.isTemporary || (profile.isDegraded && profile.isValid(at: now)))
        }
        return adobe + kept
    }

    /// REST API V1: the device holds one authentication token (tokens/authn), answered without
    /// type or user metadata. The stored profile of the same token (same MVPD and expiry) is kept
    /// as it is (its type, user metadata, TempPass identity); a new token is typed from the
    /// configuration (a TempPass MVPD's token is `temporary`, issued by Adobe). Stored TempPass
    /// profiles stay, so that an expired one still says N111. A token this SDK did not make, found
    /// while the platform identity went with the request (`platformIdentitySent`), is typed
    /// `platformSSO`: V1's answers do not say where a token came from (Adobe documents
    /// `tokenSource` "Apple" only), and the platform's SSO is its likeliest source; the user
    /// metadata's `tokenSource`, read before logout, wins when it names one (docs/PLATFORM-SSO.md).
    static func mergedV1(
        _ token: Profile?, stored: [Profile], configuration: RequestorConfiguration, platformIdentitySent: Bool = false
    ) -> [Profile] {
        var profiles: [Profile] = []
        if var token {
            if let known = stored.first(where: { $0.mvpd == token.mvpd && $0.notAfter == token.notAfter }) {
                token = known
            } else if configuration.mvpd(token.mvpd)?.isTempPass == true {
                token.type = "temporary"
                token.issuer = "Adobe"
                token.tempPassIdentity = stored.first { $0.mvpd == token.mvpd }?.tempPassIdentity
            } else {
                token.originUnknown = true  // a second-screen login or the platform's SSO: the metadata says
                if platformIdentitySent { token.type = IdentityTokenKind.platformIdentity.profileType }
            }
            profiles.append(token)
        }
        let answered = Set(profiles.map(\.mvpd))
        return profiles + stored.filter { $0.isTemporary && !answered.contains($0.mvpd) }
    }
}
