// SPDX-License-Identifier: Apache-2.0

extension AccessEnabler {
    /// The async/await forms of the AccessEnabler calls: `try await enabler.async.setRequestor("REF30")`.
    public var async: AsyncAccessEnabler { AsyncAccessEnabler(client: self) }
}

/// AccessEnabler's calls as async functions that return their outcome, built on the same flows
/// as the callback API. (They live under `enabler.async` rather than beside the callback calls:
/// an async overload of the same name would take over every existing call made from async code.)
///
/// - Refused at once (bad argument, no requestor, ...): `AccessEnablerError`, as the callback call.
/// - Ended in failure: `RequestorError`, `AuthenticationError`, `AuthorizationError`.
/// - Client shut down while waiting: `AccessEnablerError` code 2 (invalid handle).
/// - Task cancelled: `CancellationError` (getAuthentication also cancels the login).
///
/// The delegate and the status delegate still get every callback, as with the callback API.
/// Concurrent async calls are safe: calls answered per resource or per key (checkAuthorization,
/// getAuthorization, getMetadata, preauthorize) run side by side; the others (setRequestor,
/// checkAuthentication, getAuthentication, logout) wait for a `setAuthenticationStatus` or
/// `setRequestorComplete` that any flow may send, so each runs alone, after the calls in progress.
/// Do not drive those flows with the callback API (getAuthentication, setSelectedProvider, logout,
/// handleExternalURL) while such an async call waits: its answer could be taken for the other's.
/// In event-loop mode, the answers arrive when the host runs `dispatch()`.
public struct AsyncAccessEnabler: Sendable {
    public let client: AccessEnabler

    /// setRequestor; returns when `setRequestorComplete(1)` arrives.
    /// - Throws: `RequestorError` when it ended with 0 (its `status` names why).
    public func setRequestor(_ requestorID: String, serviceProviders: [String]? = nil) async throws {
        try await client.asyncGate.run(.exclusive, "setRequestor") {
            let outcome = try await registered { waiter throws(AccessEnablerError) in
                try client.setRequestor(requestorID, serviceProviders: serviceProviders, waiter: waiter)
            }
            switch outcome {
            case .requestorComplete(let status, _) where status == AccessEnablerStatus.success: return
            case .requestorComplete(_, let status): throw RequestorError(requestorID: requestorID, status: status)
            default: throw AccessEnablerError.internalError("setRequestor: unexpected outcome \(outcome)")
            }
        }
    }

    /// checkAuthentication: true when the viewer is authenticated (a valid profile is stored).
    public func checkAuthentication() async throws -> Bool {
        try await exclusive("checkAuthentication") { events in
            try client.checkAuthentication()
            for await event in events {
                if case .setAuthenticationStatus(let status, _) = event { return status == AccessEnablerStatus.success }
            }
            throw Self.stoppedWaiting()
        }
    }

    /// getAuthentication: returns once the viewer is authenticated (at once when already so and
    /// not `forceAuthn`). `selectProvider` answers the provider dialog (nil cancels); `showCode`
    /// gets the second-screen code to show (REGCODE), then the SDK polls until the viewer has
    /// logged in on another device. (In browser mode the delegate's `navigate(toUrl:)` gets the
    /// login URL and the host calls `handleExternalURL`; with a partner framework the platform's
    /// picker may answer instead of `selectProvider`.)
    /// - Throws: `AuthenticationError` (cancelled: `providerNotSelected`; code expired: N130);
    ///   `AccessEnablerError` when `setSelectedProvider` refuses the choice (an empty id).
    public func getAuthentication(forceAuthn: Bool = false, withData data: JSONValue? = nil,
                                  andFilter filter: JSONValue? = nil,
                                  selectProvider: @escaping @Sendable ([MVPD]) async -> String?,
                                  showCode: @escaping @Sendable (RegistrationCode) async -> Void = { _ in }) async throws
    {
        try await exclusive("getAuthentication") { events in
            try client.getAuthentication(forceAuthn: forceAuthn, withData: data, andFilter: filter)
            var lastStatus: AdvancedStatus?
            for await event in events {
                switch event {
                case .displayProviderDialog(let mvpds):
                    let choice = await selectProvider(mvpds)
                    do {
                        try client.setSelectedProvider(choice)
                    } catch {
                        await cancelLogin()  // a refused choice ("") ends the login it answered
                        throw error
                    }
                case .status(let status):
                    if let code = RegistrationCode(status) { await showCode(code) } else { lastStatus = status }
                case .setAuthenticationStatus(let status, let code):
                    guard status == AccessEnablerStatus.success else { throw AuthenticationError(errorCode: code, status: lastStatus) }
                    return
                default:
                    continue
                }
            }
            if Task.isCancelled { await cancelLogin() }
            throw Self.stoppedWaiting()
        }
    }

    /// Ends the login in progress (setSelectedProvider(nil)) and waits until its last callback,
    /// `setAuthenticationStatus(0, providerNotSelected)`, has been delivered: otherwise the next
    /// exclusive call could take it for its own answer. Cancelled tasks wait too (one engine step).
    private func cancelLogin() async {
        let outcomes = client.outcomes
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let watcher = outcomes.watch({ event in
                if case .setAuthenticationStatus(let status, let code) = event {
                    status == AccessEnablerStatus.error && code == AccessEnablerErrorCode.providerNotSelected
                } else {
                    false
                }
            }, continuation)
            do { try client.setSelectedProvider(nil) } catch { outcomes.unwatch(watcher) }  // refused: shut down
        }
    }

    /// checkAuthorization: the short media token for `resource` (Base64, as Adobe issues it: verify
    /// it with Adobe's Media Token Verifier, never cache it). Never starts a login.
    /// - Throws: `AuthorizationError` (`userNotAuthenticated` when there is no valid profile).
    public func checkAuthorization(_ resource: String, withData data: JSONValue? = nil) async throws -> String {
        try await authorization(resource, data, check: true)
    }

    /// getAuthorization: as `checkAuthorization`, but when the viewer is not authenticated it
    /// starts a login first, through the delegate (`displayProviderDialog`, the REGCODE status),
    /// as the callback API does. Code that only uses async calls runs `getAuthentication` first.
    /// - Throws: `AuthorizationError`.
    public func getAuthorization(_ resource: String, withData data: JSONValue? = nil) async throws -> String {
        try await authorization(resource, data, check: false)
    }

    private func authorization(_ resource: String, _ data: JSONValue?, check: Bool) async throws -> String {
        try await client.asyncGate.run(.shared, check ? "checkAuthorization" : "getAuthorization") {
            let outcome = try await registered { waiter throws(AccessEnablerError) in
                try client.authorization(resource, data, check: check, waiter: waiter)
            }
            switch outcome {
            case .token(let token): return token
            case .tokenFailed(let code, let description, let status):
                throw AuthorizationError(resource: resource, errorCode: code, errorDescription: description, status: status)
            default: throw AccessEnablerError.internalError("authorization: unexpected outcome \(outcome)")
            }
        }
    }

    /// getMetadata: the value (nil when unavailable) and whether it is encrypted with the
    /// programmer's key. Opcodes 0 and 1: the expiry in ms since the epoch; 2: the device id;
    /// 3: the user metadata value (`tokenSource`: "Apple" for partner SSO profiles).
    public func getMetadata(_ key: MetadataKey) async throws -> (value: JSONValue?, encrypted: Bool) {
        try await client.asyncGate.run(.shared, "getMetadata") {
            let outcome = try await registered { waiter throws(AccessEnablerError) in
                try client.getMetadata(key, waiter: waiter)
            }
            guard case .metadata(let value, let encrypted) = outcome else {
                throw AccessEnablerError.internalError("getMetadata: unexpected outcome \(outcome)")
            }
            return (value, encrypted)
        }
    }

    /// preauthorize (AccessEnabler 3.6+): a decision per resource, with Adobe's enhanced errors.
    public func preauthorize(_ request: PreauthorizeRequest) async throws -> PreauthorizeResponse {
        let outcomes = client.outcomes
        return try await client.asyncGate.run(.shared, "preauthorize") {
            let outcome = try await registered { waiter throws(AccessEnablerError) in
                try client.preauthorize(request, waiter: waiter) { outcomes.finish(waiter.id, .preauthorized($0)) }
            }
            guard case .preauthorized(let response) = outcome else {
                throw AccessEnablerError.internalError("preauthorize: unexpected outcome \(outcome)")
            }
            return response
        }
    }

    /// logout: returns when the local profile is gone and Adobe was told. Returns the advanced
    /// statuses the logout sent: `LOGOUT` (the MVPD's logout page, `extras["url"]`: show it) and
    /// `VSA203` (a partner SSO profile: the viewer must also sign out in the platform's settings).
    @discardableResult
    public func logout() async throws -> [AdvancedStatus] {
        try await exclusive("logout") { events in
            try client.logout()
            var statuses: [AdvancedStatus] = []
            for await event in events {
                switch event {
                case .status(let status): statuses.append(status)
                case .setAuthenticationStatus: return statuses
                default: continue
                }
            }
            throw Self.stoppedWaiting()
        }
    }

    // MARK: Plumbing

    /// Runs `body` alone (`AsyncCallGate`) with the callback stream from before its call on.
    private func exclusive<T: Sendable>(_ name: String, _ body: (AsyncStream<Event>) async throws -> T) async throws -> T {
        try await client.asyncGate.run(.exclusive, name) {
            let (id, events) = client.outcomes.subscribe()
            defer { client.outcomes.unsubscribe(id) }
            return try await body(events)
        }
    }

    /// Submits a call that takes a place in line (`AsyncOutcomes`) and waits for its outcome.
    private func registered(
        _ submit: (AsyncOutcomes.Waiter) throws(AccessEnablerError) -> Void
    ) async throws -> AsyncOutcomes.Outcome {
        let outcomes = client.outcomes
        let id = outcomes.newCall()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    try submit(AsyncOutcomes.Waiter(id: id, continuation: continuation))
                } catch {
                    outcomes.forget(id)
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            outcomes.cancel(id)
        }
    }

    /// The callback stream ended before the answer: the task was cancelled or the client shut down.
    private static func stoppedWaiting() -> any Error {
        Task.isCancelled ? CancellationError() : AccessEnablerError.invalidHandle("the client was shut down while the call waited")
    }
}
