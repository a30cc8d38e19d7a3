// SPDX-License-Identifier: Apache-2.0

/// Adobe's REST API as the flows need it, bound to one requestor: the flows call these
/// operations without knowing which API generation serves the requestor (V2: V2Backend.swift;
/// V1: V1Backend.swift), and without passing the requestor id.
package protocol Backend: LoginBackend {
    var requestorID: String { get }
    var baseURL: String { get }
    /// True when Adobe keeps an authorization for its TTL and a media token alone answers while it
    /// lasts (V1): the driver then reads the stored authorization's expiry for `authorize`.
    var keepsAuthorizations: Bool { get }
    /// The host's SSO tokens this API's requests carry (V2: the platform identity and the service
    /// token; V1: the platform identity only). A logout that carries one is a single logout.
    var identityTokenKinds: [IdentityTokenKind] { get }

    /// The requestor's configuration (V2 configuration; V1 MVPD list).
    func configuration() async throws(CallFailure) -> RequestorConfiguration

    /// The profiles Adobe holds for the device (V2: with the partner status, so that partner
    /// profiles count; V1: the device's authentication token, as a profile).
    func profiles(partnerStatus: String?) async throws(CallFailure) -> [Profile]

    /// The profiles to store after a sync: Adobe's answer with what the store knows that the
    /// answer does not carry (ProfileSync).
    func synced(_ answered: [Profile], stored: [Profile], configuration: RequestorConfiguration, now: Int64) -> [Profile]

    /// One authorization decision for `resource` (`authorizedUntil`: the stored authorization's
    /// expiry, read only when `keepsAuthorizations`).
    func authorize(_ resource: String, profile: Profile, partnerStatus: String?, authorizedUntil: Int64?)
        async throws(CallFailure) -> [Decision]

    /// Preauthorization decisions for one request's worth of resources.
    func preauthorize(_ resources: [String], profile: Profile, partnerStatus: String?) async throws(CallFailure) -> [Decision]

    /// True when logout is one request for the device (V1: TempPass tokens too), false when it is
    /// one request per MVPD (V2: none for TempPass, which needs no logout).
    var logsOutDevice: Bool { get }

    /// Logs `mvpd`'s profile out (V2): the MVPDs' logout actions.
    func logout(mvpd: String) async throws(CallFailure) -> [String: LogoutAction]

    /// Logs the device out (V1).
    func logoutDevice() async throws(CallFailure)

    /// The user metadata of the device's token (V1 reads it apart from the token; V2 profiles
    /// carry theirs: nil).
    func userMetadata() async throws(CallFailure) -> V1UserMetadata?
}
