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
        /// Back to the regular flow for this MVPD. V2: Adobe's answer carries the code and URL to use;
        /// V1 (nil): the profile request or the token exchange was refused (cookbook steps 6, 9 → 10).
        case fallback(SessionAnswer?)
        case partnerFailed(PartnerError)
        case failed(CallFailure)
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
                return .fallback(session)
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
        case .fallback(let session):
            logger.info("silent partner exchange fell back (\(session.map { $0.reasonType ?? $0.actionName } ?? "refused"))")
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
        case .fallback(let session?):
            // Adobe's regular flow, with the code and URL its answer already carries.
            await continueSession(loginID, mvpd: mvpd, session: session, partnerStatus: status.headerValue)
        case .fallback(nil):
            // V1: the regular flow with the MVPD the viewer picked (a registration code of its own).
            await runLogin(loginID, mvpd: mvpd)
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
