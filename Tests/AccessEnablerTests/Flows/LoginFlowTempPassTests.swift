// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import AccessEnabler

/// TempPass in LoginFlow (Engine+TemporaryAccess.swift): selected, it
/// authenticates at once (a stored valid TempPass profile of the same identity, else one tempPass
/// operation) with N011; a TempPass that is over expires its stored profile and ends with N111.
struct LoginFlowTempPassTests {
    typealias F = LoginFixtures
    let mvpd = "TempPass_TEST40"
    let identity = "eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0="

    func n011(_ profile: Profile, calls: String = "1") -> String {
        #"emit [\#(calls)] status N011/info Authenticated with TempPass. {"mvpd":"TempPass_TEST40","notAfter":\#(profile.notAfter)}"#
    }

    @Test func aTempPassMVPDAuthenticatesWithOneRequest() {
        var flow = F.flow()
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), mvpd, stored: [], now: F.now))
                == ["select \(mvpd)", F.selection(mvpd), "request 1 tempPass \(mvpd) nil"])
        let profile = F.profile(mvpd, type: "temporary", notAfter: F.now + 600_000)
        #expect(
            LoginTrace.lines(flow.answered(F.op(1), .tempPass(.success(profile)), now: F.now))
                == ["save \(mvpd) temporary", n011(profile), "end 1 authenticated(1, ) ← N011", F.authN(true, profile)])
    }

    /// Promotional TempPass: the identity is Base64 of getAuthentication's data as compact JSON
    /// with sorted keys; a later getAuthentication with data replaces it.
    @Test func promotionalTempPassSendsTheViewersIdentity() {
        var flow = F.flow()
        _ = flow.getAuthentication(
            F.call(1), force: false, data: ["email": "someone@else.com"], filter: nil, current: nil,
            expiredTempPassMVPD: nil)
        _ = flow.getAuthentication(
            F.call(2), force: false, data: ["email": "foo@bar.com"], filter: nil, current: nil,
            expiredTempPassMVPD: nil)
        _ = flow.getAuthentication(F.call(3), force: false, data: [:], filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(4), mvpd, stored: [], now: F.now)).last
                == "request 1 tempPass \(mvpd) \(identity)")
        #expect(LoginFlow.tempPassIdentity(["email": "foo@bar.com"]) == identity)
        #expect(LoginFlow.tempPassIdentity(.string("x")) == nil)
    }

    @Test func aStoredValidTempPassOfTheSameIdentityIsTheAnswer() {
        let stored = F.profile(mvpd, type: "temporary", notAfter: F.now + 1, identity: identity)
        var flow = F.flow()
        _ = flow.getAuthentication(
            F.call(1), force: false, data: ["email": "foo@bar.com"], filter: nil, current: nil,
            expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), mvpd, stored: [F.profile("Dish"), stored], now: F.now))
                == [
                    "select \(mvpd)", F.selection(mvpd), "save \(mvpd) temporary", n011(stored),
                    "end 1 authenticated(1, ) ← N011", F.authN(true, stored),
                ])
        // Another identity, an expired pass or a profile that is not a TempPass: one request.
        let others = [
            F.profile(mvpd, type: "temporary", notAfter: F.now + 1),
            F.profile(mvpd, type: "temporary", notAfter: F.now, identity: identity),
            F.profile(mvpd, notAfter: F.now + 1, identity: identity),
        ]
        for other in others {
            var flow = F.flow()
            _ = flow.getAuthentication(
                F.call(1), force: false, data: ["email": "foo@bar.com"], filter: nil, current: nil,
                expiredTempPassMVPD: nil)
            #expect(
                LoginTrace.lines(flow.setSelectedProvider(F.call(2), mvpd, stored: [other], now: F.now)).last
                    == "request 1 tempPass \(mvpd) \(identity)")
        }
    }

    @Test func aTempPassThatIsOverExpiresItsProfileWithN111() {
        for (code, message) in [
            ("temporary_access_duration_limit_exceeded", "TempPass expired."),
            ("temporary_access_resources_limit_exceeded", "TempPass expired: its resources are used up."),
        ] {
            var flow = F.flow()
            _ = flow.getAuthentication(
                F.call(1), force: false, data: ["email": "foo@bar.com"], filter: nil, current: nil,
                expiredTempPassMVPD: nil)
            _ = flow.setSelectedProvider(F.call(2), mvpd, stored: [], now: F.now)
            let over = EnhancedError(status: 403, code: code, action: "authentication")
            #expect(
                LoginTrace.lines(flow.answered(F.op(1), .tempPass(.failure(.over(over))), now: F.now))
                    == [
                        "endTempPass \(mvpd) \(identity)",
                        #"emit [1] status N111/warning \#(message) {"mvpd":"TempPass_TEST40"} error=\#(code)"#,
                        "end 1 authenticated(0, User Not Authenticated Error) ← N111", F.authN(false),
                    ])
        }
    }

    @Test func otherTempPassFailuresAreGenericAuthenticationErrors() {
        let cases: [(TempPassFailure, String)] = [
            (
                .refused(F.failure(F.enhanced("invalid_header_identity_for_temporary_access", status: 400))),
                #"N500/error Promotional TempPass needs the viewer's identity: pass it as getAuthentication's data, e.g. {"email": ...}. error=invalid_header_identity_for_temporary_access"#
            ),
            (
                .refused(F.failure(.http(status: 500))),
                "N500/error Authentication failed: HTTP 500 without a JSON error body.. error=http_500"
            ),
            (.refused(F.failure(.http(status: 401), stage: .accessToken)), "R401/error No access token could be obtained. error=http_401"),
            (
                .tokenUnreadable(F.failure(.transport(.timedOut))),
                "N500/error Authentication failed: Network error: timed out.. error=network_error"
            ),
            (.missing(.profile), "N500/error Adobe returned no TempPass profile for TempPass_TEST40."),
            (.missing(.token), "N500/error Adobe returned no TempPass token for TempPass_TEST40."),
        ]
        for (failure, status) in cases {
            var flow = F.flow()
            _ = flow.setSelectedProvider(F.call(1), mvpd, stored: [], now: F.now)
            #expect(
                LoginTrace.lines(flow.answered(F.op(1), .tempPass(.failure(failure)), now: F.now))
                    == [
                        "emit [1] status " + status,
                        "end 1 authenticated(0, Generic Authentication Error) ← " + String(status.prefix { $0 != "/" }), F.authN(false),
                    ])
        }
    }

    @Test func aTempPassRequestIsCancelledLikeAnyOther() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), mvpd, stored: [], now: F.now)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), "Dish", stored: [], now: F.now))
                == ["select Dish", F.selection("Dish"), "cancel 1", "request 2 startCodeLogin Dish"])
        #expect(flow.answered(F.op(1), .tempPass(.success(F.profile(mvpd, type: "temporary"))), now: F.now).isEmpty)
        #expect(flow.answered(F.op(1), .tempPass(.failure(.refused(F.failure(.transport(.cancelled))))), now: F.now).isEmpty)
        // A cancellation of the TempPass request in progress stalls it (the engine's task ended).
        var stalled = F.flow()
        _ = stalled.setSelectedProvider(F.call(1), mvpd, stored: [], now: F.now)
        #expect(stalled.answered(F.op(1), .tempPass(.failure(.refused(F.failure(.transport(.cancelled))))), now: F.now).isEmpty)
        #expect(stalled.isLoginInProgress)
    }
}
