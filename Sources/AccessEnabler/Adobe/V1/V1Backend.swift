// SPDX-License-Identifier: Apache-2.0

/// REST API V1 bound to one requestor (Backend). V1 has no partner status header: the partner
/// status is not sent (a partner profile is still decided on only with a usable one).
package struct V1Backend: Backend {
    package let requestorID: String
    let wire: V1Client
    let domainName: String
    let redirectURL: String
    /// The `notAfter` of the stored token of an MVPD (a code login's answer must be a new token).
    let storedNotAfter: @Sendable (String) -> Int64?

    package init(
        requestorID: String, wire: V1Client, domainName: String = Defaults.domainName, redirectURL: String = "",
        storedNotAfter: @escaping @Sendable (String) -> Int64? = { _ in nil }
    ) {
        self.requestorID = requestorID
        self.wire = wire
        self.domainName = domainName
        self.redirectURL = redirectURL
        self.storedNotAfter = storedNotAfter
    }

    package var baseURL: String { wire.baseURL }
    /// Adobe keeps V1 authorizations for their TTL: while the stored one lasts, the media token
    /// alone answers (one request instead of two).
    package var keepsAuthorizations: Bool { true }
    package var identityTokenKinds: [IdentityTokenKind] { V1Client.identityTokenKinds }

    package func configuration() async throws(CallFailure) -> RequestorConfiguration {
        try await wire.configuration(requestorID)
    }

    /// The device's authentication token, as a profile whose user metadata is still to be read.
    package func profiles(partnerStatus: String?) async throws(CallFailure) -> [Profile] {
        try await wire.authenticationToken(requestorID).map { [$0.profile] } ?? []
    }

    /// The token keeps what the store knows of it (type, user metadata); a new one found while the
    /// platform identity goes with the requests is typed `platformSSO` (ProfileSync.mergedV1).
    package func synced(_ answered: [Profile], stored: [Profile], configuration: RequestorConfiguration, now: Int64) -> [Profile] {
        let platformIdentitySent = !wire.context().identityHeaders([.platformIdentity], nowMillis: now).isEmpty
        return ProfileSync.mergedV1(
            answered.first, stored: stored, configuration: configuration, platformIdentitySent: platformIdentitySent)
    }

    package func authorize(_ resource: String, profile: Profile, partnerStatus: String?, authorizedUntil: Int64?)
        async throws(CallFailure) -> [Decision]
    {
        [try await wire.decision(requestorID, profile: profile, resource: resource, authorizedUntil: authorizedUntil)]
    }

    package var logsOutDevice: Bool { true }

    /// V1 logs the device out at once (`logoutDevice`): no per-MVPD logout, no logout page.
    package func logout(mvpd: String) async throws(CallFailure) -> [String: LogoutAction] {
        try await wire.logout(requestorID)
        return [:]
    }

    package func logoutDevice() async throws(CallFailure) { try await wire.logout(requestorID) }

    package func userMetadata() async throws(CallFailure) -> V1UserMetadata? { try await wire.userMetadata(requestorID) }

    package func preauthorize(_ resources: [String], profile: Profile, partnerStatus: String?) async throws(CallFailure) -> [Decision] {
        try await wire.preauthorize(requestorID, resources: resources)
    }
}
