// SPDX-License-Identifier: Apache-2.0
// fuzzIdentityToken: IdentityToken.parse, the check every single sign-on token passes before it is
// sent (ae_set_identity_token, ae_identity_request_reply, Swift setIdentityToken), on raw
// text and on tokens built in the compact JWS/JWE shapes with every header and claim at its limits.
import FoundationEssentials
import AccessEnabler

/// Input: byte 0: bit 0 the kind (0 platform identity, 1 service token), bit 1 structured (else the
/// rest is the token's text, invalid UTF-8 replaced); structured: bytes 1–7 select `alg`, the JOSE
/// header's other members, `exp`, `iat`, `aud`, `iss`/`sub` (`FuzzTokens`' lists; all 0: a valid
/// token of either kind), and the shape (bits 0–2: parts; 3–5: one damage: padding, `+`, CR LF,
/// non-ASCII, a space, a size of 16 KiB or just over); the rest is an extra claim's text. The lists
/// are append-only (the seeds name their indexes).
///
/// Checks: nothing traps; the same text gives the same answer twice; an accepted token is at most
/// 16 KiB of base64url and dots in 3 parts (or 5: a platform JWE), its `alg` (decoded here) one Adobe
/// takes (service: RS256; never `none`), a JWS's `exp` after now and at most 366 days away, a service
/// token's `aud` naming Adobe (any ASCII case), its fingerprint 12 lowercase hex digits; a service
/// token accepted is accepted as a platform token too; a token with a byte outside base64url and `.`,
/// or over 16 KiB, or with `alg` none, is refused; a refusal's text (and the SSO400 status made of it)
/// has no control character, is short, and quotes no 33-character run of the token.
public func fuzzIdentityToken(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    var input = FuzzInput(data)
    let flags = input.byte()
    let kind: IdentityTokenKind = flags & 1 == 0 ? .platformIdentity : .service
    let text: String
    if flags & 2 == 0 {
        text = String(decoding: input.rest(), as: UTF8.self)
    } else {
        var spec = [UInt8]()
        for _ in 0..<7 { spec.append(input.byte()) }
        text = FuzzTokens.structured(spec, extra: String(decoding: input.rest(), as: UTF8.self))
    }
    try IdentityTokenFuzz.check(text, kind: kind)
}

enum IdentityTokenFuzz {
    /// A fixed now (2027-01-15): the seeds' times stay meaningful run after run.
    static let now: Int64 = 1_800_000_000_000

    static func check(_ text: String, kind: IdentityTokenKind) throws(FuzzFailure) {
        let first = Result { () throws(IdentityToken.Problem) in try IdentityToken.parse(text, kind: kind, nowMillis: now) }
        let second = Result { () throws(IdentityToken.Problem) in try IdentityToken.parse(text, kind: kind, nowMillis: now) }
        try AccessEnablerFuzz.check(first == second, "two parses of the same token differ: \(first) / \(second)")
        let bytes = Array(text.utf8)
        let alphabet = bytes.allSatisfy { FuzzTokens.isBase64URL($0) || $0 == UInt8(ascii: ".") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let header = parts.first.flatMap(FuzzTokens.decodeObject)
        let alg = header?["alg"]?.stringValue
        switch first {
        case .success(let token):
            try AccessEnablerFuzz.check(bytes.count <= 16 * 1024, "accepted a token of \(bytes.count) bytes")
            try AccessEnablerFuzz.check(alphabet, "accepted a token with a byte outside base64url and '.'")
            try AccessEnablerFuzz.check(
                parts.count == 3 || (parts.count == 5 && kind == .platformIdentity), "accepted \(parts.count) parts as \(kind)")
            try AccessEnablerFuzz.check(alg != nil && alg?.lowercased() != "none", "accepted alg \(String(describing: alg))")
            if kind == .service { try AccessEnablerFuzz.check(alg == "RS256", "accepted a service token with alg \(alg ?? "-")") }
            try AccessEnablerFuzz.check(
                token.fingerprint.count == 12 && token.fingerprint.allSatisfy { "0123456789abcdef".contains($0) },
                "fingerprint \(token.fingerprint)")
            try AccessEnablerFuzz.check(token.text == text && token.kind == kind, "the token does not hold its text and kind")
            if parts.count == 3 {
                guard let expires = token.expiresAtMillis else { throw FuzzFailure("an accepted JWS without an expiry") }
                try AccessEnablerFuzz.check(
                    expires > now && expires - now <= 366 * 86_400_000 && !token.isExpired(at: now), "accepted exp \(expires) at \(now)")
                let claims = FuzzTokens.decodeObject(parts[1])
                if kind == .service {
                    let audience: [JSONValue] = claims?["aud"].map { $0.arrayValue ?? [$0] } ?? []
                    try AccessEnablerFuzz.check(
                        audience.contains { FuzzTokens.namesAdobe($0.stringValue) },
                        "accepted a service token whose aud does not name Adobe: \(String(describing: claims?["aud"]))")
                    try AccessEnablerFuzz.check(
                        (try? IdentityToken.parse(text, kind: .platformIdentity, nowMillis: now)) != nil,
                        "a service token accepted is refused as a platform token")
                }
            }
        case .failure(let problem):
            let said = [problem.description, StatusCatalog.identityUnusable(kind, problem).message]
            for line in said {
                try AccessEnablerFuzz.check(
                    !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" },
                    "a refusal's text has a control character: \(line.debugDescription)")
                try AccessEnablerFuzz.check(line.count <= 300, "a refusal's text of \(line.count) characters")
                for part in parts where part.count >= 33 {
                    try AccessEnablerFuzz.check(!line.contains(part), "a refusal quotes the token: \(line.prefix(120).debugDescription)")
                }
            }
        }
    }
}

/// Compact JWS/JWE text (placeholder signatures: the SDK never verifies them; Adobe does).
enum FuzzTokens {
    static func b64url(_ bytes: [UInt8]) -> String {
        String(
            Data(bytes).base64EncodedString().compactMap { character -> Character? in
                switch character {
                case "+": "-"
                case "/": "_"
                case "=": nil
                default: character
                }
            })
    }

    static func b64url(_ text: String) -> String { b64url(Array(text.utf8)) }

    static let signature = b64url([UInt8](repeating: 0xA5, count: 64))

    static func jws(_ header: String, _ claims: String, signature: String = signature) -> String {
        "\(b64url(header)).\(b64url(claims)).\(signature)"
    }

    static func jwe(_ header: String, key: String = b64url("encrypted key")) -> String {
        "\(b64url(header)).\(key).\(b64url("iv-12-bytes!")).\(b64url("ciphertext")).\(b64url("tag-16-bytes...."))"
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// A base64url part as a JSON object (nil: not one).
    static func decodeObject(_ part: String) -> [String: JSONValue]? {
        guard part.utf8.allSatisfy(isBase64URL) else { return nil }
        var base64 = String(part.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return JSONValue.parse(String(decoding: data, as: UTF8.self))?.objectValue
    }

    /// "Adobe" in some ASCII case (Adobe's header page says "Adobe", its example has "adobe").
    static func namesAdobe(_ value: String?) -> Bool {
        guard let value, value.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        return value.lowercased() == "adobe"
    }

    // MARK: Structured tokens

    static let nowSeconds = IdentityTokenFuzz.now / 1_000
    static let long = String(repeating: "x", count: 300)

    /// JSON texts of `alg` (nil: absent).
    static let algs: [String?] = [
        "\"RS256\"", "\"ES256\"", "\"PS512\"", "\"RS384\"", "\"none\"", "\"NONE\"", "\"nOnE\"", "\"\"", "\"HS256\"",
        "\"RSA-OAEP-256\"", "\"dir\"", "\"RS256\\nX-Injected: 1\\r\\u0085\(long)\"", "\"RS256\\u0000\"", "\"\\u202eRS256\"",
        nil, "1", "null", "[\"RS256\"]",
    ]
    /// Other members of the JOSE header.
    static let headerExtras = [
        "", ",\"typ\":\"JWT\"", ",\"enc\":\"A256GCM\"", ",\"enc\":\"\"", ",\"enc\":7", ",\"crit\":[\"exp\"]",
        ",\"kid\":\"\(String(repeating: "k", count: 2_000))\"", ",\"alg\":\"none\"",
    ]
    /// JSON texts of a NumericDate around now and at every extreme (nil: absent).
    static let times: [String?] = [
        "\(nowSeconds + 3_600)", "\(nowSeconds - 1)", "\(nowSeconds)", "\(nowSeconds + 1)", "\(nowSeconds + 366 * 86_400)",
        "\(nowSeconds + 366 * 86_400 + 1)", "\(nowSeconds + 30)", "0", "-1", "2147483648", "9007199254740993",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616", "1e300", "-1e300",
        "1e12", "999999999999", "\(nowSeconds + 3_600).5", "NaN", "Infinity", "-0", "\"\(nowSeconds + 3_600)\"", "null",
        "true", "[]", nil,
    ]
    /// JSON texts of `iat` (nil: absent; the first is now).
    static let issued: [String?] = [
        "\(nowSeconds)", nil, "\(nowSeconds + 299)", "\(nowSeconds + 301)", "0", "-1", "1e300", "\"x\"", "NaN",
        "9223372036854775807", "-9223372036854775808", "\(nowSeconds).5", "null",
    ]
    /// JSON texts of `aud` (nil: absent).
    static let audiences: [String?] = [
        "\"Adobe\"", "\"adobe\"", "\"ADOBE\"", "\"Ad\\u00f6be\"", "\"Adobe \"", "[\"x\",\"Adobe\"]", "[]", "42", "null", nil,
        "\"Ad\\u0000obe\"", "[\"adobe\"]", "[1,\"Adobe\"]", "\"\\u0041dobe\"",
    ]
    /// JSON texts of `iss` and `sub` (nil: absent).
    static let subjects: [(String?, String?)] = [
        ("\"https://id.operator.example\"", "\"subscriber-42\""), ("\"\"", "\"u\""), ("\"idp\"", "\"\""),
        ("\"\(String(repeating: "i", count: 1_024))\"", "\"u\""), ("\"idp\"", "\"\(String(repeating: "s", count: 1_025))\""),
        ("7", "\"u\""), (nil, "\"u\""), ("\"idp\"", nil), ("\"a\\r\\nb\"", "\"u\\u0085\""), (nil, nil),
    ]

    /// A token from the selectors (see fuzzIdentityToken); `extra` goes in as one more claim.
    static func structured(_ spec: [UInt8], extra: String) -> String {
        func pick<T>(_ list: [T], _ byte: UInt8) -> T { list[Int(byte) % list.count] }
        var header = "{\"typ\":\"JWT\""
        if let alg = pick(algs, spec[0]) { header += ",\"alg\":\(alg)" }
        header += pick(headerExtras, spec[1]) + "}"
        var claims: [String] = []
        if let exp = pick(times, spec[2]) { claims.append("\"exp\":\(exp)") }
        if let iat = pick(issued, spec[3]) { claims.append("\"iat\":\(iat)") }
        if let aud = pick(audiences, spec[4]) { claims.append("\"aud\":\(aud)") }
        let (iss, sub) = pick(subjects, spec[5])
        if let iss { claims.append("\"iss\":\(iss)") }
        if let sub { claims.append("\"sub\":\(sub)") }
        if !extra.isEmpty { claims.append("\"x\":\(JText.quote(extra))") }
        let shape = spec[6] & 7
        let damage = spec[6] >> 3 & 7
        func build(_ claims: [String]) -> String {
            let body = "{" + claims.joined(separator: ",") + "}"
            switch shape {
            case 1: return jwe(header)
            case 2: return jwe(header, key: "")
            case 3: return "\(b64url(header)).\(b64url(body))"
            case 4: return jws(header, body) + "." + signature
            case 5: return jws(header, body) + ".a.b.c"
            case 6: return jws(header, body, signature: "")
            case 7: return "\(b64url("{not json")).\(b64url(body)).\(signature)"
            default: return jws(header, body)
            }
        }
        var token = build(claims)
        switch damage {
        case 1: token += "=="
        case 2: token = insert("+", into: token)
        case 3: token = insert("\r\n", into: token)
        case 4: token = insert("\u{e9}", into: token)
        case 5: token = insert(" ", into: token)
        case 6, 7:
            // Padded with one more claim to exactly 16 KiB (damage 6), or one byte more (7): the
            // closest length the Base64 steps reach on the side asked for.
            let target = 16 * 1024 + (damage == 7 ? 1 : 0)
            var best = token
            let start = max(0, (target - token.utf8.count) * 3 / 4 - 4)
            for length in start..<(start + 8) {
                let padded = build(claims + ["\"pad\":\"\(String(repeating: "p", count: length))\""])
                let fits = damage == 6 ? padded.utf8.count <= target : padded.utf8.count >= target
                if fits && (best == token || abs(padded.utf8.count - target) < abs(best.utf8.count - target)) { best = padded }
            }
            token = best
        default: break
        }
        return token
    }

    static func insert(_ text: String, into token: String) -> String {
        let middle = token.index(token.startIndex, offsetBy: token.count / 2)
        return String(token[..<middle]) + text + String(token[middle...])
    }
}
