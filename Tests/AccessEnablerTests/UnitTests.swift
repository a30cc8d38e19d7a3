// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

@Suite struct TokenBucketTests {
    @Test func burstOfTenThenOnePerSecond() {
        var bucket = TokenBucket(perSecond: 1)
        let start: UInt64 = 1_000_000_000
        for _ in 0..<10 { #expect(bucket.reserve(nowNanos: start) == 0) }
        #expect(bucket.reserve(nowNanos: start) == 1_000_000_000)
        #expect(bucket.reserve(nowNanos: start) == 2_000_000_000)  // queued one interval behind
        #expect(bucket.reserve(nowNanos: start + 10_000_000_000) == 0)  // refilled
    }

    @Test func disabledPacingNeverWaits() {
        var bucket = TokenBucket(perSecond: 0)
        for _ in 0..<100 { #expect(bucket.reserve(nowNanos: 0) == 0) }
    }

    @Test func a429EmptiesTheBucket() {
        var bucket = TokenBucket(perSecond: 1)
        bucket.drain(nowNanos: 5)
        #expect(bucket.reserve(nowNanos: 5) > 0)
    }
}

@Suite struct SettingsTests {
    @Test(arguments: [
        "https://sp.auth.adobe.com", "http://127.0.0.1:8080", "http://localhost", "http://[::1]:9",
        "http://127.0.0.1/path?q=a@b", "http://LOCALHOST:65535/x#y@z", "https://sp.auth.adobe.com:443/api",
    ])
    func acceptedServiceURLs(_ url: String) { #expect(Settings.checkServiceURL(url) == nil) }

    @Test(arguments: [
        "http://sp.auth.adobe.com", "ftp://x", "http://10.0.0.1", "https://", "http://127.evil.com",
        // F1 / F3 of Fuzz/FINDINGS.md: userinfo, malformed authorities, octal-looking octets.
        "http://localhost:80@example.com/", "http://[::1]@example.com/", "http://127.0.0.1:9@evil.example/x",
        "https://user@sp.auth.adobe.com", "http://[::1/:9", "http://[::1]x/", "http://localhost:abc/",
        "http://localhost:/", "http://localhost:70000", "http://127.0.0.08:9/", "http://127.0.0.1.",
        "http://local host/", "http://localhost\\@x/",
    ])
    func refusedServiceURLs(_ url: String) {
        #expect(Settings.checkServiceURL(url) != nil)
    }
}

@Suite struct StatusCatalogTests {
    @Test func registrationRefusalIsR400() {
        let status = StatusCatalog.requestorFailure(
            CallFailure(.registration, .registration(code: "invalid_software_statement", httpStatus: 400)))
        #expect(status.errorID == "R400")
        #expect(status.enhancedError?.code == "invalid_software_statement")
    }

    @Test func tokenRefusalIsR401() {
        #expect(
            StatusCatalog.requestorFailure(CallFailure(.accessToken, .registration(code: "unauthorized_client", httpStatus: 400))).errorID
                == "R401")
    }

    @Test func networkFailuresAreCFG404AndTLSIsSEC420() {
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, .transport(.cannotConnect("x")))).errorID == "CFG404")
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, .transport(.tls("x")))).errorID == "SEC420")
    }

    @Test func configurationHTTPErrors() {
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, .http(status: 410))).errorID == "CFG410")
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, .http(status: 503))).errorID == "CFG503")
        let badRequestor = ServiceError.enhanced(EnhancedError(status: 400, code: "invalid_parameter_service_provider"), httpStatus: 400)
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, badRequestor)).errorID == "CFG400")
    }

    @Test(arguments: [
        ("authorization_denied_by_mvpd", "Z100"), ("authorization_denied_by_parental_controls", "Z100"),
        ("authorization_denied_by_degradation_rule", "Z169"), ("network_connection_timeout", "Z120"),
        ("invalid_parameter_resources", "Z130"), ("internal_server_error", "Z500"),
        ("authenticated_profile_expired", "N000"),
    ])
    func authorizationDenials(_ code: String, _ errorID: String) {
        #expect(StatusCatalog.authorizationDenial(EnhancedError(status: 403, code: code)).errorID == errorID)
    }
}

@Suite struct InputParsingTests {
    @Test func metadataKeys() {
        #expect(MetadataKey(json: ["opCode": 0])?.opCode == 0)
        #expect(MetadataKey(json: ["opCode": 1, "resource_id": "R"])?.resourceID == "R")
        #expect(MetadataKey(json: ["opCode": 1]) == nil)
        #expect(MetadataKey(json: ["opCode": 3]) == nil)
        #expect(MetadataKey(json: ["opCode": 4]) == nil)
        #expect(MetadataKey(json: "zip") == nil)
    }

    @Test func preauthorizeRequests() {
        #expect(PreauthorizeRequest(json: ["resources": ["a", "b"]])?.resources == ["a", "b"])
        #expect(PreauthorizeRequest(json: ["resources": ["a"], "disableFeatures": ["LOCAL_CACHE"]])?.disabledFeatures == [.localCache])
        #expect(PreauthorizeRequest(json: ["resources": []]) == nil)
        #expect(PreauthorizeRequest(json: ["resources": ["a", 1]]) == nil)
        #expect(PreauthorizeRequest(json: ["resources": ["a"], "disableFeatures": ["NOPE"]]) == nil)
    }

    @Test func formEncodingEscapesReservedCharacters() {
        #expect(
            Encoding.form([("redirectUrl", "https://a.b/c?d=e&f"), ("x", "a b+")])
                == "redirectUrl=https%3A%2F%2Fa.b%2Fc%3Fd%3De%26f&x=a%20b%2B")
        #expect(Encoding.queryParameters(of: "adobepass://x?code=AB%20C&y") == ["code": "AB C", "y": ""])
    }

    @Test func deviceIdentifierIsFingerprintOfBase64() {
        let context = DeviceContext(deviceID: "ba23d141-d715-561c-94f4-e9e4c966b1eb", deviceInfo: "")
        // Adobe's documented example.
        #expect(context.deviceIdentifier == "fingerprint YmEyM2QxNDEtZDcxNS01NjFjLTk0ZjQtZTllNGM5NjZiMWVi")
    }
}

@Suite struct TokenStoreTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ae-store-\(UUID().uuidString).sqlite").path
    }

    @Test func recordsSurviveReopeningAndAreScopedByApp() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let app = StoreScope(softwareStatement: "a.b.c", api: "v2")
        let other = StoreScope(softwareStatement: "x.y.z", api: "v2")
        let profile = Profile(mvpd: "M", notBefore: 0, notAfter: 10, issuer: "M", type: "regular", attributes: [:])
        do {
            let store = try TokenStore(path: path)
            try store.saveCredentials(app, ClientCredentials(clientID: "id", clientSecret: "secret"), baseURL: "https://h")
            try store.replaceProfiles(app, requestor: "R", deviceID: "d", with: [profile], syncedAt: 5)
            try store.setSelectedMVPD(app, requestor: "R", "M")
        }
        let store = try TokenStore(path: path)
        #expect(try store.credentials(app)?.0.clientID == "id")
        #expect(try store.credentials(other) == nil)
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles == [profile])
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").syncedAt == 5)
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(try store.selectedMVPD(app, requestor: "R") == "M")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func newCredentialsVoidTheOldProfiles() throws {
        let store = try TokenStore(path: nil)
        let app = StoreScope(softwareStatement: "a.b.c", api: "v2")
        let profile = Profile(mvpd: "M", notBefore: 0, notAfter: 10, issuer: "M", type: "regular", attributes: [:])
        try store.saveCredentials(app, ClientCredentials(clientID: "1", clientSecret: "s"), baseURL: "h")
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile)
        try store.saveCredentials(app, ClientCredentials(clientID: "2", clientSecret: "s"), baseURL: "h")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
    }

    @Test func profilesOfAnotherDeviceIDAreRemoved() throws {
        let store = try TokenStore(path: nil)
        let app = StoreScope(softwareStatement: "a.b.c", api: "v2")
        let profile = Profile(mvpd: "M", notBefore: 0, notAfter: 10, issuer: "M", type: "regular", attributes: [:])
        try store.saveProfile(app, requestor: "R", deviceID: "old", profile)
        #expect(try store.deleteProfilesOfOtherDevices(app, deviceID: "new") == 1)
        #expect(try store.deleteProfilesOfOtherDevices(app, deviceID: "new") == 0)
    }

    @Test func theDeviceIDIsCreatedOnce() throws {
        let store = try TokenStore(path: nil)
        #expect(try store.deviceID { "first" } == "first")
        #expect(try store.deviceID { "second" } == "first")
    }
}
