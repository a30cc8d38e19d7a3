// SPDX-License-Identifier: Apache-2.0

/// checkAuthentication, getAuthentication, setSelectedProvider, handleExternalURL and the
/// second-screen (registration code) login of REST API V2 (V1's: Engine+V1Login.swift).
extension Engine {
    /// No HTTP request. With a partner framework the partner was just asked for its status (the
    /// engine's partner gate; VSA403 / VSA404 / APPL_ERROR come from there), and a partner profile
    /// counts only while that status is usable (ProfileUse).
    func checkAuthentication(_ call: CallID, explanation: AdvancedStatus? = nil) {
        reportAuthentication(call, currentProfile(), explanation: explanation)
    }

    /// `data`: promotional TempPass takes the viewer's identity from it (AP-TempPass-Identity).
    func getAuthentication(_ call: CallID, force: Bool, data: JSONValue? = nil, filter: JSONValue? = nil) {
        if !force, let profile = currentProfile() {
            reportAuthentication(call, profile)
            return
        }
        // The free preview is over; the viewer may choose another provider (or the TempPass again: N111 + 0).
        if let expired = expiredTempPass() { emit(.status(StatusCatalog.tempPassExpired(mvpd: expired.mvpd)), calls: [call]) }
        joinLogin(.authentication(call), filter: filter, tempPassIdentity: Self.tempPassIdentity(data))
    }

    /// The calls waiting for the login in progress (its progress events are theirs).
    var loginCalls: [CallID] { login?.waiters.map(\.call) ?? [] }

    /// Sends an event of the login in progress (the dialog, the code, a fallback's status).
    func progress(_ event: Event) { emit(event, calls: loginCalls) }

    /// Adds a waiter to the login in progress, or starts one: with the platform's picker when a
    /// partner framework is configured and an MVPD supports it, else with the provider dialog.
    func joinLogin(_ waiter: Login.Waiter, filter: JSONValue? = nil, tempPassIdentity: String? = nil) {
        if login != nil {
            login?.waiters.append(waiter)
            if let tempPassIdentity { login?.tempPassIdentity = tempPassIdentity }
            return
        }
        let loginID = newLoginID()
        login = Login(id: loginID, waiters: [waiter])
        login?.tempPassIdentity = tempPassIdentity
        // The platform picker only when an MVPD the host's filter keeps supports platform SSO.
        if settings.partner != nil, let requestor, !requestor.configuration.pickerProviders(filter: filter).supported.isEmpty {
            login?.taskID = spawn { await self.runPartnerLogin(loginID, filter: filter) }
        } else {
            progress(.displayProviderDialog(requestor?.configuration.mvpds ?? []))
        }
    }

    /// A selection made during a login answers it: the call ends with the login (its waiters get
    /// the outcome). Without a login, a selection starts one whose waiter is this call.
    func setSelectedProvider(_ call: CallID, _ id: String?) {
        guard let requestor else { return }
        guard let id else {
            try? store.setSelectedMVPD(scope, requestor: requestor.id, nil)
            if login != nil {
                endLogin(code: AccessEnablerErrorCode.providerNotSelected,
                         status: AdvancedStatus("N005", .info, "The MVPD selection was cancelled."))
            } else {
                end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.providerNotSelected))
            }
            return
        }
        if login == nil { login = Login(id: newLoginID(), waiters: [.authentication(call)]) }
        guard let mvpd = requestor.configuration.mvpd(id) else {
            endLogin(code: AccessEnablerErrorCode.genericAuthentication,
                     status: AdvancedStatus("N500", .error, "MVPD '\(id)' is not in the requestor's configuration."))
            return
        }
        do { try store.setSelectedMVPD(scope, requestor: requestor.id, id) } catch {
            logger.error("cannot store the selected MVPD: \(error)")
        }
        trackSelection(id)
        // A new selection replaces the login in progress (its code is abandoned, polling stops).
        cancelTask(login?.taskID)
        let loginID = login!.id
        login?.mvpd = id
        login?.code = nil
        // A TempPass MVPD authenticates at once: no session, no code to show. (The task id is computed
        // first: starting the TempPass login may end the login, which `login?.taskID = ...` would overlap.)
        // After a partner fallback, Adobe's fallback session goes on with the selected MVPD.
        let fallback = login?.fallback
        login?.fallback = nil
        let taskID: Int?
        if mvpd.isTempPass {
            taskID = startTempPassLogin(loginID, mvpd: mvpd)
        } else if let fallback {
            taskID = spawn { await self.continueFallback(loginID, mvpd: mvpd, fallback) }
        } else {
            taskID = spawn { await self.runLogin(loginID, mvpd: mvpd) }
        }
        login?.taskID = taskID
    }

    func handleExternalURL(_ call: CallID, _ url: String) {
        if let login, login.code != nil {
            login.wakeup.wake()  // the browser says the login is done: look at once
            return
        }
        if logoutRedirectPending {
            logoutRedirectPending = false  // the end of a browser logout (its status was already sent)
            return
        }
        let status = AdvancedStatus("N130", .error, "handleExternalURL: no login is in progress (APIs called out of order).")
        emit(.status(status), calls: [call])
        end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.genericAuthentication), explanation: status)
    }

    /// Ends the login in progress (if any) for every waiter.
    func endLogin(code: String, status: AdvancedStatus?) {
        guard let login else { return }
        cancelTask(login.taskID)
        finishLogin(login.id, .failure(code: code, status: status))
    }

    func finishLogin(_ loginID: Int, _ outcome: LoginOutcome) {
        guard let flow = login, flow.id == loginID else { return }
        login = nil
        switch outcome {
        // Each waiter's call ends here: getAuthentication's with set_authentication_status,
        // getAuthorization's with its token outcome (after its authorization).
        case .success(let profile):
            for waiter in flow.waiters {
                let status = StatusCatalog.authenticated(profile)  // N010 / N011
                if let status { emit(.status(status), calls: [waiter.call]) }
                let authenticated = Event.setAuthenticationStatus(1, AccessEnablerErrorCode.userAuthenticated)
                switch waiter {
                case .authentication(let call): end(call, authenticated, explanation: status)
                case .authorization: emit(authenticated, calls: [waiter.call])
                }
                trackAuthentication(success: true, profile: profile, cached: false)
                if case .authorization(let call, let resource) = waiter {
                    startAuthorization(call, resource, check: false, profile: profile, afterLogin: true)
                }
            }
        case .failure(let code, let status):
            if let status { emit(.status(status), calls: flow.waiters.map(\.call)) }
            for waiter in flow.waiters {
                switch waiter {
                case .authentication(let call): end(call, .setAuthenticationStatus(0, code), explanation: status)
                case .authorization: emit(.setAuthenticationStatus(0, code), calls: [waiter.call])
                }
                trackAuthentication(success: false, profile: nil, cached: false)
                if case .authorization(let call, let resource) = waiter {
                    end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.userNotAuthenticated,
                                                  description: status?.message ?? "The viewer did not authenticate."),
                        explanation: status)
                    trackAuthorization(success: false, profile: nil)
                }
            }
        }
    }

    func failLogin(_ loginID: Int, _ status: AdvancedStatus) {
        finishLogin(loginID, .failure(code: AccessEnablerErrorCode.genericAuthentication, status: status))
    }

    func completeLogin(_ loginID: Int, with profile: Profile) {
        guard let requestor, login?.id == loginID else { return }
        let deviceID = context.withLock { $0.deviceID }
        do {
            try store.saveProfile(scope, requestor: requestor.id, deviceID: deviceID, profile)
            try store.setSelectedMVPD(scope, requestor: requestor.id, profile.mvpd)
        } catch {
            logger.error("cannot store the profile: \(error)")
        }
        finishLogin(loginID, .success(profile))
    }

    /// Creates the authentication session (resuming it while Adobe reports missing parameters),
    /// then shows the code and polls, or completes at once when a profile already exists.
    func runLogin(_ loginID: Int, mvpd: MVPD) async {
        guard let requestor else { return }
        let backend: V2Backend
        switch requestor.backend.api {
        case .v1(let v1): return await runV1Login(loginID, mvpd: mvpd, backend: v1)
        case .v2(let v2): backend = v2
        }
        let domain = settings.domainName ?? requestor.configuration.domains.first ?? "adobe.com"
        let redirect = settings.redirectURL
        let session: SessionAnswer
        do {
            session = try await backend.createSession(requestor.id, mvpd: mvpd.id, domainName: domain, redirectURL: redirect)
        } catch {
            if !error.isCancellation { failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: true)) }
            return
        }
        await continueSession(loginID, mvpd: mvpd, session: session)
    }

    /// Follows a session answer (also a partner fallback's, whose code and URL are reused): resume
    /// while parameters are missing, then show the code and poll, or complete at once.
    func continueSession(_ loginID: Int, mvpd: MVPD, session first: SessionAnswer, partnerStatus: String? = nil) async {
        guard let requestor, case .v2(let backend) = requestor.backend.api else { return }
        let domain = settings.domainName ?? requestor.configuration.domains.first ?? "adobe.com"
        let redirect = settings.redirectURL
        var session = first
        var resumes = 0
        while login?.id == loginID, !Task.isCancelled {
            switch session.actionName {
            case "authorize":
                // A profile exists already (also TempPass and degraded access): no code to show.
                do {
                    guard let profile = try await backend.profile(requestor.id, mvpd: mvpd.id, partnerStatus: partnerStatus) else {
                        failLogin(loginID, AdvancedStatus("N500", .error, "Adobe reported a profile for \(mvpd.id) but returned none."))
                        return
                    }
                    completeLogin(loginID, with: profile)
                } catch {
                    if !error.isCancellation { failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: false)) }
                }
                return
            case "authenticate":
                guard let code = session.code else {
                    failLogin(loginID, AdvancedStatus("REG500", .error, "Adobe's session answer carries no code."))
                    return
                }
                let url = backend.absolute(session.url ?? "/api/v2/authenticate/\(requestor.id)/\(code)")
                let deadline = codeDeadline(session.notAfter)
                presentCode(code, url: url, deadline: deadline, mvpd: mvpd.id)
                await poll(loginID, deadline: deadline) { () async throws(CallFailure) -> Profile? in
                    try await backend.profile(requestor.id, code: code)
                }
                return
            case "resume", "retry":
                resumes += 1
                guard resumes <= 3, let code = session.code else {
                    failLogin(loginID, AdvancedStatus("REG500", .error, "Adobe keeps asking for session parameters: "
                        + (session.missingParameters ?? []).joined(separator: ", ") + "."))
                    return
                }
                let values = ["mvpd": mvpd.id, "domainName": domain, "domain": domain, "redirectUrl": redirect]
                do {
                    // The answer names what is missing; when it does not, the session itself says.
                    var missing = session.missingParameters ?? []
                    if missing.isEmpty {
                        missing = try await backend.sessionStatus(requestor.id, code: code).missingParameters
                    }
                    var parameters = missing.compactMap { name -> (String, String)? in
                        values[name].map { (name == "domain" ? "domainName" : name, $0) }
                    }
                    if parameters.isEmpty {
                        parameters = [("mvpd", mvpd.id), ("domainName", domain), ("redirectUrl", redirect)]
                    }
                    session = try await backend.resumeSession(requestor.id, code: code, parameters: parameters)
                } catch {
                    if !error.isCancellation { failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: true)) }
                    return
                }
            default:
                failLogin(loginID, AdvancedStatus("REG500", .error, "Unexpected session action '\(session.actionName)'."))
                return
            }
        }
    }

    /// Shows the login: the browser opens `url` (browser mode), or a REGCODE status carries the
    /// code and `url` for another device (second screen).
    func presentCode(_ code: String, url: String, deadline: Int64, mvpd: String) {
        login?.code = code
        if settings.loginMode == .browser {
            progress(.navigateToURL(url))
        } else {
            var extras: [String: JSONValue] = ["code": .string(code), "url": .string(url), "notAfter": .int(deadline)]
            if let activation = settings.activationURL { extras["activationUrl"] = .string(activation) }
            extras["mvpd"] = .string(mvpd)
            progress(.status(AdvancedStatus("REGCODE", .info, "Enter the code at the activation URL on another device.",
                                            extras: extras)))
        }
    }

    /// Until when a code is polled: Adobe's `notAfter` (30 minutes when it gives none), at most
    /// `Limits.codeLifetimeMillis` from now.
    func codeDeadline(_ notAfter: Int64?) -> Int64 {
        let now = clock.nowMillis()
        return min(notAfter ?? now.clampedAdding(1_800_000), now.clampedAdding(Limits.codeLifetimeMillis))
    }

    /// Polls (`check`: V2 profiles/code, V1 tokens/authn) until the viewer has logged in, the code
    /// expires, or the login ends. Network trouble and throttling do not end it: the next poll tries again.
    func poll(_ loginID: Int, deadline: Int64, check: () async throws(CallFailure) -> Profile?) async {
        guard let wakeup = login?.wakeup else { return }
        let interval = Limits.nanoseconds(millis: settings.pollIntervalMillis(serviceURL: requestor?.backend.baseURL ?? settings.baseURL))
        while clock.nowMillis() < deadline {
            await wakeup.sleep(nanoseconds: interval)
            guard login?.id == loginID, !Task.isCancelled else { return }
            do {
                if let profile = try await check() {
                    completeLogin(loginID, with: profile)
                    return
                }
            } catch {
                if error.isCancellation || login?.id != loginID { return }
                guard error.stage == .call else {
                    failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: false))
                    return
                }
                switch error.error {
                case .enhanced(let enhanced, _)
                where enhanced.code == "invalid_authentication_session" || enhanced.code == "invalid_parameter_code":
                    failLogin(loginID, StatusCatalog.codeExpired(enhanced))
                    return
                case .transport, .throttled, .malformed:
                    logger.warning("polling: \(error.error.enhancedError.code); trying again")
                case .http(let status), .enhanced(_, let status):
                    guard status >= 500 else {
                        failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: false))
                        return
                    }
                    logger.warning("polling: HTTP \(status); trying again")
                case .registration:
                    failLogin(loginID, StatusCatalog.loginFailure(error, creatingSession: false))
                    return
                }
            }
        }
        if login?.id == loginID { failLogin(loginID, StatusCatalog.codeExpired()) }
    }
}
