// SPDX-License-Identifier: Apache-2.0

/// The viewer's permission for this app to use the platform's TV-provider account
/// (VSAccountAccessStatus; raw values are the header's AE_PARTNER_ACCESS_*).
public enum PartnerAccessStatus: Int32, Sendable {
    case notDetermined = 0, restricted = 1, denied = 2, granted = 3

    /// The spelling of the `AP-Partner-Framework-Status` header.
    public var wireName: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .granted: "granted"
        }
    }
}

/// Whether the viewer is signed in to a TV provider at platform level (AE_PARTNER_SIGNED_*).
public enum PartnerSignIn: Int32, Sendable {
    case unknown = -1, signedOut = 0, signedIn = 1
}

/// The answer to checkAccessStatus.
public struct PartnerAccess: Sendable, Equatable {
    public var status: PartnerAccessStatus
    public var signIn: PartnerSignIn
    public init(_ status: PartnerAccessStatus, signIn: PartnerSignIn = .unknown) {
        self.status = status
        self.signIn = signIn
    }
}

/// VSAccountMetadataRequest.
public struct PartnerMetadataRequest: Sendable, Equatable, Encodable {
    public var channelIdentifier: String
    public var includeAccountProviderIdentifier = true
    public var includeAuthenticationExpirationDate = true
    public var isInterruptionAllowed: Bool
    public var supportedAccountProviderIdentifiers: [String] = []
    public var featuredAccountProviderIdentifiers: [String] = []
    public var attributeNames: [String] = []
    /// The SAML request (Base64), passed to the platform unparsed.
    public var verificationToken: String?

    public init(channelIdentifier: String, isInterruptionAllowed: Bool) {
        self.channelIdentifier = channelIdentifier
        self.isInterruptionAllowed = isInterruptionAllowed
    }
}

/// VSAccountMetadata.
public struct PartnerMetadata: Sendable, Equatable {
    /// The provider as the platform knows it (the MVPD's `platformMappingId`).
    public var accountProviderIdentifier: String?
    /// Milliseconds since the Unix epoch.
    public var authenticationExpirationDate: Int64?
    /// The SAML attribute query response, as the platform returns it.
    public var samlAttributeQueryResponse: String?

    public init(
        accountProviderIdentifier: String? = nil, authenticationExpirationDate: Int64? = nil,
        samlAttributeQueryResponse: String? = nil
    ) {
        self.accountProviderIdentifier = accountProviderIdentifier
        self.authenticationExpirationDate = authenticationExpirationDate
        self.samlAttributeQueryResponse = samlAttributeQueryResponse
    }
}

/// A partner failure (AE_PARTNER_E_*), with the platform's detail text.
public struct PartnerError: Error, Sendable, Equatable {
    public enum Code: Int32, Sendable {
        case unsupportedProvider = 1, userCancelled = 2, serviceUnavailable = 3, rejected = 4, otherProvider = 5,
            accessNotGranted = 6, failed = 7, timeout = 8
    }

    public var code: Code
    /// The provider id for `unsupportedProvider`, else the platform's message.
    public var detail: String?

    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    var summary: String { "\(code)" + (detail.map { ": \($0)" } ?? "") }
}

extension PartnerError.Code {
    /// The `error.code` of the `AP-Partner-Framework-Status` header: Apple's VSErrorCode names
    /// where one exists (the header carries what the platform reported).
    package var wireName: String {
        switch self {
        case .unsupportedProvider: "unsupportedProvider"
        case .userCancelled: "userCancelled"
        case .serviceUnavailable: "serviceTemporarilyUnavailable"
        case .rejected: "providerRejected"
        case .otherProvider: "otherProvider"
        case .accessNotGranted: "accessNotGranted"
        case .failed: "failed"
        case .timeout: "timeout"
        }
    }
}

/// One pending partner request; answer exactly once, from any thread. Later answers are ignored
/// (and report false). When the SDK stops waiting first (the login was cancelled, the request
/// timed out, the client was destroyed), the handlers given to `onCancel` run. A partner request's
/// face on the SDK's one-shot reply slot (`AnswerOnce`).
public final class PartnerReply<Value: Sendable>: Sendable {
    /// The slot behind this request (the engine waits on it; the C boundary tracks it).
    package let slot: AnswerOnce<Result<Value, PartnerError>>

    init(_ deliver: @escaping @Sendable (Result<Value, PartnerError>) -> Void) { slot = AnswerOnce(deliver) }

    package init(_ slot: AnswerOnce<Result<Value, PartnerError>>) { self.slot = slot }

    @discardableResult public func succeed(_ value: Value) -> Bool { slot.answer(.success(value)) }
    @discardableResult public func fail(_ error: PartnerError) -> Bool { slot.answer(.failure(error)) }

    /// True until the request is answered, times out or is cancelled.
    public var isPending: Bool { slot.isPending }

    /// Runs `handler` if the SDK stops waiting for this request before it is answered: the login
    /// it belongs to was cancelled (ae_set_selected_provider(NULL), a new selection, destroy) or it
    /// timed out. The platform may then dismiss what it shows for it (its picker, its login); a
    /// reply after that is ignored. Not run once the request was answered. Runs on the thread that
    /// cancelled (an SDK thread, or the one calling `shutdown`); must not block.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) { slot.onCancel(handler) }

    /// Ends the request from the SDK's side (timeout, cancellation): `error` is delivered to the
    /// waiting flow and the `onCancel` handlers run. False when it was already over.
    @discardableResult
    package func abandon(_ error: PartnerError) -> Bool { slot.abandon(.failure(error)) }

    /// Runs `body` once the request is over (at once if it already is).
    package func whenFinished(_ body: @escaping @Sendable () -> Void) { slot.whenFinished(body) }
}

/// The platform's TV-provider SSO, with the Video Subscriber Account semantics. Implementations
/// must not block: they answer through `reply`, now or later, from any thread.
public protocol PartnerFramework: AnyObject, Sendable {
    /// The partner name on the wire (`/sessions/sso/{partner}`): "Apple" for the Apple flow.
    var name: String { get }
    /// Longest wait for a reply in milliseconds; nil: 60 s for requests that may show UI, else 10 s
    /// (`Defaults.partnerTimeoutMillis(interactive:)`).
    var timeoutMillis: Int? { get }
    func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>)
    func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>)
}

extension PartnerFramework {
    public var name: String { Defaults.partnerName }
    public var timeoutMillis: Int? { nil }
}
