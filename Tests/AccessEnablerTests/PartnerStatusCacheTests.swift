// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import CSQLite
import Foundation
import Testing

/// The partner status sent with decisions on an `appleSSO` profile (V2 cookbook D.1–5): asked once
/// and reused while fresh, asked again once older than `Engine.partnerStatusMaxAgeMillis`. On the
/// in-memory Adobe with a wall clock the test moves (no `Date` headers there, so Adobe's time is
/// the local clock); the partner endpoints are scripted through `InMemoryAdobe.override`.
@Suite struct PartnerStatusCacheTests {
    let adobe = InMemoryAdobe()
    let recorder = Recorder()

    private static func json(_ status: Int, _ body: Any) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json;charset=UTF-8")],
            body: Array(try! JSONSerialization.data(withJSONObject: body)))
    }

    /// Comcast_SSO with platform SSO; an Apple SSO profile once the partner session is asked.
    private func scriptAdobe(notAfter: Int64) {
        let profile: [String: Any] = [
            "notBefore": 0, "notAfter": notAfter, "issuer": "Apple", "type": "appleSSO",
            "attributes": ["userID": ["value": "sim-comcast", "state": "plain"]],
        ]
        let exchanged = Locked(false)
        adobe.override = { request in
            let path = request.url.split(separator: "?")[0]
            if path.hasSuffix("/configuration") {
                return Self.json(
                    200,
                    [
                        "requestor": [
                            "id": "REF30", "domains": [["name": "adobe.com"]],
                            "mvpds": [
                                [
                                    "id": "Comcast_SSO", "displayName": "Xfinity", "enablePlatformServices": true,
                                    "displayInPlatformPicker": true, "boardingStatus": "SUPPORTED", "platformMappingId": "Comcast",
                                ]
                            ],
                        ]
                    ])
            }
            if path.hasSuffix("/profiles") {
                return Self.json(200, ["profiles": exchanged.withLock { $0 } ? ["Comcast_SSO": profile] : [:]])
            }
            if path.contains("/sessions/sso/") {
                exchanged.withLock { $0 = true }
                return Self.json(
                    200,
                    [
                        "actionName": "authorize", "actionType": "direct", "reasonType": "authenticatedSSO",
                        "mvpd": "Comcast_SSO",
                    ])
            }
            if path.hasSuffix("/profiles/Comcast_SSO") { return Self.json(200, ["profiles": ["Comcast_SSO": profile]]) }
            if path.contains("/decisions/authorize/") {
                return Self.json(
                    200,
                    [
                        "decisions": [
                            [
                                "resource": "LIVE", "authorized": true,
                                "token": ["serializedToken": "PHRva2VuLz4="],
                            ]
                        ]
                    ])
            }
            return nil
        }
    }

    /// A clock at now, Adobe scripted, and a platform signed in to Comcast for two days.
    private func signedInPlatform() -> (clock: ManualClock, simulator: PartnerSimulator) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        scriptAdobe(notAfter: now + 86_400_000)
        var script = PartnerSimulator.Script()
        script.account = "Comcast"
        script.signIn = .signedIn
        script.expirationDate = now + 2 * 86_400_000
        return (ManualClock(now), PartnerSimulator(script))
    }

    @Test func decisionsReuseAFreshPartnerStatusAndAskAgainWhenStale() async throws {
        let (clock, simulator) = signedInPlatform()
        var settings = Settings.test()
        settings.partner = simulator
        let enabler = try AccessEnabler(settings: settings, transport: adobe, clock: clock)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }

        try enabler.setRequestor("REF30")
        try await recorder.wait { $0.isRequestorComplete }
        #expect(recorder.main == [.requestorComplete(1)])  // the silent exchange: no callback of its own
        let askedAtSetRequestor = simulator.accessPrompts.count

        try enabler.getAuthorization("LIVE")
        try await recorder.wait { $0.isTokenOutcome }
        clock.advance(Engine.partnerStatusMaxAgeMillis - 1_000)
        try enabler.getAuthorization("LIVE")
        try await recorder.waitCount(2) { $0.isTokenOutcome }
        #expect(simulator.accessPrompts.count == askedAtSetRequestor)  // fresh: reused

        clock.advance(2_000)  // now older than the limit
        try enabler.getAuthorization("LIVE")
        try await recorder.waitCount(3) { $0.isTokenOutcome }
        #expect(simulator.accessPrompts.count == askedAtSetRequestor + 1)  // stale: asked again
        #expect(simulator.accessPrompts.allSatisfy { $0 == false })  // never with a prompt

        let decisions = adobe.requests(matching: "/decisions/authorize/")
        #expect(decisions.count == 3)
        #expect(decisions.allSatisfy { $0.header("AP-Partner-Framework-Status") != nil })
        #expect(recorder.all.filter { if case .token(_, "LIVE") = $0 { true } else { false } }.count == 3)
    }

    /// Issue 28 item 3, as the review found it: a partner framework, a keyed store whose sealed
    /// profile row no longer opens, a partner status older than 5 minutes. getAuthentication reads
    /// the store while the facade holds its submit lock, the store logs the refused row, and a sink
    /// that calls the client (any call) hung for good. Now the line reaches the sink once the lock is
    /// released, and both calls are accepted.
    @Test func aLogSinkCallingTheClientOnALineLoggedUnderTheFacadesLockDoesNotHang() async throws {
        let (clock, simulator) = signedInPlatform()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ae-sink-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let holder = Locked<AccessEnabler?>(nil)
        let nested = Locked<[Int32]>([])  // what the sink's own calls returned (0: accepted)
        var settings = Settings.test(storagePath: path)
        settings.partner = simulator
        settings.storeKey = Array(0..<32).map(UInt8.init)
        settings.logLevel = .debug
        settings.logSink = { _, message in
            guard message.contains("tamper"), let enabler = holder.withLock({ $0 }) else { return }
            do {
                try enabler.getSelectedProvider()
                nested.withLock { $0.append(0) }
            } catch { nested.withLock { $0.append((error as? AccessEnablerError)?.code ?? -1) } }
        }
        let enabler = try AccessEnabler(settings: settings, transport: adobe, clock: clock)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        holder.withLock { $0 = enabler }
        try enabler.setRequestor("REF30")
        try await recorder.wait { $0.isRequestorComplete }  // the silent exchange stored an Apple SSO profile

        var database: OpaquePointer?
        #expect(sqlite3_open(path, &database) == SQLITE_OK)
        #expect(sqlite3_exec(database, "UPDATE profiles SET body = 'no longer opens'", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_changes(database) == 1)
        sqlite3_close(database)
        clock.advance(Engine.partnerStatusMaxAgeMillis + 1_000)  // the partner status is stale

        let returned = Locked<Int32?>(nil)
        let caller = Thread {
            do {
                try enabler.getAuthentication()
                returned.withLock { $0 = 0 }
            } catch { returned.withLock { $0 = (error as? AccessEnablerError)?.code ?? -1 } }
        }
        caller.start()
        for _ in 0..<1_000 where returned.withLock({ $0 }) == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(returned.withLock { $0 } == 0, "getAuthentication did not return (the sink's call waited for its lock)")
        #expect(nested.withLock { $0 } == [0], "the sink heard of the refused row once, and its call was accepted")
        // Not after a hang: shutdown would wait for the lock the stuck caller holds.
        if returned.withLock({ $0 }) != nil { enabler.shutdown() }
    }
}
