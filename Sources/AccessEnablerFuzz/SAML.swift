// SPDX-License-Identifier: Apache-2.0
// fuzzSAML: the SAMLResponse clean-up and encoding of the partner (Apple SSO) flow, and the
// simulated platform's reading of a Base64 SAML request.
import FoundationEssentials
import AccessEnabler
import AccessEnablerTesting

/// Input: the whole input is the SAML text a partner framework returns (invalid UTF-8 is
/// replaced, as a String from the host would be).
///
/// Checks (the cookbook's steps, see SAMLResponseEncoding):
/// - clean: no tab and no newline (LF, CR, VT, FF, NEL, U+2028, U+2029) remains; no White_Space
///   at either end; apart from blanks and newlines, the output is a contiguous run of the
///   input's other scalars (all of them when the input has no other White_Space); two spaces
///   in a row only where the input had a newline between blanks.
/// - encode: only Base64 letters and digits plus %2B %2F %3D; undoing the percent-encoding and
///   the Base64 gives clean's output back.
/// - SimulatedSAML.requestID(ofBase64:): a non-empty id that occurs in the decoded text.
public func fuzzSAML(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    let text = String(decoding: data, as: UTF8.self)
    try SAMLFuzz.checkClean(text)
    try SAMLFuzz.checkEncode(text)
    try SAMLFuzz.checkRequestID(text)
    try SAMLFuzz.checkRequestID(Data(data).base64EncodedString())
    // The simulator's own answer, built around an untrusted request id, survives the clean-up
    // (one input in eight: the answer is 2 KB of text, which would dominate the run time).
    if data.count % 8 == 0 {
        let response = SimulatedSAML.response(requestID: text, providerID: "Cablevision", attributeNames: ["uid", "zip"])
        try SAMLFuzz.checkEncode(response)
    }
}

enum SAMLFuzz {
    static let newlines: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]

    /// The scalars that are neither blanks nor newlines.
    static func solid(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { $0 != " " && $0 != "\t" && !newlines.contains($0) }
    }

    static func checkClean(_ text: String) throws(FuzzFailure) {
        let clean = SAMLResponseEncoding.clean(text)
        let scalars = Array(clean.unicodeScalars)
        try check(!scalars.contains { $0 == "\t" || newlines.contains($0) }, "clean output keeps a tab or a newline")
        if let first = scalars.first, let last = scalars.last {
            try check(!first.properties.isWhitespace && !last.properties.isWhitespace, "clean output is not trimmed")
        }
        try check(scalars.count <= text.unicodeScalars.count, "clean output is longer than its input")
        let input = solid(text)
        let output = solid(clean)
        let hasOtherWhitespace = input.contains { $0.properties.isWhitespace }
        if hasOtherWhitespace {
            try check(containsRun(input, output), "clean output is not a run of the input's scalars")
        } else {
            try check(input == output, "clean changed or dropped scalars that are neither blanks nor newlines")
        }
        if !text.unicodeScalars.contains(where: newlines.contains) {
            try check(!clean.contains("  "), "two spaces remain although the input has no newline")
        }
    }

    static func checkEncode(_ text: String) throws(FuzzFailure) {
        let encoded = SAMLResponseEncoding.encode(text)
        var base64 = ""
        var scalars = encoded.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "%" {
                let escape = String(String.UnicodeScalarView(scalars.prefix(2)))
                scalars = scalars.dropFirst(2)
                switch escape {
                case "2B": base64 += "+"
                case "2F": base64 += "/"
                case "3D": base64 += "="
                default: throw FuzzFailure("encode produced %\(escape)")
                }
            } else {
                try check(
                    ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar),
                    "encode produced \(scalar.escaped(asASCII: true))")
                base64.unicodeScalars.append(scalar)
            }
        }
        guard let decoded = Data(base64Encoded: base64) else { throw FuzzFailure("encode output is not Base64") }
        try check(Array(decoded) == Array(SAMLResponseEncoding.clean(text).utf8), "encode does not decode to clean's output")
    }

    static func checkRequestID(_ token: String) throws(FuzzFailure) {
        guard let id = SimulatedSAML.requestID(ofBase64: token) else { return }
        try check(!id.isEmpty, "empty request id")
        let decoded = Data(base64Encoded: token.filter { !$0.isWhitespace }).map { String(decoding: $0, as: UTF8.self) }
        try check(decoded?.contains(id) == true, "request id \(id) is not in the request")
    }

    /// Whether `part` occurs in `whole` as a contiguous run.
    static func containsRun(_ whole: [Unicode.Scalar], _ part: [Unicode.Scalar]) -> Bool {
        if part.isEmpty { return true }
        guard part.count <= whole.count else { return false }
        for start in 0...(whole.count - part.count) where whole[start] == part[0] {
            if whole[start..<(start + part.count)].elementsEqual(part) { return true }
        }
        return false
    }
}
