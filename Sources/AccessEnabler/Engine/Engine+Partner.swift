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
    static let partnerStatusMaxAgeMillis: Int64 = 300_000

    // MARK: Asking the partner

    /// Asks the partner and waits for its reply, at most `timeoutMillis`; cancellation ends the
    /// wait too (the host's late reply is then ignored).
    static func ask<T: Sendable>(timeoutMillis: Int, _ start: (PartnerReply<T>) -> Void) async -> Result<T, PartnerError> {
        let pending = Locked<PartnerReply<T>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PartnerError>, Never>) in
                let timer = Locked<Task<Void, Never>?>(nil)
                let reply = PartnerReply<T> { result in
                    timer.withLock { $0?.cancel() }
                    continuation.resume(returning: result)
                }
                pending.withLock { $0 = reply }
                timer.withLock { timer in
                    timer = Task {
                        try? await Task.sleep(nanoseconds: UInt64(timeoutMillis) * 1_000_000)
                        if !Task.isCancelled { reply.fail(PartnerError(.timeout, detail: "no reply in \(timeoutMillis) ms")) }
                    }
                }
                if Task.isCancelled {
                    reply.fail(PartnerError(.failed, detail: "cancelled"))
                    return
                }
                start(reply)
            }
        } onCancel: {
            pending.withLock { $0 }?.fail(PartnerError(.failed, detail: "cancelled"))
        }
    }

    private func timeout(interactive: Bool) -> Int {
        settings.partner?.timeoutMillis ?? (interactive ? 60_000 : 10_000)
    }

    private var channelIdentifier: String {
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
                status = PartnerStatus(access: access, providerID: metadata.accountProviderIdentifier,
                                       expirationDate: metadata.authenticationExpirationDate)
            case .failure(let error) where error.code == .accessNotGranted:
                status = PartnerStatus(access: PartnerAccess(.denied, signIn: access.signIn))
            case .failure(let error):
                status = PartnerStatus(access: access, error: error)
            }
        }
        partnerCache = (status, clock.nowMillis())
        return status
    }

    /// The partner status for decisions on an `appleSSO` profile: cached while fresh and valid.
    func partnerHeaderForDecisions() async -> String? {
        let now = clock.nowMillis()
        let configuration = requestor?.configuration
        if let cached = partnerCache, now - cached.askedAt < Self.partnerStatusMaxAgeMillis,
            cached.status.problem(at: now, configuration: configuration) == nil
        {
            return cached.status.headerValue
        }
        let status = await refreshPartnerStatus()
        return status.problem(at: clock.nowMillis(), configuration: configuration) == nil ? status.headerValue : nil
    }

    /// VSA403 / VSA404 when the permission is denied / undetermined, APPL (setRequestor) or
    /// APPL_ERROR (checkAuthentication) when the partner failed — unless the platform says the
    /// viewer is not signed in to a TV provider at all (then the permission does not matter).
    func partnerAdvisory(_ status: PartnerStatus, checkingAuthentication: Bool) -> AdvancedStatus? {
        if let error = status.error {
            return AdvancedStatus(checkingAuthentication ? "APPL_ERROR" : "APPL", .error,
                                  "The partner framework failed.", details: error.summary)
        }
        guard status.access.signIn != .signedOut else { return nil }
        switch status.access.status {
        case .denied, .restricted:
            return AdvancedStatus("VSA403", .info, "The viewer denied this app access to the TV provider account.")
        case .notDetermined:
            return AdvancedStatus("VSA404", .info, "The viewer has not decided on this app's access to the TV provider account.")
        case .granted:
            return nil
        }
    }

    // MARK: checkAuthentication

    /// No HTTP request; the partner is asked for its status. A partner (`appleSSO`) profile needs
    /// the partner's permission and account still there; a regular profile does not.
    func checkAuthenticationWithPartner() async {
        let status = await refreshPartnerStatus()
        if Task.isCancelled { return }
        if let advisory = partnerAdvisory(status, checkingAuthentication: true) { emit(.status(advisory)) }
        var profile = currentProfile()
        if let current = profile, current.type == "appleSSO" {
            let usable = status.problem(at: clock.nowMillis(), configuration: requestor?.configuration) == nil
                && requestor.flatMap { status.mvpd(in: $0.configuration)?.id } == current.mvpd
            if !usable { profile = nil }
        }
        reportAuthentication(profile)
    }

    // MARK: The exchange (partner account → Adobe profile)

    enum ExchangeOutcome {
        case profile(Profile)
        /// Back to the regular flow. V2: Adobe's answer carries a session whose code is reused; V1
        /// (nil): the profile request or the token exchange was refused (cookbook steps 6, 9 → 10).
        /// `status`: the one advanced code the provider dialog comes with (seed 003 step 4); nil for
        /// an MVPD that is in the platform's picker but not onboarded (`boardingStatus` PICKER):
        /// the regular flow goes on silently with it.
        case fallback(SessionAnswer?, status: AdvancedStatus?)
        case partnerFailed(PartnerError)
        case failed(CallFailure)
    }

    /// The advanced code of a fallback for `mvpd` (nil: continue silently, see ExchangeOutcome).
    /// N004 when single sign-on is not available for the provider (Adobe's `configuration_fallback`,
    /// V1's refused profile request); VSA503 when the platform's account could not be used.
    static func fallbackStatus(_ mvpd: MVPD, reason: String?) -> AdvancedStatus? {
        if mvpd.boardingStatus == "PICKER" { return nil }
        switch reason {
        case "configuration_fallback", "profile_request_refused":
            return AdvancedStatus("N004", .info, "Single sign-on through the platform is not available for \(mvpd.displayName) "
                + "with this app.", details: reason)
        default:
            return AdvancedStatus("VSA503", .info, "The platform's TV provider account could not be used; "
                + "log in with the provider instead.", details: reason)
        }
    }

    func exchange(_ mvpd: MVPD, status: PartnerStatus, interactive: Bool) async -> ExchangeOutcome {
        guard let requestor, let partner = settings.partner else { return .partnerFailed(PartnerError(.failed)) }
        switch requestor.backend {
        case .v2(let backend): return await exchange(mvpd, status: status, interactive: interactive, partner: partner, backend: backend)
        case .v1(let backend): return await exchange(mvpd, interactive: interactive, partner: partner, backend: backend)
        }
    }

    /// The partner's SAML response to `verificationToken` (the SAML request), as the platform gave it.
    func askForSAML(_ partner: any PartnerFramework, verificationToken: String, attributeNames: [String],
                    interruption: Bool, interactive: Bool) async -> Result<(saml: String, metadata: PartnerMetadata), PartnerError>
    {
        var request = PartnerMetadataRequest(channelIdentifier: channelIdentifier, isInterruptionAllowed: interruption)
        request.attributeNames = attributeNames
        request.verificationToken = verificationToken
        switch await Self.ask(timeoutMillis: timeout(interactive: interactive), { partner.enqueue(request, reply: $0) }) {
        case .failure(let error):
            return .failure(error)
        case .success(let metadata):
            guard let saml = metadata.samlAttributeQueryResponse, !saml.isEmpty else {
                return .failure(PartnerError(.failed, detail: "the platform returned no SAML response"))
            }
            return .success((saml, metadata))
        }
    }

    /// REST API V2: sessions/sso → the partner with the SAML request → profiles/sso (or the profile Adobe has).
    private func exchange(_ mvpd: MVPD, status: PartnerStatus, interactive: Bool, partner: any PartnerFramework,
                          backend: V2Backend) async -> ExchangeOutcome
    {
        guard let requestor else { return .partnerFailed(PartnerError(.failed)) }
        let header = status.headerValue
        let domain = settings.domainName ?? requestor.configuration.domains.first ?? "adobe.com"
        do {
            let session = try await backend.partnerSession(requestor.id, partner: partner.name, domainName: domain,
                                                           redirectURL: settings.redirectURL, partnerStatus: header)
            switch session.actionName {
            case "authorize":
                guard let profile = try await backend.profile(requestor.id, mvpd: mvpd.id, partnerStatus: header) else {
                    return .failed(CallFailure(.call, .malformed(operation: "profiles/{mvpd}", detail: "no profile")))
                }
                return .profile(profile)
            case "partner_profile":
                guard let authentication = session.authenticationRequest else {
                    return .failed(CallFailure(.call, .malformed(operation: "sessions/sso", detail: "no authenticationRequest")))
                }
                let answer = await askForSAML(partner, verificationToken: authentication.request,
                                              attributeNames: authentication.attributesNames ?? mvpd.requiredMetadataFields,
                                              interruption: interactive, interactive: interactive)
                guard case .success(let (saml, metadata)) = answer else {
                    if case .failure(let error) = answer { return .partnerFailed(error) }
                    return .partnerFailed(PartnerError(.failed))
                }
                var latest = status
                if let provider = metadata.accountProviderIdentifier { latest.providerID = provider }
                if let expiration = metadata.authenticationExpirationDate { latest.expirationDate = expiration }
                guard let profile = try await backend.partnerProfile(
                    requestor.id, partner: partner.name, samlResponse: SAMLResponseEncoding.encode(saml),
                    partnerStatus: latest.headerValue)
                else {
                    return .failed(CallFailure(.call, .malformed(operation: "profiles/sso", detail: "no profile")))
                }
                return .profile(profile)
            default:
                // authenticate / resume with pfs_fallback, configuration_fallback, missing_parameters_fallback
                return .fallback(session, status: Self.fallbackStatus(mvpd, reason: session.reasonType))
            }
        } catch {
            return .failed(error)
        }
    }

    func saveProfile(_ profile: Profile) {
        guard let requestor else { return }
        do {
            try store.saveProfile(scope, requestor: requestor.id, deviceID: context.withLock { $0.deviceID }, profile)
            try store.setSelectedMVPD(scope, requestor: requestor.id, profile.mvpd)
        } catch {
            logger.error("cannot store the profile: \(error)")
        }
    }

    /// setRequestor's silent exchange (iOS cookbook step 2): no callback of its own; a fallback
    /// is simply dropped (the viewer logs in later with getAuthentication).
    func silentPartnerExchange(_ status: PartnerStatus) async {
        guard let configuration = requestor?.configuration, let mvpd = status.mvpd(in: configuration),
            mvpd.enablePlatformServices
        else { return }
        switch await exchange(mvpd, status: status, interactive: false) {
        case .profile(let profile):
            saveProfile(profile)
            logger.info("partner account exchanged for a profile of \(profile.mvpd)")
        case .fallback(let session, let status):
            logger.info("silent partner exchange fell back (\(session?.reasonType ?? status?.details ?? "not onboarded"))")
        case .partnerFailed(let error):
            logger.warning("silent partner exchange: partner failed (\(error.summary))")
        case .failed(let failure):
            logger.warning("silent partner exchange failed (\(failure.error.enhancedError.code))")
        }
    }

    // MARK: getAuthentication with the platform picker

    func runPartnerLogin(_ loginID: Int, filter: JSONValue?) async {
        guard let requestor, let partner = settings.partner else { return }
        let configuration = requestor.configuration
        let access: PartnerAccess
        switch await Self.ask(timeoutMillis: timeout(interactive: true), { partner.checkAccessStatus(prompt: true, reply: $0) }) {
        case .failure(let error):
            return partnerFallback(loginID, AdvancedStatus("VSA503", .info, "The partner framework failed; "
                + "falling back to the provider dialog.", details: error.summary))
        case .success(let answer):
            access = answer
        }
        guard login?.id == loginID else { return }
        if access.status != .granted {
            let advisory = partnerAdvisory(PartnerStatus(access: PartnerAccess(access.status)), checkingAuthentication: false)
            return partnerFallback(loginID, advisory ?? AdvancedStatus("VSA403", .info, "No access to the TV provider account."))
        }
        let providers = configuration.pickerProviders(filter: filter)
        let dialog: JSONValue = [
            "partner": .string(partner.name),
            "supportedAccountProviderIdentifiers": .array(providers.supported.map { .string($0) }),
            "featuredAccountProviderIdentifiers": .array(providers.featured.map { .string($0) }),
        ]
        var request = PartnerMetadataRequest(channelIdentifier: channelIdentifier, isInterruptionAllowed: true)
        request.supportedAccountProviderIdentifiers = providers.supported
        request.featuredAccountProviderIdentifiers = providers.featured
        emit(.presentTvProviderDialog(dialog))
        let picked = await Self.ask(timeoutMillis: timeout(interactive: true)) { partner.enqueue(request, reply: $0) }
        emit(.dismissTvProviderDialog(dialog))
        guard login?.id == loginID, !Task.isCancelled else { return }
        let metadata: PartnerMetadata
        switch picked {
        case .failure(let error):
            return pickerFailed(loginID, error, configuration: configuration)
        case .success(let answer):
            metadata = answer
        }
        let status = PartnerStatus(access: access, providerID: metadata.accountProviderIdentifier,
                                   expirationDate: metadata.authenticationExpirationDate)
        guard metadata.accountProviderIdentifier != nil else {
            return partnerFallback(loginID, AdvancedStatus("VSA503", .info, "The platform returned no TV provider."))
        }
        guard let mvpd = status.mvpd(in: configuration) else {
            return partnerFallback(loginID, AdvancedStatus("N004", .info, "The TV provider chosen in the platform picker "
                + "is not supported by this requestor.", details: metadata.accountProviderIdentifier))
        }
        if let problem = status.problem(at: clock.nowMillis(), configuration: configuration) {
            return partnerFallback(loginID, AdvancedStatus("VSA503", .info, "The platform account cannot be used: \(problem)."))
        }
        partnerCache = (status, clock.nowMillis())
        try? store.setSelectedMVPD(scope, requestor: requestor.id, mvpd.id)
        switch await exchange(mvpd, status: status, interactive: true) {
        case .profile(let profile):
            completeLogin(loginID, with: profile)
        case .fallback(let session, nil):
            // In the platform's picker, not onboarded: the regular flow for it, silently (seed 003
            // step 4), with the code and URL Adobe's answer already carries (V2) or a code of its own (V1).
            if let session {
                await continueSession(loginID, mvpd: mvpd, session: session, partnerStatus: status.headerValue)
            } else {
                await runLogin(loginID, mvpd: mvpd)
            }
        case .fallback(let session, let advisory?):
            // The provider dialog with one code; the selection reuses Adobe's session (no second one).
            login?.fallback = session.map { Login.Fallback(session: $0, partnerStatus: status.headerValue) }
            partnerFallback(loginID, advisory)
        case .partnerFailed(let error):
            partnerFallback(loginID, AdvancedStatus("VSA503", .info, "The platform could not complete the login.",
                                                    details: error.summary))
        case .failed(let failure):
            if !failure.isCancellation { failLogin(loginID, StatusCatalog.loginFailure(failure, creatingSession: true)) }
        }
    }

    /// What the platform picker's failures mean (iOS cookbook step 4).
    private func pickerFailed(_ loginID: Int, _ error: PartnerError, configuration: RequestorConfiguration) {
        switch error.code {
        case .unsupportedProvider:
            // In the platform picker but not onboarded: select it silently, no code of our own.
            if let id = error.detail, let mvpd = configuration.mvpd(platformMappingID: id) {
                guard let requestor else { return }
                try? store.setSelectedMVPD(scope, requestor: requestor.id, mvpd.id)
                trackSelection(mvpd.id)
                login?.mvpd = mvpd.id
                login?.taskID = spawn { await self.runLogin(loginID, mvpd: mvpd) }
            } else {
                partnerFallback(loginID, AdvancedStatus("N004", .info, "The TV provider chosen in the platform picker is "
                    + "not supported by this requestor.", details: error.detail))
            }
        case .userCancelled:
            partnerFallback(loginID, AdvancedStatus("N005", .info, "The platform's provider picker was cancelled."))
        case .otherProvider:
            partnerFallback(loginID, AdvancedStatus("N003", .info, "The viewer chose another TV provider in the platform picker."))
        case .accessNotGranted:
            partnerFallback(loginID, AdvancedStatus("VSA403", .info, "The viewer denied this app access to the TV provider account."))
        case .serviceUnavailable, .rejected, .failed, .timeout:
            partnerFallback(loginID, AdvancedStatus("VSA503", .info, "The platform's account request failed.",
                                                    details: error.summary))
        }
    }

    /// Back to the regular flow: exactly one advanced code, then the provider dialog.
    func partnerFallback(_ loginID: Int, _ status: AdvancedStatus) {
        guard login?.id == loginID else { return }
        login?.taskID = nil
        emit(.status(status))
        emit(.displayProviderDialog(requestor?.configuration.mvpds ?? []))
    }
}

extension Engine {
    /// The provider the viewer selected after a partner fallback, on Adobe's fallback session (its
    /// code, URL and expiry; V2 cookbook C.5–9): shown as it is when it is that MVPD's, resumed
    /// with the MVPD when it has none (or asks for parameters). A different MVPD than the one the
    /// session is for gets a session of its own.
    func continueFallback(_ loginID: Int, mvpd: MVPD, _ fallback: Login.Fallback) async {
        guard let requestor, case .v2(let backend) = requestor.backend else { return }
        var session = fallback.session
        if let fixed = session.mvpd, fixed != mvpd.id {
            return await runLogin(loginID, mvpd: mvpd)
        }
        if session.mvpd == nil, session.actionName == "authenticate", let code = session.code {
            do {
                session = try await backend.resumeSession(requestor.id, code: code, parameters: [("mvpd", mvpd.id)])
            } catch {
                if !error.isCancellation { failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: true)) }
                return
            }
        }
        await continueSession(loginID, mvpd: mvpd, session: session, partnerStatus: fallback.partnerStatus)
    }
}
