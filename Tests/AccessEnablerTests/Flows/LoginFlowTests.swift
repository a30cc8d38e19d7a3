// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import AccessEnabler

/// LoginFlow without the platform picker: the provider dialog, the code login (REST API V2 and V1
/// alike, through the backend vocabulary), polling, its deadline, completion for each kind of
/// waiter. Expected traces follow Engine+Authentication.swift (FlowTests shows the same order
/// end to end).
struct LoginFlowTests {
    typealias F = LoginFixtures
    let code = CodeChallenge(
        mvpd: "Cablevision", code: "ABC1234", url: "http://sp/api/v2/authenticate/REF30/ABC1234",
        notAfter: LoginFixtures.far)

    func regcode(_ deadline: Int64, calls: String = "1", activation: String = "") -> String {
        "emit [\(calls)] status REGCODE/info Enter the code at the activation URL on another device. {\(activation)"
            + #""code":"ABC1234","mvpd":"Cablevision","notAfter":\#(deadline),"url":"http://sp/api/v2/authenticate/REF30/ABC1234"}"#
    }

    /// getAuthentication → dialog → setSelectedProvider → code shown and polled → profile.
    @Test func secondScreenLoginFromTheDialogToTheProfile() {
        var flow = F.flow()
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(1), force: false, data: nil, filter: nil, current: nil,
                    expiredTempPassMVPD: nil))
                == ["emit [1] dialog[Cablevision,Dish,TempPass_TEST40]"])
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now))
                == ["select Cablevision", F.selection("Cablevision"), "request 1 startCodeLogin Cablevision"])
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now))
                == [regcode(F.now + 86_400_000), "wait 2 4000ms"])
        #expect(LoginTrace.lines(flow.pollTimerFired(F.op(2))) == ["request 3 poll ABC1234"])
        #expect(LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.success(nil)), now: F.now + 4_000)) == ["wait 4 4000ms"])
        #expect(LoginTrace.lines(flow.pollTimerFired(F.op(4))) == ["request 5 poll ABC1234"])
        let profile = F.profile("Cablevision")
        #expect(
            LoginTrace.lines(flow.answered(F.op(5), .codeLoginPolled(.success(profile)), now: F.now + 8_000))
                == ["save Cablevision regular", "end 1 authenticated(1, ) ← -", F.authN(true, profile)])
        #expect(!flow.isLoginInProgress)
    }

    @Test func alreadyAuthenticatedAnswersAtOnceWithN010ForADegradedProfile() {
        var flow = F.flow()
        let regular = F.profile("Cablevision")
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(1), force: false, data: nil, filter: nil, current: regular,
                    expiredTempPassMVPD: nil))
                == ["end 1 authenticated(1, ) ← -", F.authN(true, regular, cached: true)])
        let degraded = F.profile("Dish", type: "degraded")
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(2), force: false, data: nil, filter: nil, current: degraded,
                    expiredTempPassMVPD: nil))
                == [
                    #"emit [2] status N010/warning Authenticated under an authenticate-all degradation rule (the MVPD's systems are degraded). {"mvpd":"Dish"}"#,
                    "end 2 authenticated(1, ) ← N010", F.authN(true, degraded, cached: true),
                ])
        #expect(!flow.isLoginInProgress)
        // forceAuthn logs in whatever the profile.
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(3), force: true, data: nil, filter: nil, current: regular,
                    expiredTempPassMVPD: nil))
                == ["emit [3] dialog[Cablevision,Dish,TempPass_TEST40]"])
    }

    @Test func anExpiredTempPassIsReportedBeforeTheDialog() {
        var flow = F.flow()
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(1), force: false, data: nil, filter: nil, current: nil,
                    expiredTempPassMVPD: "TempPass_TEST40"))
                == [
                    #"emit [1] status N111/warning TempPass expired. {"mvpd":"TempPass_TEST40"}"#,
                    "emit [1] dialog[Cablevision,Dish,TempPass_TEST40]",
                ])
    }

    @Test func laterCallsJoinTheLoginInProgressSilently() {
        var flow = F.flow()
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            flow.getAuthentication(
                F.call(2), force: false, data: nil, filter: nil, current: nil,
                expiredTempPassMVPD: nil
            ).isEmpty)
        #expect(flow.join(.authorization(F.call(3), resource: "LIVE")).isEmpty)
        #expect(flow.waiters == [.authentication(F.call(1)), .authentication(F.call(2)), .authorization(F.call(3), resource: "LIVE")])
        _ = flow.setSelectedProvider(F.call(4), "Cablevision", stored: [], now: F.now)
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now))
                == [regcode(F.now + 86_400_000, calls: "1,2,3"), "wait 2 4000ms"])
        let profile = F.profile("Cablevision")
        _ = flow.pollTimerFired(F.op(2))
        #expect(
            LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.success(profile)), now: F.now))
                == [
                    "save Cablevision regular",
                    "end 1 authenticated(1, ) ← -", F.authN(true, profile),
                    "end 2 authenticated(1, ) ← -", F.authN(true, profile),
                    "emit [3] authenticated(1, )", F.authN(true, profile), "authorize 3 LIVE Cablevision",
                ])
    }

    /// A setSelectedProvider made while no login runs starts one whose waiter is that call.
    @Test func aSelectionWithoutALoginStartsOneForItself() {
        var flow = F.flow()
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(7), "Dish", stored: [], now: F.now))
                == ["select Dish", F.selection("Dish"), "request 1 startCodeLogin Dish"])
        #expect(flow.waiters == [.authentication(F.call(7))])
        let profile = F.profile("Dish")
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.profile(profile))), now: F.now))
                == ["save Dish regular", "end 7 authenticated(1, ) ← -", F.authN(true, profile)])
    }

    @Test func browserModeNavigatesToTheLoginPage() {
        var flow = F.flow(mode: .browser)
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now))
                == ["emit [1] navigate http://sp/api/v2/authenticate/REF30/ABC1234", "wait 2 4000ms"])
    }

    @Test func theREGCODEStatusCarriesTheActivationURLAndTheDeadline() {
        // No notAfter: 30 minutes; a near notAfter is kept; a far one is cut to 24 hours.
        for (notAfter, deadline) in [(nil, F.now + 1_800_000), (F.now + 60_000, F.now + 60_000), (F.far, F.now + 86_400_000)] {
            var flow = F.flow(activationURL: "https://tv.example/activate")
            _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
            var challenge = code
            challenge.notAfter = notAfter
            #expect(
                LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.code(challenge))), now: F.now))
                    == [regcode(deadline, activation: #""activationUrl":"https://tv.example/activate","#), "wait 2 4000ms"])
        }
    }

    @Test func aCodeThatExpiredAlreadyIsShownThenEnds() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        var challenge = code
        challenge.notAfter = F.now - 1
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.success(.code(challenge))), now: F.now))
                == [
                    regcode(F.now - 1),
                    "emit [1] status N130/error The authentication session (registration code) expired or is unknown. error=authentication_session_expired",
                    "end 1 authenticated(0, Generic Authentication Error) ← N130", F.authN(false),
                ])
    }

    @Test func pollingEndsAtTheDeadline() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        var challenge = code
        challenge.notAfter = F.now + 5_000
        _ = flow.answered(F.op(1), .codeLoginStarted(.success(.code(challenge))), now: F.now)
        _ = flow.pollTimerFired(F.op(2))
        #expect(LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.success(nil)), now: F.now + 4_999)) == ["wait 4 4000ms"])
        _ = flow.pollTimerFired(F.op(4))
        // The poll after the deadline is still made (the wait was started before it); then it ends.
        #expect(
            LoginTrace.lines(flow.answered(F.op(5), .codeLoginPolled(.success(nil)), now: F.now + 9_000))
                == [
                    "emit [1] status N130/error The authentication session (registration code) expired or is unknown. error=authentication_session_expired",
                    "end 1 authenticated(0, Generic Authentication Error) ← N130", F.authN(false),
                ])
    }

    /// Network trouble, throttling, unreadable answers and 5xx retry; an unknown code is N130; other
    /// failures end the login (N500, or R400/R401 for registration and token).
    @Test func pollFailuresRetryOrEndTheLogin() {
        let retried: [(ServiceError, String)] = [
            (.transport(.timedOut), "log warning polling: network_error; trying again"),
            (.throttled, "log warning polling: too_many_requests; trying again"),
            (.malformed(operation: "profiles/code", detail: "x"), "log warning polling: server_response_format_unknown; trying again"),
            (.http(status: 502), "log warning polling: HTTP 502; trying again"),
            (F.enhanced("internal_error", status: 500), "log warning polling: HTTP 500; trying again"),
        ]
        for (error, log) in retried {
            var flow = polling()
            #expect(
                LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.failure(F.failure(error))), now: F.now))
                    == [log, "wait 4 4000ms"])
        }
        let ended: [(CallFailure, String)] = [
            (
                F.failure(F.enhanced("invalid_parameter_code", status: 400)),
                "N130/error The authentication session (registration code) expired or is unknown. error=invalid_parameter_code"
            ),
            (
                F.failure(F.enhanced("invalid_authentication_session", status: 400)),
                "N130/error The authentication session (registration code) expired or is unknown. error=invalid_authentication_session"
            ),
            (
                F.failure(F.enhanced("invalid_requestor", status: 403)),
                "N500/error Authentication failed: Adobe says invalid_requestor.. error=invalid_requestor"
            ),
            (F.failure(.http(status: 404)), "N500/error Authentication failed: HTTP 404 without a JSON error body.. error=http_404"),
            (
                F.failure(.registration(code: "invalid_client", httpStatus: 400)),
                "N500/error Authentication failed: Dynamic client registration answered invalid_client.. error=invalid_client"
            ),
            (
                F.failure(.registration(code: "invalid_client", httpStatus: 400), stage: .registration),
                "R400/error The application is not registered: the software statement was refused. error=invalid_client"
            ),
            (F.failure(.http(status: 401), stage: .accessToken), "R401/error No access token could be obtained. error=http_401"),
        ]
        for (failure, status) in ended {
            var flow = polling()
            #expect(
                LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.failure(failure)), now: F.now))
                    == [
                        "emit [1] status " + status,
                        "end 1 authenticated(0, Generic Authentication Error) ← "
                            + String(status.prefix { $0 != "/" }), F.authN(false),
                    ])
        }
    }

    /// A flow polling code ABC1234 for call 1 with operation 3 in flight.
    func polling() -> LoginFlow {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        _ = flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now)
        _ = flow.pollTimerFired(F.op(2))
        return flow
    }

    @Test func codeLoginFailuresNameTheirStep() {
        let cases: [(CodeLoginFailure, String)] = [
            (
                .session(F.failure(.transport(.cannotConnect("refused")))),
                "REG500/error The registration code could not be obtained: Network error: cannot connect (refused).. error=network_error"
            ),
            (
                .session(F.failure(F.enhanced("invalid_parameter_mvpd", status: 400))),
                "REG500/error The registration code could not be obtained: Adobe says invalid_parameter_mvpd.. error=invalid_parameter_mvpd"
            ),
            (.session(F.failure(.http(status: 401), stage: .accessToken)), "R401/error No access token could be obtained. error=http_401"),
            (
                .profile(F.failure(.http(status: 500))),
                "N500/error Authentication failed: HTTP 500 without a JSON error body.. error=http_500"
            ),
            (.profileMissing, "N500/error Adobe reported a profile for Cablevision but returned none."),
            (.codeMissing, "REG500/error Adobe's session answer carries no code."),
            (
                .parametersStillMissing(["domainName", "redirectUrl"]),
                "REG500/error Adobe keeps asking for session parameters: domainName, redirectUrl."
            ),
            (.parametersStillMissing([]), "REG500/error Adobe keeps asking for session parameters: ."),
            (.unexpectedAction("partner_profile"), "REG500/error Unexpected session action 'partner_profile'."),
        ]
        for (failure, status) in cases {
            var flow = F.flow()
            _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
            #expect(
                LoginTrace.lines(flow.answered(F.op(1), .codeLoginStarted(.failure(failure)), now: F.now))
                    == [
                        "emit [1] status " + status,
                        "end 1 authenticated(0, Generic Authentication Error) ← "
                            + String(status.prefix { $0 != "/" }), F.authN(false),
                    ])
            #expect(!flow.isLoginInProgress)
        }
    }

    /// V1's code login is the same trace: the URL and the previous expiry are the backend's.
    @Test func aV1ChallengeIsPolledWithItsPreviousExpiry() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        let v1 = CodeChallenge(
            mvpd: "Cablevision", code: "ABC1234", url: "http://sp/api/v2/authenticate/REF30/ABC1234",
            notAfter: F.far, previousNotAfter: 1_234)
        _ = flow.answered(F.op(1), .codeLoginStarted(.success(.code(v1))), now: F.now)
        let actions = flow.pollTimerFired(F.op(2))
        guard case .request(_, .pollCodeLogin(let asked))? = actions.first else {
            Issue.record("no poll")
            return
        }
        #expect(asked == v1)
    }

    @Test func anAuthorizationWaiterGetsTokenRequestFailedWhenTheLoginFails() {
        var flow = F.flow()
        #expect(
            LoginTrace.lines(flow.join(.authorization(F.call(3), resource: "LIVE"))) == [
                "emit [3] dialog[Cablevision,Dish,TempPass_TEST40]"
            ])
        _ = flow.getAuthentication(F.call(4), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(5), nil, stored: [], now: F.now))
                == [
                    "select nil", "emit [3,4] status N005/info The MVPD selection was cancelled.",
                    "emit [3] authenticated(0, Provider Not Selected Error)", F.authN(false),
                    "end 3 tokenRequestFailed(LIVE, User Not Authenticated Error, The MVPD selection was cancelled.) ← N005",
                    F.authZFailed,
                    "end 4 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false),
                ])
    }
}
