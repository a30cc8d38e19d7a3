// SPDX-License-Identifier: Apache-2.0

/// The two single sign-on tokens Adobe's REST API takes besides Apple's SSO (docs/PLATFORM-SSO.md):
/// raw values are the header's AE_IDENTITY_TOKEN_*.
public enum IdentityTokenKind: Int32, Sendable, CaseIterable {
    /// A platform identity (JWS or JWE) from the box's platform: `Adobe-Subject-Token`. The second
    /// app of the same subject gets a `platformSSO` profile.
    case platformIdentity = 1
    /// A service token (JWS, RS256) from the programmer's or operator's identity service:
    /// `AD-Service-Token`. Profiles of type `serviceTokenSSO` follow the viewer across devices.
    case service = 2

    /// The request header that carries it (V2, and V1 for the platform identity).
    public var headerName: String {
        switch self {
        case .platformIdentity: "Adobe-Subject-Token"
        case .service: "AD-Service-Token"
        }
    }

    /// The kind an enhanced error refuses, if it is a refusal of an SSO token: `invalid_header_`
    /// codes naming the subject (or Roku) token or the service token. Adobe does not publish these
    /// codes; the emulator answers `invalid_header_subject_token` / `invalid_header_service_token`.
    package init?(refusalCode code: String) {
        guard code.hasPrefix("invalid_header_") else { return nil }
        if code.contains(text: "service_token") {
            self = .service
        } else if code.contains(text: "subject_token") || code.contains(text: "roku") || code.contains(text: "platform_identity") {
            self = .platformIdentity
        } else {
            return nil
        }
    }

    /// The profile type Adobe gives a session this SSO made.
    package var profileType: String {
        switch self {
        case .platformIdentity: "platformSSO"
        case .service: "serviceTokenSSO"
        }
    }
}

/// A token checked before it is ever sent: compact JWS (3 parts) or JWE (5 parts) serialisation,
/// base64url characters only, at most `maxBytes`, an allowed `alg` (never `none`), and for a JWS
/// the claims the SDK needs (`exp`; a service token also `iss`, `sub`, `aud` naming Adobe, `iat`).
/// A JWE's claims are encrypted for Adobe: its expiry is unknown (`expiresAtMillis` nil). The text
/// never reaches a log: `fingerprint` names it there.
package struct IdentityToken: Sendable, Equatable {
    package let kind: IdentityTokenKind
    package let text: String
    /// `exp` in milliseconds since the epoch; nil for a JWE.
    package let expiresAtMillis: Int64?
    /// The first 12 hex digits of the token's SHA-256: what logs and statuses may show.
    package let fingerprint: String

    /// The longest token accepted (Adobe documents none; a JWS with a few claims is under 2 KiB).
    package static let maxBytes = 16 * 1024
    /// The longest `iss`, `sub` accepted.
    package static let maxClaimBytes = 1_024
    /// An `exp` further away than this is refused: no identity token lives a year.
    package static let maxLifetimeMillis: Int64 = 366 * 86_400_000
    /// Clock skew allowed on `iat`.
    package static let skewMillis: Int64 = 300_000
    /// The most Unicode scalars of a token-derived value (the JOSE header's `alg`) a message, a log
    /// line or a status quotes (`quotable`).
    package static let maxQuotedCharacters = 32
    /// Signature algorithms a JWS may use: Adobe verifies service tokens with RS256 only
    /// ("SHA256withRSA"); a platform identity may also be signed with RSA-PSS or ECDSA.
    package static let serviceAlgorithms: Set<String> = ["RS256"]
    package static let platformAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
    ]

    /// Why a token was refused (named in AE_E_INVALID_ARG's message and in the status).
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLarge(bytes: Int)
        case notCompact(parts: Int)
        case badCharacter
        case badHeader(String)
        case algorithmNotAllowed(String)
        case badClaims(String)
        case expired
        case lifetimeTooLong

        package var description: String {
            switch self {
            case .empty: "the token is empty"
            case .tooLarge(let bytes): "the token is \(bytes) bytes (at most \(IdentityToken.maxBytes))"
            case .notCompact(let parts): "not a compact JWS (3 parts) or JWE (5 parts): \(parts) part(s)"
            case .badCharacter: "a character outside base64url and '.'"
            case .badHeader(let why): "its JOSE header \(why)"
            case .algorithmNotAllowed(let alg): "alg \"\(alg)\" is not allowed"
            case .badClaims(let why): "its claims \(why)"
            case .expired: "it has expired (exp)"
            case .lifetimeTooLong: "its exp is more than a year away"
            }
        }
    }

    /// Checks `text` as a token of `kind` at `nowMillis`.
    package static func parse(_ text: String, kind: IdentityTokenKind, nowMillis: Int64) throws(Problem) -> IdentityToken {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes: bytes.count) }
        guard bytes.allSatisfy({ isBase64URL($0) || $0 == UInt8(ascii: ".") }) else { throw .badCharacter }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        guard parts.count == 3 || parts.count == 5 else { throw .notCompact(parts: parts.count) }
        guard let header = decodeObject(parts[0]) else { throw .badHeader("is not base64url JSON") }
        guard let alg = header["alg"]?.stringValue else { throw .badHeader("has no alg") }
        let expires: Int64?
        if parts.count == 5 {
            // JWE: a key-management alg and an enc; the claims are for Adobe's eyes only.
            guard kind == .platformIdentity else { throw .notCompact(parts: 5) }  // Adobe: a service token is a JWS
            guard alg.lowercased() != "none", !alg.isEmpty else { throw .algorithmNotAllowed(quotable(alg)) }
            guard header["enc"]?.stringValue?.isEmpty == false else { throw .badHeader("has no enc") }
            guard !parts[1].isEmpty || alg == "dir", !parts[2].isEmpty, !parts[3].isEmpty, !parts[4].isEmpty else {
                throw .notCompact(parts: 5)
            }
            expires = nil
        } else {
            let allowed = kind == .service ? serviceAlgorithms : platformAlgorithms
            guard allowed.contains(alg) else { throw .algorithmNotAllowed(quotable(alg)) }
            guard !parts[2].isEmpty else { throw .badHeader("has an empty signature") }
            guard let claims = decodeObject(parts[1]) else { throw .badClaims("are not base64url JSON") }
            expires = try checkClaims(claims, kind: kind, nowMillis: nowMillis)
        }
        return IdentityToken(
            kind: kind, text: text, expiresAtMillis: expires, fingerprint: String(Digest.sha256Hex(text).prefix(12)))
    }

    /// A value decoded from a token (anyone may have written it) as a message, a log line or a
    /// status may quote it: control characters (C0, DEL, C1) and the Unicode line and paragraph
    /// separators dropped, at most `maxQuotedCharacters` Unicode scalars (then "…").
    package static func quotable(_ value: String) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in value.unicodeScalars {
            let code = scalar.value
            if code < 0x20 || (0x7F...0x9F).contains(code) || code == 0x2028 || code == 0x2029 { continue }
            guard count < maxQuotedCharacters else { return String(kept) + "…" }
            kept.append(scalar)
            count += 1
        }
        return String(kept)
    }

    /// True when the token is past `exp` at `nowMillis` (minus `marginMillis`): not to be sent.
    package func isExpired(at nowMillis: Int64, marginMillis: Int64 = 0) -> Bool {
        guard let expiresAtMillis else { return false }
        return nowMillis + marginMillis >= expiresAtMillis
    }

    private static func checkClaims(_ claims: [String: JSONValue], kind: IdentityTokenKind, nowMillis: Int64)
        throws(Problem) -> Int64
    {
        guard let exp = seconds(claims["exp"]) else { throw .badClaims("have no numeric exp") }
        let expMillis = exp * 1_000
        guard expMillis > nowMillis else { throw .expired }
        guard expMillis - nowMillis <= maxLifetimeMillis else { throw .lifetimeTooLong }
        if let iat = claims["iat"] {
            guard let issued = seconds(iat) else { throw .badClaims("have a non-numeric iat") }
            guard issued * 1_000 <= nowMillis + skewMillis else { throw .badClaims("were issued in the future (iat)") }
        }
        for name in ["iss", "sub"] {
            if let value = claims[name] {
                guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= maxClaimBytes else {
                    throw .badClaims("have an unusable \(name)")
                }
            }
        }
        guard kind == .service else { return expMillis }
        // Adobe: iss, sub, aud ("Adobe"), iat and exp.
        for name in ["iss", "sub", "iat"] where claims[name] == nil { throw .badClaims("have no \(name)") }
        let audience: [String]
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        case .array(let many)?: audience = many.compactMap(\.stringValue)
        default: throw .badClaims("have no aud")
        }
        // Adobe's header page says "Adobe", its example token has "adobe": either case (ASCII only),
        // as the emulator compares (Emulator/README.md, strictness).
        guard audience.contains(where: namesAdobe) else { throw .badClaims("do not name Adobe in aud") }
        return expMillis
    }

    /// A NumericDate as whole seconds (a fraction is dropped), within a range that cannot overflow
    /// milliseconds.
    private static func seconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let whole)?: return (0..<1_000_000_000_000).contains(whole) ? whole : nil
        case .double(let number)?: return number.isFinite && number >= 0 && number < 1e12 ? Int64(number) : nil
        default: return nil  // a string is not a NumericDate (RFC 7519)
        }
    }

    /// "Adobe" in any ASCII case.
    private static func namesAdobe(_ audience: String) -> Bool {
        audience.utf8.count == 5 && audience.utf8.allSatisfy { $0 < 0x80 } && audience.lowercased() == "adobe"
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// base64url (no padding) → a JSON object, or nil.
    private static func decodeObject(_ part: [UInt8]) -> [String: JSONValue]? {
        guard !part.isEmpty, part.count <= maxBytes else { return nil }
        guard let bytes = Base64.decodeURL(part), case .object(let object)? = try? JSON.parse(bytes)
        else { return nil }
        return object
    }
}
