// SPDX-License-Identifier: Apache-2.0

/// REST API V2 bound to one requestor (Backend).
package struct V2Service: Backend {
    package let requestorID: String
    let wire: V2Backend
    /// The session's `domainName` (Settings.domainName, else the configuration's first domain).
    let domainName: String
    let redirectURL: String
    /// The partner framework's name (sessions/sso/{partner}, profiles/sso/{partner}).
    let partnerName: String?

    package init(
        requestorID: String, wire: V2Backend, domainName: String = Defaults.domainName, redirectURL: String = "",
        partnerName: String? = nil
    ) {
        self.requestorID = requestorID
        self.wire = wire
        self.domainName = domainName
        self.redirectURL = redirectURL
        self.partnerName = partnerName
    }

    package var baseURL: String { wire.baseURL }
    package var keepsAuthorizations: Bool { false }
    package var identityTokenKinds: [IdentityTokenKind] { V2Backend.identityTokenKinds }

    package func configuration() async throws(CallFailure) -> RequestorConfiguration {
        try await wire.configuration(requestorID)
    }

    package func profiles(partnerStatus: String?) async throws(CallFailure) -> [Profile] {
        try await wire.profiles(requestorID, partnerStatus: partnerStatus)
    }

    /// TempPass and degraded profiles are not in Adobe's list: they stay.
    package func synced(_ answered: [Profile], stored: [Profile], configuration: RequestorConfiguration, now: Int64) -> [Profile] {
        ProfileSync.merged(answered, stored: stored, now: now)
    }

    package func authorize(_ resource: String, profile: Profile, partnerStatus: String?, authorizedUntil: Int64?)
        async throws(CallFailure) -> [Decision]
    {
        try await wire.authorize(
            requestorID, mvpd: profile.mvpd, resources: [resource], partnerStatus: partnerStatus,
            tempPassIdentity: profile.tempPassIdentity)
    }

    package var logsOutDevice: Bool { false }

    package func logout(mvpd: String) async throws(CallFailure) -> [String: LogoutAction] {
        try await wire.logout(requestorID, mvpd: mvpd, redirectURL: redirectURL)
    }

    /// V2 has no device logout: each MVPD's profile is logged out (`logout(mvpd:)`).
    package func logoutDevice() async throws(CallFailure) {}

    package func userMetadata() async throws(CallFailure) -> V1UserMetadata? { nil }

    package func preauthorize(_ resources: [String], profile: Profile, partnerStatus: String?) async throws(CallFailure) -> [Decision] {
        try await wire.preauthorize(
            requestorID, mvpd: profile.mvpd, resources: resources, partnerStatus: partnerStatus,
            tempPassIdentity: profile.tempPassIdentity)
    }
}
