// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import AccessEnabler

/// How a login ends from outside (nil selection, an unknown MVPD, a new selection, logout, another
/// requestor, destroy), handleExternalURL, and late events: every answer for an operation the
/// login no longer waits for changes nothing (the engine re-checks neither the login's id nor
/// `Task.isCancelled`).
struct LoginFlowCancellationTests {
    typealias F = LoginFixtures
    let code = CodeChallenge(mvpd: "Cablevision", code: "ABC1234", url: "http://sp/a", notAfter: LoginFixtures.far)
    let n005 = "emit [1] status N005/info The MVPD selection was cancelled."

    /// Call 1 waits; Cablevision's code is shown; the wait is operation 2.
    func waitingForPoll() -> LoginFlow {
        var flow = F.flow()
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        _ = flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now)
        _ = flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now)
        return flow
    }

    @Test func aNilSelectionWithoutALoginEndsOnlyThatCall() {
        var flow = F.flow()
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), nil, stored: [], now: F.now))
                == ["select nil", "end 2 authenticated(0, Provider Not Selected Error) ← -"])
    }

    @Test func aNilSelectionEndsTheLoginWithN005() {
        var flow = F.flow()
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), nil, stored: [], now: F.now))
                == ["select nil", n005, "end 1 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false)])
        var polling = waitingForPoll()
        #expect(
            LoginTrace.lines(polling.setSelectedProvider(F.call(3), nil, stored: [], now: F.now))
                == ["select nil", "cancel 2", n005, "end 1 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false)])
        #expect(polling.pollTimerFired(F.op(2)).isEmpty)
    }

    @Test func anUnknownMVPDEndsTheLoginWithN500() {
        var flow = waitingForPoll()
        _ = flow.pollTimerFired(F.op(2))
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(3), "Nope", stored: [], now: F.now))
                == [
                    "cancel 3", "emit [1] status N500/error MVPD 'Nope' is not in the requestor's configuration.",
                    "end 1 authenticated(0, Generic Authentication Error) ← N500", F.authN(false),
                ])
        var fresh = F.flow()
        #expect(
            LoginTrace.lines(fresh.setSelectedProvider(F.call(4), "Nope", stored: [], now: F.now))
                == [
                    "emit [4] status N500/error MVPD 'Nope' is not in the requestor's configuration.",
                    "end 4 authenticated(0, Generic Authentication Error) ← N500", F.authN(false),
                ])
    }

    /// A new selection replaces the login in progress: the old code is abandoned, its poll's
    /// answer (even a profile, or a failure) is late.
    @Test func aNewSelectionReplacesTheCodeInProgress() {
        var flow = waitingForPoll()
        _ = flow.pollTimerFired(F.op(2))
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(3), "Dish", stored: [], now: F.now))
                == ["select Dish", F.selection("Dish"), "cancel 3", "request 4 startCodeLogin Dish"])
        #expect(flow.answered(F.op(3), .codeLoginPolled(.success(F.profile("Cablevision"))), now: F.now).isEmpty)
        #expect(flow.answered(F.op(3), .codeLoginPolled(.failure(F.failure(.http(status: 400)))), now: F.now).isEmpty)
        #expect(flow.waiters == [.authentication(F.call(1))])
        let dish = F.profile("Dish")
        #expect(
            LoginTrace.lines(flow.answered(F.op(4), .codeLoginStarted(.success(.profile(dish))), now: F.now))
                == ["save Dish regular", "end 1 authenticated(1, ) ← -", F.authN(true, dish)])
    }

    @Test func logoutAndAnotherRequestorEndTheLoginWithoutAStatus() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        #expect(
            LoginTrace.lines(flow.logout())
                == ["cancel 1", "end 1 authenticated(0, User Not Authenticated Error) ← -", F.authN(false)])
        #expect(flow.logout().isEmpty)
        var other = waitingForPoll()
        #expect(
            LoginTrace.lines(other.requestorChanged())
                == ["cancel 2", "end 1 authenticated(0, Generic Authentication Error) ← -", F.authN(false)])
        #expect(other.requestorChanged().isEmpty)
    }

    @Test func destroyStopsTheOperationAndEverythingAfterIt() {
        var flow = waitingForPoll()
        #expect(LoginTrace.lines(flow.destroy()) == ["cancel 2"])
        #expect(flow.pollTimerFired(F.op(2)).isEmpty)
        #expect(flow.answered(F.op(2), .codeLoginPolled(.success(F.profile("Cablevision"))), now: F.now).isEmpty)
        #expect(flow.externalURL() == nil)
        #expect(flow.setSelectedProvider(F.call(5), "Dish", stored: [], now: F.now).isEmpty)
        #expect(flow.setSelectedProvider(F.call(5), nil, stored: [], now: F.now).isEmpty)
        #expect(
            flow.getAuthentication(
                F.call(6), force: false, data: nil, filter: nil, current: nil,
                expiredTempPassMVPD: nil
            ).isEmpty)
        #expect(flow.join(.authorization(F.call(7), resource: "LIVE")).isEmpty)
        #expect(flow.logout().isEmpty && flow.requestorChanged().isEmpty && flow.destroy().isEmpty)
        flow.requestorReady(F.requestor())
        #expect(!flow.isLoginInProgress)
        var idle = F.flow()
        #expect(idle.destroy().isEmpty)
    }

    @Test func answersAfterTheEndOrForAnOlderLoginAreLate() {
        var flow = waitingForPoll()
        _ = flow.pollTimerFired(F.op(2))
        _ = flow.answered(F.op(3), .codeLoginPolled(.success(F.profile("Cablevision"))), now: F.now)
        #expect(!flow.isLoginInProgress)
        // After the end: nothing.
        #expect(flow.answered(F.op(3), .codeLoginPolled(.success(F.profile("Cablevision"))), now: F.now).isEmpty)
        #expect(flow.pollTimerFired(F.op(2)).isEmpty)
        #expect(flow.externalURL() == nil)
        // A newer login: the older one's operations stay late.
        _ = flow.getAuthentication(F.call(9), force: true, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(10), "Dish", stored: [], now: F.now))
                == ["select Dish", F.selection("Dish"), "request 4 startCodeLogin Dish"])
        for old in 1...3 {
            #expect(flow.answered(F.op(UInt64(old)), .codeLoginStarted(.success(.code(code))), now: F.now).isEmpty)
            #expect(flow.answered(F.op(UInt64(old)), .codeLoginPolled(.success(nil)), now: F.now).isEmpty)
            #expect(flow.pollTimerFired(F.op(UInt64(old))).isEmpty)
        }
        #expect(flow.waiters == [.authentication(F.call(9))])
    }

    /// handleExternalURL wakes the poller once a code is shown: at once while it waits, right after
    /// the poll in progress otherwise; with no code shown the driver handles it (logout, N130).
    @Test func anExternalURLMakesThePollerLookNow() {
        var flow = F.flow()
        #expect(flow.externalURL() == nil)
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: nil, current: nil, expiredTempPassMVPD: nil)
        #expect(flow.externalURL() == nil)
        _ = flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now)
        #expect(flow.externalURL() == nil)
        _ = flow.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now)
        #expect(flow.externalURL().map(LoginTrace.lines) == ["cancel 2", "request 3 poll ABC1234"])
        #expect(flow.pollTimerFired(F.op(2)).isEmpty)
        // While a poll runs: kept for the next wait, which is skipped.
        #expect(flow.externalURL().map(LoginTrace.lines) == [])
        #expect(
            LoginTrace.lines(flow.answered(F.op(3), .codeLoginPolled(.success(nil)), now: F.now))
                == ["request 4 poll ABC1234"])
        #expect(LoginTrace.lines(flow.answered(F.op(4), .codeLoginPolled(.success(nil)), now: F.now)) == ["wait 5 4000ms"])
    }

    /// The engine's Wakeup belonged to the login, not to its code: a wake kept while a poll ran
    /// still skips the first wait of the next selection's code.
    @Test func aKeptWakeOutlivesANewSelection() {
        var flow = waitingForPoll()
        _ = flow.pollTimerFired(F.op(2))
        #expect(flow.externalURL().map(LoginTrace.lines) == [])
        _ = flow.setSelectedProvider(F.call(3), "Dish", stored: [], now: F.now)
        #expect(flow.externalURL() == nil)  // no code shown for Dish yet
        var dish = code
        dish.mvpd = "Dish"
        #expect(
            LoginTrace.lines(flow.answered(F.op(4), .codeLoginStarted(.success(.code(dish))), now: F.now)).last
                == "request 5 poll ABC1234")
    }

    /// A request that fails as cancelled although the flow did not cancel it (a host transport
    /// reporting a cancellation): the engine's task ended there; the login waits for the viewer.
    @Test func aCancelledAnswerStallsTheLoginUntilTheNextStep() {
        var flow = F.flow()
        _ = flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        #expect(
            flow.answered(
                F.op(1), .codeLoginStarted(.failure(.session(F.failure(.transport(.cancelled))))),
                now: F.now
            ).isEmpty)
        #expect(flow.isLoginInProgress && flow.externalURL() == nil)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), "Dish", stored: [], now: F.now))
                == ["select Dish", F.selection("Dish"), "request 2 startCodeLogin Dish"])

        var polling = waitingForPoll()
        _ = polling.pollTimerFired(F.op(2))
        #expect(polling.answered(F.op(3), .codeLoginPolled(.failure(F.failure(.transport(.cancelled)))), now: F.now).isEmpty)
        #expect(polling.externalURL().map(LoginTrace.lines) == [])  // the code is still shown
        #expect(
            LoginTrace.lines(polling.setSelectedProvider(F.call(3), nil, stored: [], now: F.now))
                == ["select nil", n005, "end 1 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false)])
    }

    @Test func withoutARequestorTheSelectionIsIgnoredAndTheDialogEmpty() {
        var flow = LoginFlow(
            settings: LoginFlow.Settings(
                loginMode: .secondScreen, activationURL: nil,
                tracking: TrackingValues(deviceInfo: [:]), partner: nil))
        #expect(flow.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now).isEmpty)
        #expect(LoginTrace.lines(flow.join(.authentication(F.call(2)))) == ["emit [2] dialog[]"])
        flow.requestorReady(F.requestor())
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(3), "Cablevision", stored: [], now: F.now))
                == ["select Cablevision", F.selection("Cablevision"), "request 1 startCodeLogin Cablevision"])
    }

    /// Every step × every answer for an operation it does not wait for: no actions, no change.
    @Test func everyStepIgnoresOperationsItDoesNotWaitFor() {
        let answers: [LoginAnswer] = [
            .codeLoginStarted(.success(.code(code))), .codeLoginPolled(.success(F.profile("Cablevision"))),
            .tempPass(.success(F.profile("TempPass_TEST40", type: "temporary"))),
            .partnerRequest(.success(.profile(F.profile("Comcast")))), .partnerProfile(.failure(F.failure(.throttled))),
        ]
        let partnerAnswers: [PartnerAnswer] = [.access(.success(PartnerAccess(.granted))), .metadata(.failure(PartnerError(.timeout)))]
        var steps: [(String, LoginFlow)] = []
        var dialog = F.flow()
        _ = dialog.join(.authentication(F.call(1)))
        steps.append(("choosingProvider", dialog))
        var starting = F.flow()
        _ = starting.setSelectedProvider(F.call(1), "Cablevision", stored: [], now: F.now)
        steps.append(("startingCode", starting))
        var waiting = starting
        _ = waiting.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now)
        steps.append(("waitingForPoll", waiting))
        var polling = waiting
        _ = polling.pollTimerFired(F.op(2))
        steps.append(("polling", polling))
        var tempPass = F.flow()
        _ = tempPass.setSelectedProvider(F.call(1), "TempPass_TEST40", stored: [], now: F.now)
        steps.append(("tempPass", tempPass))
        var stalled = starting
        _ = stalled.answered(F.op(1), .codeLoginStarted(.failure(.profile(F.failure(.transport(.cancelled))))), now: F.now)
        steps.append(("stalled", stalled))
        for (name, original) in steps {
            for stale in [F.op(0), F.op(99)] {
                var flow = original
                for answer in answers { #expect(flow.answered(stale, answer, now: F.now).isEmpty, "\(name)") }
                for answer in partnerAnswers { #expect(flow.partnerAnswered(stale, answer, now: F.now).isEmpty, "\(name)") }
                #expect(flow.pollTimerFired(stale).isEmpty, "\(name)")
                #expect(flow.login?.step.operation == original.login?.step.operation, "\(name)")
                #expect(flow.waiters == original.waiters, "\(name)")
            }
        }
    }
}

/// Every step × every event that ends or replaces the login from outside: the operation in
/// progress is cancelled first; a picker still shown is dismissed last.
struct LoginFlowEndingTests {
    typealias F = LoginFixtures

    /// (name, flow with call 1 waiting, the operation in progress, a picker shown)
    static func steps() -> [(String, LoginFlow, UInt64?, Bool)] {
        let code = CodeChallenge(mvpd: "Comcast", code: "ABC1234", url: "http://sp/a", notAfter: F.far)
        var choosing = F.flow(partner: true)
        _ = choosing.join(.authentication(F.call(1)), filter: ["TV_PROVIDERS": ["Cablevision"]])
        var asking = F.flow(partner: true)
        _ = asking.join(.authentication(F.call(1)))
        var picking = asking
        _ = picking.partnerAnswered(F.op(1), .access(.success(PartnerAccess(.granted))), now: F.now)
        var exchanging = picking
        _ = exchanging.partnerAnswered(
            F.op(2),
            .metadata(
                .success(
                    PartnerMetadata(
                        accountProviderIdentifier: "comcast-id",
                        authenticationExpirationDate: F.far))), now: F.now)
        var starting = choosing
        _ = starting.setSelectedProvider(F.call(2), "Comcast", stored: [], now: F.now)
        var waiting = starting
        _ = waiting.answered(F.op(1), .codeLoginStarted(.success(.code(code))), now: F.now)
        var polling = waiting
        _ = polling.pollTimerFired(F.op(2))
        var stalled = polling
        _ = stalled.answered(F.op(3), .codeLoginPolled(.failure(F.failure(.transport(.cancelled)))), now: F.now)
        var tempPass = F.flow()
        _ = tempPass.join(.authentication(F.call(1)))
        _ = tempPass.setSelectedProvider(F.call(2), "TempPass_TEST40", stored: [], now: F.now)
        return [
            ("choosingProvider", choosing, nil, false), ("askingPermission", asking, 1, false),
            ("picking", picking, 2, true), ("exchanging", exchanging, 3, false), ("startingCode", starting, 1, false),
            ("waitingForPoll", waiting, 2, false), ("polling", polling, 3, false), ("tempPass", tempPass, 1, false),
            ("stalled", stalled, nil, false),
        ]
    }

    static let dialog =
        #"{"featuredAccountProviderIdentifiers":[],"partner":"Apple","supportedAccountProviderIdentifiers":["comcast-id","spectrum-id"]}"#

    @Test(arguments: steps().map(\.0))
    func endingEventsInEveryStep(_ name: String) throws {
        let (_, original, operation, pickerShown) = try #require(Self.steps().first { $0.0 == name })
        let cancel = operation.map { ["cancel \($0)"] } ?? []
        let dismissed = pickerShown ? ["emit [] dismiss \(Self.dialog)"] : []
        let ends: [(String, (inout LoginFlow) -> [LoginFlow.Action], [String])] = [
            (
                "logout", { $0.logout() },
                cancel + ["end 1 authenticated(0, User Not Authenticated Error) ← -", F.authN(false)] + dismissed
            ),
            (
                "requestorChanged", { $0.requestorChanged() },
                cancel + ["end 1 authenticated(0, Generic Authentication Error) ← -", F.authN(false)] + dismissed
            ),
            (
                "nil selection", { $0.setSelectedProvider(F.call(9), nil, stored: [], now: F.now) },
                ["select nil"] + cancel + [
                    "emit [1] status N005/info The MVPD selection was cancelled.",
                    "end 1 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false),
                ] + dismissed
            ),
            (
                "unknown MVPD", { $0.setSelectedProvider(F.call(9), "Nope", stored: [], now: F.now) },
                cancel + [
                    "emit [1] status N500/error MVPD 'Nope' is not in the requestor's configuration.",
                    "end 1 authenticated(0, Generic Authentication Error) ← N500", F.authN(false),
                ] + dismissed
            ),
            ("destroy", { $0.destroy() }, cancel),
        ]
        for (event, apply, expected) in ends {
            var flow = original
            #expect(LoginTrace.lines(apply(&flow)) == expected, "\(name) × \(event)")
            #expect(!flow.isLoginInProgress, "\(name) × \(event)")
        }
        // A new selection replaces the login's operation; the login and its waiter stay.
        var flow = original
        let next = try #require(
            LoginTrace.lines(flow.setSelectedProvider(F.call(9), "Cablevision", stored: [], now: F.now))
                .first { $0.hasPrefix("request ") })
        var replaced = original
        #expect(
            LoginTrace.lines(replaced.setSelectedProvider(F.call(9), "Cablevision", stored: [], now: F.now))
                == ["select Cablevision", F.selection("Cablevision")] + cancel + [next]
                + (pickerShown ? ["emit [1] dismiss \(Self.dialog)"] : []), "\(name) × selection")
        #expect(next.hasSuffix("startCodeLogin Cablevision") && replaced.waiters == [.authentication(F.call(1))], "\(name)")
        // handleExternalURL: only once a code is shown.
        var external = original
        let woken = external.externalURL().map(LoginTrace.lines)
        switch name {
        case "waitingForPoll": #expect(woken == ["cancel 2", "request 3 poll ABC1234"])
        case "polling", "stalled": #expect(woken == [])
        default: #expect(woken == nil, "\(name)")
        }
    }
}
