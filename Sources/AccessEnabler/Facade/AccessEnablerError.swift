// SPDX-License-Identifier: Apache-2.0

/// Why a call was refused at once (no callback follows). `code` is the header's AE_E_* value.
public struct AccessEnablerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public static func invalidArgument(_ message: String) -> Self { .init(code: 1, message: message) }
    public static func invalidHandle(_ message: String = "the client was destroyed") -> Self { .init(code: 2, message: message) }
    public static func unsupportedVersion(_ message: String) -> Self { .init(code: 3, message: message) }
    public static func noRequestor(_ message: String = "setRequestor has not completed successfully") -> Self {
        .init(code: 4, message: message)
    }
    public static func storage(_ message: String) -> Self { .init(code: 5, message: message) }
    public static func insecureURL(_ message: String) -> Self { .init(code: 6, message: message) }
    public static func internalError(_ message: String) -> Self { .init(code: 7, message: message) }
    /// The store's records are sealed under another key, or sealed and no key was given.
    public static func storeKey(_ message: String) -> Self { .init(code: 8, message: message) }
    /// Too many calls wait for setRequestor (or the partner status) to complete (AE_MAX_QUEUED_CALLS).
    public static func queueFull(_ message: String) -> Self { .init(code: 9, message: message) }

    public var description: String { message }
}
