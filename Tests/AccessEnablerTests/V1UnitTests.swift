// SPDX-License-Identifier: Apache-2.0
// The pure parts of the REST API V1 backend: its answers (Adobe's documented samples, with their
// type quirks), its legacy errors in JSON and XML, the profile sync, the URLs it builds.
@testable import AccessEnabler
import Foundation
import Testing

private func response(_ status: Int, _ body: String, type: String = "application/json;charset=UTF-8") -> HTTPResponse {
    HTTPResponse(status: status, headers: [("Content-Type", type)], body: Array(body.utf8))
}

private func decoded<T: Decodable>(_ type: T.Type, _ body: String) throws -> T {
    try JSON.decode(type, from: Array(body.utf8))
}

@Suite struct V1AnswerTests {
    @Test func authenticationTokenWithExpiresAsAString() throws {
        // TAUTHN's JSON sample
        let token = try decoded(
            V1AuthenticationToken.self,
            #"{"requestor":"sampleRequestor","mvpd":"sampleMvpdId","userId":"sampleUserId","expires":"1601114932000"}"#)
        #expect(token == V1AuthenticationToken(mvpd: "sampleMvpdId", userID: "sampleUserId", expires: 1_601_114_932_000))
        let profile = token.profile
        #expect(profile.notAfter == 1_601_114_932_000 && profile.type == "regular" && profile.issuer == "sampleMvpdId")
        #expect(profile.attributesPending == true && profile.userID == "sampleUserId")
    }

    @Test func authenticationTokenWithoutExpiresIsRefused() {
        #expect(throws: DecodingError.self) { try decoded(V1AuthenticationToken.self, #"{"mvpd":"m","userId":"u"}"#) }
    }

    @Test func registrationRecordWithNumbers() throws {
        // REGCODE's current sample (numbers of ms)
        let record = try decoded(
            V1RegistrationRecord.self,
            """
            {"id":"ef5a79e8-7c8a-41d6-a45a-e378c6c7c8b5","code":"IYQD5JQ","requestor":"sampleRequestorId",
             "mvpd":"sampleMvpdId","generated":1704963921144,"expires":1704965721144,
             "info":{"deviceId":"c28tZGV2aWQtMDAz","authorizationType":"OAUTH2"}}
            """)
        #expect(record.code == "IYQD5JQ" && record.expires == 1_704_965_721_144 && record.mvpd == "sampleMvpdId")
    }

    @Test func mediaTokenKeepsItsSerializedTokenAsIs() throws {
        let media = try decoded(
            V1MediaToken.self,
            """
            {"resource":"sampleResourceId","requestor":"sampleRequestorId","expires":"1348649614000",
             "serializedToken":"PHNpZ25hdH[...]","userId":"sampleScrambledUserId","mvpdId":"sampleMvpdId"}
            """)
        #expect(media.serializedToken == "PHNpZ25hdH[...]" && media.expires == 1_348_649_614_000 && media.mvpdID == "sampleMvpdId")
    }

    @Test func preauthorizeItemsWithEnhancedErrors() throws {
        // PRE's sample, plus a boolean sent as a string
        let answer = try decoded(
            V1PreauthorizeAnswer.self,
            """
            {"resources":[{"id":"TestStream1","authorized":true},
              {"id":"TestStream3","authorized":false,"error":{"status":403,"code":"authorization_denied_by_mvpd",
               "message":"User not authorized","details":"Your subscription package does not include the \\"TestStream3\\" channel.",
               "helpUrl":"https://experienceleague.adobe.com","trace":"0453f8c8","action":"none"}},
              {"id":"TestStream4","authorized":"true"}]}
            """)
        let decisions = answer.decisions
        #expect(decisions.map(\.resource) == ["TestStream1", "TestStream3", "TestStream4"])
        #expect(decisions.map(\.authorized) == [true, false, true])
        #expect(decisions[1].error?.code == "authorization_denied_by_mvpd")
        #expect(throws: DecodingError.self) {
            try decoded(V1PreauthorizeAnswer.self, #"{"resources":[{"id":"A","authorized":"yes"}]}"#)
        }
    }

    @Test func userMetadataMarksEncryptedKeys() throws {
        // UMD's sample, plus tokenSource
        let metadata = try decoded(
            V1UserMetadata.self,
            """
            {"updated":1334243471,"encrypted":["householdID"],"data":{"zip":["12345","34567"],
             "maxRating":{"MPAA":"PG-13","VCHIP":"TV-Y"},"householdID":"3456","userID":"BgSdasf=","tokenSource":"Apple"}}
            """)
        #expect(metadata.tokenSource == "Apple")
        let attributes = metadata.attributes
        #expect(attributes["householdID"]?.isEncrypted == true && attributes["zip"]?.isEncrypted == false)
        #expect(attributes["zip"]?.value == ["12345", "34567"] && attributes["tokenSource"] == nil)
    }

    @Test func mvpdListNestedLikeV2OrNot() throws {
        let nested = try decoded(
            ConfigurationAnswer.self,
            """
            {"requestor":{"id":"REF30","name":"Reference","domains":["adobe.com"],"mvpds":[
              {"id":"ATT","displayName":"AT&T","enablePlatformServices":true,"boardingStatus":"SUPPORTED",
               "displayInPlatformPicker":true,"platformMappingId":"ATT","requiredMetadataFields":["userID","upstreamUserID"]},
              {"id":"TempPass","displayName":"Temp-Pass","isTempPass":true}]}}
            """
        ).configuration(requestorID: "REF30")
        #expect(nested.domains == ["adobe.com"])
        #expect(nested.mvpds.map(\.id) == ["ATT", "TempPass"] && nested.mvpds[1].isTempPass)
        #expect(nested.mvpds[0].requiredMetadataFields == ["userID", "upstreamUserID"])
        let flat = try decoded(ConfigurationAnswer.self, #"{"mvpds":[{"id":"DTV","displayName":"DIRECTV"}]}"#)
        #expect(flat.configuration(requestorID: "REF30").mvpds.map(\.id) == ["DTV"])
    }
}

@Suite struct V1ErrorTests {
    @Test func legacyJSONErrorsGetTheirEndpointsCodes() {
        let cases: [(V1Operation, Int, String, String, String)] = [
            (
                .authorize, 403, #"{"status":403,"message":"User not authorized","details":"No ASFAFD"}"#,
                "authorization_denied_by_mvpd", "none"
            ),
            (
                .authorize, 403, #"{"status":403,"message":"User not authenticated","details":null}"#,
                "authentication_session_missing", "authentication"
            ),
            (
                .mediaToken, 403, #"{"status":403,"message":"Authentication token expired"}"#,
                "authentication_session_expired", "authentication"
            ),
            (
                .mediaToken, 403, #"{"status":403,"message":"User not authorized","details":"call authorize"}"#,
                "authorization_not_found", "authorization"
            ),
            (
                .preauthorize, 412, #"{"status":412,"message":"User not authenticated","details":null}"#,
                "preauthorization_authentication_session_missing", "authentication"
            ),
            (.configuration, 400, #"{"status":400,"message":"Bad Request"}"#, "invalid_requestor", "none"),
            (.registrationCode, 400, #"{"status":"400","message":"Required 'deviceId' is not present"}"#, "http_400", "none"),
            (.logout, 500, #"{"status":500,"message":"Internal error"}"#, "internal_error", "none"),
        ]
        for (operation, status, body, code, action) in cases {
            guard case .enhanced(let error, let httpStatus) = V1Errors.failure(from: response(status, body), operation: operation)
            else {
                Issue.record("\(operation) \(status): not an enhanced error")
                continue
            }
            #expect(httpStatus == status)
            #expect(error.code == code, "\(operation) \(body)")
            #expect(error.action == action, "\(operation) \(body)")
        }
    }

    @Test func legacyXMLErrorIsReadWithItsEntities() {
        // REGCODE-OLD's XSD shape, as a V1 server answers by default
        let body =
            #"<?xml version="1.0" encoding="UTF-8"?><error><status>403</status><message>User not authorized</message>"#
            + #"<details>Your package does not include &quot;ASFAFD&quot; &amp; more</details></error>"#
        guard
            case .enhanced(let error, 403) = V1Errors.failure(
                from: response(403, body, type: "application/xml"),
                operation: .authorize)
        else { Issue.record("not read"); return }
        #expect(error.code == "authorization_denied_by_mvpd" && error.message == "User not authorized")
        #expect(error.details == #"Your package does not include "ASFAFD" & more"#)
    }

    @Test func enhancedErrorCodesAreReadAsTheyAre() {
        // EEC's V1 samples, JSON and XML
        let json =
            #"{"action":"none","status":400,"code":"invalid_requestor","message":"The requestor parameter is missing or invalid.","trace":"8bcb17f9"}"#
        let xml =
            "<error><action>retry</action><status>403</status><code>network_connection_timeout</code>"
            + "<message>timeout</message><trace>abc</trace></error>"
        guard case .enhanced(let first, 400) = V1Errors.failure(from: response(400, json), operation: .configuration),
            case .enhanced(let second, 403) = V1Errors.failure(from: response(403, xml, type: "application/xml"), operation: .authorize)
        else { Issue.record("not read"); return }
        #expect(first.code == "invalid_requestor" && first.trace == "8bcb17f9")
        #expect(second.code == "network_connection_timeout" && second.action == "retry")
    }

    @Test func dcrErrorsStayDCRErrors() {
        guard
            case .registration("access_denied", 401) = V1Errors.failure(
                from: response(401, #"{"error":"access_denied"}"#),
                operation: .authorize),
            case .registration("invalid_client", 403) = V1Errors.failure(
                from: response(403, #"{"error":"invalid_client"}"#),
                operation: .mediaToken)
        else { Issue.record("DCR errors not kept"); return }
    }

    @Test func bodiesWithoutAnErrorArePlainHTTPErrors() {
        let html = "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"
        guard case .http(503) = V1Errors.failure(from: response(503, html, type: "text/html"), operation: .authorize),
            case .throttled = V1Errors.failure(from: response(429, "<html></html>", type: "text/html"), operation: .preauthorize),
            case .http(404) = V1Errors.failure(from: response(404, ""), operation: .userMetadata)
        else { Issue.record("not plain HTTP errors"); return }
    }

    @Test func legacyErrorsHaveTheStatusesTheFlowsNeed() {
        let expired = V1Errors.mapped(.authorize, status: 403, message: "Authentication token expired", details: nil)
        #expect(StatusCatalog.needsAuthentication(expired))
        #expect(StatusCatalog.authorizationDenial(expired).errorID == "N000")
        let denied = V1Errors.mapped(.authorize, status: 403, message: "User not authorized", details: "No ESPN")
        #expect(StatusCatalog.authorizationDenial(denied).errorID == "Z100")
        let failed = V1Errors.mapped(.authorize, status: 502, message: "Bad gateway", details: nil)
        #expect(StatusCatalog.authorizationDenial(failed).errorID == "Z500")
        let requestor = V1Errors.mapped(.configuration, status: 400, message: "Bad Request", details: nil)
        #expect(StatusCatalog.requestorFailure(CallFailure(.call, .enhanced(requestor, httpStatus: 400))).errorID == "CFG400")
    }

    @Test(
        arguments: [
            ("<error><message>a</message></error>", "message", "a"),
            ("<error><details><![CDATA[<b>x</b>]]></details></error>", "details", "<b>x</b>"),
            ("<error><details>  spaced  </details></error>", "details", "spaced"),
            ("<error><details></details></error>", "details", nil),
            ("<error><details>unclosed", "details", nil),
            ("</details><details>x", "details", nil),
        ] as [(String, String, String?)])
    func xmlElements(_ text: String, _ name: String, _ expected: String?) {
        #expect(V1Errors.xmlElement(name, in: text) == expected)
    }
}

@Suite struct V1ProfileSyncTests {
    private let configuration = RequestorConfiguration(
        requestorID: "REF30", domains: ["adobe.com"],
        mvpds: [MVPD(id: "Cablevision", displayName: "Optimum"), MVPD(id: "TempPass_TEST40", displayName: "TP", isTempPass: true)])

    private func profile(_ mvpd: String, _ notAfter: Int64, type: String = "regular") -> Profile {
        Profile(mvpd: mvpd, notBefore: 0, notAfter: notAfter, issuer: mvpd, type: type, attributes: [:])
    }

    @Test func theSameTokenKeepsWhatTheStoreKnows() {
        var known = profile("Cablevision", 5_000, type: "appleSSO")
        known.issuer = "Apple"
        known.attributes = ["zip": ProfileAttribute(value: "10001")]
        let token = V1AuthenticationToken(mvpd: "Cablevision", userID: "u", expires: 5_000).profile
        #expect(ProfileSync.mergedV1(token, stored: [known], configuration: configuration) == [known])
    }

    @Test func aNewTokenReplacesTheStoredOne() {
        let token = V1AuthenticationToken(mvpd: "Cablevision", userID: "u", expires: 9_000).profile
        let merged = ProfileSync.mergedV1(
            token, stored: [profile("Cablevision", 5_000, type: "appleSSO")],
            configuration: configuration)
        #expect(merged.count == 1 && merged[0].notAfter == 9_000 && merged[0].type == "regular")
        #expect(merged[0].attributesPending == true && merged[0].originUnknown == true)  // logout reads its tokenSource
    }

    /// V1 does not say where a token came from: one this SDK did not make, found while the platform
    /// identity went with the request, reports tokenSource "platformSSO" (the user metadata's
    /// "Apple" still wins once read).
    @Test func aNewTokenFoundWithThePlatformIdentityIsAPlatformSSOProfile() throws {
        let token = V1AuthenticationToken(mvpd: "Cablevision", userID: "u", expires: 9_000).profile
        let merged = ProfileSync.mergedV1(token, stored: [], configuration: configuration, platformIdentitySent: true)
        #expect(merged.count == 1 && merged[0].type == "platformSSO" && merged[0].tokenSource == "platformSSO")
        #expect(merged[0].originUnknown == true)
        #expect(ProfileSync.mergedV1(merged[0], stored: merged, configuration: configuration, platformIdentitySent: true) == merged)
        #expect(ProfileSync.mergedV1(token, stored: [], configuration: configuration)[0].tokenSource == "Cablevision")
        let apple = try JSON.decode(V1UserMetadata.self, from: Array(#"{"data":{"tokenSource":"Apple"}}"#.utf8))
        #expect(LogoutFlow.completed(merged[0], with: apple).tokenSource == "Apple")
        let pass = V1AuthenticationToken(mvpd: "TempPass_TEST40", userID: "t", expires: 9_000).profile
        #expect(ProfileSync.mergedV1(pass, stored: [], configuration: configuration, platformIdentitySent: true)[0].isTemporary)
    }

    @Test func aTempPassTokenIsTemporaryAndExpiredTempPassesStay() {
        let token = V1AuthenticationToken(mvpd: "TempPass_TEST40", userID: "t", expires: 9_000).profile
        let merged = ProfileSync.mergedV1(token, stored: [], configuration: configuration)
        #expect(merged.count == 1 && merged[0].isTemporary && merged[0].tokenSource == "Adobe")
        // no token (404/410): an expired TempPass stays (N111), another profile goes
        let expiredPass = profile("TempPass_TEST40", 1_000, type: "temporary")
        #expect(
            ProfileSync.mergedV1(
                nil, stored: [expiredPass, profile("Cablevision", 5_000)],
                configuration: configuration) == [expiredPass])
    }
}

@Suite struct V1RequestTests {
    @Test func secondScreenURLHasTheCodeFirstAndTheRedirectLast() {
        let url = V1Client.authenticationURL(
            base: "https://api.auth.adobe.com", requestor: "REF 30", code: "ABC123",
            mvpd: "Cablevision", domainName: "adobe.com",
            redirectURL: "adobepass://android.app?x=1&y=2")
        #expect(
            url == "https://api.auth.adobe.com/api/v1/authenticate?reg_code=ABC123&requestor_id=REF%2030"
                + "&mso_id=Cablevision&domain_name=adobe.com&noflash=true&no_iframe=true"
                + "&redirect_url=adobepass%3A%2F%2Fandroid.app%3Fx%3D1%26y%3D2")
    }

    @Test func promotionalIdentityBecomesGenericData() {
        #expect(V1Client.identityJSON("eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0=") == #"{"email":"foo@bar.com"}"#)
        #expect(V1Client.identityJSON("not base64!") == nil)
    }

    @Test func theGenerationPicksItsHostAndStoreKeys() {
        var settings = Settings(softwareStatement: "s")
        #expect(settings.baseURL == "https://sp.auth.adobe.com")
        settings.apiGeneration = .v1
        #expect(settings.baseURL == "https://api.auth.adobe.com" && settings.apiGeneration.storeName == "v1")
        settings.baseURL = "http://127.0.0.1:9"
        settings.apiGeneration = .v2
        #expect(settings.baseURL == "http://127.0.0.1:9")  // an explicit host stays
    }
}
