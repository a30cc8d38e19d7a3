// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Dispatch
import Foundation
import Testing

/// The SDK's work never waits for Swift's cooperative pool (docs/THREADING.md, "The engine
/// thread"): a host whose pool threads are all busy — blocked in its own code, or held by long
/// computations — still gets every callback, and the SDK's timeouts still fire. Each test blocks
/// every pool thread (its own included) while the SDK works.
///
/// Found by CI: under a sanitizer, long CPU-bound tests held both pool threads of a 2-core machine,
/// and a setRequestor never completed because the access-token fetch ran as a task on the pool.
@Suite(.serialized) struct PoolIndependenceTests {
    let adobe = InMemoryAdobe()
    let recorder = Recorder()

    /// Registration, the access token (a shared fetch), configuration and profiles; a login with
    /// its polls (the clock's sleeps); decisions.
    @Test func aColdSetRequestorALoginAndAnAuthorizationNeedNoPoolThread() throws {
        let enabler = try AccessEnabler(settings: .test(), transport: adobe, clock: SystemClock())
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }
        var reached: [String] = []
        try CooperativePool.withAllThreadsBlocked {
            try enabler.setRequestor("REF30")
            guard recorder.waitBlocking(10, { $0.isRequestorComplete }) else { return }
            reached.append("setRequestorComplete")
            try enabler.getAuthentication()
            guard recorder.waitBlocking(10, { if case .dialog = $0 { true } else { false } }) else { return }
            reached.append("displayProviderDialog")
            try enabler.setSelectedProvider("Cablevision")
            guard recorder.waitBlocking(10, { $0 == .authenticationStatus(1, "") }) else { return }
            reached.append("setAuthenticationStatus(1)")
            try enabler.getAuthorization("LIVE")
            guard recorder.waitBlocking(10, { $0.isTokenOutcome }) else { return }
            reached.append("token outcome")
        }
        #expect(
            reached == ["setRequestorComplete", "displayProviderDialog", "setAuthenticationStatus(1)", "token outcome"],
            Comment(rawValue: "while the pool was busy; recorded: \(recorder.all)"))
        #expect(recorder.all.contains(.requestorComplete(1)))
        #expect(recorder.all.contains { if case .token(_, "LIVE") = $0 { true } else { false } })
        #expect(adobe.requests(matching: "/o/client/token").count == 1)
    }

    /// A partner that never answers: the SDK's own timeout ends its wait (its `onCancel` runs).
    final class SilentPartner: PartnerFramework, @unchecked Sendable {
        let timeoutMillis: Int? = 300
        let asked = Locked(0)
        let timedOut = Locked(0)
        func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>) {
            asked.withLock { $0 += 1 }
            reply.onCancel { self.timedOut.withLock { $0 += 1 } }
        }
        func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {
            asked.withLock { $0 += 1 }
            reply.onCancel { self.timedOut.withLock { $0 += 1 } }
        }
    }

    @Test func aPartnerTimeoutFiresWithoutAPoolThread() throws {
        adobe.override = { request in
            guard request.url.split(separator: "?")[0].hasSuffix("/configuration") else { return nil }
            let body: [String: Any] = [
                "requestor": [
                    "id": "REF30", "domains": [["name": "adobe.com"]],
                    "mvpds": [
                        [
                            "id": "Comcast_SSO", "displayName": "Xfinity", "enablePlatformServices": true,
                            "displayInPlatformPicker": true, "boardingStatus": "SUPPORTED", "platformMappingId": "Comcast",
                        ]
                    ],
                ]
            ]
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json;charset=UTF-8")],
                body: Array(try! JSONSerialization.data(withJSONObject: body)))
        }
        let partner = SilentPartner()
        var settings = Settings.test()
        settings.partner = partner
        let enabler = try AccessEnabler(settings: settings, transport: adobe, clock: SystemClock())
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }
        var completed = false
        try CooperativePool.withAllThreadsBlocked {
            try enabler.setRequestor("REF30")
            completed = recorder.waitBlocking { $0.isRequestorComplete }
        }
        #expect(completed, Comment(rawValue: "no setRequestorComplete while the pool was busy; recorded: \(recorder.all)"))
        #expect(partner.asked.withLock { $0 } >= 1)
        #expect(partner.timedOut.withLock { $0 } == partner.asked.withLock { $0 })  // every ask ended by the timeout
    }
}
