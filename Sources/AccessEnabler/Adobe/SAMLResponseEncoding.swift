// SPDX-License-Identifier: Apache-2.0

/// The SAMLResponse clean-up and encoding of Adobe's Apple SSO cookbooks (their Swift snippet),
/// step by step:
///   1. every run of ASCII spaces and tabs becomes one space (`[ \t]+` → " ");
///   2. split on `CharacterSet.newlines` (LF, CR, VT, FF, NEL, U+2028, U+2029), join with nothing;
///   3. trim whitespace and newlines at both ends;
///   4. Base64, without line breaks;
///   5. percent-encode exactly `!*'();:@&=+$,/?%#[]`, once.
/// The result is the `SAMLResponse` form value as is: it is never form-encoded again.
package enum SAMLResponseEncoding {
    static let newlines: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
    static let reserved = Set("!*'();:@&=+$,/?%#[]".unicodeScalars)

    /// Steps 1–3.
    package static func clean(_ text: String) -> String {
        var collapsed = String.UnicodeScalarView()
        var inRun = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" {
                if !inRun { collapsed.append(" ") }
                inRun = true
            } else {
                inRun = false
                if !newlines.contains(scalar) { collapsed.append(scalar) }
            }
        }
        // Step 2 after step 1: a run split by a newline (" \n\t") leaves two spaces, as in the snippet.
        var scalars = Array(collapsed)
        while let first = scalars.first, isTrimmed(first) { scalars.removeFirst() }
        while let last = scalars.last, isTrimmed(last) { scalars.removeLast() }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// CharacterSet.whitespacesAndNewlines: Unicode White_Space (spaces, tabs, newlines, NBSP, ...).
    private static func isTrimmed(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }

    /// Steps 1–5.
    package static func encode(_ text: String) -> String {
        let base64 = Base64.encode(clean(text).utf8)
        var out = ""
        out.reserveCapacity(base64.count + 8)
        for scalar in base64.unicodeScalars {
            if reserved.contains(scalar) {
                out += "%" + String(scalar.value, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
