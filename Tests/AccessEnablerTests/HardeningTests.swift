// SPDX-License-Identifier: Apache-2.0
// Issue 16's review, the pure parts: the one "profile usable now" predicate, the partner status
// header, numbers at their limits, what may reach the wire, partner cancellation (the log sink:
// LoggerTests.swift), the catalogue of decision codes. (The flows are tested through the C API in
// Tests/python/test_partner_edges.py and test_hostile_input.py.)
@testable import AccessEnabler
import Foundation
import Testing

private let configuration = RequestorConfiguration(
    requestorID: "REF30", domains: ["adobe.com"],
    mvpds: [
        {
            var mvpd = MVPD(id: "Comcast_SSO", displayName: "Xfinity"); mvpd.platformMappingId = "Comcast";
            mvpd.enablePlatformServices = true; return mvpd
        }(),
        MVPD(id: "DTV", displayName: "DirecTV"),
    ])

private func profile(_ mvpd: String, type: String = "regular", notAfter: Int64 = 10_000) -> Profile {
    Profile(mvpd: mvpd, notBefore: 0, notAfter: notAfter, issuer: type == "appleSSO" ? "Apple" : mvpd, type: type, attributes: [:])
}

private func status(
    _ access: PartnerAccessStatus = .granted, provider: String? = "Comcast", expiry: Int64? = 5_000,
    error: PartnerError? = nil, source: PartnerStatus.ErrorSource = .permission
) -> PartnerStatus {
    PartnerStatus(access: PartnerAccess(access), providerID: provider, expirationDate: expiry, error: error, errorSource: source)
}

@Suite struct ProfileUseTests {
    @Test func aRegularProfileIsUsableWhileItLastsWhateverThePartnerSays() {
        #expect(ProfileUse.isUsable(profile("DTV"), at: 1_000, partner: nil, configuration: configuration))
        #expect(ProfileUse.isUsable(profile("DTV"), at: 1_000, partner: status(.denied), configuration: configuration))
        #expect(!ProfileUse.isUsable(profile("DTV"), at: 10_000, partner: nil, configuration: configuration))
    }

    @Test func aPartnerProfileNeedsAUsableStatusNamingItsMVPD() {
        let sso = profile("Comcast_SSO", type: "appleSSO")
        #expect(ProfileUse.isUsable(sso, at: 1_000, partner: status(), configuration: configuration))
        // No expiry known (the platform gave none, issue 28 item 10): usable.
        #expect(ProfileUse.isUsable(sso, at: 1_000, partner: status(expiry: nil), configuration: configuration))
        for lapsed in [
            status(.denied), status(.notDetermined), status(.restricted), status(provider: nil),
            status(expiry: 1_000), status(provider: "Unknown"),
            status(error: PartnerError(.serviceUnavailable)),
        ] {
            #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: lapsed, configuration: configuration), "\(lapsed)")
        }
        #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: nil, configuration: configuration))
        #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: status(), configuration: nil))
    }

    /// Issue 28 item 11: `enforcePlatformPermissions` (TVE Dashboard: whether "the user's decision
    /// to Allow or Deny platform access to their TV Provider subscription is respected"). Absent or
    /// true: the partner profile needs the permission granted; false: a denied or undecided
    /// permission does not take it away (a failing partner, an expired profile, or a granted
    /// permission naming another provider still do).
    @Test func anIntegrationThatDoesNotEnforceThePermissionKeepsItsPartnerProfile() {
        var relaxed = configuration
        relaxed.mvpds[0].enforcePlatformPermissions = false
        var enforced = configuration
        enforced.mvpds[0].enforcePlatformPermissions = true
        let sso = profile("Comcast_SSO", type: "appleSSO")
        for access in [PartnerAccessStatus.denied, .notDetermined, .restricted] {
            let refused = status(access, provider: nil, expiry: nil)
            #expect(ProfileUse.isUsable(sso, at: 1_000, partner: refused, configuration: relaxed), "\(access)")
            #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: refused, configuration: configuration), "\(access)")
            #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: refused, configuration: enforced), "\(access)")
            #expect(ProfileUse.statusWorthSending(refused, at: 1_000, configuration: relaxed))
            #expect(!ProfileUse.statusWorthSending(refused, at: 1_000, configuration: configuration))
        }
        #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: status(.denied, error: PartnerError(.failed)), configuration: relaxed))
        #expect(!ProfileUse.isUsable(sso, at: 10_000, partner: status(.denied), configuration: relaxed))
        #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: status(provider: "Unknown"), configuration: relaxed))
        #expect(!ProfileUse.isUsable(sso, at: 1_000, partner: nil, configuration: relaxed))
        // Regular profiles never depended on the partner.
        #expect(ProfileUse.isUsable(profile("DTV"), at: 1_000, partner: status(.denied), configuration: enforced))
    }

    @Test func enforcePlatformPermissionsIsReadFromTheConfigurationAndKept() throws {
        let adobe = #"{"id":"M","displayName":"M TV","enforcePlatformPermissions":false,"enablePlatformServices":true}"#
        let mvpd = try JSON.decode(MVPD.self, from: Data(adobe.utf8))
        #expect(mvpd.enforcePlatformPermissions == false)
        let stored = try JSON.decode(MVPD.self, from: JSON.data(mvpd))  // the host form (stored configuration)
        #expect(stored.enforcePlatformPermissions == false)
        let absent = try JSON.decode(MVPD.self, from: Data(#"{"id":"M"}"#.utf8))
        #expect(absent.enforcePlatformPermissions == nil)
        #expect(!String(decoding: JSON.data(absent), as: UTF8.self).contains("enforcePlatformPermissions"))
    }

    @Test func theCurrentProfileSkipsAnUnusablePartnerProfile() {
        let profiles = [profile("Comcast_SSO", type: "appleSSO", notAfter: 50_000), profile("DTV", notAfter: 20_000)]
        #expect(
            ProfileUse.current(
                profiles, selected: "Comcast_SSO", at: 1_000, partner: status(),
                configuration: configuration)?.mvpd == "Comcast_SSO")
        #expect(
            ProfileUse.current(
                profiles, selected: "Comcast_SSO", at: 1_000, partner: status(.denied),
                configuration: configuration)?.mvpd == "DTV")
        #expect(ProfileUse.current([profiles[0]], selected: nil, at: 1_000, partner: nil, configuration: configuration) == nil)
    }
}

@Suite struct PartnerStatusHeaderTests {
    private func decoded(_ status: PartnerStatus) throws -> JSONValue {
        let data = try #require(Data(base64Encoded: status.headerValue))
        return try #require(JSONValue.parse(String(decoding: data, as: UTF8.self)))
    }

    @Test func theHeaderCarriesTheRequiredFields() throws {
        let header = try decoded(status(expiry: 2_025_430_636_000))
        #expect(header["frameworkPermissionInfo"]?["accessStatus"] == "granted")
        #expect(header["frameworkProviderInfo"]?["id"] == "Comcast")
        #expect(header["frameworkProviderInfo"]?["expirationDate"] == "2025430636000")
    }

    /// Issue 28 item 10: the V2 cookbook (B.2, C.4, C.11) asks for the expiry "if any": a status
    /// without one is usable and sent without `expirationDate`; one whose expiry has passed is not.
    @Test func aStatusWithoutAnExpirationDateIsUsableAndSentWithoutIt() throws {
        #expect(status(expiry: nil).problem(at: 0, configuration: configuration) == nil)
        #expect(status(expiry: nil).refusalCode(at: 0, configuration: configuration) == nil)
        let header = try decoded(status(expiry: nil))
        #expect(header["frameworkProviderInfo"] == ["id": "Comcast"])
        #expect(header["frameworkPermissionInfo"] == ["accessStatus": "granted"])
        #expect(status(expiry: 5_000).problem(at: 5_000, configuration: configuration) == "the provider authentication expired")
        #expect(status(expiry: 5_000).refusalCode(at: 5_000, configuration: configuration) == "invalid_header_pfs_provider_info_expired")
    }

    @Test func thePlatformsErrorsAreCarriedOnTheSideThatFailed() throws {
        let permission = try decoded(
            status(
                .notDetermined, provider: nil, expiry: nil,
                error: PartnerError(.serviceUnavailable, detail: "daemon down")))
        #expect(permission["frameworkPermissionInfo"]?["error"] == ["code": "serviceTemporarilyUnavailable", "message": "daemon down"])
        #expect(permission["frameworkProviderInfo"]?["error"] == nil)
        let provider = try decoded(status(error: PartnerError(.rejected), source: .provider))
        #expect(provider["frameworkProviderInfo"]?["error"] == ["code": "providerRejected"])
        #expect(provider["frameworkPermissionInfo"]?["error"] == nil)
    }

    @Test(arguments: [
        (PartnerAccessStatus.denied, "invalid_header_pfs_permission_access_not_granted"),
        (.restricted, "invalid_header_pfs_permission_access_not_granted"),
        (.notDetermined, "invalid_header_pfs_permission_access_not_determined"),
    ])
    func refusalsAreNamedAsAdobeNamesThem(_ access: PartnerAccessStatus, _ code: String) {
        #expect(status(access).refusalCode(at: 0, configuration: configuration) == code)
        #expect(status().refusalCode(at: 0, configuration: configuration) == nil)
        #expect(
            status(provider: "Unknown").refusalCode(at: 0, configuration: configuration)
                == "invalid_header_pfs_provider_id_not_determined")
        #expect(status(expiry: 1).refusalCode(at: 2, configuration: configuration) == "invalid_header_pfs_provider_info_expired")
    }
}

@Suite struct DecisionCodeTests {
    @Test(arguments: [
        ("invalid_header_pfs_permission_access_not_granted", "none", "VSA403"),
        ("invalid_header_pfs_permission_access_not_determined", "none", "VSA404"),
        ("invalid_header_pfs_provider_info_expired", "none", "N000"),
        ("invalid_header_pfs_permission_access_not_present", "none", "N000"),
        ("authorization_denied_by_mvpd", "none", "Z100"),
        ("authorization_denied_by_parental_controls", "none", "Z100"),
        ("a_code_adobe_adds_later", "none", "Z500"),
        ("a_code_adobe_adds_later", "configuration", "Z500"),
        ("a_code_adobe_adds_later", "authentication", "N000"),
        ("authorization_denied_by_a_new_rule", "none", "Z100"),
    ])
    func everyCodeGetsTheCodeOfItsFamily(_ code: String, _ action: String, _ errorID: String) {
        let error = EnhancedError(status: 403, code: code, action: action)
        #expect(StatusCatalog.authorizationDenial(error).errorID == errorID)
    }

    @Test func partnerRefusalsAndUnknownAuthenticationCodes() {
        #expect(StatusCatalog.isPartnerStatusRefusal(EnhancedError(status: 400, code: "invalid_header_pfs_provider_id_mismatch")))
        #expect(
            !StatusCatalog.needsAuthentication(
                EnhancedError(
                    status: 400, code: "invalid_header_pfs_provider_id_mismatch",
                    action: "authentication")))
        #expect(StatusCatalog.needsAuthentication(EnhancedError(status: 403, code: "new_code", action: "authentication")))
        #expect(!StatusCatalog.needsAuthentication(EnhancedError(status: 403, code: "new_code", action: "none")))
    }

    @Test func aTokenEndpointServerErrorIsARetryNotARegistrationProblem() {
        #expect(ServiceError.registration(code: "temporarily_unavailable", httpStatus: 503).enhancedError.action == "retry")
        #expect(ServiceError.registration(code: "invalid_client", httpStatus: 400).enhancedError.action == "application-registration")
        #expect(ServiceError.http(status: 502).enhancedError.message == "HTTP 502 without a JSON error body.")
    }
}

@Suite struct NumberLimitTests {
    @Test func clampedArithmeticNeverTraps() {
        #expect(Int64.max.clampedAdding(1) == .max)
        #expect(Int64.min.clampedAdding(-1) == .min)
        #expect(Int64.max.clampedSubtracting(-1) == .max)
        #expect(Int64.min.clampedSubtracting(1) == .min)
        #expect(Int64(9_300_000_000_000_000).clampedMultiplied(by: 1000) == .max)
        #expect(Int64(-9_300_000_000_000_000).clampedMultiplied(by: 1000) == .min)
        #expect(Int64(3).clampedMultiplied(by: -4) == -12)
    }

    @Test func durationsFromAnyNumber() {
        #expect(Limits.nanoseconds(millis: -5) == 0)
        #expect(Limits.nanoseconds(millis: Int64.max) == UInt64(Int64.max / 1_000_000) * 1_000_000)
        #expect(Limits.nanoseconds(millis: 1_500) == 1_500_000_000)
        #expect(Limits.nanoseconds(seconds: .nan) == 0)
        #expect(Limits.nanoseconds(seconds: -1) == 0)
        #expect(Limits.nanoseconds(seconds: .infinity) == 3_600_000_000_000)
        #expect(Limits.nanoseconds(seconds: 1e300) == 3_600_000_000_000)
    }

    @Test(arguments: ["9.3e15", "9300000000000000", "-9223372036854775808", "9223372036854775807", "\"99\"", "0", "-1"])
    func anyFittingExpiresInDecodesAndIsClamped(_ number: String) throws {
        let answer = try JSON.decode(AccessTokenResponse.self, from: Array("{\"access_token\":\"t\",\"expires_in\":\(number)}".utf8))
        let lifetime = (answer.expiresIn ?? 0).clamped(to: Limits.accessTokenSeconds)
        #expect(Limits.accessTokenSeconds.contains(lifetime))
    }

    @Test(arguments: ["9.3e18", "1e300", "\"99999999999999999999\"", "1.5", "\"1e3\""])
    func aTimestampThatIsNoInt64IsRefusedByName(_ number: String) {
        #expect(throws: DecodingError.self) {
            try JSON.decode(AccessTokenResponse.self, from: Array("{\"access_token\":\"t\",\"expires_in\":\(number)}".utf8))
        }
    }

    @Test(arguments: [Int64.max, Int64.min, -1, 253_402_300_800_000])
    func timestampsAreClampedToTheEpochRange(_ value: Int64) throws {
        let body = "{\"profiles\":{\"DTV\":{\"notAfter\":\(value),\"notBefore\":\(value),\"issuer\":\"DTV\",\"type\":\"regular\"}}}"
        let profile = try #require(try JSON.decode(ProfilesAnswer.self, from: Array(body.utf8)).profiles.first)
        #expect(Limits.epochMillis.contains(profile.notAfter) && Limits.epochMillis.contains(profile.notBefore))
    }

    @Test(arguments: [
        ("9223372036854775807", 60), ("18446744073709551616", 1), ("-5", 1), ("0", 1), ("abc", 1),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1), ("30", 30), (" 7 ", 7),
    ])
    func throttleWaitsAreBounded(_ header: String, _ seconds: Int64) {
        let response = HTTPResponse(status: 429, headers: [("Retry-After", header)])
        #expect(Backoff.throttleWait(response) == seconds * 1_000)
        #expect((Backoff.retryAfter(response) ?? 0) <= 60_000)
    }

    @Test func aCodeIsPolledAtMostADay() {
        #expect(min(Int64.max, Int64(1_000).clampedAdding(Limits.codeLifetimeMillis)) == 1_000 + 86_400_000)
    }

    @Test func pollingAdobeIsNeverFasterThanEvery3Seconds() {
        var settings = Settings(softwareStatement: "a.b.c")
        settings.pollIntervalMillis = 1_000
        #expect(settings.pollIntervalMillis(serviceURL: "https://sp.auth.adobe.com") == 3_000)
        #expect(settings.pollIntervalMillis(serviceURL: "https://api.auth.adobe.com") == 3_000)
        #expect(settings.pollIntervalMillis(serviceURL: "http://127.0.0.1:8080") == 1_000)
        #expect(settings.pollIntervalMillis(serviceURL: "https://localhost:8443") == 1_000)
        #expect(settings.pollIntervalMillis(serviceURL: "https://localhost.evil.example") == 3_000)
        settings.pollIntervalMillis = Int.max
        #expect(settings.pollIntervalMillis(serviceURL: "https://sp.auth.adobe.com") == 60_000)
        settings.pollIntervalMillis = 4_000
        #expect(settings.pollIntervalMillis(serviceURL: "https://sp.auth.adobe.com") == 4_000)
    }
}

/// A partner whose timeout is whatever the test says (Swift hosts are checked like C ones).
private final class FixedTimeoutPartner: PartnerFramework, @unchecked Sendable {
    let timeoutMillis: Int?
    let name: String
    init(_ timeout: Int?, name: String = "Apple") {
        timeoutMillis = timeout
        self.name = name
    }
    func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>) {}
    func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {}
}

@Suite struct HostInputTests {
    @Test(arguments: [-1, Int.min])
    func aNegativePartnerTimeoutIsRefusedNotATrap(_ timeout: Int) {
        var settings = Settings.test()
        settings.partner = FixedTimeoutPartner(timeout)
        #expect(throws: AccessEnablerError.self) { try AccessEnabler(settings: settings, transport: InMemoryAdobe(), clock: SystemClock()) }
    }

    @Test(arguments: [".", "..", "", "Ap\nple"])
    func aPartnerNameThatIsNoPathSegmentIsRefused(_ name: String) {
        var settings = Settings.test()
        settings.partner = FixedTimeoutPartner(nil, name: name)
        #expect(throws: AccessEnablerError.self) { try AccessEnabler(settings: settings, transport: InMemoryAdobe(), clock: SystemClock()) }
    }

    @Test func numbersOfSwiftSettingsAreChecked() {
        for change: (inout Settings) -> Void in [
            { $0.requestsPerSecond = .nan }, { $0.requestsPerSecond = .infinity },
            { $0.pollIntervalMillis = -1 }, { $0.preauthorizeLimit = 0 },
            { $0.requestTimeoutMillis = -5 }, { $0.cacheMaxAgeMillis = -1 },
            { $0.redirectURL = "adobepass://x\r\nInjected: 1" },
        ] {
            var settings = Settings.test()
            change(&settings)
            #expect(settings.validate() != nil)
        }
    }

    @Test(arguments: ["visitorID", "ap_vi", "applicationProfile"])
    func optionsWithControlCharactersAreRefusedAndChangeNothing(_ key: String) throws {
        let enabler = try AccessEnabler(settings: .test(), transport: InMemoryAdobe(), clock: SystemClock())
        defer { enabler.shutdown() }
        #expect(throws: AccessEnablerError.self) { try enabler.setOptions([key: "a\r\nX-Injected: 1"]) }
        #expect(throws: AccessEnablerError.self) { try enabler.setOptions(["handleSVC": true, key: "\u{85}"]) }
        #expect(throws: AccessEnablerError.self) { try enabler.setOptions(["device_info": "e30=\nX: 1"]) }
        try enabler.setOptions(["visitorID": "fine", "device_info": "e30="])
    }

    @Test(arguments: [".", ".."])
    func dotSegmentsAreRefusedAsIdsAndEncodedWhenAdobeSendsThem(_ id: String) throws {
        let enabler = try AccessEnabler(settings: .test(), transport: InMemoryAdobe(), clock: SystemClock())
        defer { enabler.shutdown() }
        #expect(throws: AccessEnablerError.self) { try enabler.setRequestor(id) }
        #expect(Encoding.pathSegment(id) == (id == "." ? "%2E" : "%2E%2E"))
        #expect(Encoding.pathSegment("..x") == "..x" && Encoding.pathSegment("a/b") == "a%2Fb")
    }

    @Test(arguments: [["opCode": "0"], ["opCode": "1", "resource_id": "LIVE"], ["opCode": true], ["opCode": .double(1.5)]] as [JSONValue])
    func metadataOpcodesAreNumbers(_ key: JSONValue) {
        #expect(MetadataKey(json: key) == nil)
    }

    @Test func metadataOpcodesAsNumbersAreRead() {
        #expect(MetadataKey(json: ["opCode": 0])?.opCode == 0)
        #expect(MetadataKey(json: ["opCode": .double(2)])?.opCode == 2)
    }
}

/// Records what reaches the transport.
private final class Capture: HTTPTransport, @unchecked Sendable {
    let sent = Locked<[HTTPRequest]>([])
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        sent.withLock { $0.append(request) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
    }
    func shutdown() {}
}

@Suite struct WireFramingTests {
    @Test(arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "nul\u{0}", "del\u{7F}"])
    func aHeaderValueWithAControlCharacterNeverReachesTheTransport(_ value: String) async {
        let transport = Capture()
        let executor = RequestExecutor(transport: transport, requestsPerSecond: 0, logger: .silent)
        let request = HTTPRequest(
            method: "GET", url: "https://sp.auth.adobe.com/api/v2/REF30/configuration",
            headers: [("AP-Visitor-Identifier", value)])
        await #expect(throws: ServiceError.self) { _ = try await executor.send(request, operation: "test") }
        #expect(transport.sent.withLock { $0.isEmpty })
    }

    @Test func aHeaderNameThatIsNoTokenOrAURLWithASpaceIsNotSent() async {
        let transport = Capture()
        let executor = RequestExecutor(transport: transport, requestsPerSecond: 0, logger: .silent)
        for request in [
            HTTPRequest(method: "GET", url: "https://x/a", headers: [("Bad Name", "v")]),
            HTTPRequest(method: "GET", url: "https://x/a b"), HTTPRequest(method: "GET", url: "https://x/a\r\n"),
        ] {
            await #expect(throws: ServiceError.self) { _ = try await executor.send(request, operation: "test") }
        }
        #expect(transport.sent.withLock { $0.isEmpty })
        _ = try? await executor.send(HTTPRequest(method: "GET", url: "https://x/a", headers: [("Accept", "a\tb")]), operation: "ok")
        #expect(transport.sent.withLock { $0.count } == 1)  // HTAB is allowed in a value
    }
}

@Suite struct PartnerCancellationTests {
    @Test func abandoningARequestTellsThePlatformOnce() {
        let cancelled = Locked(0)
        let delivered = Locked<Result<PartnerAccess, PartnerError>?>(nil)
        let reply = PartnerReply<PartnerAccess> { result in delivered.withLock { $0 = result } }
        reply.onCancel { cancelled.withLock { $0 += 1 } }
        #expect(reply.abandon(PartnerError(.timeout)))
        #expect(!reply.abandon(PartnerError(.timeout)))
        #expect(!reply.succeed(PartnerAccess(.granted)))  // a late answer is ignored
        #expect(cancelled.withLock { $0 } == 1)
        if case .failure(let error) = delivered.withLock({ $0 }) { #expect(error.code == .timeout) } else { Issue.record("no failure") }
    }

    @Test func anAnsweredRequestIsNeverCancelled() {
        let cancelled = Locked(0)
        let reply = PartnerReply<PartnerAccess> { _ in }
        reply.onCancel { cancelled.withLock { $0 += 1 } }
        #expect(reply.succeed(PartnerAccess(.granted)))
        #expect(!reply.abandon(PartnerError(.failed)))
        reply.onCancel { cancelled.withLock { $0 += 1 } }  // too late: never runs
        #expect(cancelled.withLock { $0 } == 0)
    }
}
