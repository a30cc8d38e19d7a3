// SPDX-License-Identifier: Apache-2.0
import CCrypto

/// Message digests from the system's libcrypto.
package enum Digest {
    package static func sha256Hex(_ text: String) -> String { hex(digest(Array(text.utf8), EVP_sha256())) }
    package static func md5Hex(_ text: String) -> String { hex(digest(Array(text.utf8), EVP_md5())) }

    private static func digest(_ bytes: [UInt8], _ type: OpaquePointer?) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &out, &length, type, nil)
        }
        return ok == 1 ? Array(out.prefix(Int(length))) : []
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Cryptographically random bytes (RAND_bytes), for generated ids.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        return bytes
    }
}
