// SPDX-License-Identifier: Apache-2.0

/// REST API V2 as the flows need it (Backend), over the wire client of one requestor (V2Client).
package struct V2Backend: Backend {
    let wire: V2Client
    /// The session's `domainName` (Settings.domainName, else the configuration's first domain).
    let domainName: String
    let redirectURL: String
    /// The partner framework's name (sessions/sso/{partner}, profiles/sso/{partner}).
    let partnerName: String?

    package init(
        wire: V2Client, domainName: String = Defaults.domainName, redirectURL: String = "",
        partnerName: String? = nil
    ) {
        self.wire = wire
        self.domainName = domainName
        self.redirectURL = redirectURL
        self.partnerName = partnerName
    }

    package var requestorID: String { wire.requestorID }
    package var baseURL: String { wire.baseURL }
    package var keepsAuthorizations: Bool { false }
    package var identityTokenKinds: [IdentityTokenKind] { V2Client.identityTokenKinds }

    package func configuration() async throws(CallFailure) -> RequestorConfiguration {
        try await wire.configuration()
    }

    package func profiles(partnerStatus: String?) async throws(CallFailure) -> [Profile] {
        try await wire.profiles(partnerStatus: partnerStatus)
    }

    /// TempPass and degraded profiles are not in Adobe's list: they stay.
    package func synced(_ answered: [Profile], stored: [Profile], configuration: RequestorConfiguration, now: Int64) -> [Profile] {
        ProfileSync.merged(answered, stored: stored, now: now)
    }

    package func authorize(_ resource: String, profile: Profile, partnerStatus: String?, authorizedUntil: Int64?)
        async throws(CallFailure) -> [Decision]
    {
        try await wire.authorize(
            mvpd: profile.mvpd, resources: [resource], partnerStatus: partnerStatus,
            tempPassIdentity: profile.tempPassIdentity)
    }

    package var logsOutDevice: Bool { false }

    package func logout(mvpd: String) async throws(CallFailure) -> [String: LogoutAction] {
        try await wire.logout(mvpd: mvpd, redirectURL: redirectURL)
    }

    /// V2 has no device logout: each MVPD's profile is logged out (`logout(mvpd:)`).
    package func logoutDevice() async throws(CallFailure) {}

    package func userMetadata() async throws(CallFailure) -> V1UserMetadata? { nil }

    package func preauthorize(_ resources: [String], profile: Profile, partnerStatus: String?) async throws(CallFailure) -> [Decision] {
        try await wire.preauthorize(
            mvpd: profile.mvpd, resources: resources, partnerStatus: partnerStatus,
            tempPassIdentity: profile.tempPassIdentity)
    }
}
