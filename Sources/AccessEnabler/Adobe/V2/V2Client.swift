// SPDX-License-Identifier: Apache-2.0

/// REST API V2 on the wire, for one requestor: one method per operation the SDK uses, each a
/// `V2Request` of its `V2Operation` (the catalogue: method, path, headers, content type) sent by
/// `send`, and its answer decoded. What the flows call is `V2Backend` (the `Backend` protocol).
package struct V2Client: Sendable {
    /// The SSO tokens V2 requests carry (the operations that read them: `.sso` in V2Operation.headers).
    package static let identityTokenKinds: [IdentityTokenKind] = IdentityTokenKind.allCases

    package let executor: RequestExecutor
    package let tokens: AccessTokenProvider
    /// Service host without a trailing slash, e.g. "https://sp.auth.adobe.com".
    package let baseURL: String
    /// The requestor (`{serviceProvider}` of every path).
    package let requestorID: String
    package let context: @Sendable () -> DeviceContext
    /// Whether an SSO token has passed its `exp` is judged on this clock.
    package let clock: any WallClock
    /// Adobe refused the SSO token of this kind (its enhanced error): the driver drops the token and
    /// tells the host; the request is then sent again without it.
    package let identityRefused: @Sendable (IdentityTokenKind, EnhancedError) -> Void

    package init(
        executor: RequestExecutor, tokens: AccessTokenProvider, baseURL: String, requestorID: String,
        context: @escaping @Sendable () -> DeviceContext, clock: any WallClock = SystemClock(),
        identityRefused: @escaping @Sendable (IdentityTokenKind, EnhancedError) -> Void = { _, _ in }
    ) {
        self.executor = executor
        self.tokens = tokens
        self.baseURL = baseURL
        self.requestorID = requestorID
        self.context = context
        self.clock = clock
        self.identityRefused = identityRefused
    }

    /// An absolute URL for a relative one from Adobe's answers (`/api/v2/authenticate/...`).
    package func absolute(_ url: String) -> String {
        url.hasPrefix("http://") || url.hasPrefix("https://") ? url : baseURL + (url.hasPrefix("/") ? "" : "/") + url
    }

    /// Sends `request` with a valid access token (AccessTokenProvider) and decodes its answer.
    package func send<T: Decodable & Sendable>(_ request: V2Request, as type: T.Type) async throws(CallFailure) -> T {
        let operation = request.operation.rawValue
        return try await send(request) { response throws(ServiceError) in
            try RequestExecutor.decode(type, from: response, operation: operation)
        }
    }

    /// `read`: how the answer becomes `T` (RequestExecutor.decode, chosen by the caller's type).
    package func send<T: Sendable>(_ request: V2Request, read: @escaping @Sendable (HTTPResponse) throws(ServiceError) -> T)
        async throws(CallFailure) -> T
    {
        let (executor, identityRefused, context, clock) = (executor, identityRefused, context, clock)
        let (baseURL, requestorID, operation) = (baseURL, requestorID, request.operation.rawValue)
        return try await tokens.withToken { token throws(ServiceError) in
            let build = {
                request.http(baseURL: baseURL, requestor: requestorID, token: token, context: context(), nowMillis: clock.nowMillis())
            }
            let sent = build()
            var response = try await executor.send(sent, operation: operation)
            if let (kind, error) = Self.refusedIdentity(response, request: sent) {
                // Adobe refused the host's SSO token: go on without single sign-on (the driver
                // drops the token and tells the host), sending the same call again without it.
                identityRefused(kind, error)
                response = try await executor.send(build(), operation: operation)
            }
            return try read(response)
        }
    }

    /// A 4xx whose enhanced error refuses an SSO token this request carried.
    private static func refusedIdentity(_ response: HTTPResponse, request: HTTPRequest)
        -> (IdentityTokenKind, EnhancedError)?
    {
        guard (400..<500).contains(response.status), case .enhanced(let error, _) = RequestExecutor.failure(from: response),
            let kind = IdentityTokenKind(refusalCode: error.code),
            request.headers.contains(where: { $0.name == kind.headerName })
        else { return nil }
        return (kind, error)
    }

    // MARK: Configuration and profiles

    package func configuration() async throws(CallFailure) -> RequestorConfiguration {
        let query = context().applicationProfile.map { [("profile", $0)] } ?? []
        return try await send(V2Request(.configuration, query: query), as: ConfigurationAnswer.self)
            .configuration(requestorID: requestorID)
    }

    /// `partnerStatus`: the AP-Partner-Framework-Status value, so Adobe may return partner profiles.
    package func profiles(partnerStatus: String? = nil) async throws(CallFailure) -> [Profile] {
        try await send(V2Request(.profiles, partnerStatus: partnerStatus), as: ProfilesAnswer.self).profiles
    }

    /// The MVPD's profile; for a TempPass MVPD its `temporary` profile (promotional TempPass: with
    /// the viewer's `tempPassIdentity`, which the returned profile keeps for its decisions).
    package func profile(mvpd: String, partnerStatus: String? = nil, tempPassIdentity: String? = nil)
        async throws(CallFailure) -> Profile?
    {
        let request = V2Request(.profileByMVPD, [mvpd], partnerStatus: partnerStatus, tempPassIdentity: tempPassIdentity)
        var profile = try await send(request, as: ProfilesAnswer.self).profiles.first { $0.mvpd == mvpd }
        profile?.tempPassIdentity = tempPassIdentity
        return profile
    }

    /// The profile created through `code` (nil while the viewer has not finished logging in).
    package func profile(code: String) async throws(CallFailure) -> Profile? {
        try await send(V2Request(.profileByCode, [code]), as: ProfilesAnswer.self).profiles.first
    }

    // MARK: Sessions

    package func createSession(mvpd: String, domainName: String, redirectURL: String) async throws(CallFailure) -> SessionAnswer {
        let body = Encoding.form([("mvpd", mvpd), ("domainName", domainName), ("redirectUrl", redirectURL)])
        return try await send(V2Request(.createSession, body: Array(body.utf8)), as: SessionAnswer.self)
    }

    package func resumeSession(code: String, parameters: [(String, String)]) async throws(CallFailure) -> SessionAnswer {
        try await send(V2Request(.resumeSession, [code], body: Array(Encoding.form(parameters).utf8)), as: SessionAnswer.self)
    }

    /// What the session of `code` still lacks (GET sessions/{code}).
    package func sessionStatus(code: String) async throws(CallFailure) -> SessionStatusAnswer {
        try await send(V2Request(.retrieveSession, [code]), as: SessionStatusAnswer.self)
    }

    // MARK: Decisions

    package func preauthorize(mvpd: String, resources: [String], partnerStatus: String? = nil, tempPassIdentity: String? = nil)
        async throws(CallFailure) -> [Decision]
    {
        try await decisions(.preauthorize, mvpd, resources, partnerStatus, tempPassIdentity)
    }

    package func authorize(mvpd: String, resources: [String], partnerStatus: String? = nil, tempPassIdentity: String? = nil)
        async throws(CallFailure) -> [Decision]
    {
        try await decisions(.authorize, mvpd, resources, partnerStatus, tempPassIdentity)
    }

    private func decisions(
        _ operation: V2Operation, _ mvpd: String, _ resources: [String], _ partnerStatus: String?, _ tempPassIdentity: String?
    ) async throws(CallFailure) -> [Decision] {
        let body = JSON.data(JSONValue.object(["resources": .array(resources.map(JSONValue.string))]))  // no Encoder walk
        let request = V2Request(operation, [mvpd], body: body, partnerStatus: partnerStatus, tempPassIdentity: tempPassIdentity)
        let name = operation.rawValue
        let read = { @Sendable (response: HTTPResponse) throws(ServiceError) -> DecisionsAnswer in
            try RequestExecutor.decode(DecisionsAnswer.self, from: response, operation: name)  // from Jansson's nodes
        }
        return try await send(request, read: read).decisions
    }

    // MARK: Partner single sign-on

    /// sessions/sso/{partner}: the partner authentication request, or a fallback session.
    package func partnerSession(partner: String, domainName: String, redirectURL: String, partnerStatus: String)
        async throws(CallFailure) -> SessionAnswer
    {
        let body = Array(Encoding.form([("domainName", domainName), ("redirectUrl", redirectURL)]).utf8)
        return try await send(V2Request(.partnerSession, [partner], body: body, partnerStatus: partnerStatus), as: SessionAnswer.self)
    }

    /// profiles/sso/{partner}: creates the partner profile; the one of `mvpd` (nil when Adobe's
    /// answer holds none of it). `samlResponse` is already encoded by SAMLResponseEncoding and goes
    /// into the body as is (never form-encoded again).
    package func partnerProfile(partner: String, mvpd: String, samlResponse: String, partnerStatus: String)
        async throws(CallFailure) -> Profile?
    {
        let request = V2Request(
            .partnerProfile, [partner], body: Array(("SAMLResponse=" + samlResponse).utf8), partnerStatus: partnerStatus)
        return try await send(request, as: ProfilesAnswer.self).profiles.first { $0.mvpd == mvpd }
    }

    // MARK: Logout

    package func logout(mvpd: String, redirectURL: String) async throws(CallFailure) -> [String: LogoutAction] {
        try await send(V2Request(.logout, [mvpd], query: [("redirectUrl", redirectURL)]), as: LogoutAnswer.self).logouts
    }
}
