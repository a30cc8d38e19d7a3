// SPDX-License-Identifier: Apache-2.0
// The V1 adapter of the login operations (V1Backend+Login.swift) without a socket: the code login
// (regcode, then tokens/authn polls), TempPass (freepreview) and the Apple SSO exchange
// (profile-requests, token exchange), each on a scripted V1 (Support/ScriptedV1.swift), with the
// exact requests they make.
@testable import AccessEnabler
import Foundation
import Testing

private let tokensAuthn = "GET /api/v1/tokens/authn?requestor=REF30&deviceId=device-1"
private let userMetadata = "GET /api/v1/tokens/usermetadata?requestor=REF30&deviceId=device-1"
private let cablevision = MVPD(id: "Cablevision", displayName: "Optimum")

/// Every request carries the access token, asks for JSON (the profile request: its payload too) and
/// the device's X-Device-Info; none carries V2's partner status header.
private func expectV1Headers(_ wire: ScriptedV1) {
    for request in wire.sentRequests {
        #expect(request.header("Authorization") == "Bearer \(ScriptedV1.accessToken)")
        #expect(request.header("X-Device-Info") == "e30=")
        #expect(request.header("Accept")?.contains("application/json") == true)
        #expect(request.header("AP-Partner-Framework-Status") == nil)
        #expect((request.method == "POST") == (request.header("Content-Type") == "application/x-www-form-urlencoded"))
    }
}

private func body(_ request: HTTPRequest?) -> String { String(decoding: request?.body ?? [], as: UTF8.self) }

/// Records a failure; returns nothing (`return fail(...)` ends a test).
private func fail(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

@Suite struct V1CodeLoginTests {
    /// regcode (the login URL built here), then tokens/authn: nothing yet (404), a token of
    /// another MVPD (not this login's), then the selected MVPD's token: the profile.
    @Test func aRegistrationCodeIsPolledUntilTheSelectedMVPDsToken() async throws {
        let wire = ScriptedV1()
        wire.answer(
            "POST", "/reggie/v1/REF30/regcode",
            ScriptedV1.json(
                201, #"{"id":"r-1","code":"ABC1234","requestor":"REF30","mvpd":"Cablevision","generated":1000,"expires":1801000}"#))
        wire.answer(
            "GET", "/api/v1/tokens/authn",
            ScriptedV1.error(404, "Not Found"),
            ScriptedV1.authenticationToken(mvpd: "Dish", expires: 9_000_000),
            ScriptedV1.authenticationToken(mvpd: "Cablevision", userID: "viewer-7", expires: 8_000_000))
        let service = try wire.service()

        guard case .code(let challenge) = try await service.startCodeLogin(cablevision, continuing: nil) else {
            Issue.record("no code")
            return
        }
        #expect(challenge.code == "ABC1234" && challenge.mvpd == "Cablevision")
        #expect(challenge.notAfter == 1_801_000)  // Adobe's expiry of the code: the flow ends the login on it
        #expect(challenge.previousNotAfter == nil)
        #expect(
            challenge.url
                == "\(ScriptedV1.baseURL)/api/v1/authenticate?reg_code=ABC1234&requestor_id=REF30&mso_id=Cablevision"
                + "&domain_name=adobe.com&noflash=true&no_iframe=true&redirect_url=adobepass%3A%2F%2Fandroid.app")
        #expect(wire.requests == ["POST /reggie/v1/REF30/regcode"])
        #expect(body(wire.sentRequests.first) == "deviceId=device-1&mvpd=Cablevision")

        #expect(try await service.pollCodeLogin(challenge) == nil)  // pending: no token
        #expect(try await service.pollCodeLogin(challenge) == nil)  // Dish's token is not this login's answer
        let profile = try #require(try await service.pollCodeLogin(challenge))
        #expect(profile.mvpd == "Cablevision" && profile.notAfter == 8_000_000 && profile.userID == "viewer-7")
        #expect(profile.type == "regular" && profile.attributesPending == true)  // user metadata read later
        #expect(wire.requests == ["POST /reggie/v1/REF30/regcode", tokensAuthn, tokensAuthn, tokensAuthn])
        expectV1Headers(wire)
    }

    /// forceAuthn: the token the device held for the MVPD before the code was asked is not the
    /// login's answer; a token with a new expiry is. An expired token (410) is no answer either.
    @Test func aTokenTheDeviceHeldBeforeOrAnExpiredOneIsNotTheAnswer() async throws {
        let wire = ScriptedV1()
        wire.answer("POST", "/reggie/v1/REF30/regcode", ScriptedV1.json(201, #"{"code":"XYZ9876","expires":2000}"#))
        wire.answer(
            "GET", "/api/v1/tokens/authn",
            ScriptedV1.authenticationToken(mvpd: "Cablevision", expires: 5_000),
            ScriptedV1.error(410, "Gone", details: "authentication token expired"),
            ScriptedV1.authenticationToken(mvpd: "Cablevision", expires: 9_000))
        let service = try wire.service { $0 == "Cablevision" ? 5_000 : nil }

        guard case .code(let challenge) = try await service.startCodeLogin(cablevision, continuing: nil) else {
            Issue.record("no code")
            return
        }
        #expect(challenge.previousNotAfter == 5_000 && challenge.notAfter == 2_000)
        #expect(try await service.pollCodeLogin(challenge) == nil)  // the old token
        #expect(try await service.pollCodeLogin(challenge) == nil)  // 410: expired, none
        #expect(try await service.pollCodeLogin(challenge)?.notAfter == 9_000)
        #expect(wire.requests == ["POST /reggie/v1/REF30/regcode", tokensAuthn, tokensAuthn, tokensAuthn])
    }

    /// A refused regcode is a session failure (REG500 family); a failed poll is the poll's failure.
    @Test func aRefusedRegistrationCodeOrPollFails() async throws {
        let wire = ScriptedV1()
        wire.answer("POST", "/reggie/v1/REF30/regcode", ScriptedV1.error(400, "Required 'deviceId' is not present"))
        wire.answer("GET", "/api/v1/tokens/authn", ScriptedV1.error(403, "Forbidden"))
        let service = try wire.service()

        do throws(CodeLoginFailure) {
            _ = try await service.startCodeLogin(cablevision, continuing: nil)
            Issue.record("the regcode was accepted")
        } catch {
            guard case .session(let failure) = error else { return fail("not a session failure: \(error)") }
            #expect(failure.stage == .call && failure.error.httpStatus == 400)
        }
        let challenge = CodeChallenge(mvpd: "Cablevision", code: "C", url: "u")
        await #expect(throws: CallFailure.self) { try await service.pollCodeLogin(challenge) }
        #expect(wire.requests == ["POST /reggie/v1/REF30/regcode", tokensAuthn])
    }
}

@Suite struct V1TempPassTests {
    private static let tempPass = MVPD(id: "TempPass_TEST40", displayName: "TempPass", isTempPass: true)

    /// freepreview (204), then tokens/authn: the token becomes a TempPass profile.
    @Test func freePreviewThenTheTokenIsATempPassProfile() async throws {
        let wire = ScriptedV1()
        wire.answer("POST", "/api/v1/authenticate/freepreview", ScriptedV1.noContent())
        wire.answer("GET", "/api/v1/tokens/authn", ScriptedV1.authenticationToken(mvpd: "TempPass_TEST40", expires: 7_000))
        let profile = try await wire.service().tempPass(Self.tempPass, identity: nil)
        #expect(profile.mvpd == "TempPass_TEST40" && profile.notAfter == 7_000)
        #expect(profile.type == "temporary" && profile.issuer == "Adobe" && profile.tempPassIdentity == nil)
        #expect(wire.requests == ["POST /api/v1/authenticate/freepreview", tokensAuthn])
        #expect(
            body(wire.sentRequests.first) == "requestor_id=REF30&deviceId=device-1&mso_id=TempPass_TEST40&domain_name=adobe.com")
        expectV1Headers(wire)
    }

    /// Promotional TempPass: the AP-TempPass-Identity value (Base64 JSON) goes as `generic_data`,
    /// the JSON text; the profile keeps the identity for its authorizations.
    @Test func thePromotionalIdentityIsSentAsGenericData() async throws {
        let identity = Data(#"{"email":"foo@bar.com"}"#.utf8).base64EncodedString()
        let wire = ScriptedV1()
        wire.answer("POST", "/api/v1/authenticate/freepreview", ScriptedV1.noContent())
        wire.answer("GET", "/api/v1/tokens/authn", ScriptedV1.authenticationToken(mvpd: "TempPass_TEST40", expires: 7_000))
        let profile = try await wire.service().tempPass(Self.tempPass, identity: identity)
        #expect(profile.tempPassIdentity == identity)
        #expect(
            body(wire.sentRequests.first)
                == "requestor_id=REF30&deviceId=device-1&mso_id=TempPass_TEST40&domain_name=adobe.com"
                + "&generic_data=%7B%22email%22%3A%22foo%40bar.com%22%7D")
    }

    /// freepreview's 400: the pass is used up (N111), and no token is read.
    @Test func aRefusedFreePreviewMeansThePassIsUsedUp() async throws {
        let wire = ScriptedV1()
        wire.answer(
            "POST", "/api/v1/authenticate/freepreview",
            ScriptedV1.error(400, "Bad Request", details: "the TempPass of this device has expired"))
        let service = try wire.service()
        do throws(TempPassFailure) {
            _ = try await service.tempPass(Self.tempPass, identity: nil)
            Issue.record("the used-up pass gave a profile")
        } catch {
            guard case .over(let enhanced) = error else { return fail("not over: \(error)") }
            #expect(enhanced.status == 400 && enhanced.message == "Bad Request: the TempPass of this device has expired")
        }
        #expect(wire.requests == ["POST /api/v1/authenticate/freepreview"])
    }

    /// Other failures: freepreview refused otherwise, the token unreadable, or not the pass's.
    @Test func otherTempPassFailuresAreNamed() async throws {
        let wire = ScriptedV1()
        wire.answer("POST", "/api/v1/authenticate/freepreview", ScriptedV1.error(403, "Forbidden"))
        wire.answer("POST", "/api/v1/authenticate/freepreview", ScriptedV1.noContent(), ScriptedV1.noContent())
        wire.answer(
            "GET", "/api/v1/tokens/authn", ScriptedV1.error(403, "Forbidden"),
            ScriptedV1.authenticationToken(mvpd: "Cablevision", expires: 7_000))
        let service = try wire.service()
        var failures: [String] = []
        for _ in 0..<3 {
            do throws(TempPassFailure) {
                _ = try await service.tempPass(Self.tempPass, identity: nil)
            } catch {
                switch error {
                case .refused(let failure): failures.append("refused \(failure.error.httpStatus)")
                case .tokenUnreadable(let failure): failures.append("unreadable \(failure.error.httpStatus)")
                case .missing(let record): failures.append("missing \(record)")
                case .over: failures.append("over")
                }
            }
        }
        #expect(failures == ["refused 403", "unreadable 403", "missing token"])
        let freePreview = "POST /api/v1/authenticate/freepreview"
        #expect(wire.requests == [freePreview, freePreview, tokensAuthn, freePreview, tokensAuthn])
    }
}

@Suite struct V1PartnerExchangeTests {
    private static let profileRequest = "GET /api/v1/REF30/profile-requests/Cablevision?deviceType=tvOS"
    private static let exchange = "POST /api/v1/tokens/authn"
    private static var onboarded: MVPD {
        var mvpd = cablevision
        mvpd.enablePlatformServices = true
        mvpd.boardingStatus = "SUPPORTED"
        mvpd.requiredMetadataFields = ["userID", "upstreamUserID"]
        return mvpd
    }

    /// profile-requests: the payload, unparsed, is the platform's verification token; the V1
    /// snippet never lets the platform interrupt the viewer for it.
    @Test func theProfileRequestIsThePlatformsVerificationToken() async throws {
        let wire = ScriptedV1()
        let payload = "<samlp:AuthnRequest ID=\"_1\"/>"
        wire.answer(
            "GET", "/api/v1/REF30/profile-requests/Cablevision",
            HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: Array(payload.utf8)))
        let answer = try await wire.service().partnerRequest(Self.onboarded, partnerStatus: "pfs")
        guard case .samlRequest(let request) = answer else { return fail("not a SAML request: \(answer)") }
        #expect(
            request == SAMLRequest(verificationToken: payload, attributeNames: ["userID", "upstreamUserID"], allowsInterruption: false))
        #expect(wire.requests == [Self.profileRequest])
        #expect(wire.sentRequests.first?.header("Accept") == "application/octet-stream, application/json")
        expectV1Headers(wire)
    }

    /// Refusals fall back to the regular login with the reason the provider dialog names: a 400
    /// (single sign-on not available), an MVPD only in the platform's picker (no request); any
    /// other failure is the call's.
    @Test func aRefusedProfileRequestFallsBack() async throws {
        let wire = ScriptedV1()
        wire.answer(
            "GET", "/api/v1/REF30/profile-requests/Cablevision",
            ScriptedV1.error(400, "Bad Request", details: "Cablevision is not onboarded"), ScriptedV1.error(403, "Forbidden"))
        let service = try wire.service()
        guard case .fallback(let refused) = try await service.partnerRequest(Self.onboarded, partnerStatus: "pfs") else {
            return fail("a 400 did not fall back")
        }
        #expect(refused.reason == "profile_request_refused" && refused.session == nil)
        var pickerOnly = Self.onboarded
        pickerOnly.boardingStatus = "PICKER"
        guard case .fallback(let notOnboarded) = try await service.partnerRequest(pickerOnly, partnerStatus: "pfs") else {
            return fail("a picker-only MVPD did not fall back")
        }
        #expect(notOnboarded.reason == nil)
        await #expect(throws: CallFailure.self) { try await service.partnerRequest(Self.onboarded, partnerStatus: "pfs") }
        #expect(wire.requests == [Self.profileRequest, Self.profileRequest])
    }

    /// The token exchange (204; the SAML response cleaned up and encoded once), then the device's
    /// token and its user metadata, read side by side: an Apple SSO profile with its metadata.
    @Test func theTokenExchangeMakesAnAppleSSOProfile() async throws {
        let wire = ScriptedV1()
        wire.answer("POST", "/api/v1/tokens/authn", ScriptedV1.noContent())
        wire.answer("GET", "/api/v1/tokens/authn", ScriptedV1.authenticationToken(mvpd: "Cablevision", userID: "apple-1", expires: 6_000))
        wire.answer(
            "GET", "/api/v1/tokens/usermetadata",
            ScriptedV1.json(200, #"{"encrypted":["householdID"],"data":{"zip":"10001","householdID":"c2VjcmV0","tokenSource":"Apple"}}"#))
        let saml = "<samlp:Response>\n  <Assertion/>\n</samlp:Response>\n"
        let answer = try await wire.service().partnerProfile(Self.onboarded, samlResponse: saml, partnerStatus: "pfs")
        guard case .profile(let profile) = answer else { return fail("no profile: \(answer)") }
        #expect(profile.mvpd == "Cablevision" && profile.notAfter == 6_000 && profile.userID == "apple-1")
        #expect(profile.type == "appleSSO" && profile.issuer == "Apple" && profile.attributesPending == nil)
        #expect(profile.attributes["zip"]?.value.stringValue == "10001" && profile.attributes["householdID"]?.isEncrypted == true)
        #expect(wire.requests.first == Self.exchange)
        #expect(Set(wire.requests.dropFirst()) == [tokensAuthn, userMetadata] && wire.requests.count == 3)
        #expect(
            body(wire.sentRequests.first)
                == "requestor=REF30&deviceId=device-1&mvpd=Cablevision&deviceType=tvOS&SAMLResponse="
                + SAMLResponseEncoding.encode(saml))
        expectV1Headers(wire)
    }

    /// The metadata is optional (still pending without it); a token of another MVPD after the
    /// exchange is a malformed answer; a refused exchange (400) falls back; others fail the call.
    @Test func theExchangesOtherOutcomes() async throws {
        let wire = ScriptedV1()
        wire.answer(
            "POST", "/api/v1/tokens/authn", ScriptedV1.noContent(), ScriptedV1.noContent(),
            ScriptedV1.error(400, "Bad Request", details: "invalid_parameter_saml_response: refused"),
            ScriptedV1.error(403, "Forbidden"))
        wire.answer(
            "GET", "/api/v1/tokens/authn", ScriptedV1.authenticationToken(mvpd: "Cablevision", expires: 6_000),
            ScriptedV1.authenticationToken(mvpd: "Dish", expires: 6_000))
        wire.answer("GET", "/api/v1/tokens/usermetadata", ScriptedV1.error(404, "Not Found"), ScriptedV1.error(404, "Not Found"))
        let service = try wire.service()

        guard case .profile(let profile) = try await service.partnerProfile(Self.onboarded, samlResponse: "<r/>", partnerStatus: "p")
        else { return fail("no profile") }
        #expect(profile.type == "appleSSO" && profile.attributesPending == true)
        do throws(CallFailure) {
            _ = try await service.partnerProfile(Self.onboarded, samlResponse: "<r/>", partnerStatus: "p")
            Issue.record("Dish's token was taken")
        } catch {
            guard case .malformed(let operation, _) = error.error else { return fail("not malformed: \(error)") }
            #expect(operation == V1Operation.authenticationToken.rawValue)
        }
        guard case .fallback(let refused) = try await service.partnerProfile(Self.onboarded, samlResponse: "<r/>", partnerStatus: "p")
        else { return fail("a 400 did not fall back") }
        #expect(refused.reason == "token_exchange_refused")
        await #expect(throws: CallFailure.self) {
            try await service.partnerProfile(Self.onboarded, samlResponse: "<r/>", partnerStatus: "p")
        }
        #expect(wire.requests.filter { $0 == Self.exchange }.count == 4)
        #expect(wire.requests.filter { $0 == tokensAuthn }.count == 2 && wire.requests.filter { $0 == userMetadata }.count == 2)
        #expect(wire.requests.count == 8)  // the refused exchanges read nothing
    }
}
