// SPDX-License-Identifier: Apache-2.0
import CCrypto

/// Seals the store's secrets (client secret, access token, profiles with their attributes) with
/// AES-256-GCM from the system's libcrypto, under a key the host gives in `ae_config`.
///
/// A sealed value is the text `ae-gcm1:` + Base64(nonce (12 random bytes) ‖ ciphertext ‖ tag
/// (16 bytes)). The associated data names the record (table, app, API and row key), so a sealed
/// value copied into another row or another app's record does not open.
///
/// The key is copied into memory of its own (`SecretBytes`), wiped when the last copy of the
/// sealer is released (the store closes).
package struct Sealer: Sendable {
    package static let keyLength = 32
    static let prefix = "ae-gcm1:"
    private static let nonceLength = 12
    private static let tagLength = 16

    private let key: SecretBytes

    /// nil unless `key` is exactly 32 bytes. The bytes are copied: the caller wipes its own
    /// (`wipe`) when it no longer needs them.
    package init?(key: [UInt8]) {
        guard key.count == Self.keyLength else { return nil }
        self.key = SecretBytes(key)
    }

    /// Overwrites `bytes` with zeros in place (OPENSSL_cleanse, which the compiler cannot drop),
    /// when the array's storage is its own; an array that shares its storage with other copies
    /// gets a new, zeroed storage, and the shared one is left as it is (Swift's copy on write).
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    static func isSealed(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// The sealed text of `plaintext`, bound to `context`; nil only if libcrypto fails.
    func seal(_ plaintext: String, context: String) -> String? {
        let nonce = Digest.randomBytes(Self.nonceLength)
        let input = Array(plaintext.utf8)
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        guard let cipher = Cipher(key: key.pointer, nonce: nonce, aad: Array(context.utf8), encrypt: true),
            let written = cipher.update(input, into: &output), cipher.finish(), cipher.tag(into: &tag)
        else { return nil }
        return Self.prefix + Base64.encode(nonce + output.prefix(written) + tag)
    }

    /// The plaintext of a sealed text, or nil when it is not sealed, was sealed under another key
    /// or for another record, or was altered.
    func open(_ sealed: String, context: String) -> String? {
        guard Self.isSealed(sealed),
            let bytes = Base64.decode(sealed.dropFirst(Self.prefix.count)),
            bytes.count >= Self.nonceLength + Self.tagLength
        else { return nil }
        let nonce = Array(bytes.prefix(Self.nonceLength))
        let tag = Array(bytes.suffix(Self.tagLength))
        let body = Array(bytes[Self.nonceLength..<(bytes.count - Self.tagLength)])
        var output = [UInt8](repeating: 0, count: body.count + 16)
        guard let cipher = Cipher(key: key.pointer, nonce: nonce, aad: Array(context.utf8), encrypt: false),
            let written = cipher.update(body, into: &output), cipher.setTag(tag), cipher.finish()
        else { return nil }
        return String(validating: output.prefix(written), as: UTF8.self)
    }

    /// One EVP_CIPHER_CTX for one seal or open.
    private final class Cipher {
        private let context: OpaquePointer
        private let encrypt: Bool

        init?(key: UnsafePointer<UInt8>, nonce: [UInt8], aad: [UInt8], encrypt: Bool) {
            guard let context = EVP_CIPHER_CTX_new() else { return nil }
            self.context = context
            self.encrypt = encrypt
            let ready =
                encrypt
                ? EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
                : EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
            guard ready == 1 else { return nil }
            var length: Int32 = 0
            let added = aad.withUnsafeBufferPointer { aad in
                encrypt
                    ? EVP_EncryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count))
                    : EVP_DecryptUpdate(context, nil, &length, aad.baseAddress, Int32(aad.count))
            }
            guard added == 1 else { return nil }
        }

        deinit { EVP_CIPHER_CTX_free(context) }

        func update(_ input: [UInt8], into output: inout [UInt8]) -> Int? {
            var length: Int32 = 0
            let ok =
                encrypt
                ? EVP_EncryptUpdate(context, &output, &length, input, Int32(input.count))
                : EVP_DecryptUpdate(context, &output, &length, input, Int32(input.count))
            return ok == 1 ? Int(length) : nil
        }

        /// Ends the operation; when opening, fails unless the tag matches.
        func finish() -> Bool {
            var scratch = [UInt8](repeating: 0, count: 32)
            var length: Int32 = 0
            return
                (encrypt
                ? EVP_EncryptFinal_ex(context, &scratch, &length)
                : EVP_DecryptFinal_ex(context, &scratch, &length)) == 1
        }

        func tag(into tag: inout [UInt8]) -> Bool {
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), &tag) == 1
        }

        func setTag(_ tag: [UInt8]) -> Bool {
            var copy = tag
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(copy.count), &copy) == 1
        }
    }
}

/// Key bytes in an allocation of their own, never copied by Swift, wiped (OPENSSL_cleanse) and
/// freed when the last reference goes. Immutable after init, hence Sendable.
private final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<UInt8>
    private let count: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(from: bytes, count: count)
    }

    var pointer: UnsafePointer<UInt8> { UnsafePointer(storage) }

    deinit {
        OPENSSL_cleanse(storage, count)
        storage.deallocate()
    }
}
