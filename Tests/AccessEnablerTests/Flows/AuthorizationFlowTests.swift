// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// AuthorizationFlow without I/O: the action lists AuthorizationFlow+Driver.swift runs for a permit, a
/// denial and a malformed answer, in their order.
@Suite struct AuthorizationFlowTests {
    static let id = CallID(7)
    static let user = digest()

    static func flow(
        _ resource: String = "LIVE", check: Bool = false, profile: Profile? = .regular(), afterLogin: Bool = false,
        authorizedUntil: Int64? = nil
    ) -> AuthorizationFlow {
        AuthorizationFlow(
            call: id, resource: resource, check: check, profile: profile, afterLogin: afterLogin,
            authorizedUntil: authorizedUntil, tracking: .test)
    }

    /// Starts `flow`; a partner profile's header question is answered with `partner`.
    static func start(_ flow: inout AuthorizationFlow, partner: Result<String, EnhancedError>) -> [AuthorizationFlow.Action] {
        let actions = flow.start()
        guard case .askPartnerHeader(let profile)? = actions.first else { return actions }
        #expect(actions.count == 1 && profile == flow.profile && flow.state == .askingPartner)
        return flow.partnerHeaderAnswered(partner)
    }

    static func describe(_ actions: [AuthorizationFlow.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .askPartnerHeader(let profile): "askPartnerHeader(\(profile.mvpd))"
            case .sendDecisionRequest(let request):
                "send#\(request.attempt) \(request.resource) mvpd=\(request.profile.mvpd) header=\(request.partnerHeader ?? "-") "
                    + "until=\(request.authorizedUntil.map(String.init) ?? "-")"
            case .waitToRetry(let attempt): "waitToRetry(\(attempt))"
            case .emit(let emission): Summary.of(emission)
            case .saveAuthorizationExpiry(let mvpd, let resource, let notAfter): "saveExpiry(\(mvpd), \(resource), \(notAfter))"
            case .deleteProfiles(let mvpd): "deleteProfiles(\(mvpd))"
            case .endTempPass(let mvpd, let identity): "endTempPass(\(mvpd), \(identity ?? "nil"))"
            case .joinLogin(let id, let resource): "joinLogin#\(id.value)(\(resource))"
            case .done: "done"
            }
        }
    }

    /// Starts `flow` and answers its first request with `answer`.
    static func decide(_ flow: inout AuthorizationFlow, _ answer: Result<[Decision], CallFailure>) -> [String] {
        _ = flow.start()
        return describe(flow.decisionAnswered(attempt: 0, answer))
    }

    static func trackingFailure(_ error: EnhancedError?, mvpd: String = "Cablevision", user: String? = user) -> String {
        "emit[] tracking(1: false,\(mvpd),\(user ?? ""),false,\(error?.code ?? ""),\(error?.details ?? error?.message ?? ""),\(trackingDevice))"
    }

    static let success = "emit[] tracking(1: true,Cablevision,\(user),false,,,\(trackingDevice))"

    // MARK: Without a profile

    @Test func checkAuthorizationWithoutAProfileFailsWithoutLoggingIn() {
        var flow = Self.flow(check: true, profile: nil)
        #expect(
            Self.describe(flow.start()) == [
                "end#7 tokenRequestFailed(LIVE, User Not Authenticated Error, The viewer is not authenticated.)",
                "emit[] tracking(1: false,,,false,,,\(trackingDevice))", "done",
            ])
        #expect(flow.state == .finished)
    }

    @Test func getAuthorizationWithoutAProfileJoinsALogin() {
        var flow = Self.flow(profile: nil)
        #expect(Self.describe(flow.start()) == ["joinLogin#7(LIVE)", "done"])
    }

    // MARK: Permits

    @Test func aPermitSendsTheTokenThenStoresItsExpiry() {
        var flow = Self.flow()
        #expect(Self.describe(flow.start()) == ["send#0 LIVE mvpd=Cablevision header=- until=-"])
        #expect(flow.state == .deciding(attempt: 0))
        #expect(
            Self.describe(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE", token: "T", notAfter: 5_000)])))
                == ["end#7 setToken(T, LIVE)", "saveExpiry(Cablevision, LIVE, 5000)", Self.success, "done"])
        #expect(flow.isFinished)
    }

    @Test func theDecisionsExpiryComesBeforeTheTokensAndWithoutEitherNothingIsStored() {
        var decision = Decision.permit("LIVE", notAfter: 5_000)
        decision.notAfter = 9_000
        var flow = Self.flow()
        #expect(Self.decide(&flow, .success([decision]))[1] == "saveExpiry(Cablevision, LIVE, 9000)")
        flow = Self.flow()
        #expect(Self.decide(&flow, .success([.permit("LIVE", notAfter: nil)])) == ["end#7 setToken(TOKEN, LIVE)", Self.success, "done"])
    }

    @Test(arguments: [("degradation", "Z010"), ("temppass", "Z011")])
    func degradedAndTempPassPermitsSayZ010AndZ011BeforeTheToken(source: String, code: String) {
        var flow = Self.flow()
        #expect(
            Self.decide(&flow, .success([.permit("LIVE", source: source)])) == [
                "emit[7] status(\(code))", "end#7 setToken(TOKEN, LIVE) <- \(code)", "saveExpiry(Cablevision, LIVE, 5000)", Self.success,
                "done",
            ])
    }

    @Test func theResourceIsMatchedWithoutSurroundingSpacesAndALoneDecisionIsTheAnswer() {
        var flow = Self.flow(" LIVE")
        #expect(Self.decide(&flow, .success([.deny("OTHER"), .permit("LIVE ")]))[0] == "end#7 setToken(TOKEN,  LIVE)")
        flow = Self.flow()
        #expect(Self.decide(&flow, .success([.permit("SOMETHING-ELSE")]))[0] == "end#7 setToken(TOKEN, LIVE)")
    }

    @Test func v1SendsTheStoredAuthorizationExpiryWithEveryAttempt() {
        var flow = Self.flow(authorizedUntil: 8_000)
        #expect(Self.describe(flow.start()) == ["send#0 LIVE mvpd=Cablevision header=- until=8000"])
        let retry = Decision.deny("LIVE", .adobe("network_connection_timeout", action: "retry"))
        _ = flow.decisionAnswered(attempt: 0, .success([retry]))
        #expect(Self.describe(flow.retryTimerFired(attempt: 1)) == ["send#1 LIVE mvpd=Cablevision header=- until=8000"])
    }

    // MARK: Denials

    @Test func anMVPDDenialIsUserNotAuthorizedWithTheDetails() {
        let error = EnhancedError.adobe("authorization_denied_by_parental_controls", action: "none", details: "Rated TV-MA")
        var flow = Self.flow()
        #expect(
            Self.decide(&flow, .success([.deny("LIVE", error)])) == [
                "emit[7] status(Z100 authorization_denied_by_parental_controls)",
                "end#7 tokenRequestFailed(LIVE, User Not Authorized Error, Rated TV-MA) <- Z100", Self.trackingFailure(error), "done",
            ])
    }

    @Test func aDenialWithoutAnErrorIsZ100WithAnEmptyDescription() {
        var flow = Self.flow()
        #expect(
            Self.decide(&flow, .success([.deny("LIVE")])) == [
                "emit[7] status(Z100)", "end#7 tokenRequestFailed(LIVE, User Not Authorized Error, ) <- Z100", Self.trackingFailure(nil),
                "done",
            ])
    }

    @Test func aProfileAdobeNoLongerHasIsForgottenAndGetAuthorizationLogsIn() {
        let error = EnhancedError.adobe("authenticated_profile_missing", action: "authentication", details: "gone")
        var flow = Self.flow()
        #expect(
            Self.decide(&flow, .success([.deny("LIVE", error)]))
                == ["emit[7] status(N000 authenticated_profile_missing)", "deleteProfiles(Cablevision)", "joinLogin#7(LIVE)", "done"])
        // Top-level (the whole call refused) goes the same way.
        flow = Self.flow()
        #expect(
            Self.decide(&flow, .failure(.enhanced(error)))
                == ["emit[7] status(N000 authenticated_profile_missing)", "deleteProfiles(Cablevision)", "joinLogin#7(LIVE)", "done"])
    }

    @Test(arguments: [(true, false), (false, true)])
    func checkAuthorizationOrAnAuthorizationAfterALoginSaysNotAuthenticated(check: Bool, afterLogin: Bool) {
        let error = EnhancedError.adobe("authenticated_profile_expired", action: "authentication", details: "expired")
        var flow = Self.flow(check: check, afterLogin: afterLogin)
        #expect(
            Self.decide(&flow, .success([.deny("LIVE", error)])) == [
                "emit[7] status(N000 authenticated_profile_expired)", "deleteProfiles(Cablevision)",
                "emit[7] setAuthenticationStatus(0, User Not Authenticated Error)",
                "end#7 tokenRequestFailed(LIVE, User Not Authenticated Error, The viewer is not authenticated: expired) <- N000",
                Self.trackingFailure(error), "done",
            ])
    }

    @Test func aTempPassThatIsOverEndsItsProfileInsteadOfDeletingIt() {
        let over = EnhancedError.adobe("temporary_access_duration_limit_exceeded", action: "authentication")
        var flow = Self.flow(profile: .tempPass(identity: "ID64"))
        #expect(
            Self.decide(&flow, .success([.deny("LIVE", over)])) == [
                "emit[7] status(N111 temporary_access_duration_limit_exceeded)", "endTempPass(TempPass_TEST40, ID64)",
                "joinLogin#7(LIVE)", "done",
            ])
        // V1 answers "no token" when the pass ends: for a TempPass profile that is over too.
        let missing = EnhancedError.adobe("authenticated_profile_missing", action: "authentication")
        flow = Self.flow(check: true, profile: .tempPass())
        #expect(
            Self.decide(&flow, .failure(.enhanced(missing))) == [
                "emit[7] status(N111 authenticated_profile_missing)", "endTempPass(TempPass_TEST40, nil)",
                "emit[7] setAuthenticationStatus(0, User Not Authenticated Error)",
                "end#7 tokenRequestFailed(LIVE, User Not Authenticated Error, TempPass expired.) <- N111",
                "emit[] tracking(1: false,TempPass_TEST40,,false,authenticated_profile_missing,Adobe says authenticated_profile_missing.,"
                    + "\(trackingDevice))",
                "done",
            ])
    }

    // MARK: Partner profiles

    @Test func aPartnerProfileSendsThePartnerHeaderWithEveryAttempt() {
        var flow = Self.flow(profile: .partner())
        #expect(Self.describe(Self.start(&flow, partner: .success("PFS"))) == ["send#0 LIVE mvpd=Cablevision header=PFS until=-"])
        _ = flow.decisionAnswered(attempt: 0, .success([.deny("LIVE", .adobe("internal_error", action: "retry"))]))
        #expect(Self.describe(flow.retryTimerFired(attempt: 1)) == ["send#1 LIVE mvpd=Cablevision header=PFS until=-"])
        // A profile that is not a partner profile asks for no header, and sends none.
        flow = Self.flow()
        #expect(Self.describe(flow.start()) == ["send#0 LIVE mvpd=Cablevision header=- until=-"])
        #expect(flow.partnerHeaderAnswered(.success("PFS")).isEmpty)
    }

    @Test(arguments: [
        (false, ["joinLogin#7(LIVE)", "done"]),
        (
            true,
            [
                "emit[7] setAuthenticationStatus(0, User Not Authenticated Error)",
                "end#7 tokenRequestFailed(LIVE, User Not Authenticated Error, The viewer denied this app access to "
                    + "the TV provider account: not authenticated through the platform (The platform's TV provider "
                    + "status cannot be used (denied); the viewer must authenticate again.)) <- VSA403",
            ]
        ),
    ])
    func anUnusablePartnerStatusSendsNoRequestAndKeepsTheProfile(check: Bool, tail: [String]) {
        // As Engine.partnerRefusal makes it.
        let refusal = EnhancedError.sdk(
            "invalid_header_pfs_permission_access_not_granted", action: "authentication",
            message: "The platform's TV provider status cannot be used (denied); the viewer must authenticate again.")
        var flow = Self.flow(check: check, profile: .partner())
        #expect(Self.describe(flow.start()) == ["askPartnerHeader(Cablevision)"])
        let actions = Self.describe(flow.partnerHeaderAnswered(.failure(refusal)))
        #expect(Array(actions.prefix(1 + tail.count)) == ["emit[7] status(VSA403 invalid_header_pfs_permission_access_not_granted)"] + tail)
        #expect(!actions.contains { $0.hasPrefix("send") || $0.hasPrefix("delete") })
    }

    @Test func adobesRefusalOfThePartnerStatusKeepsTheProfile() {
        let refusal = EnhancedError.adobe("invalid_header_pfs_provider_id_mismatch", action: "authentication", status: 400)
        var flow = Self.flow(profile: .partner())
        _ = Self.start(&flow, partner: .success("PFS"))
        #expect(
            Self.describe(flow.decisionAnswered(attempt: 0, .failure(.enhanced(refusal))))
                == ["emit[7] status(N000 invalid_header_pfs_provider_id_mismatch)", "joinLogin#7(LIVE)", "done"])
    }

    // MARK: Item-level retries

    @Test func anItemLevelRetryIsAskedAgainAtMostTwice() {
        let timeout = EnhancedError.adobe(
            "network_connection_timeout", action: "retry", status: 403, details: "The MVPD did not answer in time")
        var flow = Self.flow()
        #expect(Self.decide(&flow, .success([.deny("LIVE", timeout)])) == ["waitToRetry(1)"])
        #expect(flow.state == .waitingToRetry(attempt: 1))
        #expect(Self.describe(flow.retryTimerFired(attempt: 1)) == ["send#1 LIVE mvpd=Cablevision header=- until=-"])
        #expect(Self.describe(flow.decisionAnswered(attempt: 1, .success([.deny("LIVE", timeout)]))) == ["waitToRetry(2)"])
        #expect(Self.describe(flow.retryTimerFired(attempt: 2)) == ["send#2 LIVE mvpd=Cablevision header=- until=-"])
        #expect(
            Self.describe(flow.decisionAnswered(attempt: 2, .success([.deny("LIVE", timeout)]))) == [
                "emit[7] status(Z120 network_connection_timeout)",
                "end#7 tokenRequestFailed(LIVE, User Not Authorized Error, The MVPD did not answer in time) <- Z120",
                Self.trackingFailure(timeout), "done",
            ])
        #expect(ItemRetry.baseDelayNanos(attempt: 1) == 500_000_000 && ItemRetry.baseDelayNanos(attempt: 2) == 1_000_000_000)
    }

    @Test func aRetryThatPassesSendsTheToken() {
        var flow = Self.flow()
        _ = Self.decide(&flow, .success([.deny("LIVE", .adobe("internal_error", action: "retry"))]))
        _ = flow.retryTimerFired(attempt: 1)
        #expect(Self.describe(flow.decisionAnswered(attempt: 1, .success([.permit("LIVE")])))[0] == "end#7 setToken(TOKEN, LIVE)")
    }

    @Test func onlyALoneDecisionIsRetried() {
        var flow = Self.flow()
        let retry = EnhancedError.adobe("internal_error", action: "retry")
        #expect(Self.decide(&flow, .success([.deny("LIVE", retry), .deny("OTHER", retry)]))[0] == "emit[7] status(Z500 internal_error)")
    }

    @Test func aFailedRetryIsAFailedCall() {
        var flow = Self.flow()
        _ = Self.decide(&flow, .success([.deny("LIVE", .adobe("internal_error", action: "retry"))]))
        _ = flow.retryTimerFired(attempt: 1)
        #expect(Self.describe(flow.decisionAnswered(attempt: 1, .failure(.network)))[0] == "emit[7] status(Z120 network_error)")
    }

    // MARK: Failed calls and malformed answers

    @Test func aCallThatFailsIsGenericAuthorizationError() {
        var flow = Self.flow()
        let status = StatusCatalog.authorizationFailure(.network)
        #expect(
            Self.decide(&flow, .failure(.network)) == [
                "emit[7] status(Z120 network_error)",
                "end#7 tokenRequestFailed(LIVE, Generic Authorization Error, \(status.message)) <- Z120",
                Self.trackingFailure(status.enhancedError), "done",
            ])
        // Adobe's top-level error that says `retry` (the executor already repeated it) is no item retry.
        flow = Self.flow()
        let timeout = EnhancedError.adobe("network_connection_timeout", action: "retry", status: 504)
        #expect(
            Self.decide(&flow, .failure(.enhanced(timeout)))[0...1] == [
                "emit[7] status(Z120 network_connection_timeout)",
                "end#7 tokenRequestFailed(LIVE, Generic Authorization Error, Adobe says network_connection_timeout.) <- Z120",
            ])
    }

    @Test(arguments: [
        ([Decision](), "no decision for the resource"), ([.permit("A"), .permit("B")], "no decision for the resource"),
        ([Decision(resource: "LIVE", authorized: true)], "a permit without a media token"),
    ])
    func malformedAnswersAreZ500(decisions: [Decision], detail: String) {
        var flow = Self.flow()
        let message = "Unexpected decisions/authorize answer: \(detail)."
        #expect(
            Self.decide(&flow, .success(decisions)) == [
                "emit[7] status(Z500 server_response_format_unknown)",
                "end#7 tokenRequestFailed(LIVE, Generic Authorization Error, \(message)) <- Z500",
                "emit[] tracking(1: false,Cablevision,\(Self.user),false,server_response_format_unknown,\(message),\(trackingDevice))",
                "done",
            ])
    }

    // MARK: Late events and cancellation

    @Test func eventsBeforeStartAfterTheEndOrForAnotherAttemptAreIgnored() {
        var flow = Self.flow()
        #expect(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")])).isEmpty)  // idle
        #expect(flow.retryTimerFired(attempt: 1).isEmpty)
        _ = flow.start()
        #expect(flow.start().isEmpty)  // started twice
        #expect(flow.retryTimerFired(attempt: 1).isEmpty)  // no timer runs
        #expect(flow.decisionAnswered(attempt: 1, .success([.permit("LIVE")])).isEmpty)  // another attempt's answer
        #expect(!flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")])).isEmpty)
        #expect(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")])).isEmpty)  // a second answer
        #expect(flow.retryTimerFired(attempt: 1).isEmpty)
        #expect(flow.cancel().isEmpty && flow.state == .finished)
    }

    @Test func afterCancelNothingIsEmitted() {
        var flow = Self.flow()
        _ = flow.start()
        #expect(flow.cancel().isEmpty && flow.state == .cancelled)
        #expect(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")])).isEmpty)
        flow = Self.flow()
        _ = Self.decide(&flow, .success([.deny("LIVE", .adobe("internal_error", action: "retry"))]))
        #expect(flow.cancel().isEmpty)
        #expect(flow.retryTimerFired(attempt: 1).isEmpty)
        #expect(flow.start().isEmpty)
    }

    @Test func aCancelledRequestEndsTheFlowSilently() {
        var flow = Self.flow()
        #expect(Self.decide(&flow, .failure(.cancelled)) == ["done"])
        #expect(flow.state == .cancelled)
        #expect(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")])).isEmpty)
    }

    // MARK: Every state × event

    /// The flow in `state`: idle, deciding (attempt 0), waitingToRetry (attempt 1), finished, cancelled.
    static func flow(in state: String) -> AuthorizationFlow {
        var flow = Self.flow()
        switch state {
        case "deciding": _ = flow.start()
        case "waitingToRetry": _ = decide(&flow, .success([.deny("LIVE", .adobe("internal_error", action: "retry"))]))
        case "finished": _ = decide(&flow, .success([.permit("LIVE")]))
        case "cancelled":
            _ = flow.start()
            _ = flow.cancel()
        default: break
        }
        return flow
    }

    @Test(arguments: [
        // state, start, answer of attempt 0, answer of attempt 1, retry timer 1 (first action or "-")
        ("idle", "send#0 LIVE mvpd=Cablevision header=- until=-", "-", "-", "-"),
        ("deciding", "-", "end#7 setToken(TOKEN, LIVE)", "-", "-"),
        ("waitingToRetry", "-", "-", "-", "send#1 LIVE mvpd=Cablevision header=- until=-"),
        ("finished", "-", "-", "-", "-"),
        ("cancelled", "-", "-", "-", "-"),
    ])
    func everyStateAndEvent(state: String, start: String, answer0: String, answer1: String, timer: String) {
        func first(_ actions: [AuthorizationFlow.Action]) -> String { Self.describe(actions).first ?? "-" }
        var flow = Self.flow(in: state)
        #expect(first(flow.start()) == start)
        flow = Self.flow(in: state)
        #expect(first(flow.decisionAnswered(attempt: 0, .success([.permit("LIVE")]))) == answer0)
        flow = Self.flow(in: state)
        #expect(first(flow.decisionAnswered(attempt: 1, .success([.permit("LIVE")]))) == answer1)
        flow = Self.flow(in: state)
        #expect(first(flow.retryTimerFired(attempt: 1)) == timer)
        flow = Self.flow(in: state)
        #expect(flow.cancel().isEmpty)
        #expect(flow.isFinished)
    }
}
