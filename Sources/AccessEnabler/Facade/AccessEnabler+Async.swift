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
/// - Client shut down while waiting: `AccessEnablerError` of kind `.invalidHandle`.
/// - Task cancelled: `CancellationError` (getAuthentication also cancels the login).
///
/// Each call has an identity (`CallID`) that the engine sends back with the events of that call,
/// so an async call gets its own outcome whatever else runs: other async calls, calls of the
/// callback API, from any thread. The delegate and the status delegate still get every callback,
/// as with the callback API. In event-loop mode, the answers arrive when the host runs `dispatch()`.
public struct AsyncAccessEnabler: Sendable {
    public let client: AccessEnabler

    /// setRequestor; returns when `setRequestorComplete(1)` arrives.
    /// - Throws: `RequestorError` when it ended with 0 (its `status` names why).
    public func setRequestor(_ requestorID: String, serviceProviders: [String]? = nil) async throws {
        let (event, explanation) = try await call { id throws(AccessEnablerError) in
            try client.setRequestor(requestorID, serviceProviders: serviceProviders, id: id)
        }
        guard case .setRequestorComplete(let status) = event else { throw Self.unexpected("setRequestor", event) }
        if status != AccessEnablerStatus.success { throw RequestorError(requestorID: requestorID, status: explanation) }
    }

    /// checkAuthentication: true when the viewer is authenticated (a valid profile is stored).
    public func checkAuthentication() async throws -> Bool {
        let (event, _) = try await call { id throws(AccessEnablerError) in try client.submit(.checkAuthentication, id: id) }
        guard case .setAuthenticationStatus(let status, _) = event else { throw Self.unexpected("checkAuthentication", event) }
        return status == AccessEnablerStatus.success
    }

    /// getAuthentication: returns once the viewer is authenticated (at once when already so and
    /// not `forceAuthn`). `selectProvider` answers the provider dialog (nil cancels); `showCode`
    /// gets the second-screen code to show (REGCODE), then the SDK polls until the viewer has
    /// logged in on another device. (In browser mode the delegate's `navigate(toUrl:)` gets the
    /// login URL and the host calls `handleExternalURL`; with a partner framework the platform's
    /// picker may answer instead of `selectProvider`.)
    /// - Throws: `AuthenticationError` (cancelled: `providerNotSelected`; code expired: N130);
    ///   `AccessEnablerError` when `setSelectedProvider` refuses the choice (an empty id).
    public func getAuthentication(
        forceAuthn: Bool = false, withData data: JSONValue? = nil,
        andFilter filter: JSONValue? = nil,
        selectProvider: @escaping @Sendable ([MVPD]) async -> String?,
        showCode: @escaping @Sendable (RegistrationCode) async -> Void = { _ in }
    ) async throws {
        let id = client.newCallID()
        let updates = client.asyncCalls.open(id)
        defer { client.asyncCalls.forget(id) }
        try client.getAuthentication(forceAuthn: forceAuthn, withData: data, andFilter: filter, id: id)
        for await update in updates {
            switch update {
            case .progress(.displayProviderDialog(let mvpds)):
                let choice = await selectProvider(mvpds)
                do {
                    try client.setSelectedProvider(choice)
                } catch {
                    try? client.setSelectedProvider(nil)  // a refused choice ("") ends the login it answered
                    throw error
                }
            case .progress(.status(let status)):
                if let code = RegistrationCode(status) { await showCode(code) }
            case .progress:
                continue
            case .end(let event, let explanation):
                guard case .setAuthenticationStatus(let status, let code) = event else {
                    throw Self.unexpected("getAuthentication", event)
                }
                guard status == AccessEnablerStatus.success else { throw AuthenticationError(errorCode: code, status: explanation) }
                return
            }
        }
        if Task.isCancelled {
            try? client.setSelectedProvider(nil)  // the login this call waited for ends too
            throw CancellationError()
        }
        throw Self.shutDown()
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
        let (event, explanation) = try await call { id throws(AccessEnablerError) in
            try client.authorization(resource, data, check: check, id: id)
        }
        switch event {
        case .setToken(let token, _, _): return token
        case .tokenRequestFailed(_, let code, let description):
            throw AuthorizationError(resource: resource, errorCode: code, errorDescription: description, status: explanation)
        default: throw Self.unexpected("authorization", event)
        }
    }

    /// getMetadata: the value (nil when unavailable) and whether it is encrypted with the
    /// programmer's key. Opcodes 0 and 1: the expiry in ms since the epoch; 2: the device id;
    /// 3: the user metadata value (`tokenSource`: "Apple" for partner SSO profiles).
    public func getMetadata(_ key: MetadataKey) async throws -> (value: JSONValue?, encrypted: Bool) {
        let (event, _) = try await call { id throws(AccessEnablerError) in try client.submit(.getMetadata(key), id: id) }
        guard case .setMetadataStatus(let value, let encrypted, _, _) = event else { throw Self.unexpected("getMetadata", event) }
        return (value, encrypted)
    }

    /// preauthorize (AccessEnabler 3.6+): a decision per resource, with Adobe's enhanced errors.
    public func preauthorize(_ request: PreauthorizeRequest) async throws -> PreauthorizeResponse {
        let (event, _) = try await call { id throws(AccessEnablerError) in
            try client.preauthorize(request, id: id) { _ in }  // the answer comes with the end event
        }
        guard case .preauthorizeResponse(let response, _) = event else { throw Self.unexpected("preauthorize", event) }
        return response
    }

    /// logout: returns when the local profile is gone and Adobe was told. Returns the advanced
    /// statuses the logout sent: `LOGOUT` (the MVPD's logout page, `extras["url"]`: show it) and
    /// `VSA203` (a partner SSO profile: the viewer must also sign out in the platform's settings).
    @discardableResult
    public func logout() async throws -> [AdvancedStatus] {
        let id = client.newCallID()
        let updates = client.asyncCalls.open(id)
        defer { client.asyncCalls.forget(id) }
        try client.submit(.logout, id: id)
        var statuses: [AdvancedStatus] = []
        for await update in updates {
            switch update {
            case .progress(.status(let status)): statuses.append(status)
            case .progress: continue
            case .end: return statuses
            }
        }
        throw Task.isCancelled ? CancellationError() : Self.shutDown()
    }

    // MARK: Plumbing

    /// Submits a call with a new id and waits for the event that ends it.
    private func call(
        _ submit: (CallID) throws(AccessEnablerError) -> Void
    ) async throws -> (Event, AdvancedStatus?) {
        let id = client.newCallID()
        let updates = client.asyncCalls.open(id)
        defer { client.asyncCalls.forget(id) }
        try submit(id)
        for await update in updates {
            if case .end(let event, let explanation) = update { return (event, explanation) }
        }
        throw Task.isCancelled ? CancellationError() : Self.shutDown()
    }

    private static func shutDown() -> AccessEnablerError {
        AccessEnablerError.invalidHandle("the client was shut down while the call waited")
    }

    private static func unexpected(_ name: String, _ event: Event) -> AccessEnablerError {
        AccessEnablerError.internalError("\(name): unexpected outcome \(event)")
    }
}
