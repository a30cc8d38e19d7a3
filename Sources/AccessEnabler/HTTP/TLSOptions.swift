// SPDX-License-Identifier: Apache-2.0
// TLS and proxy settings of the libcurl transport (ae_config version 5), checked at create time.
// Verification is never turned off: these options only choose whom to trust (an operator's CA
// bundle, pinned keys), how old a protocol to accept, and the way out (a proxy).
import CCrypto
import Glibc

/// Whom the transport trusts and how it reaches Adobe.
public struct TLSOptions: Sendable, Equatable {
    /// A PEM file of CA certificates (an operator's bundle); nil: none.
    public var caFile: String?
    /// A directory of CA certificates in OpenSSL's hashed form (`openssl rehash`); nil: none.
    public var caPath: String?
    /// true (default): `caFile` / `caPath` are trusted beside the system's store; false: instead of it.
    public var trustSystemStore = true
    /// SHA-256 SPKI pins in libcurl's format, "sha256//<base64>" each: the server's key must be one
    /// of them (on top of the usual verification). Empty: no pinning.
    public var pinnedPublicKeys: [String] = []
    /// The oldest TLS version accepted.
    public var minimumVersion: TLSVersion = .v1_2
    /// A proxy URL (http://, https://, socks4://, socks4a://, socks5://, socks5h://, with host and port);
    /// nil: none.
    public var proxy: String?
    /// true: without `proxy`, honour the usual environment variables (https_proxy, http_proxy,
    /// all_proxy, no_proxy), as libcurl does. false (default): the environment is ignored.
    public var proxyFromEnvironment = false

    public init() {}

    /// Checks what can be checked before the network: the files exist and hold certificates, the pins
    /// and the proxy are well-formed. The message names the C field.
    package func validate() -> String? {
        if let caFile {
            guard let pem = SystemFile.read(caFile) else {
                return "ca_file \(caFile): cannot be read (\(String(cString: strerror(errno))))"
            }
            let count = Self.certificateCount(pem)
            if count == 0 { return "ca_file \(caFile): no PEM certificate in it" }
        }
        if let caPath {
            var status = stat()
            guard stat(caPath, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, access(caPath, R_OK | X_OK) == 0 else {
                return "ca_path \(caPath): not a readable directory"
            }
        }
        if !trustSystemStore && caFile == nil && caPath == nil {
            return "ca_mode AE_CA_ONLY needs ca_file or ca_path: nothing would be trusted"
        }
        for pin in pinnedPublicKeys where !Self.isPin(pin) {
            return "pinned_public_keys: \"\(pin)\" is not sha256//<base64 of 32 bytes>"
        }
        if let proxy, let problem = Self.checkProxy(proxy) { return "proxy: \(problem)" }
        return nil
    }

    /// The number of PEM certificates libcrypto reads from `pem`.
    package static func certificateCount(_ pem: [UInt8]) -> Int {
        pem.withUnsafeBytes { raw -> Int in
            guard raw.count > 0, raw.count < Int(Int32.max), let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                return 0
            }
            defer { BIO_free(bio) }
            var count = 0
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                X509_free(certificate)
                count += 1
            }
            ERR_clear_error()  // the end of the input reads as an error
            return count
        }
    }

    /// "sha256//" and the Base64 of 32 bytes (44 characters, one "=").
    static func isPin(_ pin: String) -> Bool {
        guard pin.hasPrefix("sha256//") else { return false }
        let encoded = pin.utf8.dropFirst(8)
        let alphabet = { (byte: UInt8) in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
        return encoded.count == 44 && encoded.prefix(43).allSatisfy(alphabet) && encoded.last == UInt8(ascii: "=")
    }

    static let proxySchemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// scheme://host:port (an optional trailing "/"), printable ASCII, no credentials in logs' way.
    static func checkProxy(_ proxy: String) -> String? {
        guard proxy.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "control characters, spaces or non-ASCII" }
        let parts = proxy.split(atFirst: "://")
        guard var rest = parts.after else { return "no scheme (want e.g. http://proxy.example:3128)" }
        let scheme = parts.before.lowercased()
        guard Self.proxySchemes.contains(scheme) else {
            return "scheme \(scheme) is not one of \(Self.proxySchemes.joined(separator: ", "))"
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port),
            colon > rest.startIndex, !rest.contains("/")
        else { return "want scheme://host:port" }
        return nil
    }
}

/// The oldest TLS version a client accepts.
public enum TLSVersion: Int32, Sendable {
    case v1_2 = 0
    case v1_3 = 1
}

/// Why a TLS connection to Adobe failed, as far as libcurl and OpenSSL tell (the `cause` of SEC420).
public struct TLSFailure: Error, Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public enum Cause: String, Sendable {
        case certificateUntrusted = "certificate_untrusted"
        case certificateExpired = "certificate_expired"
        case certificateNotYetValid = "certificate_not_yet_valid"
        case certificateSelfSigned = "certificate_self_signed"
        case hostNameMismatch = "host_name_mismatch"
        case pinnedKeyMismatch = "pinned_key_mismatch"
        case protocolVersion = "tls_version_refused"
        case caFileUnusable = "ca_file_unusable"
        case handshakeFailed = "handshake_failed"

        /// The Enhanced Error Code `action` that fits (Adobe's set: none, configuration,
        /// application-registration, authentication, authorization, retry). A certificate, pin,
        /// protocol or CA problem is not fixed by trying again: `configuration` (issue 28: every
        /// cause said `retry`, and a host that follows `action` retried for ever). Only a handshake
        /// that broke for no named reason (a reset, a host transport's AE_HTTP_E_TLS) is `retry`.
        public var action: String {
            switch self {
            case .handshakeFailed: "retry"
            default: "configuration"
            }
        }

        /// What fixes it, for the message (the option, the clock, the host name).
        public var fix: String {
            switch self {
            case .certificateUntrusted, .certificateSelfSigned:
                "the box does not trust the server's certificate: give the CA that issued it in ae_config.ca_file or "
                    + "ca_path (an operator that re-signs TLS), or check that the host is Adobe's"
            case .certificateExpired, .certificateNotYetValid:
                "check the device's clock (NTP): a certificate is judged on the local time; if the clock is right, "
                    + "the server's certificate is out of its validity"
            case .hostNameMismatch:
                "the certificate is not for the host in the URL: check ae_config.base_url (or the service provider "
                    + "URL), the proxy and DNS"
            case .pinnedKeyMismatch:
                "the server's key is none of ae_config.pinned_public_keys: update the pins (Adobe rotated its key?)"
            case .protocolVersion:
                "the server and the box share no TLS version: check ae_config.min_tls_version and the server's"
            case .caFileUnusable:
                "ae_config.ca_file / ca_path cannot be used: check the files"
            case .handshakeFailed:
                "the TLS handshake did not complete; it may succeed when tried again"
            }
        }
    }

    public var cause: Cause
    public var detail: String

    public init(_ cause: Cause, _ detail: String) {
        self.cause = cause
        self.detail = detail
    }

    /// A host transport's TLS failure (AE_HTTP_E_TLS): the cause is not known.
    public init(stringLiteral detail: String) { self.init(.handshakeFailed, detail) }

    public var description: String { "\(cause.rawValue): \(detail)" }
}
