// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// The decisions answer is read straight from Jansson's nodes (JSONNodeDecodable, the per-call
/// path); everything else goes through JSONValueDecoder. The two must agree on every answer: the
/// same values, or the same error (kind and coding path), so the named errors of a malformed
/// answer do not depend on which reader ran.
@Suite struct DecisionNodeTests {
    static let answers: [String] = [
        #"{"decisions":[]}"#,
        #"{"decisions":[{"resource":"LIVE","serviceProvider":"REF","mvpd":"Cable","source":"MVPD","authorized":true,"token":{"issuedAt":1,"notBefore":1,"notAfter":1700000000000,"serializedToken":"PHNpZ25hdHVyZUluZm8+"},"notBefore":1,"notAfter":"1700000000000"}]}"#,
        #"{"decisions":[{"resource":"A","authorized":false,"error":{"status":403,"code":"authorization_denied_by_mvpd","message":"no","action":"none"}},{"resource":"B","authorized":true,"mvpd":null,"token":null,"notAfter":null}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":1.7e12}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":99999999999999999999999}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":-5}]}"#,
        // Malformed: every one must fail alike.
        #"{}"#,
        #"[]"#,
        #"{"decisions":{}}"#,
        #"{"decisions":null}"#,
        #"{"decisions":[1]}"#,
        #"{"decisions":[{"authorized":true}]}"#,
        #"{"decisions":[{"resource":7,"authorized":true}]}"#,
        #"{"decisions":[{"resource":"A"}]}"#,
        #"{"decisions":[{"resource":"A","authorized":"true"}]}"#,
        #"{"decisions":[{"resource":"A","authorized":1}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"mvpd":3}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":"soon"}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":1.5}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"notAfter":true}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"token":{}}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"token":[]}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"token":{"serializedToken":1}}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true,"token":{"serializedToken":"x","notAfter":{}}}]}"#,
        #"{"decisions":[{"resource":"A","authorized":false,"error":"denied"}]}"#,
        #"{"decisions":[{"resource":"A","authorized":false,"error":{"status":"x"}}]}"#,
        #"{"decisions":[{"resource":"A","authorized":true}],"decisions":[]}"#,
        #"{"decisions":[{"resource":"A","authorized":true}"#,
        "not json",
    ]

    /// A decision as text, every field (the models are not Equatable).
    static func summary(_ answer: DecisionsAnswer) -> String {
        answer.decisions.map { d in
            let token = d.token.map { "\($0.serializedToken)@\($0.notAfter.map(String.init) ?? "-")" } ?? "-"
            let error = d.error.map { "\($0.status)/\($0.code)/\($0.message ?? "-")" } ?? "-"
            return
                "\(d.resource)|\(d.mvpd ?? "-")|\(d.source ?? "-")|\(d.authorized)|\(token)|\(d.notAfter.map(String.init) ?? "-")|\(error)"
        }.joined(separator: ";")
    }

    /// An error as its kind and coding path (what ServiceError.malformed names).
    static func summary(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context): return "keyNotFound \(path(context)) \(key.stringValue)"
        case .typeMismatch(_, let context): return "typeMismatch \(path(context)) \(context.debugDescription)"
        case .valueNotFound(_, let context): return "valueNotFound \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted \(path(context)) \(context.debugDescription)"
        default: return "other \(error)"
        }
    }

    static func outcome(_ read: () throws -> DecisionsAnswer) -> String {
        do { return "ok " + summary(try read()) } catch { return summary(error) }
    }

    @Test(arguments: answers) func theNodeReaderAgreesWithTheDecoder(_ text: String) throws {
        let bytes = Array(text.utf8)
        let direct = Self.outcome { try JSON.decode(DecisionsAnswer.self, from: bytes) }
        let decoder = Self.outcome {
            let tree: JSONValue
            do throws(JSON.ParseError) { tree = try JSON.parse(bytes) } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
            }
            return try JSONValueDecoder.decode(DecisionsAnswer.self, from: tree)
        }
        #expect(direct == decoder)
    }

    @Test func theValuesAreRead() throws {
        let answer = try JSON.decode(DecisionsAnswer.self, from: Array(Self.answers[1].utf8))
        let decision = try #require(answer.decisions.first)
        #expect(decision.resource == "LIVE" && decision.mvpd == "Cable" && decision.source == "MVPD" && decision.authorized)
        #expect(decision.token?.serializedToken == "PHNpZ25hdHVyZUluZm8+" && decision.token?.notAfter == 1_700_000_000_000)
        #expect(decision.notAfter == 1_700_000_000_000)
    }
}
