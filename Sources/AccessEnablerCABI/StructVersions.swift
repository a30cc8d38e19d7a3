// SPDX-License-Identifier: Apache-2.0
// The public structs' versions, the libgit2 way: a host states the version it was compiled with
// (the struct's first field, set by ae_*_init or AE_*_INIT); the library reads and writes only
// the bytes that version has, gives every later field its default (0 / NULL), accepts every
// version from 1 to its own, and refuses 0 and newer ones without touching the host's memory.
// docs/ABI.md has the rules for adding a field.
package import CAccessEnabler
import AccessEnabler

/// The layout history of one public struct: how many bytes each version spans.
package struct StructVersions<Layout> {
    /// The struct's C name, for messages.
    let name: String
    /// `spans[v - 1]`: the bytes version v has, from the start to the first field version v + 1
    /// added (so a host's older, shorter struct holds them all, its tail padding included); the
    /// current version spans the whole struct. (The struct-versions fuzz target reads them too.)
    package let spans: [Int]
    /// The function or macro that sets a host's struct up, for messages.
    private let initializer: String

    /// `firstFields[i]` is the first field version i + 2 added (oldest first): a new version of
    /// the struct appends its first field's key path here and bumps the header's version macro.
    init(_ name: String, current: UInt32, firstFields: [PartialKeyPath<Layout>]) {
        self.name = name
        self.initializer = "\(name)_init(&value, \(name.uppercased())_VERSION) or \(name.uppercased())_INIT"
        self.spans = firstFields.map { MemoryLayout<Layout>.offset(of: $0)! } + [MemoryLayout<Layout>.size]
        precondition(spans.count == Int(current), "\(name): \(spans.count) layouts for version \(current)")
        precondition(spans == spans.sorted(), "\(name): the fields of a later version come after the earlier ones")
    }

    package var current: UInt32 { UInt32(spans.count) }

    /// The bytes of `version`, or the refusal naming both versions (0: never initialised; newer:
    /// a host compiled against a newer header than this library's).
    func span(of version: UInt32) throws(AccessEnablerError) -> Int {
        switch version {
        case 1...current: return spans[Int(version) - 1]
        case 0:
            throw .unsupportedVersion("\(name) version is 0: set it up with \(initializer) (this library knows 1...\(current))")
        default:
            throw .unsupportedVersion(
                "\(name) version \(version) is newer than this library's \(current): the host was compiled against "
                    + "a newer accessenabler.h than the library it runs with (this library knows 1...\(current))")
        }
    }

    /// ae_*_init: `version`'s fields set to 0 / NULL (the defaults) and `version` stored; no byte
    /// past that version's fields is written, and nothing at all when `version` is refused.
    func initialize(_ pointer: UnsafeMutablePointer<Layout>?, version: UInt32) throws(AccessEnablerError) {
        guard let pointer else { throw .invalidArgument("\(name) is NULL") }
        let span = try span(of: version)
        let bytes = UnsafeMutableRawBufferPointer(start: pointer, count: span)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.storeBytes(of: version, as: UInt32.self)
    }

    /// The host's struct as a whole current one: its version's bytes, then 0 / NULL for every
    /// field it does not have (nothing past them is read).
    func copy(_ pointer: UnsafePointer<Layout>) throws(AccessEnablerError) -> Layout {
        let span = try span(of: UnsafeRawPointer(pointer).load(as: UInt32.self))
        return withUnsafeTemporaryAllocation(byteCount: MemoryLayout<Layout>.size, alignment: MemoryLayout<Layout>.alignment) { bytes in
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            bytes.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: span))
            return bytes.load(as: Layout.self)
        }
    }
}

/// Every public struct's history (a version's first field; see StructVersions.init).
package enum Layouts {
    package static let config = StructVersions<ae_config>(
        "ae_config", current: UInt32(AE_CONFIG_VERSION),
        firstFields: [\.partner, \.callback_mode, \.store_key, \.ca_file, \.identity])
    package static let delegate = StructVersions<ae_delegate>("ae_delegate", current: UInt32(AE_DELEGATE_VERSION), firstFields: [])
    package static let partner = StructVersions<ae_partner_framework>(
        "ae_partner_framework", current: UInt32(AE_PARTNER_FRAMEWORK_VERSION),
        firstFields: [\.cancel_request])
    package static let identity = StructVersions<ae_identity_provider>(
        "ae_identity_provider", current: UInt32(AE_IDENTITY_PROVIDER_VERSION), firstFields: [])
    package static let transport = StructVersions<ae_http_transport>(
        "ae_http_transport", current: UInt32(AE_HTTP_TRANSPORT_VERSION), firstFields: [])
}
