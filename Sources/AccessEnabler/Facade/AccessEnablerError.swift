// SPDX-License-Identifier: Apache-2.0
import CAccessEnabler

/// Why a call was refused at once (no callback follows): its `kind`, and a message that says what was wrong.
public struct AccessEnablerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of refusal, one per status code of the header (`AE_E_*`). The numbers are the header's
    /// alone: `code` maps a kind to its `AE_E_*` value.
    public enum Kind: Sendable, Equatable, CaseIterable {
        case invalidArgument, invalidHandle, unsupportedVersion, noRequestor, storage, insecureURL, internalError, storeKey
        /// Too many calls wait for setRequestor (or the partner status) to complete (AE_MAX_QUEUED_CALLS).
        case queueFull
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The header's `AE_E_*` value of `kind` (what the C functions return for it).
    public var code: Int32 { kind.code }

    /// An error from a header's `AE_E_*` value; a value of no kind is `internalError`.
    @available(*, deprecated, message: "use init(_:message:) with a Kind")
    public init(code: Int32, message: String) {
        self.init(Kind(code: code) ?? .internalError, message: message)
    }

    public static func invalidArgument(_ message: String) -> Self { .init(.invalidArgument, message: message) }
    public static func invalidHandle(_ message: String = "the client was destroyed") -> Self { .init(.invalidHandle, message: message) }
    public static func unsupportedVersion(_ message: String) -> Self { .init(.unsupportedVersion, message: message) }
    public static func noRequestor(_ message: String = "setRequestor has not completed successfully") -> Self {
        .init(.noRequestor, message: message)
    }
    public static func storage(_ message: String) -> Self { .init(.storage, message: message) }
    public static func insecureURL(_ message: String) -> Self { .init(.insecureURL, message: message) }
    public static func internalError(_ message: String) -> Self { .init(.internalError, message: message) }
    /// The store's records are sealed under another key, or sealed and no key was given.
    public static func storeKey(_ message: String) -> Self { .init(.storeKey, message: message) }
    /// Too many calls wait for setRequestor (or the partner status) to complete (AE_MAX_QUEUED_CALLS).
    public static func queueFull(_ message: String) -> Self { .init(.queueFull, message: message) }

    public var description: String { message }
}

extension AccessEnablerError.Kind {
    /// The header's status code of this kind: the one place a kind meets its number. The names are checked
    /// against Include/accessenabler.h by the compiler, and a kind without its `AE_E_*` here does not compile.
    public var code: Int32 {
        switch self {
        case .invalidArgument: Int32(AE_E_INVALID_ARG)
        case .invalidHandle: Int32(AE_E_INVALID_HANDLE)
        case .unsupportedVersion: Int32(AE_E_UNSUPPORTED_VERSION)
        case .noRequestor: Int32(AE_E_NO_REQUESTOR)
        case .storage: Int32(AE_E_STORAGE)
        case .insecureURL: Int32(AE_E_INSECURE_URL)
        case .internalError: Int32(AE_E_INTERNAL)
        case .storeKey: Int32(AE_E_STORE_KEY)
        case .queueFull: Int32(AE_E_QUEUE_FULL)
        }
    }

    /// The kind of a header's `AE_E_*` value; nil for AE_OK and for values this library does not know.
    public init?(code: Int32) {
        guard let kind = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = kind
    }
}
