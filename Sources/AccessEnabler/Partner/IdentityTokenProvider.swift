// SPDX-License-Identifier: Apache-2.0

/// Why the SDK asks for a single sign-on token (raw values are the header's AE_IDENTITY_REASON_*).
public enum IdentityTokenReason: Int32, Sendable {
    /// setRequestor, with no token of that kind (or none still valid).
    case needed = 0
    /// The token passes its `exp` within `Defaults.identityRefreshMarginMillis` (60 s).
    case expiring = 1
    /// Adobe refused it (an `invalid_header_*` answer): the SDK went on without it.
    case refused = 2
}

/// One pending token request: answer it once, from any thread, with a token or nil (none to give).
/// A later answer is ignored (false); when the SDK stops waiting first (timeout, destroy), the
/// `onCancel` handlers run.
public final class IdentityTokenReply: Sendable {
    package let slot: AnswerOnce<String?>

    package init(_ slot: AnswerOnce<String?>) { self.slot = slot }

    /// The token (checked as `AccessEnabler.setIdentityToken` checks it), or nil for none.
    @discardableResult public func succeed(_ token: String?) -> Bool { slot.answer(token) }

    /// True until the request is answered, times out or is cancelled.
    public var isPending: Bool { slot.isPending }

    /// Runs `handler` if the SDK stops waiting before an answer (timeout, destroy). Must not block.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) { slot.onCancel(handler) }

    /// Runs `body` once the request is over (at once if it already is).
    package func whenFinished(_ body: @escaping @Sendable () -> Void) { slot.whenFinished(body) }
}

/// The host side that issues single sign-on tokens when the SDK asks (the pull form; a host whose
/// platform pushes tokens calls `AccessEnabler.setIdentityToken` instead, or as well). The SDK asks
/// at setRequestor for each kind it has no valid token of (and waits for the answer, at most
/// `timeoutMillis`), in the background when a token will expire within a minute, and
/// after Adobe refused one. Implementations must not block: they answer through `reply`.
public protocol IdentityTokenProvider: AnyObject, Sendable {
    /// The kinds this host can give.
    var kinds: Set<IdentityTokenKind> { get }
    /// Longest wait for an answer in milliseconds; nil: `Defaults.identityTimeoutMillis` (10 s).
    var timeoutMillis: Int? { get }
    func requestToken(_ kind: IdentityTokenKind, reason: IdentityTokenReason, reply: IdentityTokenReply)
}

extension IdentityTokenProvider {
    public var timeoutMillis: Int? { nil }
}
