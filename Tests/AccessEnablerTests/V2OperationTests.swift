// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

/// The V2 catalogue (V2Operation) against Adobe's OpenAPI file (Emulator/openapi/restApiV2.json):
/// every operation the SDK calls is there with the same operationId, method and path, carries
/// only headers the file lists for it (but the configuration's device headers: docs/DECISIONS.md)
/// and every header the file requires, with its content type; and a request built from the
/// catalogue routes back to its operation (what the in-memory Adobe and the fuzzer's router use).
@Suite struct V2OperationTests {
    nonisolated(unsafe) static let spec: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Emulator/openapi/restApiV2.json")
        let data = try! Data(contentsOf: url)
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }()

    /// The OpenAPI operation of `operation` (its method under its path).
    static func specOperation(_ operation: V2Operation) -> [String: Any]? {
        let paths = spec["paths"] as? [String: Any]
        return (paths?[operation.path] as? [String: Any])?[operation.method.lowercased()] as? [String: Any]
    }

    /// The header parameters the file lists for `operation`: name (lowercased) -> required.
    static func specHeaders(_ operation: [String: Any]) -> [String: Bool] {
        var headers: [String: Bool] = [:]
        for parameter in operation["parameters"] as? [[String: Any]] ?? [] where parameter["in"] as? String == "header" {
            headers[(parameter["name"] as! String).lowercased()] = parameter["required"] as? Bool ?? false
        }
        return headers
    }

    /// Every header the SDK may send with `operation` (all values present).
    static func sentHeaders(_ operation: V2Operation) throws -> Set<String> {
        var context = DeviceContext(deviceID: "device-1", deviceInfo: "e30=", visitorID: "visitor")
        let now = IdentityTokenTests.now
        context.identityTokens[.service] = try IdentityToken.parse(
            IdentityTokenTests.jws(claims: IdentityTokenTests.service), kind: .service, nowMillis: now)
        let jwe = "\(IdentityTokenTests.b64url(#"{"alg":"RSA-OAEP-256","enc":"A256GCM"}"#)).a2V5.aXY.Y2lwaGVy.dGFn"
        context.identityTokens[.platformIdentity] = try IdentityToken.parse(jwe, kind: .platformIdentity, nowMillis: now)
        let request = V2Request(operation, ["x"], partnerStatus: "status", tempPassIdentity: "identity")
        return Set(request.headers(token: "t", context: context, nowMillis: now).map { $0.name.lowercased() })
    }

    @Test(arguments: V2Operation.allCases)
    func isInAdobesFileAsTheCatalogueSays(_ operation: V2Operation) throws {
        let spec = try #require(Self.specOperation(operation), "\(operation.method) \(operation.path) is not in the file")
        #expect(spec["operationId"] as? String == operation.operationID)
        let listed = Self.specHeaders(spec)
        var sent = try Self.sentHeaders(operation)
        if operation == .configuration {
            // The V2 cookbook's device headers on every call (docs/DECISIONS.md): not in the file.
            #expect(sent.isSuperset(of: ["ap-device-identifier", "x-device-info"]))
            sent.subtract(["ap-device-identifier", "x-device-info"])
        }
        let unlisted = sent.subtracting(listed.keys).subtracting(["content-type"])
        #expect(unlisted.isEmpty, "sent but not listed: \(unlisted.sorted())")
        let required = Set(listed.filter { $0.value }.keys).subtracting(["user-agent"])  // libcurl's own
        #expect(required.isSubset(of: sent), "required but not sent: \(required.subtracting(sent).sorted())")
        let content = (spec["requestBody"] as? [String: Any])?["content"] as? [String: Any]
        let media = operation.contentType.map { String($0.split(separator: ";")[0]) }
        #expect(content.map { Set($0.keys) } == media.map { [$0] }, "content type")
    }

    @Test(arguments: V2Operation.allCases)
    func aRequestRoutesBackToItsOperation(_ operation: V2Operation) throws {
        let parameters = operation.path.split(separator: "/").filter { $0.hasPrefix("{") }.dropFirst().map {
            "p-\($0.dropFirst().dropLast())"
        }
        let url = V2Request(operation, parameters, query: [("q", "1")]).url(baseURL: "https://sp.example", requestor: "REF30")
        let path = String(url.dropFirst("https://sp.example".count).split(separator: "?")[0])
        let match = try #require(V2Operation.match(method: operation.method, path: path))
        #expect(match.operation == operation)
        #expect(match.parameters["serviceProvider"] == "REF30")
        for name in parameters { #expect(match.parameters[String(name.dropFirst(2))] == name) }
    }

    @Test func noTwoOperationsShareAMethodAndPathButSessionsStatus() {
        let keys = V2Operation.allCases.map { "\($0.method) \($0.path)" }
        #expect(Set(keys).count == keys.count)
        #expect(V2Operation.match(method: "PUT", path: "/api/v2/REF30/profiles") == nil)
        #expect(V2Operation.match(method: "GET", path: "/api/v1/REF30/profiles") == nil)
    }
}
