// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The AccessEnabler flows through the Swift API against the in-memory Adobe (no sockets).
@Suite struct FlowTests {
    let adobe = InMemoryAdobe()
    let recorder = Recorder()

    func client(_ settings: Settings = .test(), clock: any WallClock = SystemClock()) throws -> AccessEnabler {
        let enabler = try AccessEnabler(settings: settings, transport: adobe, clock: clock)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        return enabler
    }

    func ready(_ enabler: AccessEnabler) async throws {
        try enabler.setRequestor("REF30")
        try await recorder.wait { $0.isRequestorComplete }
        #expect(recorder.all.contains(.requestorComplete(1)))
    }

    /// Logs in through the second-screen flow (the in-memory viewer completes at the first poll).
    func login(_ enabler: AccessEnabler) async throws {
        try enabler.getAuthentication()
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider("Cablevision")
        try await recorder.wait { $0 == .authenticationStatus(1, "") }
    }

    @Test func coldSetRequestorRegistersThenFetchesConfigurationAndProfiles() async throws {
        let enabler = try client()
        try await ready(enabler)
        let paths = adobe.requests.map { $0.url.replacingOccurrences(of: "http://127.0.0.1:9", with: "") }
        #expect(paths.count == 4)
        #expect(paths[0] == "/o/client/register")
        #expect(paths[1] == "/o/client/token")
        #expect(Set(paths[2...]) == ["/api/v2/REF30/configuration", "/api/v2/REF30/profiles"])
        // The token request carries the secret in the body, never in the URL.
        #expect(adobe.requests[1].body.map { String(decoding: $0, as: UTF8.self) }?.contains("client_secret=") == true)
    }

    /// A warm start (configuration and profiles fresh in the store) sends no request, and after
    /// its callback opens the connection to the service URL (RequestorSetupFlow's `preconnect`,
    /// which follows `finish`: the driver must still run it when the flow has left the table).
    @Test func aWarmStartPreconnectsAfterItsCallbackAndSendsNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ae-warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = Settings.test(storagePath: directory.appendingPathComponent("store.sqlite").path)
        let first = try client(settings)
        try await ready(first)
        try await login(first)
        first.shutdown()
        #expect(adobe.preconnects.isEmpty, "a cold start does not preconnect")
        let sent = adobe.requestCount
        let warm = Recorder()
        let second = try AccessEnabler(settings: settings, transport: adobe, clock: SystemClock())
        second.delegate = warm
        try second.setRequestor("REF30")
        try await warm.wait { $0.isRequestorComplete }
        for _ in 0..<500 where adobe.preconnects.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(adobe.preconnects == ["http://127.0.0.1:9"])
        #expect(adobe.requestCount == sent, "the warm setRequestor sends no request")
        second.shutdown()
    }

    @Test func callsBeforeSetRequestorAreRefusedWithoutCallback() async throws {
        let enabler = try client()
        #expect(throws: AccessEnablerError.noRequestor()) { try enabler.checkAuthentication() }
        #expect(throws: AccessEnablerError.noRequestor()) { try enabler.getAuthorization("R") }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(recorder.all.isEmpty)
    }

    @Test func callsDuringSetRequestorAreQueuedAndRunAfterIt() async throws {
        let enabler = try client()
        try enabler.setRequestor("REF30")
        try enabler.checkAuthentication()
        try enabler.getSelectedProvider()
        try await recorder.wait { if case .selected = $0 { true } else { false } }
        #expect(recorder.main == [.requestorComplete(1), .authenticationStatus(0, "User Not Authenticated Error"), .selected(nil)])
        #expect(recorder.callbackThreads == 1)
    }

    @Test func queuedCallsEndWithTheirFailureCallbacksWhenSetRequestorFails() async throws {
        // The configuration's answer waits until both calls are made: the in-memory Adobe answers
        // at once, and a setRequestor that has already failed refuses the calls (noRequestor)
        // instead of queueing them (seen in CI).
        let callsMade = DispatchSemaphore(value: 0)
        adobe.override = { request in
            if request.url.contains("/configuration") { _ = callsMade.wait(timeout: .now() + 10) }
            return nil
        }
        let enabler = try client()
        try enabler.setRequestor("UNKNOWN")
        try enabler.checkAuthentication()
        try enabler.getAuthorization("R1")
        callsMade.signal()
        try await recorder.wait { if case .tokenFailed = $0 { true } else { false } }
        #expect(
            recorder.main == [
                .status("CFG400"), .requestorComplete(0),
                .authenticationStatus(0, "User Not Authenticated Error"),
                .tokenFailed("R1", "Generic Authorization Error", "setRequestor did not complete successfully."),
            ])
        #expect(throws: AccessEnablerError.noRequestor()) { try enabler.checkAuthentication() }
    }

    @Test func secondScreenLoginThenAuthorizationAndLogout() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.checkAuthentication()
        try await recorder.wait { $0.isAuthenticationStatus }
        try await login(enabler)
        let regcode = try #require(recorder.status("REGCODE"))
        #expect(regcode.level == .info)
        let code = try #require(regcode.extras["code"]?.stringValue)
        #expect(regcode.extras["url"]?.stringValue == "http://127.0.0.1:9/api/v2/authenticate/REF30/\(code)")
        #expect(regcode.extras["notAfter"]?.int64Value != nil)

        try enabler.getAuthorization("LIVE")
        try await recorder.wait { $0.isTokenOutcome }
        #expect(recorder.all.contains(.token("TOKEN-LIVE", "LIVE")))

        try enabler.getAuthorization("PREMIUM")
        try await recorder.wait { if case .tokenFailed("PREMIUM", _, _) = $0 { true } else { false } }
        #expect(recorder.all.contains { if case .tokenFailed("PREMIUM", "User Not Authorized Error", _) = $0 { true } else { false } })
        #expect(recorder.status("Z100")?.enhancedError?.code == "authorization_denied_by_mvpd")

        let before = adobe.requestCount
        try enabler.logout()
        try await recorder.waitCount(2) { $0 == .authenticationStatus(0, "User Not Authenticated Error") }
        #expect(recorder.status("LOGOUT")?.extras["url"]?.stringValue == "https://mvpd.example/logout")
        #expect(adobe.requestCount == before + 1)
        try enabler.checkAuthentication()
        try await recorder.waitCount(3) { $0 == .authenticationStatus(0, "User Not Authenticated Error") }
    }

    @Test func entriesOfALoginArriveInAccessEnablerOrder() async throws {
        let enabler = try client()
        try await ready(enabler)
        try await login(enabler)
        #expect(
            recorder.main == [
                .requestorComplete(1), .dialog(["Cablevision", "Dish"]), .status("REGCODE"),
                .authenticationStatus(1, ""),
            ])
        // sendTrackingData follows setAuthenticationStatus: wait for it (it may not be recorded yet).
        try await recorder.wait { if case .tracking(TrackingEvent.authentication, _) = $0 { true } else { false } }
        let tracking = recorder.all.compactMap { entry -> (Int32, [String])? in
            if case .tracking(let event, let data) = entry { (event, data) } else { nil }
        }
        try #require(tracking.map(\.0) == [TrackingEvent.mvpdSelection, TrackingEvent.authentication])
        #expect(tracking[1].1[0...3] == ["true", "Cablevision", Digest.md5Hex("user-1"), "false"])
    }

    @Test func getAuthorizationLogsInFirstWhenNeeded() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.getAuthorization("LIVE")
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider("Cablevision")
        try await recorder.wait { $0.isTokenOutcome }
        #expect(recorder.main.suffix(2) == [.authenticationStatus(1, ""), .token("TOKEN-LIVE", "LIVE")])
    }

    @Test func checkAuthorizationDoesNotLogIn() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.checkAuthorization("LIVE")
        try await recorder.wait { $0.isTokenOutcome }
        #expect(recorder.main.last == .tokenFailed("LIVE", "User Not Authenticated Error", "The viewer is not authenticated."))
        #expect(!recorder.all.contains { if case .dialog = $0 { true } else { false } })
    }

    @Test func cancellingTheSelectionEndsTheLogin() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.getAuthentication()
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider(nil)
        try await recorder.wait { $0.isAuthenticationStatus }
        #expect(recorder.main.suffix(2) == [.status("N005"), .authenticationStatus(0, "Provider Not Selected Error")])
    }

    @Test func anExpiredAccessTokenIsRenewedOnceOn401() async throws {
        let enabler = try client()
        try await ready(enabler)
        try await login(enabler)
        adobe.expireTokens()
        let before = adobe.requestCount
        try enabler.getAuthorization("LIVE")
        try await recorder.wait { $0.isTokenOutcome }
        #expect(recorder.all.contains(.token("TOKEN-LIVE", "LIVE")))
        let paths = adobe.requests[before...].map { $0.url.split(separator: "/").suffix(3).joined(separator: "/") }
        #expect(paths == ["decisions/authorize/Cablevision", "o/client/token", "decisions/authorize/Cablevision"])
    }

    @Test func invalidClientMeansRegisteringAgain() async throws {
        let enabler = try client()
        try await ready(enabler)
        adobe.forgetClients()
        try enabler.setRequestor("REF30")  // still fresh: no requests
        try await recorder.waitCount(2) { $0 == .requestorComplete(1) }
        try enabler.getAuthentication()
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider("Cablevision")
        try await recorder.wait { $0.isAuthenticationStatus }
        #expect(adobe.requests(matching: "/o/client/register").count == 2)
    }

    @Test func preauthorizationSendsCeilNOverLimitRequests() async throws {
        var settings = Settings.test()
        settings.preauthorizeLimit = 5
        let enabler = try client(settings)
        try await ready(enabler)
        try await login(enabler)
        let resources = (1...12).map { "R\($0)" } + ["PREMIUM"]
        let before = adobe.requests(matching: "preauthorize").count
        try enabler.checkPreauthorizedResources(resources)
        try await recorder.wait { if case .preauthorized = $0 { true } else { false } }
        #expect(adobe.requests(matching: "preauthorize").count - before == 3)
        #expect(recorder.all.contains(.preauthorized((1...12).map { "R\($0)" })))
        // Cached now: no request.
        try enabler.checkPreauthorizedResources(resources)
        try await recorder.waitCount(2) { if case .preauthorized = $0 { true } else { false } }
        #expect(adobe.requests(matching: "preauthorize").count - before == 3)
        // cache: false goes to Adobe again.
        try enabler.checkPreauthorizedResources(resources, cache: false)
        try await recorder.waitCount(3) { if case .preauthorized = $0 { true } else { false } }
        #expect(adobe.requests(matching: "preauthorize").count - before == 6)
    }

    @Test func tooManyResourcesSplitsAndLearnsTheLimit() async throws {
        var settings = Settings.test()
        settings.preauthorizeLimit = 8
        adobe.preauthorizeLimit = 3
        let enabler = try client(settings)
        try await ready(enabler)
        try await login(enabler)
        let resources = (1...8).map { "R\($0)" }
        try enabler.checkPreauthorizedResources(resources)
        try await recorder.wait { if case .preauthorized = $0 { true } else { false } }
        #expect(recorder.all.contains(.preauthorized(resources)))
        let before = adobe.requests(matching: "preauthorize").count
        try enabler.checkPreauthorizedResources((11...16).map { "R\($0)" })
        try await recorder.waitCount(2) { if case .preauthorized = $0 { true } else { false } }
        // 8 was refused, halves of 4 too, quarters of 2 passed: the SDK now sends 2 per request and
        // gets no more refusals (⌈6/2⌉ requests).
        #expect(adobe.requests(matching: "preauthorize").count - before == 3)
    }

    @Test func preauthorizeAnswersPerResourceWithEnhancedErrors() async throws {
        let enabler = try client()
        try await ready(enabler)
        try await login(enabler)
        let answer = Locked<PreauthorizeResponse?>(nil)
        try enabler.preauthorize(PreauthorizeRequest(resources: ["LIVE", "PREMIUM"])) { response in
            answer.withLock { $0 = response }
        }
        let deadline = Date().addingTimeInterval(30)
        while answer.withLock({ $0 }) == nil && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        let response = try #require(answer.withLock { $0 })
        #expect(response.status == nil)
        #expect(response.decisions.map(\.id) == ["LIVE", "PREMIUM"])
        #expect(response.decisions[0].authorized && !response.decisions[1].authorized)
        #expect(response.decisions[1].error?.code == "preauthorization_denied_by_mvpd")
    }

    @Test func metadataAnswersFromTheProfile() async throws {
        let enabler = try client()
        try await ready(enabler)
        try await login(enabler)
        try enabler.setOptions(["deviceIdMetadata": true])  // Adobe enabled it for the integration
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.authentication))
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.userMetadata, userMetadataName: "zip"))
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.userMetadata, userMetadataName: "householdID"))
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.userMetadata, userMetadataName: "tokenSource"))
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.authorization, resourceID: "LIVE"))
        try await recorder.waitCount(6) { if case .metadata = $0 { true } else { false } }
        let metadata = recorder.all.filter { if case .metadata = $0 { true } else { false } }
        #expect(
            metadata == [
                .metadata(.int(adobe.profileNotAfter), false, 0), .metadata(.string("device-1"), false, 2),
                .metadata(.array(["10001"]), false, 3), .metadata(.string("c2VjcmV0"), true, 3),
                .metadata(.string("Cablevision"), false, 3), .metadata(nil, false, 1),
            ])
    }

    /// Issue 28 item 11: Adobe documents the device id metadata as "disabled by default" (enabled
    /// per integration): until the host enables it, opcode 2 answers nothing, after META403.
    @Test func theDeviceIDMetadataIsOffUntilTheHostEnablesIt() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
        try await recorder.waitCount(1) { if case .metadata = $0 { true } else { false } }
        #expect(recorder.all.suffix(2) == [.status("META403"), .metadata(nil, false, 2)])
        try enabler.setOptions(["deviceIdMetadata": true])
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
        try await recorder.waitCount(2) { if case .metadata = $0 { true } else { false } }
        #expect(recorder.all.last == .metadata(.string("device-1"), false, 2))
        try enabler.setOptions(["deviceIdMetadata": false])
        try enabler.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
        try await recorder.waitCount(3) { if case .metadata = $0 { true } else { false } }
        #expect(recorder.all.suffix(2) == [.status("META403"), .metadata(nil, false, 2)])
        #expect(throws: AccessEnablerError.self) { try enabler.setOptions(["deviceIdMetadata": "yes"]) }
    }

    @Test func anExpiredProfileIsNotAuthenticated() async throws {
        let clock = ManualClock(realSleeps: true)  // the login polls in real time; the test moves the wall clock
        let enabler = try client(clock: clock)
        try await ready(enabler)
        try await login(enabler)
        clock.advance(adobe.profileNotAfter - clock.nowMillis() + 1)
        try enabler.checkAuthentication()
        try await recorder.wait { $0 == .authenticationStatus(0, "User Not Authenticated Error") }
    }

    @Test func destroyStopsCallbacksAndRefusesCalls() async throws {
        let enabler = try client()
        try await ready(enabler)
        try enabler.getAuthentication()
        enabler.shutdown()
        let count = recorder.all.count
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(recorder.all.count == count)
        #expect(throws: AccessEnablerError.invalidHandle()) { try enabler.checkAuthentication() }
    }

    /// Adobe asks for missing parameters (resume, with the docs' "domain" spelling), then answers
    /// retry without naming them: the SDK asks the session (GET) and resumes again.
    @Test func sessionsThatNeedResumingAreResumed() async throws {
        let sessionAnswers = Locked<[String]>([])
        adobe.override = { [adobe] request in
            func answer(_ body: [String: Any]) -> HTTPResponse {
                HTTPResponse(
                    status: 200, headers: [("Content-Type", "application/json")],
                    body: Array(try! JSONSerialization.data(withJSONObject: body)))
            }
            let path = request.url.replacingOccurrences(of: "http://127.0.0.1:9/api/v2/REF30", with: "")
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            switch (request.method, path) {
            case ("POST", "/sessions"):
                sessionAnswers.withLock { $0.append("create:" + body) }
                return answer([
                    "actionName": "resume", "actionType": "direct", "reasonType": "none", "code": "RES1234",
                    "missingParameters": ["domain"], "sessionId": "s", "serviceProvider": "REF30",
                ])
            case ("POST", "/sessions/RES1234"):
                let round = sessionAnswers.withLock { answers -> Int in
                    answers.append("resume:" + body)
                    return answers.filter { $0.hasPrefix("resume") }.count
                }
                if round == 1 {
                    return answer([
                        "actionName": "retry", "actionType": "direct", "reasonType": "none", "code": "RES1234",
                        "sessionId": "s", "serviceProvider": "REF30",
                    ])
                }
                adobe.openSession(code: "RES1234", mvpd: "Cablevision")
                return answer([
                    "actionName": "authenticate", "actionType": "interactive", "reasonType": "none",
                    "code": "RES1234", "url": "/api/v2/authenticate/REF30/RES1234", "sessionId": "s",
                    "serviceProvider": "REF30", "notAfter": "4102444800000",
                ])
            case ("GET", "/sessions/RES1234"):
                sessionAnswers.withLock { $0.append("retrieve") }
                return answer([
                    "existingParameters": ["mvpd": "Cablevision"], "missingParameters": ["redirectUrl"],
                    "device": [:], "notBefore": "0", "notAfter": "4102444800000",
                ])
            default:
                return nil
            }
        }
        let enabler = try client()
        try await ready(enabler)
        try await login(enabler)
        #expect(
            sessionAnswers.withLock { $0 } == [
                "create:mvpd=Cablevision&domainName=adobe.com&redirectUrl=adobepass%3A%2F%2Fandroid.app",
                "resume:domainName=adobe.com", "retrieve", "resume:redirectUrl=adobepass%3A%2F%2Fandroid.app",
            ])
        #expect(recorder.status("REGCODE")?.extras["code"] == "RES1234")
    }
}
