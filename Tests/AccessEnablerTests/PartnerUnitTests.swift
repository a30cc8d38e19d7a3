// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The pure parts of partner SSO: the cookbook's SAMLResponse rules, the partner status header,
/// the picker's providers, and the simulator's SAML (checked against the Python one the emulator uses).
@Suite struct PartnerUnitTests {
    @Test(arguments: [
        ("a  b\t\tc", "a b c"),
        ("<x>\r\n\t<y/>\r\n</x>", "<x> <y/></x>"),
        ("> \r\n\t<", ">  <"),  // blanks collapse first, then newlines go: two spaces remain
        ("a\u{0B}b\u{0C}c\u{85}d\u{2028}e\u{2029}f\rg\nh", "abcdefgh"),
        ("\t \r\n  <r/>  \r\n\u{00A0}", "<r/>"),
        ("<a  Name=\"uid\" \t>", "<a Name=\"uid\" >"),
    ])
    func cleanUpFollowsTheCookbook(_ input: String, _ expected: String) {
        #expect(SAMLResponseEncoding.clean(input) == expected)
    }

    @Test func encodingIsBase64ThenPercentEncodedOnce() {
        // "?>>" Base64 is "Pz4+": '+' must become %2B, nothing else changes.
        #expect(SAMLResponseEncoding.encode("?>>") == "Pz4%2B")
        // '/' and '=' too; the result is the form value as is (no second encoding of '%').
        #expect(SAMLResponseEncoding.encode("??") == "Pz8%3D")
        let saml = "<samlp:Response>\r\n\t<x>  ÿ</x>\n</samlp:Response>\r\n"
        let encoded = SAMLResponseEncoding.encode(saml)
        let base64 = encoded.replacing("%2B", with: "+").replacing("%2F", with: "/").replacing("%3D", with: "=")
        #expect(!encoded.contains("+") && !encoded.contains("/") && !encoded.contains("="))
        #expect(String(data: Data(base64Encoded: base64)!, encoding: .utf8) == "<samlp:Response> <x> ÿ</x></samlp:Response>")
    }

    @Test func partnerStatusHeaderIsBase64JSONWithTheExpiryAsAString() throws {
        let status = PartnerStatus(access: PartnerAccess(.granted), providerID: "Cablevision", expirationDate: 2_025_430_636_000)
        let json = try JSONSerialization.jsonObject(with: Data(base64Encoded: status.headerValue)!) as! [String: [String: String]]
        #expect(json["frameworkPermissionInfo"] == ["accessStatus": "granted"])
        #expect(json["frameworkProviderInfo"] == ["id": "Cablevision", "expirationDate": "2025430636000"])
    }

    @Test func validityRulesBeforeSending() {
        var mvpd = MVPD(id: "Cablevision", displayName: "Optimum")
        mvpd.platformMappingId = "CV"
        let configuration = RequestorConfiguration(requestorID: "R", domains: [], mvpds: [mvpd])
        let valid = PartnerStatus(access: PartnerAccess(.granted), providerID: "CV", expirationDate: 2_000)
        #expect(valid.problem(at: 1_000, configuration: configuration) == nil)
        #expect(valid.problem(at: 3_000, configuration: configuration) != nil)  // expired
        #expect(PartnerStatus(access: PartnerAccess(.denied), providerID: "CV").problem(at: 0, configuration: nil) != nil)
        #expect(PartnerStatus(access: PartnerAccess(.granted)).problem(at: 0, configuration: nil) != nil)  // no provider
        #expect(PartnerStatus(access: PartnerAccess(.granted), providerID: "XX").problem(at: 0, configuration: configuration) != nil)
        #expect(
            PartnerStatus(access: PartnerAccess(.granted), providerID: "CV", error: PartnerError(.timeout))
                .problem(at: 0, configuration: configuration) != nil)
    }

    @Test func pickerProvidersFollowTheFilterRules() {
        func sso(_ id: String, _ platform: String, picker: Bool = true) -> MVPD {
            var mvpd = MVPD(id: id, displayName: id)
            mvpd.platformMappingId = platform
            mvpd.enablePlatformServices = true
            mvpd.displayInPlatformPicker = picker
            return mvpd
        }
        let configuration = RequestorConfiguration(
            requestorID: "R", domains: [],
            mvpds: [
                sso("A", "pa"), MVPD(id: "B", displayName: "B"), sso("C", "pc"), sso("D", "pd", picker: false),
            ])
        #expect(configuration.pickerProviders(filter: nil).supported == ["pa", "pc"])
        // Order kept, non-SSO ignored, featured must also be in TV_PROVIDERS.
        let filtered = configuration.pickerProviders(filter: [
            "TV_PROVIDERS": ["C", "B", "A"], "FEATURED_TV_PROVIDERS": ["A", "D", "B"],
        ])
        #expect(filtered.supported == ["pc", "pa"])
        #expect(filtered.featured == ["pa"])
        // No SSO MVPD: no picker, the filter is ignored.
        let plain = RequestorConfiguration(requestorID: "R", domains: [], mvpds: [MVPD(id: "B", displayName: "B")])
        #expect(plain.pickerProviders(filter: ["TV_PROVIDERS": ["B"]]).supported.isEmpty)
    }

    @Test func samlIssuerPerEnvironment() {
        #expect(RequestorConfiguration.samlIssuer(forBaseURL: "https://sp.auth.adobe.com") == "https://saml.sp.auth.adobe.com")
        #expect(
            RequestorConfiguration.samlIssuer(forBaseURL: "https://sp.auth-staging.adobe.com")
                == "https://saml.sp.auth-staging.adobe.com")
    }

    /// The Swift simulator's SAML is byte for byte the Python one (the emulator checks responses
    /// against the Python module).
    @Test func simulatedSAMLMatchesThePythonModule() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let script = """
            import sys, base64, json
            sys.path.insert(0, sys.argv[1])
            import simulated_saml as s
            request = base64.b64encode(s.saml_request("_req-1", "REF30", "Cablevision", "https://saml.sp.auth.adobe.com").encode()).decode()
            print(json.dumps({"request": request, "id": s.request_id_of(request),
                              "response": s.saml_response("_req&1", "Cable\\"vision", ["uid", "zip", "NameID"])}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, root.appendingPathComponent("Python/accessenabler").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let python = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(SimulatedSAML.requestID(ofBase64: python["request"]!) == "_req-1")
        #expect(python["id"] == "_req-1")
        #expect(
            SimulatedSAML.response(requestID: "_req&1", providerID: "Cable\"vision", attributeNames: ["uid", "zip", "NameID"])
                == python["response"])
    }
}

/// The fallback decisions of the partner flow (seed 003 step 4, V2 cookbook C.5–9, V1 steps 6–10).
@Suite struct PartnerFallbackTests {
    private func mvpd(_ boarding: String?) -> MVPD {
        var mvpd = MVPD(id: "Comcast_SSO", displayName: "Xfinity")
        mvpd.enablePlatformServices = true
        mvpd.boardingStatus = boarding
        mvpd.platformMappingId = "Comcast"
        return mvpd
    }

    @Test(arguments: [
        ("configuration_fallback", "N004"), ("profile_request_refused", "N004"),
        ("pfs_fallback", "VSA503"), ("missing_parameters_fallback", "VSA503"), ("token_exchange_refused", "VSA503"),
    ])
    func oneCodeWithTheProviderDialog(_ reason: String, _ code: String) throws {
        let status = try #require(PartnerExchangeFlow.fallbackStatus(mvpd("SUPPORTED"), reason: reason))
        #expect(status.errorID == code && status.level == .info && status.details == reason)
    }

    @Test func aProviderOnlyInThePlatformPickerContinuesSilently() {
        for reason in ["configuration_fallback", "pfs_fallback", "profile_request_refused", nil] {
            #expect(PartnerExchangeFlow.fallbackStatus(mvpd("PICKER"), reason: reason) == nil)
        }
    }
}
