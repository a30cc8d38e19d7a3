// SPDX-License-Identifier: Apache-2.0
// Strings across the boundary: checked input, owned output, the per-thread last error message.
import CAccessEnabler
import AccessEnabler
import Glibc

/// Reading the host's arguments: bounded (strnlen), UTF-8-checked, JSON-checked.
enum CInput {
    static let maxLength = Int(AE_MAX_STRING_LENGTH)

    static func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(AccessEnablerError) -> String {
        guard let pointer else { throw .invalidArgument("\(name) is NULL") }
        return try text(pointer, name)
    }

    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(AccessEnablerError) -> String? {
        guard let pointer else { return nil }
        return try text(pointer, name)
    }

    private static func text(_ pointer: UnsafePointer<CChar>, _ name: String) throws(AccessEnablerError) -> String {
        let length = strnlen(pointer, maxLength + 1)
        guard length <= maxLength else { throw .invalidArgument("\(name) is longer than \(maxLength) bytes") }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidArgument("\(name) is not valid UTF-8")
        }
        return text
    }

    static func json(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(AccessEnablerError) -> JSONValue {
        let text = try string(pointer, name)
        guard let value = JSONValue.parse(text) else { throw .invalidArgument("\(name) is not valid JSON") }
        return value
    }

    static func optionalJSON(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(AccessEnablerError) -> JSONValue? {
        guard pointer != nil else { return nil }
        return try json(pointer, name)
    }

    static func stringArray(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(AccessEnablerError) -> [String] {
        guard let array = try json(pointer, name).arrayValue else { throw .invalidArgument("\(name) must be a JSON array") }
        let strings = array.compactMap(\.stringValue)
        guard strings.count == array.count else { throw .invalidArgument("\(name) must hold strings only") }
        return strings
    }
}

/// The message of the last failed call, per thread (ae_last_error_message).
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    static func set(_ message: String?) {
        let old = pthread_getspecific(key)
        if old == nil && message == nil { return }
        free(old)
        pthread_setspecific(key, message.flatMap { strdup($0) })
    }

    static func copy() -> UnsafeMutablePointer<CChar>? {
        guard let message = pthread_getspecific(key) else { return nil }
        return strdup(message.assumingMemoryBound(to: CChar.self))
    }
}

/// Runs a call body and turns its outcome into a status code (and the thread's last error).
func status(_ body: () throws(AccessEnablerError) -> Void) -> Int32 {
    do {
        try body()
        LastError.set(nil)
        return Int32(AE_OK)
    } catch {
        LastError.set(error.message)
        return error.kind.code  // the header's AE_E_* of the kind (AccessEnablerError.Kind.code)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_version_string")
#endif
public func ae_version_string() -> UnsafePointer<CChar>? { versionString }

nonisolated(unsafe) private let versionString: UnsafePointer<CChar> = UnsafePointer(strdup(Version.string)!)

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_version_number")
#endif
public func ae_version_number() -> Int32 { Version.number }

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_status_string")
#endif
public func ae_status_string(_ status: Int32) -> UnsafePointer<CChar>? {
    if status == Int32(AE_OK) { return StaticText.ok }
    guard let kind = AccessEnablerError.Kind(code: status) else { return StaticText.unknown }
    switch kind {
    case .invalidArgument: return StaticText.invalidArgument
    case .invalidHandle: return StaticText.invalidHandle
    case .unsupportedVersion: return StaticText.unsupportedVersion
    case .noRequestor: return StaticText.noRequestor
    case .storage: return StaticText.storage
    case .insecureURL: return StaticText.insecureURL
    case .internalError: return StaticText.internalError
    case .storeKey: return StaticText.storeKey
    case .queueFull: return StaticText.queueFull
    }
}

/// Static strings (allocated once, never freed).
private enum StaticText {
    static func make(_ text: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(text)!) }
    nonisolated(unsafe) static let ok = make("ok")
    nonisolated(unsafe) static let invalidArgument = make("invalid argument")
    nonisolated(unsafe) static let invalidHandle = make("invalid or destroyed client handle")
    nonisolated(unsafe) static let unsupportedVersion = make("unsupported struct version")
    nonisolated(unsafe) static let noRequestor = make("setRequestor has not completed successfully")
    nonisolated(unsafe) static let storage = make("the token store cannot be opened or written")
    nonisolated(unsafe) static let insecureURL = make("plain http is allowed for loopback addresses only")
    nonisolated(unsafe) static let internalError = make("internal error")
    nonisolated(unsafe) static let storeKey = make("the store is sealed under another key, or sealed and no key was given")
    nonisolated(unsafe) static let queueFull = make("too many calls are waiting for setRequestor to complete")
    nonisolated(unsafe) static let unknown = make("unknown status")
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_last_error_message")
#endif
public func ae_last_error_message() -> UnsafeMutablePointer<CChar>? { LastError.copy() }

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_string_free")
#endif
public func ae_string_free(_ string: UnsafeMutablePointer<CChar>?) { free(string) }
