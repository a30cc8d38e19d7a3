// SPDX-License-Identifier: Apache-2.0
internal import CCrypto

/// Base64 (RFC 4648 §4, padded) and base64url (§5, unpadded) through libcrypto's
/// EVP_EncodeBlock / EVP_DecodeBlock. Decoding is strict, as Foundation's was: only the alphabet,
/// no whitespace, padding only at the end, a whole number of quanta.
package enum Base64 {
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        guard !input.isEmpty else { return "" }
        var text = [UInt8]()
        text.reserveCapacity((input.count + 2) / 3 * 4)
        // EVP_EncodeBlock takes an int: whole chunks of 3 bytes keep the pieces joinable.
        let chunk = 3 << 20
        var start = 0
        while start < input.count {
            let end = min(start + chunk, input.count)
            var out = [UInt8](repeating: 0, count: (end - start + 2) / 3 * 4 + 1)
            let written = input[start..<end].withUnsafeBufferPointer { EVP_EncodeBlock(&out, $0.baseAddress, Int32($0.count)) }
            text += out.prefix(Int(max(written, 0)))
            start = end
        }
        return String(decoding: text, as: UTF8.self)
    }

    package static func encode(_ text: String) -> String { encode(text.utf8) }

    /// The bytes of padded Base64 text; nil when it is not exactly that.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? { decode(bytes: Array(text.utf8)) }

    /// The bytes of unpadded base64url text (JWS, JWE); nil when it is not exactly that.
    package static func decodeURL(_ text: some Collection<UInt8>) -> [UInt8]? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): return nil
            default: bytes.append(byte)
            }
        }
        guard bytes.count % 4 != 1 else { return nil }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        return decode(bytes: bytes)
    }

    static func decode(bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count % 4 == 0, bytes.count < Int(Int32.max) else { return nil }
        guard !bytes.isEmpty else { return [] }
        let padding = bytes.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2, bytes.dropLast(padding).allSatisfy(isAlphabet) else { return nil }
        var out = [UInt8](repeating: 0, count: bytes.count / 4 * 3)
        let written = bytes.withUnsafeBufferPointer { EVP_DecodeBlock(&out, $0.baseAddress, Int32($0.count)) }
        guard written >= 0, Int(written) == out.count else { return nil }
        return Array(out.prefix(out.count - padding))
    }

    /// A character of the standard alphabet (`A–Z a–z 0–9 + /`), padding excluded.
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default: false
        }
    }
}
