// SPDX-License-Identifier: Apache-2.0

/// The backend's answers (LoginFlow+Driver.swift's `loginAnswered`): the code login, its
/// polling and TempPass.
extension LoginFlow {
    /// The answer of backend operation `operation`; `now`: when it came. An answer for any other
    /// operation than the one the login waits for is late: no actions.
    mutating func answered(_ operation: LoginOperation, _ answer: LoginAnswer, now: Int64) -> [Action] {
        guard let step = login?.step, step.operation == operation else { return [] }
        switch (step, answer) {
        case (.startingCode(_, let mvpd), .codeLoginStarted(let result)):
            return codeLoginStarted(mvpd, result, now: now)
        case (.polling(_, let session), .codeLoginPolled(let result)):
            return polled(session, result, now: now)
        case (.tempPass(_, let mvpd, let identity), .tempPass(let result)):
            return tempPassAnswered(mvpd, identity: identity, result)
        case (.exchanging(_, var exchange, let partnerStatus), .partnerRequest(let result)):
            let actions = exchange.partnerRequestAnswered(result)
            return follow(exchange, partnerStatus: partnerStatus, actions)
        case (.exchanging(_, var exchange, let partnerStatus), .partnerProfile(let result)):
            let actions = exchange.partnerProfileAnswered(result)
            return follow(exchange, partnerStatus: partnerStatus, actions)
        default:
            assertionFailure("answer \(answer) does not fit the step waiting for \(operation)")
            return []
        }
    }

    // MARK: The code login

    private mutating func codeLoginStarted(
        _ mvpd: MVPD, _ result: Result<CodeLoginStart, CodeLoginFailure>,
        now: Int64
    ) -> [Action] {
        switch result {
        case .success(.profile(let profile)):
            return complete(profile)
        case .success(.code(let challenge)):
            return present(challenge, now: now)
        case .failure(.session(let failure)):
            if failure.isCancellation { return stall() }
            return fail(StatusCatalog.loginFailure(failure, creatingSession: true))
        case .failure(.profile(let failure)):
            if failure.isCancellation { return stall() }
            return fail(StatusCatalog.loginFailure(failure, creatingSession: false))
        case .failure(.profileMissing):
            return fail(AdvancedStatus("N500", .error, "Adobe reported a profile for \(mvpd.id) but returned none."))
        case .failure(.codeMissing):
            return fail(AdvancedStatus("REG500", .error, "Adobe's session answer carries no code."))
        case .failure(.parametersStillMissing(let names)):
            return fail(
                AdvancedStatus(
                    "REG500", .error,
                    "Adobe keeps asking for session parameters: "
                        + names.joined(separator: ", ") + "."))
        case .failure(.unexpectedAction(let name)):
            return fail(AdvancedStatus("REG500", .error, "Unexpected session action '\(name)'."))
        }
    }

    /// A poll's answer. Network trouble, throttling, unreadable answers and Adobe's 5xx do not end
    /// the login: the next poll tries again. An unknown or expired code is N130; other failures N500.
    private mutating func polled(_ session: CodeSession, _ result: Result<Profile?, CallFailure>, now: Int64) -> [Action] {
        let failure: CallFailure
        switch result {
        case .success(let profile?): return complete(profile)
        case .success(nil): return nextPoll(session, now: now)
        case .failure(let error): failure = error
        }
        if failure.isCancellation { return stall() }
        guard failure.stage == .call else {
            return fail(StatusCatalog.loginFailure(failure, creatingSession: false))
        }
        switch failure.error {
        case .enhanced(let enhanced, _)
        where enhanced.code == "invalid_authentication_session" || enhanced.code == "invalid_parameter_code":
            return fail(StatusCatalog.codeExpired(enhanced))
        case .transport, .throttled, .malformed, .unavailable:
            return [.log(.warning, "polling: \(failure.error.enhancedError.code); trying again")] + nextPoll(session, now: now)
        case .http(let status), .enhanced(_, let status):
            guard status >= 500 else { return fail(StatusCatalog.loginFailure(failure, creatingSession: false)) }
            return [.log(.warning, "polling: HTTP \(status); trying again")] + nextPoll(session, now: now)
        case .registration:
            return fail(StatusCatalog.loginFailure(failure, creatingSession: false))
        }
    }

    // MARK: TempPass

    /// A TempPass that is over leaves its profile stored as expired (so that checkAuthentication
    /// and getAuthentication say N111) and ends the login with N111 and "User Not Authenticated".
    private mutating func tempPassAnswered(_ mvpd: MVPD, identity: String?, _ result: Result<Profile, TempPassFailure>)
        -> [Action]
    {
        switch result {
        case .success(let profile):
            return complete(profile)
        case .failure(.over(let error)):
            return [.endTempPass(mvpd: mvpd.id, identity: identity)]
                + finish(
                    .failure(
                        code: AccessEnablerErrorCode.userNotAuthenticated,
                        status: StatusCatalog.tempPassExpired(mvpd: mvpd.id, error)))
        case .failure(.refused(let failure)):
            if failure.isCancellation { return stall() }
            let (status, code) = StatusCatalog.tempPassLoginFailure(failure, mvpd: mvpd.id)
            return finish(.failure(code: code, status: status))
        case .failure(.tokenUnreadable(let failure)):
            if failure.isCancellation { return stall() }
            return fail(StatusCatalog.loginFailure(failure, creatingSession: false))
        case .failure(.missing(let record)):
            return fail(AdvancedStatus("N500", .error, "Adobe returned no TempPass \(record.rawValue) for \(mvpd.id)."))
        }
    }

    /// The operation failed as cancelled although the flow did not cancel it (a transport that
    /// reports a cancellation): the engine's task simply ended there, so nothing goes on until the
    /// next selection or the end of the login.
    mutating func stall() -> [Action] {
        guard let step = login?.step else { return [] }
        login?.step = .stalled(codeShown: step.codeShown)
        return []
    }
}
