// SPDX-License-Identifier: Apache-2.0

/// Percent-encoding and Base64 helpers for URLs, form bodies and Adobe's headers.
package enum Encoding {
    /// RFC 3986 unreserved characters stay; everything else is percent-encoded (UTF-8).
    static func percentEncode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let hexDigits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One path segment: percent-encoded, and a segment that is exactly `.` or `..` written `%2E` /
    /// `%2E%2E` (URL normalisation would squash the plain form into another endpoint). Ids the host
    /// gives are refused before (Settings.checkPathSegment); this covers ids from Adobe's answers.
    static func pathSegment(_ text: String) -> String {
        switch text {
        case ".": "%2E"
        case "..": "%2E%2E"
        default: percentEncode(text)
        }
    }

    /// `application/x-www-form-urlencoded` body or query string, in the given order.
    static func form(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    /// Decodes `%XX` and `+` of a query component; nil on a malformed escape or invalid UTF-8.
    static func percentDecode(_ text: String) -> String? {
        var out = [UInt8]()
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
                else { return nil }
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Query parameters of a URL (`?a=1&b=2#frag`), decoded; later duplicates win.
    static func queryParameters(of url: String) -> [String: String] {
        guard let start = url.firstIndex(of: "?") else { return [:] }
        let query = url[url.index(after: start)...].split(separator: "#", maxSplits: 1).first ?? ""
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecode(String(parts[0])) else { continue }
            result[name] = parts.count > 1 ? percentDecode(String(parts[1])) ?? "" : ""
        }
        return result
    }

    static func base64(_ text: String) -> String { Base64.encode(text.utf8) }
}

extension StringProtocol {
    /// True when the text holds a control character (Unicode general category Cc: C0, DEL, C1), which
    /// no id, option or header value the SDK sends may carry (CR/LF would split a header).
    package var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}

extension String {
    /// Without surrounding spaces (Adobe echoes resources; a documented answer has one).
    package var trimmedSpaces: String { String(self[...].trimmingSpaces()) }
}
