// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

/// Replays every documented REST API V2 / DCR answer of Adobe's docs
/// (Emulator/examples/v2-doc-examples.json) to the SDK's decoders: each success answer
/// must decode (typos repaired where the page has them), each error answer must become a named
/// error, and each raw body that is not JSON must become a named "malformed" error.
@Suite struct ExampleReplayTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let id: String
        let endpoint: String
        let status: Int
        let contentType: String
        let raw: String?
        let repaired: JSONValue?
        let parsesRaw: Bool
        var testDescription: String { id }
    }

    static let examples: [Example] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Emulator/examples/v2-doc-examples.json")
        let items = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [[String: Any]] ?? []
        return items.compactMap { item in
            guard let api = item["api"] as? String, api != "rest-api-v1",
                let status = item["status"] as? Int, status != 302
            else { return nil }
            let repaired = item["response_json_repaired"].flatMap { value -> JSONValue? in
                guard !(value is NSNull), let data = try? JSONSerialization.data(withJSONObject: value) else { return nil }
                return try? JSONDecoder().decode(JSONValue.self, from: data)
            }
            return Example(
                id: item["id"] as! String, endpoint: item["endpoint"] as! String, status: status,
                contentType: (item["response_headers"] as? [String: String])?["Content-Type"] ?? "application/json",
                raw: item["response_body"] as? String, repaired: repaired,
                parsesRaw: !(item["response_json"] is NSNull))
        }
    }()

    @Test func theFileIsThere() {
        #expect(Self.examples.count == 75)
    }

    /// Decodes `body` as the endpoint's answer type; returns a short summary of what was read.
    static func decode(_ endpoint: String, _ response: HTTPResponse) throws(ServiceError) -> String {
        switch endpoint {
        case "configuration.get":
            let configuration = try RequestExecutor.decode(ConfigurationAnswer.self, from: response, operation: endpoint)
                .configuration(requestorID: "REF30")
            return "mvpds=\(configuration.mvpds.count)"
        case "sessions.create", "sessions.resume", "partner_sso.authentication_request":
            let session = try RequestExecutor.decode(SessionAnswer.self, from: response, operation: endpoint)
            return "action=\(session.actionName)"
        case "sessions.retrieve":
            let status = try RequestExecutor.decode(SessionStatusAnswer.self, from: response, operation: endpoint)
            return "existing=\(status.existingParameters.count)"
        case "partner_sso.profile", "profiles.list", "profiles.by_mvpd", "profiles.by_code":
            return "profiles=\(try RequestExecutor.decode(ProfilesAnswer.self, from: response, operation: endpoint).profiles.count)"
        case "decisions.authorize", "decisions.preauthorize", "error_examples.v2":
            return "decisions=\(try RequestExecutor.decode(DecisionsAnswer.self, from: response, operation: endpoint).decisions.count)"
        case "logout.initiate":
            return "logouts=\(try RequestExecutor.decode(LogoutAnswer.self, from: response, operation: endpoint).logouts.count)"
        case "dcr.register":
            _ = try RequestExecutor.decode(ClientCredentials.self, from: response, operation: endpoint)
            return "credentials"
        case "dcr.token":
            _ = try RequestExecutor.decode(AccessTokenResponse.self, from: response, operation: endpoint)
            return "token"
        default:
            throw .malformed(operation: endpoint, detail: "no decoder in this test")
        }
    }

    @Test(arguments: examples) func documentedAnswerIsReadOrNamed(_ example: Example) throws {
        let headers = [(name: "Content-Type", value: example.contentType)]
        let body: [UInt8]
        if example.parsesRaw {
            body = Array((example.raw ?? "").utf8)
        } else {
            body = JSON.data(try #require(example.repaired, "no repaired body for \(example.id)"))
        }
        let response = HTTPResponse(status: example.status, headers: headers, body: body)
        if (200..<300).contains(example.status) {
            let summary = try Self.decode(example.endpoint, response)
            #expect(!summary.isEmpty)
            if let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
                if let profiles = json["profiles"] as? [String: Any] { #expect(summary == "profiles=\(profiles.count)") }
                if let decisions = json["decisions"] as? [Any] { #expect(summary == "decisions=\(decisions.count)") }
            }
        } else {
            // Error answers become the named error they carry.
            switch RequestExecutor.failure(from: response) {
            case .enhanced(let error, let status):
                #expect(status == example.status)
                #expect(!error.code.isEmpty)
                #expect(
                    error.code == String(describing: (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["code"] ?? "")
                )
            case .registration(let code, _):
                #expect(
                    [
                        "invalid_request", "invalid_client", "invalid_software_statement", "unapproved_software_statement",
                        "unsupported_grant_type", "unauthorized_client", "invalid_redirect_uri",
                    ].contains(code))
            default:
                Issue.record("\(example.id): error answer not recognised")
            }
        }
    }

    /// The raw page text with its typos: read as the repaired answer (the decoder tolerates a
    /// trailing comma) or refused with the named "server_response_format_unknown" error.
    @Test(arguments: examples.filter { !$0.parsesRaw && $0.raw != nil })
    func unrepairedTyposAreReadOrNamed(_ example: Example) throws {
        let response = HTTPResponse(
            status: example.status, headers: [("Content-Type", example.contentType)],
            body: Array(example.raw!.utf8))
        let repaired = HTTPResponse(
            status: example.status, headers: [("Content-Type", example.contentType)],
            body: JSON.data(try #require(example.repaired)))
        do {
            #expect(try Self.decode(example.endpoint, response) == (try Self.decode(example.endpoint, repaired)))
        } catch {
            #expect(error.enhancedError.code == "server_response_format_unknown")
        }
    }

    @Test func timestampsAndAttributeValuesOfEveryShapeAreRead() throws {
        let body =
            #"{"profiles":{"TempPass":{"notBefore":"1697718650206","notAfter":1697718710206,"issuer":"Adobe","type":"temporary","attributes":{"expiration_date":{"value":1697718710206,"state":"plain"},"used_assets":{"value":["a","b"],"state":"plain"},"userID":{"value":"x","state":"plain"}}}}}"#
        let profiles = try RequestExecutor.decode(
            ProfilesAnswer.self,
            from: HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(body.utf8)), operation: "profiles"
        ).profiles
        #expect(profiles.count == 1)
        #expect(profiles[0].notBefore == 1_697_718_650_206)
        #expect(profiles[0].attributes["used_assets"]?.value == ["a", "b"])
        #expect(profiles[0].attributes["expiration_date"]?.value == .int(1_697_718_710_206))
        #expect(profiles[0].tokenSource == "Adobe")
    }
}
