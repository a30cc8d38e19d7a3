// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The Swift API on libcurl against the emulator on loopback: real HTTP, real SQLite file.
@Suite(.serialized, .sharedEmulator) struct EmulatorTests {
    func settings(_ emulator: EmulatorProcess, storagePath: String? = nil) -> Settings {
        var settings = Settings(softwareStatement: "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6InN3aWZ0In0.c2ln")
        settings.baseURL = emulator.url
        settings.storagePath = storagePath
        settings.deviceID = "swift-tests-device"
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        return settings
    }

    @Test func secondScreenFlowOverHTTPAndRestartWithoutRequests() async throws {
        let emulator = try EmulatorProcess.shared
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ae-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        let recorder = Recorder()
        do {
            let enabler = try AccessEnabler(settings: settings(emulator, storagePath: path))
            enabler.delegate = recorder
            enabler.statusDelegate = recorder
            try enabler.setRequestor("REF30")
            try await recorder.wait { $0 == .requestorComplete(1) }
            #expect(try await emulator.operations().count == 4)
            try enabler.getAuthentication()
            try await recorder.wait { if case .dialog = $0 { true } else { false } }
            try enabler.setSelectedProvider("Comcast_SSO")
            try await recorder.wait { $0 == .status("REGCODE") }
            let code = try #require(recorder.status("REGCODE")?.extras["code"]?.stringValue)
            _ = try await emulator.control("POST", "login", ["code": code])
            try await recorder.wait { $0 == .authenticationStatus(1, "") }
            try enabler.getAuthorization("LIVE")
            try await recorder.wait { $0.isTokenOutcome }
            #expect(recorder.all.contains { if case .token(_, "LIVE") = $0 { true } else { false } })
            enabler.shutdown()
        }

        try await emulator.clearLog()
        let second = Recorder()
        let enabler = try AccessEnabler(settings: settings(emulator, storagePath: path))
        enabler.delegate = second
        try enabler.setRequestor("REF30")
        try enabler.checkAuthentication()
        try await second.wait { $0.isAuthenticationStatus }
        #expect(second.main == [.requestorComplete(1), .authenticationStatus(1, "")])
        #expect(try await emulator.operations().isEmpty)
    }

    /// The Swift simulator's SAML response is accepted by the emulator: the silent exchange of
    /// setRequestor, then the platform picker of getAuthentication.
    @Test func partnerFlowsWithTheSwiftSimulator() async throws {
        let emulator = try EmulatorProcess.shared
        var script = PartnerSimulator.Script()
        script.account = "Comcast"
        let simulator = PartnerSimulator(script)
        var settings = settings(emulator)
        settings.partner = simulator
        let recorder = Recorder()
        let enabler = try AccessEnabler(settings: settings)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        try enabler.setRequestor("REF30")
        try enabler.checkAuthentication()
        try await recorder.wait { $0.isAuthenticationStatus }
        #expect(recorder.main == [.requestorComplete(1), .authenticationStatus(1, "")])
        #expect(try await emulator.operations().suffix(2) == ["retrieveVerificationTokenUsingPOST", "createPartnerProfileUsingPOST"])
        #expect(simulator.metadataRequests.last?.isInterruptionAllowed == false)

        try enabler.logout()
        try await recorder.wait { $0 == .authenticationStatus(0, "User Not Authenticated Error") }
        #expect(recorder.status("VSA203") != nil)

        script.account = nil
        script.picker = .choose("Cablevision")
        simulator.script = script
        try enabler.getAuthentication()
        try await recorder.waitCount(2) { $0 == .authenticationStatus(1, "") }
        #expect(simulator.metadataRequests.suffix(2).map(\.isInterruptionAllowed) == [true, true])
        enabler.shutdown()
    }

    /// libcurl's network thread runs the whole client — registration, the partner's silent
    /// exchange, decisions — while every thread of Swift's cooperative pool is blocked
    /// (PoolIndependenceTests has the in-memory cases).
    @Test func theWholeClientRunsWithTheCooperativePoolBlocked() throws {
        let emulator = try EmulatorProcess.shared
        var script = PartnerSimulator.Script()
        script.account = "Comcast"
        var settings = settings(emulator)
        settings.deviceID = "pool-blocked-device"
        settings.partner = PartnerSimulator(script)
        let recorder = Recorder()
        let enabler = try AccessEnabler(settings: settings)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }
        var answered = false
        try CooperativePool.withAllThreadsBlocked {
            try enabler.setRequestor("REF30")
            try enabler.checkAuthentication()
            try enabler.getAuthorization("LIVE")
            answered = recorder.waitBlocking { $0.isTokenOutcome }
        }
        #expect(answered, Comment(rawValue: "no token outcome while the pool was busy; recorded: \(recorder.all)"))
        #expect(Array(recorder.main.prefix(2)) == [.requestorComplete(1), .authenticationStatus(1, "")])
        #expect(recorder.all.contains { if case .token(_, "LIVE") = $0 { true } else { false } })
    }
}

/// Registration codes on a wrong local clock, against the emulator (whose `Date` headers give
/// Adobe's time). The store tests move the clock of a whole process with libfaketime, but it also
/// shifts the absolute timerfd deadlines libdispatch sleeps with (Task.sleep never returns under
/// it), so the poll loop is tested here with the SDK's injectable wall clock.
@Suite(.serialized, .sharedEmulator) struct WrongClockRegistrationCodeTests {
    private func client(_ emulator: EmulatorProcess, localClock: Int64, recorder: Recorder) throws -> AccessEnabler {
        var settings = Settings(softwareStatement: "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6InN3aWZ0In0.c2ln")
        settings.baseURL = emulator.url
        settings.deviceID = "wrong-clock-device"
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        let enabler = try AccessEnabler(
            settings: settings, transport: CurlTransport(options: .init()),
            clock: ManualClock(localClock, realSleeps: true))
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        return enabler
    }

    /// setRequestor, then getAuthentication with Cablevision selected; returns at its end.
    /// `whenCodeShows` runs once the code is shown (REGCODE), while the SDK polls.
    private func selectProvider(
        _ enabler: AccessEnabler, _ recorder: Recorder, whenCodeShows: (() async throws -> Void)? = nil
    ) async throws {
        try enabler.setRequestor("REF30")
        try await recorder.wait { $0 == .requestorComplete(1) }
        try enabler.getAuthentication()
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider("Cablevision")
        if let whenCodeShows {
            try await recorder.wait { $0 == .status("REGCODE") }
            try await whenCodeShows()
        }
        try await recorder.wait { $0.isAuthenticationStatus }
    }

    private static let day: Int64 = 86_400_000
    private static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A box at 1970 or a day ahead polls until the viewer logs in (a day ahead would drop the code
    /// at once with N130 if its expiry were judged on the local clock).
    @Test(arguments: [86_400_000 as Int64, now + day])
    func aCodeLastsUntilAdobeSays(_ localClock: Int64) async throws {
        let emulator = try EmulatorProcess.shared
        _ = try await emulator.control("POST", "config", ["auto_login_ms": 1500])
        let recorder = Recorder()
        let enabler = try client(emulator, localClock: localClock, recorder: recorder)
        defer { enabler.shutdown() }
        try await selectProvider(enabler, recorder)
        #expect(recorder.main.last == .authenticationStatus(1, ""))
        #expect(recorder.status("N130") == nil)
    }

    /// A box at 1970 would otherwise poll a dead code for good: Adobe's expiry ends the login.
    /// The code's 30 minutes pass on the emulator's virtual clock once it is shown.
    @Test func aCodeStillExpiresWithTheClockBehind() async throws {
        let emulator = try EmulatorProcess.shared
        let recorder = Recorder()
        let enabler = try client(emulator, localClock: Self.day, recorder: recorder)
        defer { enabler.shutdown() }
        try await selectProvider(enabler, recorder) {
            _ = try await emulator.control("POST", "clock", ["advance_ms": 1_800_001])
        }
        #expect(recorder.main.last == .authenticationStatus(0, AccessEnablerErrorCode.genericAuthentication))
        #expect(recorder.status("N130") != nil)
    }
}
