// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// TempPass and degraded access: the pure parts (statuses, the identity header, the profile sync)
/// and, against the emulator, TempPass and degraded profiles kept across a profile sync.
@Suite struct TemporaryAccessStatusTests {
    func profile(_ type: String, mvpd: String = "M", notAfter: Int64 = 2_000) -> Profile {
        Profile(mvpd: mvpd, notBefore: 0, notAfter: notAfter, issuer: "Adobe", type: type, attributes: [:])
    }

    @Test func authenticatedStatusesNameTheKindOfProfile() {
        #expect(StatusCatalog.authenticated(profile("degraded"))?.errorID == "N010")
        #expect(StatusCatalog.authenticated(profile("degraded"))?.level == .warning)
        let tempPass = StatusCatalog.authenticated(profile("temporary"))
        #expect(tempPass?.errorID == "N011" && tempPass?.level == .info)
        #expect(tempPass?.extras["notAfter"] == .int(2_000))
        #expect(StatusCatalog.authenticated(profile("regular")) == nil)
        #expect(StatusCatalog.authenticated(profile("appleSSO")) == nil)
    }

    @Test func authorizedStatusesNameTheDecisionSource() {
        #expect(StatusCatalog.authorized(source: "degradation", mvpd: "M")?.errorID == "Z010")
        #expect(StatusCatalog.authorized(source: "temppass", mvpd: "M")?.errorID == "Z011")
        #expect(StatusCatalog.authorized(source: "mvpd", mvpd: "M") == nil)
        #expect(StatusCatalog.authorized(source: nil, mvpd: "M") == nil)
    }

    @Test(arguments: [
        ("temporary_access_duration_limit_exceeded", 403, "N111", AccessEnablerErrorCode.userNotAuthenticated),
        ("temporary_access_resources_limit_exceeded", 403, "N111", AccessEnablerErrorCode.userNotAuthenticated),
        ("invalid_configuration_temporary_access", 500, "N500", AccessEnablerErrorCode.genericAuthentication),
        ("invalid_header_identity_for_temporary_access", 400, "N500", AccessEnablerErrorCode.genericAuthentication),
    ])
    func tempPassLoginFailuresAreNamed(_ code: String, _ status: Int, _ errorID: String, _ callbackCode: String) {
        let failure = CallFailure(.call, .enhanced(EnhancedError(status: status, code: code), httpStatus: status))
        let (advanced, reported) = StatusCatalog.tempPassLoginFailure(failure, mvpd: "TempPass_TEST40")
        #expect(advanced.errorID == errorID)
        #expect(advanced.enhancedError?.code == code)
        #expect(reported == callbackCode)
    }

    @Test(arguments: [
        ("temporary_access_duration_limit_exceeded", "N111"), ("temporary_access_resources_limit_exceeded", "N111"),
        ("invalid_configuration_temporary_access", "Z500"), ("invalid_header_identity_for_temporary_access", "Z500"),
        ("authorization_denied_by_degradation_rule", "Z169"),
    ])
    func itemLevelTempPassAndDegradationErrorsAreNamed(_ code: String, _ errorID: String) {
        #expect(StatusCatalog.authorizationDenial(EnhancedError(status: 403, code: code)).errorID == errorID)
    }

    @Test func identityHeaderIsBase64OfCompactJSON() {
        // Adobe's documented example value of AP-TempPass-Identity.
        #expect(LoginFlow.tempPassIdentity(["email": "foo@bar.com"]) == "eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0=")
        #expect(LoginFlow.tempPassIdentity([:]) == nil)
        #expect(LoginFlow.tempPassIdentity(nil) == nil)
    }

    @Test func profileSyncKeepsWhatGetProfilesDoesNotList() {
        let adobe = [profile("regular", mvpd: "Cablevision")]
        let stored = [
            profile("regular", mvpd: "Gone"), profile("temporary", mvpd: "TempPass", notAfter: 10),
            profile("degraded", mvpd: "Down"), profile("degraded", mvpd: "Old", notAfter: 10),
            profile("temporary", mvpd: "Cablevision"),
        ]
        let merged = ProfileSync.merged(adobe, stored: stored, now: 1_000)
        // Adobe's answer wins; logged-out regular and expired degraded profiles go; TempPass stays (over: N111).
        #expect(merged.map(\.mvpd) == ["Cablevision", "TempPass", "Down"])
        #expect(merged[0].type == "regular")
    }

    /// Every documented TempPass / degradation answer becomes the named status.
    @Test func documentedTemporaryAccessAnswersAreNamed() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Emulator/examples/v2-doc-examples.json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        var named = 0
        for item in items {
            guard let body = (item["response_json"] as? [String: Any]) ?? (item["response_json_repaired"] as? [String: Any])
            else { continue }
            let data = try JSONSerialization.data(withJSONObject: body)
            if let decisions = body["decisions"] as? [[String: Any]] {
                for decision in try JSON.decode(DecisionsAnswer.self, from: Array(data)).decisions
                where decision.source == "temppass" || decision.source == "degradation" {
                    let status =
                        decision.authorized
                        ? StatusCatalog.authorized(source: decision.source, mvpd: "M")
                        : StatusCatalog.authorizationDenial(decision.error)
                    let expected =
                        decision.authorized
                        ? (decision.source == "temppass" ? "Z011" : "Z010")
                        : [
                            "authorization_denied_by_degradation_rule": "Z169",
                            "invalid_configuration_temporary_access": "Z500",
                            "invalid_header_identity_for_temporary_access": "Z500",
                        ][decision.error?.code ?? ""] ?? "N111"
                    #expect(status?.errorID == expected, "\(item["id"] ?? "") \(decisions.count)")
                    named += 1
                }
            } else if let code = body["code"] as? String, code.contains("temporary_access") {
                let status = item["status"] as? Int ?? 0
                let failure = CallFailure(.call, .enhanced(EnhancedError(status: status, code: code), httpStatus: status))
                let expected = StatusCatalog.tempPassOverCodes.contains(code) ? "N111" : "N500"
                #expect(StatusCatalog.tempPassLoginFailure(failure, mvpd: "M").0.errorID == expected)
                named += 1
            } else if body["profiles"] != nil {
                for profile in try JSON.decode(ProfilesAnswer.self, from: Array(data)).profiles
                where profile.isTemporary || profile.isDegraded {
                    #expect(StatusCatalog.authenticated(profile)?.errorID == (profile.isTemporary ? "N011" : "N010"))
                    named += 1
                }
            }
        }
        #expect(named >= 35)
    }
}

@Suite(.serialized, .sharedEmulator) struct TemporaryAccessEmulatorTests {
    /// TempPass and degraded profiles are not in GET /profiles: a later profile sync keeps them.
    @Test func tempPassAndDegradedProfilesSurviveAProfileSync() async throws {
        let emulator = try EmulatorProcess.shared
        _ = try await emulator.control("POST", "config", ["degradation": ["DTV": "AuthNAll"]])
        var settings = Settings(softwareStatement: "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6InN3aWZ0In0.c2ln")
        settings.baseURL = emulator.url
        settings.deviceID = "swift-temporary-access"
        settings.requestsPerSecond = 0
        settings.cacheMaxAgeMillis = 0  // every setRequestor syncs the profiles
        let recorder = Recorder()
        let enabler = try AccessEnabler(settings: settings)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        try enabler.setRequestor("REF30")
        try await recorder.wait { $0 == .requestorComplete(1) }
        try enabler.setSelectedProvider("DTV")
        try await recorder.wait { $0 == .authenticationStatus(1, "") }
        try enabler.setSelectedProvider("TempPass_TEST40")
        try await recorder.waitCount(2) { $0 == .authenticationStatus(1, "") }
        #expect(recorder.allStatuses.map(\.errorID) == ["N010", "N011"])

        try await emulator.clearLog()
        try enabler.setRequestor("REF30")
        try await recorder.waitCount(2) { $0 == .requestorComplete(1) }
        #expect(try await emulator.operations().contains("getProfilesUsingGET_1"))
        try enabler.checkAuthentication()
        try await recorder.waitCount(3) { $0 == .authenticationStatus(1, "") }
        #expect(recorder.allStatuses.map(\.errorID) == ["N010", "N011", "N011"])  // still the TempPass
        try enabler.setSelectedProvider("DTV")  // switching back needs no logout (REST API V2)
        try await recorder.waitCount(4) { $0 == .authenticationStatus(1, "") }
        #expect(recorder.allStatuses.last?.errorID == "N010")
        enabler.shutdown()
    }
}
