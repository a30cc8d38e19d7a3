// SPDX-License-Identifier: Apache-2.0

// The errors of the async calls (`AsyncAccessEnabler`) when a flow ends in failure. A call refused
// at once throws `AccessEnablerError`, as the callback API does; a client shut down while a call
// waits throws `AccessEnablerError` of kind `.invalidHandle`; a cancelled task, `CancellationError`.

/// setRequestor ended with `setRequestorComplete(0)`.
public struct RequestorError: Error, Sendable, Equatable, CustomStringConvertible {
    public let requestorID: String
    /// The advanced status that named the error (R400, CFG404, SEC420, ...), when there was one.
    public let status: AdvancedStatus?

    public var description: String {
        "setRequestor(\(requestorID)) failed" + (status.map { ": \($0.errorID) \($0.message)" } ?? "")
    }
}

/// getAuthentication ended with `setAuthenticationStatus(0, errorCode)`.
public struct AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One of `AccessEnablerErrorCode` (`providerNotSelected` when the viewer cancelled,
    /// `genericAuthentication` when the code expired or Adobe refused, ...).
    public let errorCode: String
    /// The advanced status that named the error (N005, N130, REG500, ...), when there was one.
    public let status: AdvancedStatus?

    public var description: String { "getAuthentication failed: \(errorCode)" + (status.map { " (\($0.errorID))" } ?? "") }
}

/// checkAuthorization / getAuthorization ended with `tokenRequestFailed`.
public struct AuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let resource: String
    /// One of `AccessEnablerErrorCode` (`userNotAuthorized`, `userNotAuthenticated`, `genericAuthorization`).
    public let errorCode: String
    /// The MVPD's or Adobe's message ("" if none).
    public let errorDescription: String
    /// The advanced status that named the error (Z100, Z120, N000, ...), when there was one.
    public let status: AdvancedStatus?

    public var description: String {
        "authorization of \(resource) failed: \(errorCode)" + (errorDescription.isEmpty ? "" : " (\(errorDescription))")
    }
}

/// The code of a second-screen login (the `REGCODE` advanced status), for the host to show.
public struct RegistrationCode: Sendable, Hashable {
    /// What the viewer types on the activation page.
    public var code: String
    /// The absolute URL that logs in with this code: show it, or a QR code of it.
    public var url: String
    /// The programmer's own activation site (`Settings.activationURL`), when configured.
    public var activationURL: String?
    /// When the code expires, in milliseconds since the Unix epoch.
    public var notAfter: Int64
    /// The MVPD the login is for.
    public var mvpdID: String?

    /// Reads a REGCODE status; nil for any other status.
    public init?(_ status: AdvancedStatus) {
        guard status.errorID == "REGCODE", let code = status.extras["code"]?.stringValue,
            let url = status.extras["url"]?.stringValue
        else { return nil }
        self.code = code
        self.url = url
        activationURL = status.extras["activationUrl"]?.stringValue
        notAfter = status.extras["notAfter"]?.int64Value ?? 0
        mvpdID = status.extras["mvpd"]?.stringValue
    }
}
