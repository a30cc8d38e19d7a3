// SPDX-License-Identifier: Apache-2.0

/// Partner single sign-on (Adobe's Apple SSO cookbooks, REST API V2 partner flow) on a
/// pluggable partner framework. Steps and the `isInterruptionAllowed` each one uses:
///
/// | step | cookbook | interruption |
/// |---|---|---|
/// | partner status (setRequestor, checkAuthentication, decisions) | V2 B.1, D.1, D.5 | false |
/// | silent exchange's SAML request (setRequestor) | iOS step 2 (no UI may show) | false |
/// | the platform picker (getAuthentication) | V2 C.3, V1 step 4 | true |
/// | the SAML request after the picker, REST API V2 | V2 C.10 text (the V1 snippet sets false) | true |
/// | the SAML request, REST API V1 (silent or after the picker) | V1 step 7 snippet | false |
extension Engine {
    /// How long a partner status is reused for decisions before it is asked again.
    static let partnerStatusMaxAgeMillis = Defaults.partnerStatusMaxAgeMillis

    // MARK: Asking the partner

    /// Asks the partner and waits for its reply, at most `timeoutMillis` of `clock`'s time;
    /// cancellation ends the wait too (the host's late reply is then ignored, and the platform is
    /// told through `onCancel`, as on a timeout).
    static func ask<T: Sendable>(
        timeoutMillis: Int, clock: any WallClock = SystemClock(),
        _ start: (PartnerReply<T>) -> Void
    ) async -> Result<T, PartnerError> {
        await AnswerOnce.wait(
            timeoutMillis: Int64(timeoutMillis), clock: clock,
            timedOut: { .failure(PartnerError(.timeout, detail: "no reply in \(timeoutMillis) ms")) },
            cancelled: { .failure(PartnerError(.failed, detail: "cancelled")) }
        ) { start(PartnerReply($0)) }
    }

    func timeout(interactive: Bool) -> Int {
        PartnerExchangeFlow.timeoutMillis(configured: settings.partner?.timeoutMillis, interactive: interactive)
    }

    var channelIdentifier: String {
        RequestorConfiguration.samlIssuer(forBaseURL: requestor?.backend.baseURL ?? settings.baseURL)
    }

    /// Asks the partner for its status without interrupting the viewer (and caches it).
    func refreshPartnerStatus() async -> PartnerStatus {
        guard let partner = settings.partner else { return PartnerStatus(access: PartnerAccess(.notDetermined)) }
        let status: PartnerStatus
        switch await Self.ask(timeoutMillis: timeout(interactive: false), { partner.checkAccessStatus(prompt: false, reply: $0) }) {
        case .failure(let error):
            status = PartnerStatus(access: PartnerAccess(.notDetermined), error: error)
        case .success(let access) where access.status != .granted:
            status = PartnerStatus(access: access)
        case .success(let access):
            let request = PartnerMetadataRequest(channelIdentifier: channelIdentifier, isInterruptionAllowed: false)
            switch await Self.ask(timeoutMillis: timeout(interactive: false), { partner.enqueue(request, reply: $0) }) {
            case .success(let metadata):
                status = PartnerStatus(
                    access: access, providerID: metadata.accountProviderIdentifier,
                    expirationDate: metadata.authenticationExpirationDate)
            case .failure(let error) where error.code == .accessNotGranted:
                status = PartnerStatus(access: PartnerAccess(.denied, signIn: access.signIn))
            case .failure(let error):
                status = PartnerStatus(access: access, error: error, errorSource: .provider)
            }
        }
        partnerCache = (status, clock.nowMillis())
        return status
    }

    /// True when the partner status was asked less than `partnerStatusMaxAgeMillis` ago.
    nonisolated func isPartnerStatusFresh() -> Bool {
        guard let cached = partnerStatusCache.withLock({ $0 }) else { return false }
        return Self.isFresh(since: cached.askedAt, now: clock.nowMillis(), maxAge: Self.partnerStatusMaxAgeMillis)
    }

    /// The `AP-Partner-Framework-Status` value for decisions on the partner profile `profile`:
    /// the status cached while fresh, else asked again. When it is not usable for that profile
    /// (ProfileUse), no decision may be asked: the failure is the `invalid_header_pfs_*` error
    /// Adobe would answer (status 0: the SDK's own), which reads as "not authenticated".
    func partnerHeaderForDecisions(_ profile: Profile) async -> Result<String, EnhancedError> {
        var status = partnerCache?.status
        if status == nil || !isPartnerStatusFresh() { status = await refreshPartnerStatus() }
        let now = clock.nowMillis()
        let configuration = requestor?.configuration
        guard let status else { return .failure(Self.partnerRefusal("invalid_header_pfs_permission_access_not_present", "")) }
        if let code = status.refusalCode(at: now, configuration: configuration) {
            // An integration that does not enforce the viewer's permission: the status goes as it is.
            if let configuration, ProfileUse.permissionNotEnforced(for: profile.mvpd, status, configuration) {
                return .success(status.headerValue)
            }
            return .failure(Self.partnerRefusal(code, status.problem(at: now, configuration: configuration) ?? ""))
        }
        guard ProfileUse.isUsable(profile, at: now, partner: status, configuration: configuration) else {
            return .failure(
                Self.partnerRefusal(
                    "invalid_header_pfs_provider_id_mismatch",
                    "the platform's provider is not \(profile.mvpd)'s"))
        }
        return .success(status.headerValue)
    }

    /// The SDK's own refusal of a decision for want of a usable partner status, named with the
    /// code Adobe uses for the same refusal (docs/ERRORS.md).
    static func partnerRefusal(_ code: String, _ problem: String) -> EnhancedError {
        .sdk(
            code, action: "authentication",
            message: "The platform's TV provider status cannot be used (\(problem)); "
                + "the viewer must authenticate again.")
    }

    /// VSA403 / VSA404 when the permission is denied / undetermined, APPL (setRequestor) or
    /// APPL_ERROR (checkAuthentication) when the partner failed — unless the platform says the
    /// viewer is not signed in to a TV provider at all (then the permission does not matter).
    func partnerAdvisory(_ status: PartnerStatus, checkingAuthentication: Bool) -> AdvancedStatus? {
        if let error = status.error {
            // The cookbook's steps spell APPL / APPL_ERROR, Adobe's error table AAPL / AAPL_ERROR: the
            // other spelling goes in `aliases`, so a host matches either (docs/ERRORS.md).
            return AdvancedStatus(
                checkingAuthentication ? "APPL_ERROR" : "APPL", .error, "The partner framework failed.", details: error.summary,
                extras: ["aliases": .array([.string(checkingAuthentication ? "AAPL_ERROR" : "AAPL")])])
        }
        guard status.access.signIn != .signedOut else { return nil }
        return status.access.status == .granted ? nil : PartnerExchangeFlow.accessStatus(status.access.status)
    }

    /// Stores a login's profile, then its MVPD as the selection.
    func saveProfile(_ profile: Profile) {
        guard let requestor else { return }
        do {
            try store.saveProfile(scope, requestor: requestor.id, deviceID: context.withLock { $0.deviceID }, profile)
            try store.setSelectedMVPD(scope, requestor: requestor.id, profile.mvpd)
        } catch {
            logger.error("cannot store the profile: \(error)")
        }
    }
}
