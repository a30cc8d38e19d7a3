// SPDX-License-Identifier: Apache-2.0

/// How a login ends, and the events
/// it emits on its way.
extension LoginFlow {
    enum Outcome {
        case success(Profile)
        case failure(code: String, status: AdvancedStatus?)
    }

    /// Ends the login in progress (if any) for every waiter: its operation stops first; a picker
    /// still shown is dismissed last (the engine's picker task did so once cancelled).
    mutating func end(code: String, status: AdvancedStatus?) -> [Action] {
        guard login != nil else { return [] }
        let (cancelled, dismissal) = stop(keeping: false)
        return cancelled + finish(.failure(code: code, status: status)) + dismissal
    }

    /// Stops the operation of the login in progress and leaves it choosing a provider. Returns the
    /// cancellation, and the picker's dismissal (for the waiters when the login is `kept`, else
    /// for no call) to come after the actions that replace or end the login.
    mutating func stop(keeping kept: Bool) -> (cancelled: [Action], dismissal: [Action]) {
        guard var login else { return ([], []) }
        let cancelled = login.step.operation.map { [Action.cancel($0)] } ?? []
        var dismissal: [Action] = []
        if case .picking(_, _, _, let dialog) = login.step {
            dismissal = [.emit(Emission(.dismissTvProviderDialog(dialog), calls: kept ? login.waiters.map(\.call) : []))]
        }
        login.step = .choosingProvider
        self.login = login
        return (cancelled, dismissal)
    }

    /// The login succeeded with `profile`: it is stored with its MVPD as the selection, then every
    /// waiter hears of it.
    mutating func complete(_ profile: Profile) -> [Action] {
        [.saveProfile(profile)] + finish(.success(profile))
    }

    mutating func fail(_ status: AdvancedStatus) -> [Action] {
        finish(.failure(code: AccessEnablerErrorCode.genericAuthentication, status: status))
    }

    /// What every waiter gets. Success: per waiter N010 / N011 (degraded / TempPass profile),
    /// set_authentication_status(1), tracking, and an authorization waiter's authorization.
    /// Failure: the status once, then per waiter set_authentication_status(0, code), tracking, and
    /// an authorization waiter's token_request_failed (User Not Authenticated) with its tracking.
    mutating func finish(_ outcome: Outcome) -> [Action] {
        guard let login else { return [] }
        self.login = nil
        var actions: [Action] = []
        switch outcome {
        case .success(let profile):
            for waiter in login.waiters {
                let status = StatusCatalog.authenticated(profile)
                if let status { actions.append(.emit(Emission(.status(status), calls: [waiter.call]))) }
                let authenticated = Event.setAuthenticationStatus(1, AccessEnablerErrorCode.userAuthenticated)
                switch waiter {
                case .authentication(let call):
                    actions.append(.emit(.end(call, authenticated, explanation: status)))
                case .authorization(let call, _):
                    actions.append(.emit(Emission(authenticated, calls: [call])))
                }
                actions.append(.emit(Emission(settings.tracking.authentication(success: true, profile: profile, cached: false))))
                if case .authorization(let call, let resource) = waiter {
                    actions.append(.startAuthorization(call, resource: resource, profile: profile))
                }
            }
        case .failure(let code, let status):
            if let status { actions.append(emit(.status(status), to: login.waiters)) }
            for waiter in login.waiters {
                let notAuthenticated = Event.setAuthenticationStatus(0, code)
                switch waiter {
                case .authentication(let call):
                    actions.append(.emit(.end(call, notAuthenticated, explanation: status)))
                case .authorization(let call, _):
                    actions.append(.emit(Emission(notAuthenticated, calls: [call])))
                }
                actions.append(.emit(Emission(settings.tracking.authentication(success: false, profile: nil, cached: false))))
                if case .authorization(let call, let resource) = waiter {
                    let failed = Event.tokenRequestFailed(
                        resource: resource, code: AccessEnablerErrorCode.userNotAuthenticated,
                        description: status?.message ?? "The viewer did not authenticate.")
                    actions.append(.emit(.end(call, failed, explanation: status)))
                    actions.append(.emit(Emission(settings.tracking.authorization(success: false, profile: nil))))
                }
            }
        }
        return actions
    }

    // MARK: The code login

    /// Starts the code login of `mvpd` (a fallback's session goes on when given).
    mutating func startCodeLogin(_ mvpd: MVPD, continuing: CodeLoginContinuation?) -> [Action] {
        let operation = newOperation()
        login?.step = .startingCode(operation, mvpd)
        return [.request(operation, .startCodeLogin(mvpd: mvpd, continuing: continuing))]
    }

    /// Shows the code (navigate_to_url in browser mode, else a REGCODE status with the code, the
    /// URL, the deadline, the activation URL and the MVPD for another device), then polls until
    /// `deadline`: Adobe's `notAfter` (30 minutes when it gives none), at most
    /// `Limits.codeLifetimeMillis` from `now`.
    mutating func present(_ challenge: CodeChallenge, now: Int64) -> [Action] {
        guard let login else { return [] }
        let deadline = min(
            challenge.notAfter ?? now.clampedAdding(Defaults.codeLifetimeMillis), now.clampedAdding(Limits.codeLifetimeMillis))
        let session = CodeSession(
            challenge: challenge, deadline: deadline,
            intervalMillis: requestor?.pollIntervalMillis ?? Limits.pollIntervalMillis.lowerBound)
        let event: Event
        if settings.loginMode == .browser {
            event = .navigateToURL(challenge.url)
        } else {
            var extras: [String: JSONValue] = [
                "code": .string(challenge.code), "url": .string(challenge.url),
                "notAfter": .int(deadline),
            ]
            if let activation = settings.activationURL { extras["activationUrl"] = .string(activation) }
            extras["mvpd"] = .string(challenge.mvpd)
            event = .status(
                AdvancedStatus(
                    "REGCODE", .info, "Enter the code at the activation URL on another device.",
                    extras: extras))
        }
        return [emit(event, to: login.waiters)] + nextPoll(session, now: now)
    }

    /// The polling loop's test: while `now` is before the deadline, wait for the next poll (at
    /// once after a handleExternalURL that came meanwhile), else the code expired (N130).
    mutating func nextPoll(_ session: CodeSession, now: Int64) -> [Action] {
        guard var login else { return [] }
        guard now < session.deadline else { return fail(StatusCatalog.codeExpired()) }
        let operation = newOperation()
        if login.pendingWake {
            login.pendingWake = false
            login.step = .polling(operation, session)
            self.login = login
            return [.request(operation, .pollCodeLogin(session.challenge))]
        }
        login.step = .waitingForPoll(operation, session)
        self.login = login
        return [.schedulePoll(operation, afterMillis: session.intervalMillis)]
    }

    // MARK: Events

    /// `event` for the calls waiting for the login.
    func emit(_ event: Event, to waiters: [Waiter]) -> Action {
        .emit(Emission(event, calls: waiters.map(\.call)))
    }
}
