// SPDX-License-Identifier: Apache-2.0
// fuzzStructVersions: the versioned structs' initialisers and readers with any version number,
// 0 and UInt32.max included, and any bytes after a struct of an earlier version.
import CAccessEnabler
import AccessEnabler
import AccessEnablerCABI

/// Input: byte 0 picks the struct (config, delegate, partner framework, HTTP transport, identity provider); bytes 1-4
/// are the version (UInt32, little-endian); the rest fills the bytes after the struct's version
/// (what a host of an older header has there: anything).
///
/// Checks: `ae_*_init(p, v)` returns AE_OK exactly for 1...current and then writes that version's
/// bytes (the version, then zeros) and nothing past them; any other version is
/// AE_E_UNSUPPORTED_VERSION with no byte written; NULL is AE_E_INVALID_ARG. `ae_client_create` with
/// the struct at that version accepts it whatever the bytes after it hold (they are never read),
/// and refuses a version it does not know without creating a client.
public func fuzzStructVersions(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    var input = FuzzInput(data)
    let kind = input.pick(StructVersionsFuzz.Kind.allCases)
    let version = (0..<4).reduce(UInt32(0)) { value, shift in value | UInt32(input.byte()) << (8 * UInt32(shift)) }
    let after = input.rest()
    try StructVersionsFuzz.initialise(kind, version, after)
    try StructVersionsFuzz.create(kind, version, after)
}

enum StructVersionsFuzz {
    static let ok = Int32(AE_OK), invalidArg = Int32(AE_E_INVALID_ARG), unsupported = Int32(AE_E_UNSUPPORTED_VERSION)

    enum Kind: CaseIterable {
        case config, delegate, partner, transport, identity

        /// The bytes of each version (offset of the first field the next version added; the whole
        /// struct for the current one): the library's own history, `Layouts` (one home).
        var spans: [Int] {
            switch self {
            case .config: Layouts.config.spans
            case .delegate: Layouts.delegate.spans
            case .partner: Layouts.partner.spans
            case .transport: Layouts.transport.spans
            case .identity: Layouts.identity.spans
            }
        }

        var current: UInt32 {
            switch self {
            case .config: UInt32(AE_CONFIG_VERSION)
            case .delegate: UInt32(AE_DELEGATE_VERSION)
            case .partner: UInt32(AE_PARTNER_FRAMEWORK_VERSION)
            case .transport: UInt32(AE_HTTP_TRANSPORT_VERSION)
            case .identity: UInt32(AE_IDENTITY_PROVIDER_VERSION)
            }
        }

        func initialise(_ pointer: UnsafeMutableRawPointer?, _ version: UInt32) -> Int32 {
            switch self {
            case .config: ae_config_init(pointer?.assumingMemoryBound(to: ae_config.self), version)
            case .delegate: ae_delegate_init(pointer?.assumingMemoryBound(to: ae_delegate.self), version)
            case .partner: ae_partner_framework_init(pointer?.assumingMemoryBound(to: ae_partner_framework.self), version)
            case .transport: ae_http_transport_init(pointer?.assumingMemoryBound(to: ae_http_transport.self), version)
            case .identity: ae_identity_provider_init(pointer?.assumingMemoryBound(to: ae_identity_provider.self), version)
            }
        }
    }

    static let guardBytes = 64

    /// The bytes of `version` (the current struct's size for a version the library refuses).
    static func span(_ kind: Kind, _ version: UInt32) -> Int {
        (1...kind.current).contains(version) ? kind.spans[Int(version) - 1] : kind.spans.last!
    }

    static func initialise(_ kind: Kind, _ version: UInt32, _ after: [UInt8]) throws(FuzzFailure) {
        let span = span(kind, version)
        // The struct's bytes, then guard bytes: both start as the input's bytes.
        var bytes = (0..<(span + guardBytes)).map { after.isEmpty ? UInt8(0xA5) : after[$0 % after.count] }
        let before = bytes
        let status = bytes.withUnsafeMutableBytes { kind.initialise($0.baseAddress, version) }
        let known = (1...kind.current).contains(version)
        try check(status == (known ? ok : unsupported), "\(kind) init v\(version): status \(status)")
        if known {
            let stored = bytes.withUnsafeBytes { $0.load(as: UInt32.self) }
            try check(stored == version, "\(kind) init v\(version): version \(stored) stored")
            try check(bytes[4..<span].allSatisfy { $0 == 0 }, "\(kind) init v\(version): a field is not 0 / NULL")
            try check(bytes[span...] == before[span...], "\(kind) init v\(version): wrote past the version's \(span) bytes")
        } else {
            try check(bytes == before, "\(kind) init v\(version): refused but wrote")
            _ = ae_last_error_message().map { ae_string_free($0) }
        }
        try check(kind.initialise(nil, version) == invalidArg, "\(kind) init(NULL, \(version))")
        _ = ae_last_error_message().map { ae_string_free($0) }
    }

    /// ae_client_create with the struct at `version`, the input's bytes after it.
    static func create(_ kind: Kind, _ version: UInt32, _ after: [UInt8]) throws(FuzzFailure) {
        let known = (1...kind.current).contains(version)
        let span = span(kind, version)
        var block = [UInt8](repeating: 0, count: span + guardBytes)
        for index in span..<block.count { block[index] = after.isEmpty ? 0xFF : after[(index - span) % after.count] }
        // withUnsafeMutableBytes is rethrows (untyped): the typed failure is carried out.
        var failure: FuzzFailure?
        block.withUnsafeMutableBytes { raw in
            do throws(FuzzFailure) {
                guard known else {
                    raw.storeBytes(of: version, as: UInt32.self)
                    return try expectCreate(kind, raw.baseAddress!, status: unsupported)
                }
                _ = kind.initialise(raw.baseAddress, version)
                // The required callbacks of the partner framework and the transport (never
                // called: no call is made on the client).
                switch kind {
                case .partner:
                    let partner = raw.baseAddress!.assumingMemoryBound(to: ae_partner_framework.self)
                    partner.pointee.check_access_status = { _, _, _ in }
                    partner.pointee.enqueue_metadata_request = { _, _, _ in }
                case .transport:
                    raw.baseAddress!.assumingMemoryBound(to: ae_http_transport.self).pointee.send = { _, _, _, _, _, _, _, _ in }
                case .identity:
                    raw.baseAddress!.assumingMemoryBound(to: ae_identity_provider.self).pointee.request_token = { _, _, _, _ in }
                case .config, .delegate: break
                }
                try expectCreate(kind, raw.baseAddress!, status: ok)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// ae_client_create with `block` as the struct of `kind` (the other structs current and valid).
    private static func expectCreate(_ kind: Kind, _ block: UnsafeMutableRawPointer, status expected: Int32) throws(FuzzFailure) {
        var config = ae_config()
        ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
        var delegate = ae_delegate()
        ae_delegate_init(&delegate, UInt32(AE_DELEGATE_VERSION))
        let (status, made) = withUnsafeMutablePointer(to: &config) { ownConfig in
            withUnsafeMutablePointer(to: &delegate) { ownDelegate in
                "fuzz.software.statement".withCString { statement in
                    "struct-versions".withCString { device -> (Int32, Bool) in
                        let host = kind == .config ? block.assumingMemoryBound(to: ae_config.self) : ownConfig
                        host.pointee.software_statement = statement
                        host.pointee.device_id = device
                        if kind == .partner {
                            host.pointee.partner = UnsafePointer(block.assumingMemoryBound(to: ae_partner_framework.self))
                        }
                        if kind == .transport {
                            host.pointee.transport = UnsafePointer(block.assumingMemoryBound(to: ae_http_transport.self))
                        }
                        if kind == .identity {
                            host.pointee.identity = UnsafePointer(block.assumingMemoryBound(to: ae_identity_provider.self))
                        }
                        let table = kind == .delegate ? block.assumingMemoryBound(to: ae_delegate.self) : ownDelegate
                        var client: OpaquePointer?
                        let status = ae_client_create(host, table, &client)
                        ae_client_destroy(client)
                        return (status, client != nil)
                    }
                }
            }
        }
        try check(status == expected, "\(kind): ae_client_create returned \(status), want \(expected)")
        try check(made == (expected == ok), "\(kind): ae_client_create \(made ? "made" : "did not make") a client")
        if status != ok { _ = ae_last_error_message().map { ae_string_free($0) } }
    }
}
