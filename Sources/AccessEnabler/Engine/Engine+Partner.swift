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
                        try? await Task.sleep(nanoseconds: Limits.nanoseconds(millis: timeoutMillis))
                        if !Task.isCancelled { reply.abandon(PartnerError(.timeout, detail: "no reply in \(timeoutMillis) ms")) }
                    }
                }
                if Task.isCancelled {
                    reply.abandon(PartnerError(.failed, detail: "cancelled"))
                    return
                }
                start(reply)
            }
        } onCancel: {
            // The login was cancelled (or the client destroyed): the platform is told (onCancel).
            pending.withLock { $0 }?.abandon(PartnerError(.failed, detail: "cancelled"))
        }
    }

    private func timeout(interactive: Bool) -> Int {
        let given = settings.partner?.timeoutMillis ?? (interactive ? 60_000 : 10_000)
        return given.clamped(to: Limits.partnerTimeoutMillis)
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
                status = PartnerStatus(access: access, error: error, errorSource: .provider)
            }
        }
        partnerCache = (status, clock.nowMillis())
        return status
    }

    /// True when the partner status was asked less than `partnerStatusMaxAgeMillis` ago.
    func isPartnerStatusFresh() -> Bool {
        guard let cached = partnerCache else { return false }
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
            return .failure(Self.partnerRefusal(code, status.problem(at: now, configuration: configuration) ?? ""))
        }
        guard ProfileUse.isUsable(profile, at: now, partner: status, configuration: configuration) else {
            return .failure(Self.partnerRefusal("invalid_header_pfs_provider_id_mismatch",
                                                "the platform's provider is not \(profile.mvpd)'s"))
        }
        return .success(status.headerValue)
    }

    /// The SDK's own refusal of a decision for want of a usable partner status, named with the
    /// code Adobe uses for the same refusal (docs/ERRORS.md).
    static func partnerRefusal(_ code: String, _ problem: String) -> EnhancedError {
        .sdk(code, action: "authentication", message: "The platform's TV provider status cannot be used (\(problem)); "
            + "the viewer must authenticate again.")
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
    /// V1's refused profile request); VSA503 when the platform's account could not be used, with the
    /// context in its `message` (the cookbook: "more context is provided in the message section")
    /// and the reason in `details`.
    static func fallbackStatus(_ mvpd: MVPD, reason: String?, context: String? = nil) -> AdvancedStatus? {
        if mvpd.boardingStatus == "PICKER" { return nil }
        switch reason {
        case "configuration_fallback", "profile_request_refused":
            return AdvancedStatus("N004", .info, "Single sign-on through the platform is not available for \(mvpd.displayName) "
                + "with this app.", details: reason)
        default:
            return vsa503("The platform's TV provider account could not be used", context: context ?? reason.map(Self.describe),
                          details: reason)
        }
    }

    /// VSA503: the platform's account request failed or its account could not be used; `context`
    /// says why (in the message, as the cookbook asks), `details` carries the raw reason.
    static func vsa503(_ what: String, context: String?, details: String?) -> AdvancedStatus {
        AdvancedStatus("VSA503", .info, what + (context.map { " (\($0))" } ?? "") + "; log in with the provider instead.",
                       details: details)
    }

    /// Adobe's fallback reasons in words.
    private static func describe(_ reason: String) -> String {
        switch reason {
        case "pfs_fallback": "Adobe did not accept the platform's status"
        case "missing_parameters_fallback": "Adobe asked for parameters of the regular login"
        case "token_exchange_refused": "Adobe refused the platform's SAML response"
        default: "Adobe answered \(reason)"
        }
    }

    func exchange(_ mvpd: MVPD, status: PartnerStatus, interactive: Bool) async -> ExchangeOutcome {
        guard let requestor, let partner = settings.partner else { return .partnerFailed(PartnerError(.failed)) }
        switch requestor.backend.api {
        case .v2(let backend): return await exchange(mvpd, status: status, interactive: interactive, partner: partner, backend: backend)
        case .v1(let backend): return await exchange(mvpd, status: status, interactive: interactive, partner: partner, backend: backend)
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

    /// REST API V2: sessions/sso → the partner with the SAML request → profiles/sso (or the profile
    /// Adobe has). The platform's answer is checked again after the SAML step (permission, provider,
    /// expiry: V2 cookbook C.10–12) and Adobe's request must be a SAML one; a refusal of Adobe's
    /// (profiles/sso 4xx: V2 cookbook C.13) or a profile for another MVPD falls back to the regular
    /// flow with VSA503, as V1's refused token exchange does.
    private func exchange(_ mvpd: MVPD, status: PartnerStatus, interactive: Bool, partner: any PartnerFramework,
                          backend: V2Backend) async -> ExchangeOutcome
    {
        guard let requestor else { return .partnerFailed(PartnerError(.failed)) }
        let header = status.headerValue
        let domain = settings.domainName ?? requestor.configuration.domains.first ?? "adobe.com"
        let session: SessionAnswer
        do {
            session = try await backend.partnerSession(requestor.id, partner: partner.name, domainName: domain,
                                                       redirectURL: settings.redirectURL, partnerStatus: header)
        } catch {
            return .failed(error)
        }
        switch session.actionName {
        case "authorize":
            do {
                guard let profile = try await backend.profile(requestor.id, mvpd: mvpd.id, partnerStatus: header) else {
                    return .failed(CallFailure(.call, .malformed(operation: "profiles/{mvpd}", detail: "no profile")))
                }
                return .profile(profile)
            } catch {
                return .failed(error)
            }
        case "partner_profile":
            guard let authentication = session.authenticationRequest else {
                return .failed(CallFailure(.call, .malformed(operation: "sessions/sso", detail: "no authenticationRequest")))
            }
            guard authentication.type?.lowercased() == "saml" else {
                // Adobe documents SAML only; anything else cannot be given to the platform.
                return .fallback(nil, status: Self.fallbackStatus(mvpd, reason: "unsupported_authentication_request",
                    context: "Adobe asked for a \(authentication.type ?? "untyped") authentication request, not SAML"))
            }
            let answer = await askForSAML(partner, verificationToken: authentication.request,
                                          attributeNames: authentication.attributesNames ?? mvpd.requiredMetadataFields,
                                          interruption: interactive, interactive: interactive)
            guard case .success(let (saml, metadata)) = answer else {
                if case .failure(let error) = answer { return .partnerFailed(error) }
                return .partnerFailed(PartnerError(.failed))
            }
            let latest: PartnerStatus
            switch recheck(status, answer: metadata, for: mvpd) {
            case .usable(let checked): latest = checked
            case .unusable(let fallback): return fallback
            }
            let profile: Profile?
            do {
                profile = try await backend.partnerProfile(requestor.id, partner: partner.name, mvpd: mvpd.id,
                                                           samlResponse: SAMLResponseEncoding.encode(saml),
                                                           partnerStatus: latest.headerValue)
            } catch {
                guard Self.isRefusal(error) else { return .failed(error) }
                let code = error.error.enhancedError.code
                return .fallback(nil, status: Self.fallbackStatus(mvpd, reason: code,
                    context: "Adobe refused the platform's SAML response (HTTP \(error.error.httpStatus), \(code))"))
            }
            guard let profile else {
                return .fallback(nil, status: Self.fallbackStatus(mvpd, reason: "profile_mismatch",
                    context: "Adobe's answer holds no profile of \(mvpd.id)"))
            }
            partnerCache = (latest, clock.nowMillis())
            return .profile(profile)
        default:
            // authenticate / resume with pfs_fallback, configuration_fallback, missing_parameters_fallback
            return .fallback(session, status: Self.fallbackStatus(mvpd, reason: session.reasonType))
        }
    }

    enum Recheck {
        case usable(PartnerStatus)
        case unusable(ExchangeOutcome)
    }

    /// The platform answered the SAML request (V2 cookbook C.10–12, V1 step 7): its account must
    /// still be usable (permission, provider, expiry) and still be `mvpd`'s before its SAML is
    /// sent; else the regular flow, with VSA503.
    func recheck(_ status: PartnerStatus, answer metadata: PartnerMetadata, for mvpd: MVPD) -> Recheck {
        var latest = status
        if let provider = metadata.accountProviderIdentifier { latest.providerID = provider }
        if let expiration = metadata.authenticationExpirationDate { latest.expirationDate = expiration }
        let configuration = requestor?.configuration
        if let problem = latest.problem(at: clock.nowMillis(), configuration: configuration) {
            return .unusable(.fallback(nil, status: Self.fallbackStatus(mvpd, reason: "platform_answer_unusable",
                                                                        context: "after the SAML step, \(problem)")))
        }
        if let configuration, latest.mvpd(in: configuration)?.id != mvpd.id {
            return .unusable(.fallback(nil, status: Self.fallbackStatus(mvpd, reason: "platform_answer_unusable",
                context: "the platform answered for provider \(latest.providerID ?? "none"), not \(mvpd.id)")))
        }
        return .usable(latest)
    }

    /// A 4xx answer of the call itself (Adobe refused the request as such; a 401 was already
    /// retried with a new token, a 429 after its pauses), as opposed to a failure to reach Adobe.
    static func isRefusal(_ failure: CallFailure) -> Bool {
        failure.stage == .call && (400..<500).contains(failure.error.httpStatus) && failure.error.httpStatus != 429
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
            return partnerFallback(loginID, Self.vsa503("The partner framework failed", context: error.summary,
                                                        details: error.summary))
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
        progress(.presentTvProviderDialog(dialog))
        let picked = await Self.ask(timeoutMillis: timeout(interactive: true)) { partner.enqueue(request, reply: $0) }
        progress(.dismissTvProviderDialog(dialog))
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
            return partnerFallback(loginID, Self.vsa503("The platform's account request failed",
                                                        context: "the platform returned no TV provider", details: nil))
        }
        guard let mvpd = status.mvpd(in: configuration) else {
            return partnerFallback(loginID, AdvancedStatus("N004", .info, "The TV provider chosen in the platform picker "
                + "is not supported by this requestor.", details: metadata.accountProviderIdentifier))
        }
        if let problem = status.problem(at: clock.nowMillis(), configuration: configuration) {
            return partnerFallback(loginID, Self.vsa503("The platform's TV provider account could not be used",
                                                        context: problem, details: nil))
        }
        partnerCache = (status, clock.nowMillis())
        // The platform picker's choice is the viewer's selection, whichever way the login goes on
        // (single sign-on, or the regular flow of a provider only in the picker).
        try? store.setSelectedMVPD(scope, requestor: requestor.id, mvpd.id)
        trackSelection(mvpd.id)
        login?.mvpd = mvpd.id
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
            partnerFallback(loginID, Self.vsa503("The platform could not complete the login", context: error.summary,
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
            partnerFallback(loginID, Self.vsa503("The platform's account request failed", context: error.summary,
                                                 details: error.summary))
        }
    }

    /// Back to the regular flow: exactly one advanced code, then the provider dialog.
    func partnerFallback(_ loginID: Int, _ status: AdvancedStatus) {
        guard login?.id == loginID else { return }
        login?.taskID = nil
        progress(.status(status))
        progress(.displayProviderDialog(requestor?.configuration.mvpds ?? []))
    }
}

extension Engine {
    /// The provider the viewer selected after a partner fallback, on Adobe's fallback session (its
    /// code, URL and expiry; V2 cookbook C.5–9): shown as it is when it is that MVPD's, resumed
    /// with the MVPD when it has none (or asks for parameters). A different MVPD than the one the
    /// session is for gets a session of its own.
    func continueFallback(_ loginID: Int, mvpd: MVPD, _ fallback: Login.Fallback) async {
        guard let requestor, case .v2(let backend) = requestor.backend.api else { return }
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
