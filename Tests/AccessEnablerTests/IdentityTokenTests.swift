// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

/// IdentityToken.parse: the checks made before a single sign-on token is ever sent.
@Suite struct IdentityTokenTests {
    static let now: Int64 = 1_800_000_000_000

    static func b64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func jws(header: String = #"{"alg":"RS256"}"#, claims: String, signature: String = "c2ln") -> String {
        "\(b64url(header)).\(b64url(claims)).\(signature)"
    }

    static let exp = now / 1_000 + 3_600
    static let service = #"{"iss":"idp","sub":"u1","aud":"Adobe","iat":\#(now / 1_000),"exp":\#(exp)}"#

    @Test func aServiceTokenWithAdobesClaimsIsAcceptedWithItsExpiry() throws {
        let token = try IdentityToken.parse(Self.jws(claims: Self.service), kind: .service, nowMillis: Self.now)
        #expect(token.expiresAtMillis == Self.exp * 1_000)
        #expect(token.fingerprint.count == 12)
        #expect(!token.isExpired(at: Self.now) && token.isExpired(at: Self.exp * 1_000))
        // aud may be an array that names Adobe.
        let array = Self.service.replacingOccurrences(of: #""aud":"Adobe""#, with: #""aud":["x","Adobe"]"#)
        #expect(throws: Never.self) { try IdentityToken.parse(Self.jws(claims: array), kind: .service, nowMillis: Self.now) }
    }

    @Test func eachProblemIsNamed() {
        let cases: [(String, IdentityTokenKind, IdentityToken.Problem)] = [
            ("", .service, .empty),
            (Self.jws(header: #"{"alg":"none"}"#, claims: Self.service), .service, .algorithmNotAllowed("none")),
            (Self.jws(header: #"{"alg":"HS256"}"#, claims: Self.service), .service, .algorithmNotAllowed("HS256")),
            (Self.jws(header: #"{"alg":"ES256"}"#, claims: Self.service), .service, .algorithmNotAllowed("ES256")),
            (Self.jws(claims: Self.service, signature: ""), .service, .badHeader("has an empty signature")),
            (Self.jws(claims: #"{"sub":"u","exp":1}"#), .platformIdentity, .expired),
            (Self.jws(claims: #"{"sub":"u","exp":\#(Self.exp + 400 * 86_400)}"#), .platformIdentity, .lifetimeTooLong),
            (Self.jws(claims: #"{"sub":"u"}"#), .platformIdentity, .badClaims("have no numeric exp")),
            (Self.jws(claims: #"{"exp":"\#(Self.exp)"}"#), .platformIdentity, .badClaims("have no numeric exp")),
            (Self.jws(claims: #"{"exp":1e300}"#), .platformIdentity, .badClaims("have no numeric exp")),
            ("a.b", .platformIdentity, .notCompact(parts: 2)),
            ("a.b.c.d", .platformIdentity, .notCompact(parts: 4)),
            ("a.b.c\r\n", .platformIdentity, .badCharacter),
            (String(repeating: "a", count: IdentityToken.maxBytes + 1), .platformIdentity, .tooLarge(bytes: IdentityToken.maxBytes + 1)),
        ]
        for (text, kind, problem) in cases {
            #expect(throws: problem, "\(problem)") { try IdentityToken.parse(text, kind: kind, nowMillis: Self.now) }
        }
    }

    @Test func aJWEIsAPlatformTokenWhoseExpiryIsUnknown() throws {
        let jwe = "\(Self.b64url(#"{"alg":"RSA-OAEP-256","enc":"A256GCM"}"#)).a2V5.aXY.Y2lwaGVy.dGFn"
        let token = try IdentityToken.parse(jwe, kind: .platformIdentity, nowMillis: Self.now)
        #expect(token.expiresAtMillis == nil && !token.isExpired(at: .max))
        #expect(throws: IdentityToken.Problem.notCompact(parts: 5)) {
            try IdentityToken.parse(jwe, kind: .service, nowMillis: Self.now)
        }
    }

    @Test func theHeadersSkipAnExpiredToken() throws {
        var context = DeviceContext(deviceID: "d", deviceInfo: "e30=")
        context.identityTokens[.service] = try IdentityToken.parse(
            Self.jws(claims: Self.service), kind: .service, nowMillis: Self.now)
        #expect(context.identityHeaders(IdentityTokenKind.allCases, nowMillis: Self.now).map(\.name) == ["AD-Service-Token"])
        #expect(context.identityHeaders(IdentityTokenKind.allCases, nowMillis: Self.exp * 1_000).isEmpty)
        #expect(context.identityHeaders([.platformIdentity], nowMillis: Self.now).isEmpty)
    }

    /// The decoded `alg` is anyone's text: a message, a log line or the SSO400 status quotes at
    /// most 32 scalars of it, without control characters.
    @Test func aLongAlgWithANewlineIsQuotedBoundedAndWithoutControlCharacters() throws {
        let alg = #"RS256\nX-Injected: 1\r\u0085\u2028"# + String(repeating: "x", count: 500)
        let token = Self.jws(header: #"{"alg":"\#(alg)"}"#, claims: Self.service)
        for kind in IdentityTokenKind.allCases {
            do {
                _ = try IdentityToken.parse(token, kind: kind, nowMillis: Self.now)
                Issue.record("alg accepted")
            } catch {
                guard case .algorithmNotAllowed(let quoted) = error else {
                    Issue.record("not an alg problem: \(error)")
                    continue
                }
                #expect(quoted == "RS256X-Injected: 1" + String(repeating: "x", count: 14) + "…")
                for text in [error.description, StatusCatalog.identityUnusable(kind, error).message] {
                    #expect(!text.containsControlCharacter && !text.contains("\u{2028}"), "\(text.debugDescription)")
                    #expect(text.count < 200)
                }
            }
        }
        #expect(IdentityToken.quotable("none") == "none" && IdentityToken.quotable("a\u{0}b\u{7F}c\u{9B}d") == "abcd")
    }

    /// Adobe's header page says aud "Adobe", its example token has "adobe": both are taken (the
    /// emulator compares the same way); another audience is not.
    @Test func theServiceTokenAudienceNamesAdobeInAnyASCIICase() {
        for audience in ["Adobe", "adobe", "ADOBE", #"["x","adobe"]"#] {
            let value = audience.hasPrefix("[") ? audience : "\"\(audience)\""
            let claims = Self.service.replacingOccurrences(of: #""aud":"Adobe""#, with: #""aud":"# + value)
            #expect(throws: Never.self, "\(audience)") {
                try IdentityToken.parse(Self.jws(claims: claims), kind: .service, nowMillis: Self.now)
            }
        }
        for audience in ["Adobe ", "adobe.com", "Ad\u{f6}be", "x"] {
            let claims = Self.service.replacingOccurrences(of: #""aud":"Adobe""#, with: #""aud":""# + audience + "\"")
            #expect(throws: IdentityToken.Problem.badClaims("do not name Adobe in aud"), "\(audience)") {
                try IdentityToken.parse(Self.jws(claims: claims), kind: .service, nowMillis: Self.now)
            }
        }
    }
}
