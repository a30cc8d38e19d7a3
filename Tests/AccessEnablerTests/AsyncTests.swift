// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The async calls (`enabler.async`) against the emulator over HTTP: the whole flow, the named
/// errors, concurrent calls matched to their own answers, shutdown, cancellation, event-loop mode.
@Suite(.serialized, .sharedEmulator, .timeLimit(.minutes(1))) struct AsyncTests {
    static let softwareStatement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImFzeW5jIn0.c2ln"

    func enabler(_ emulator: EmulatorProcess, mode: CallbackMode = .thread, api: APIGeneration = .v2) throws -> AccessEnabler {
        var settings = Settings(softwareStatement: Self.softwareStatement)
        settings.apiGeneration = api
        settings.baseURL = emulator.url
        settings.deviceID = "swift-async-device"
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        settings.callbackMode = mode
        return try AccessEnabler(settings: settings)
    }

    /// A client with a recording delegate, its setRequestor done.
    func readyClient(_ emulator: EmulatorProcess) async throws -> (AccessEnabler, Recorder) {
        let enabler = try enabler(emulator)
        let recorder = Recorder()
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        try await enabler.async.setRequestor("REF30")
        return (enabler, recorder)
    }

    /// getAuthentication with the viewer logging in on the "second screen" when the code shows.
    func logIn(_ enabler: AccessEnabler, _ emulator: EmulatorProcess, mvpd: String = "Cablevision") async throws {
        try await enabler.async.getAuthentication(
            selectProvider: { mvpds in
                mvpds.contains { $0.id == mvpd } ? mvpd : nil
            },
            showCode: { code in
                _ = try? await emulator.control("POST", "login", ["code": code.code])
            })
    }

    /// The resource a media token was issued for (the emulator's token is Base64 XML).
    func resource(of token: String) -> String? {
        guard let data = Data(base64Encoded: token) else { return nil }
        let xml = String(decoding: data, as: UTF8.self)
        guard let start = xml.range(of: "<resourceID>"), let end = xml.range(of: "</resourceID>") else { return nil }
        return String(xml[start.upperBound..<end.lowerBound])
    }

    /// The whole flow on REST API V2 and on V1: the same calls and answers.
    @Test(arguments: [APIGeneration.v2, .v1])
    func wholeFlow(_ api: APIGeneration) async throws {
        let emulator = try EmulatorProcess.shared
        let enabler = try enabler(emulator, api: api)
        let recorder = Recorder()
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }

        try await enabler.async.setRequestor("REF30")
        #expect(try await enabler.async.checkAuthentication() == false)
        let codes = Locked<[RegistrationCode]>([])
        try await enabler.async.getAuthentication(
            selectProvider: { mvpds in
                #expect(mvpds.map(\.id).contains("Comcast_SSO"))
                return "Comcast_SSO"
            },
            showCode: { code in
                codes.withLock { $0.append(code) }
                _ = try? await emulator.control("POST", "login", ["code": code.code])
            })
        let code = try #require(codes.withLock { $0.first })
        let codeInURL = api == .v2 ? code.url.hasSuffix("/" + code.code) : code.url.contains("reg_code=\(code.code)&")
        #expect(code.url.hasPrefix(emulator.url) && codeInURL && code.mvpdID == "Comcast_SSO")
        #expect(code.notAfter > Int64(Date().timeIntervalSince1970 * 1000))
        #expect(try await enabler.async.checkAuthentication() == true)

        let token = try await enabler.async.getAuthorization("LIVE")
        #expect(resource(of: token) == "LIVE")
        let source = try await enabler.async.getMetadata(MetadataKey(opCode: MetadataKey.userMetadata, userMetadataName: "tokenSource"))
        #expect(source.value?.stringValue == "Comcast_SSO" && source.encrypted == false)
        let expiry = try await enabler.async.getMetadata(MetadataKey(opCode: MetadataKey.authorization, resourceID: "LIVE"))
        #expect((expiry.value?.int64Value ?? 0) > Int64(Date().timeIntervalSince1970 * 1000))
        let preauthorized = try await enabler.async.preauthorize(PreauthorizeRequest(resources: ["LIVE", "PREMIUM-DENIED"]))
        #expect(preauthorized.decisions.map(\.authorized) == [true, false])

        let statuses = try await enabler.async.logout()
        #expect(statuses.map(\.errorID) == (api == .v2 ? ["LOGOUT"] : []))  // V1 has no MVPD logout page
        #expect(try await enabler.async.checkAuthentication() == false)
        // The delegate got the callbacks as always.
        #expect(recorder.all.contains { if case .token(_, "LIVE") = $0 { true } else { false } })
        #expect(recorder.all.contains(.authenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated)))
    }

    @Test func failuresThrowNamedErrorsWithTheAccessEnablerCodes() async throws {
        let emulator = try EmulatorProcess.shared
        let enabler = try enabler(emulator)
        defer { enabler.shutdown() }

        // Refused at once: the callback API's error.
        await #expect(throws: AccessEnablerError.noRequestor()) { try await enabler.async.checkAuthentication() }
        await #expect(throws: AccessEnablerError.invalidArgument("requestor_id is empty")) {
            try await enabler.async.setRequestor("")
        }
        // setRequestorComplete(0): the status before it names the error.
        let requestorError = await #expect(throws: RequestorError.self) { try await enabler.async.setRequestor("UNKNOWN") }
        #expect(requestorError?.requestorID == "UNKNOWN")
        #expect(requestorError?.status?.level == .error)

        try await enabler.async.setRequestor("REF30")
        let notAuthenticated = await #expect(throws: AuthorizationError.self) { try await enabler.async.checkAuthorization("LIVE") }
        #expect(notAuthenticated?.errorCode == AccessEnablerErrorCode.userNotAuthenticated)
        #expect(notAuthenticated?.resource == "LIVE")

        let cancelled = await #expect(throws: AuthenticationError.self) {
            try await enabler.async.getAuthentication(selectProvider: { _ in nil })
        }
        #expect(cancelled?.errorCode == AccessEnablerErrorCode.providerNotSelected)
        #expect(cancelled?.status?.errorID == "N005")
        // A refused choice ends its login before the call returns: the next call gets its own answer.
        for _ in 0..<5 {
            await #expect(throws: AccessEnablerError.invalidArgument("mvpd_id is empty (pass NULL to cancel)")) {
                try await enabler.async.getAuthentication(selectProvider: { _ in "" })
            }
            let unknown = await #expect(throws: AuthenticationError.self) {
                try await enabler.async.getAuthentication(selectProvider: { _ in "NOT-AN-MVPD" })
            }
            #expect(unknown?.errorCode == AccessEnablerErrorCode.genericAuthentication && unknown?.status?.errorID == "N500")
        }

        try await logIn(enabler, emulator)
        let denied = await #expect(throws: AuthorizationError.self) { try await enabler.async.getAuthorization("PREMIUM-DENIED") }
        #expect(denied?.errorCode == AccessEnablerErrorCode.userNotAuthorized)
        #expect(denied?.errorDescription.contains("Premium") == true)
        #expect(denied?.status != nil)
    }

    /// Concurrent async calls, and callback-API calls for the same resources beside them: each
    /// async call gets the answer for its own resource or key.
    @Test func concurrentCallsGetTheirOwnAnswers() async throws {
        let emulator = try EmulatorProcess.shared
        let (enabler, _) = try await readyClient(emulator)
        defer { enabler.shutdown() }
        try await logIn(enabler, emulator)
        try enabler.setOptions(["deviceIdMetadata": true])  // Adobe enabled it for the integration

        let resources = ["LIVE", "PREMIUM-DENIED", "MOVIES", "SPORTS"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<48 {
                let resource = resources[index % resources.count]
                group.addTask {
                    switch index % 6 {
                    case 4:
                        #expect(try await enabler.async.checkAuthentication() == true)
                    case 5:
                        let device = try await enabler.async.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
                        #expect(device.value?.stringValue == "swift-async-device")
                    default:
                        try enabler.getAuthorization(resource)  // the callback API, in the same lines
                        do {
                            let token = try await enabler.async.checkAuthorization(resource)
                            #expect(resource != "PREMIUM-DENIED" && self.resource(of: token) == resource)
                        } catch let error as AuthorizationError {
                            #expect(resource == "PREMIUM-DENIED" && error.resource == resource)
                            #expect(error.errorCode == AccessEnablerErrorCode.userNotAuthorized)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func shutdownEndsTheCallsThatWait() async throws {
        let emulator = try EmulatorProcess.shared
        let (enabler, _) = try await readyClient(emulator)
        let codeShown = AsyncStream.makeStream(of: Void.self)
        let login = Task {
            try await enabler.async.getAuthentication(
                selectProvider: { _ in "Cablevision" },
                showCode: { _ in codeShown.continuation.yield() })
        }
        for await _ in codeShown.stream { break }  // nobody logs in: the SDK polls
        enabler.shutdown()
        await #expect(throws: AccessEnablerError.invalidHandle("the client was shut down while the call waited")) {
            try await login.value
        }
        await #expect(throws: AccessEnablerError.invalidHandle()) { try await enabler.async.checkAuthorization("LIVE") }
    }

    @Test func cancellingALoginCancelsItForTheDelegateToo() async throws {
        let emulator = try EmulatorProcess.shared
        let (enabler, recorder) = try await readyClient(emulator)
        defer { enabler.shutdown() }
        let codeShown = AsyncStream.makeStream(of: Void.self)
        let login = Task {
            try await enabler.async.getAuthentication(
                selectProvider: { _ in "Spectrum" },
                showCode: { _ in codeShown.continuation.yield() })
        }
        for await _ in codeShown.stream { break }
        login.cancel()
        await #expect(throws: CancellationError.self) { try await login.value }
        try await recorder.wait { $0 == .authenticationStatus(0, AccessEnablerErrorCode.providerNotSelected) }
        // The next call runs: the cancelled one left the gate.
        #expect(try await enabler.async.checkAuthentication() == false)
    }

    /// Call identity: a call made inside another call's work runs at once with its own answer
    /// (the matching layer this replaced refused it, as it would have waited for its caller).
    @Test func callsInsideAnotherCallsWorkGetTheirOwnAnswers() async throws {
        let emulator = try EmulatorProcess.shared
        let (enabler, _) = try await readyClient(emulator)
        defer { enabler.shutdown() }
        try enabler.setOptions(["deviceIdMetadata": true])
        let nested = Locked<[String]>([])
        await #expect(throws: AuthenticationError.self) {
            try await enabler.async.getAuthentication(selectProvider: { _ in
                let authenticated = try? await enabler.async.checkAuthentication()
                nested.withLock { $0.append("authenticated: \(authenticated.map(String.init) ?? "error")") }
                let device = try? await enabler.async.getMetadata(MetadataKey(opCode: MetadataKey.deviceID))
                nested.withLock { $0.append(device?.value?.stringValue ?? "none") }
                return nil
            })
        }
        #expect(nested.withLock { $0 } == ["authenticated: false", "swift-async-device"])
    }

    /// Call identity: the callback API and async calls mixed on one client, from several threads,
    /// while a login the callback API started is in progress: each async call gets its own
    /// answer, never the login's, and the delegate still gets every callback.
    @Test func mixedCallbackAndAsyncCallsFromSeveralThreads() async throws {
        let emulator = try EmulatorProcess.shared
        let (enabler, recorder) = try await readyClient(emulator)
        defer { enabler.shutdown() }
        try enabler.getAuthentication()  // the callback API: a login waits for the dialog's answer
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        // While it waits, checkAuthentication of either API answers 0 for itself only.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask {
                    if index % 3 == 0 {
                        try enabler.checkAuthentication()
                    } else {
                        #expect(try await enabler.async.checkAuthentication() == false)
                    }
                }
            }
            try await group.waitForAll()
        }
        // An async getAuthentication joins the login; the callback host answers the dialog from
        // another thread; both end together, and the async call gets its own success.
        let shown = Locked<RegistrationCode?>(nil)
        let login = Task {
            try await enabler.async.getAuthentication(
                selectProvider: { _ in "Cablevision" },
                showCode: { code in shown.withLock { $0 = code } })
        }
        // The async call joins the login (it opens its stream just before it submits its call).
        while enabler.asyncCalls.waiting == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        try await Task.sleep(nanoseconds: 50_000_000)
        let host = Thread { try? enabler.setSelectedProvider("Cablevision") }
        host.start()
        let regcode = try await recorder.wait { if case .status("REGCODE") = $0 { true } else { false } }
        #expect(regcode == .status("REGCODE"))
        let code = try #require(recorder.status("REGCODE")?.extras["code"]?.stringValue)
        _ = try await emulator.control("POST", "login", ["code": code])
        try await login.value
        #expect(shown.withLock { $0?.code } == code)  // the async caller saw its login's code
        // The async call resumes before the delegate hears the same event: wait for the recording.
        let success = Recorder.Entry.authenticationStatus(1, AccessEnablerErrorCode.userAuthenticated)
        try await recorder.waitCount(2) { $0 == success }
        #expect(recorder.all.filter { $0 == success }.count == 2)  // one per waiter: the callback call and the async one
        let failure = Recorder.Entry.authenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated)
        try await recorder.waitCount(12) { $0 == failure }
        #expect(recorder.all.filter { $0 == failure }.count == 12)  // the twelve checks, answered while the login waited
        #expect(try await enabler.async.checkAuthentication() == true)
    }

    @Test func eventLoopModeAnswersWhenTheHostDispatches() async throws {
        let emulator = try EmulatorProcess.shared
        let enabler = try enabler(emulator, mode: .eventLoop)
        let fd = try #require(enabler.eventFileDescriptor)
        let stop = Locked(false)
        let loop = Thread {  // the host's loop: poll the descriptor, dispatch on this thread
            while !stop.withLock({ $0 }) {
                var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&watch, 1, 50) > 0 { _ = try? enabler.dispatch() }
            }
        }
        loop.start()
        defer {
            stop.withLock { $0 = true }
            enabler.shutdown()
        }
        try await enabler.async.setRequestor("REF30")
        #expect(try await enabler.async.checkAuthentication() == false)
        try await logIn(enabler, emulator, mvpd: "DTV")
        #expect(resource(of: try await enabler.async.checkAuthorization("LIVE")) == "LIVE")
    }
}
