// SPDX-License-Identifier: Apache-2.0

/// REST API V2: one method per endpoint the SDK uses, each building the request exactly as
/// Adobe's OpenAPI file lists it (required headers, content types) and decoding the answer.
package struct V2Backend: Sendable {
    /// The SSO tokens V2 requests carry (the operations that read them: `sso` in `headers`).
    package static let identityTokenKinds: [IdentityTokenKind] = IdentityTokenKind.allCases

    package let executor: RequestExecutor
    package let tokens: AccessTokenProvider
    /// Service host without a trailing slash, e.g. "https://sp.auth.adobe.com".
    package let baseURL: String
    package let context: @Sendable () -> DeviceContext
    /// Whether an SSO token has passed its `exp` is judged on this clock.
    package let clock: any WallClock
    /// Adobe refused the SSO token of this kind (its enhanced error): the driver drops the token and
    /// tells the host; the request is then sent again without it.
    package let identityRefused: @Sendable (IdentityTokenKind, EnhancedError) -> Void

    package init(
        executor: RequestExecutor, tokens: AccessTokenProvider, baseURL: String,
        context: @escaping @Sendable () -> DeviceContext, clock: any WallClock = SystemClock(),
        identityRefused: @escaping @Sendable (IdentityTokenKind, EnhancedError) -> Void = { _, _ in }
    ) {
        self.executor = executor
        self.tokens = tokens
        self.baseURL = baseURL
        self.context = context
        self.clock = clock
        self.identityRefused = identityRefused
    }

    /// Headers of an endpoint. `device`: the endpoint requires AP-Device-Identifier and X-Device-Info.
    /// `tempPassIdentity`: promotional TempPass (profiles/{mvpd} and the decisions list the header).
    /// `sso`: the endpoint is one of the six Adobe's OpenAPI file lists `Adobe-Subject-Token` and
    /// `AD-Service-Token` on (sessions create, profiles, profiles/{mvpd}, both decisions, logout).
    private func headers(
        token: String, device: Bool, visitor: Bool = true, contentType: String? = nil,
        partnerStatus: String? = nil, tempPassIdentity: String? = nil, sso: Bool = false
    ) -> [(name: String, value: String)] {
        let context = context()
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token), ("Accept", "application/json;charset=utf-8"),
        ]
        if let contentType { headers.append(("Content-Type", contentType)) }
        if device {
            headers.append(("AP-Device-Identifier", context.deviceIdentifier))
            headers.append(("X-Device-Info", context.deviceInfo))
        }
        if visitor, let visitorID = context.visitorID { headers.append(("AP-Visitor-Identifier", visitorID)) }
        if let partnerStatus { headers.append(("AP-Partner-Framework-Status", partnerStatus)) }
        // Spelled as in Adobe's header page; the OpenAPI file writes AP-Temppass-Identity (names are case-insensitive).
        if let tempPassIdentity { headers.append(("AP-TempPass-Identity", tempPassIdentity)) }
        if sso { headers += context.identityHeaders(Self.identityTokenKinds, nowMillis: clock.nowMillis()) }
        return headers
    }

    private func path(_ segments: String...) -> String {
        baseURL + "/api/v2/" + segments.map(Encoding.pathSegment).joined(separator: "/")
    }

    /// An absolute URL for a relative one from Adobe's answers (`/api/v2/authenticate/...`).
    package func absolute(_ url: String) -> String {
        url.hasPrefix("http://") || url.hasPrefix("https://") ? url : baseURL + (url.hasPrefix("/") ? "" : "/") + url
    }

    private func call<T: Decodable & Sendable>(
        _ operation: String, _ type: T.Type, _ build: @escaping @Sendable (String) -> HTTPRequest
    ) async throws(CallFailure) -> T {
        try await call(
            operation, read: { response throws(ServiceError) in try RequestExecutor.decode(type, from: response, operation: operation) },
            build)
    }

    /// `read`: how the answer becomes `T` (RequestExecutor.decode, chosen by the caller's type).
    private func call<T: Sendable>(
        _ operation: String, read: @escaping @Sendable (HTTPResponse) throws(ServiceError) -> T,
        _ build: @escaping @Sendable (String) -> HTTPRequest
    ) async throws(CallFailure) -> T {
        let (executor, identityRefused) = (executor, identityRefused)
        return try await tokens.withToken { token throws(ServiceError) in
            let request = build(token)
            var response = try await executor.send(request, operation: operation)
            if let (kind, error) = Self.refusedIdentity(response, request: request) {
                // Adobe refused the host's SSO token: go on without single sign-on (the driver
                // drops the token and tells the host), sending the same call again without it.
                identityRefused(kind, error)
                response = try await executor.send(build(token), operation: operation)
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

    // MARK: Configuration

    package func configuration(_ requestor: String) async throws(CallFailure) -> RequestorConfiguration {
        let profile = context().applicationProfile.map { "?profile=" + Encoding.percentEncode($0) }
        let url = path(requestor, "configuration") + (profile ?? "")
        let answer = try await call("configuration", ConfigurationAnswer.self) { token in
            // Adobe's V2 cookbook (step C.1) sends the device headers on every call, the configuration
            // included: its single sign-on fields are per device platform. The OpenAPI file lists
            // neither for this operation (docs/DECISIONS.md); AP-Visitor-Identifier stays off as listed.
            HTTPRequest(method: "GET", url: url, headers: headers(token: token, device: true, visitor: false))
        }
        return answer.configuration(requestorID: requestor)
    }

    // MARK: Profiles

    /// `partnerStatus`: the AP-Partner-Framework-Status value, so Adobe may return partner profiles.
    package func profiles(_ requestor: String, partnerStatus: String? = nil) async throws(CallFailure) -> [Profile] {
        let url = path(requestor, "profiles")
        return try await call("profiles", ProfilesAnswer.self) { token in
            HTTPRequest(
                method: "GET", url: url, headers: headers(token: token, device: true, partnerStatus: partnerStatus, sso: true))
        }.profiles
    }

    /// The MVPD's profile; for a TempPass MVPD its `temporary` profile (promotional TempPass: with
    /// the viewer's `tempPassIdentity`, which the returned profile keeps for its decisions).
    package func profile(_ requestor: String, mvpd: String, partnerStatus: String? = nil, tempPassIdentity: String? = nil)
        async throws(CallFailure) -> Profile?
    {
        let url = path(requestor, "profiles", mvpd)
        var profile = try await call("profiles/{mvpd}", ProfilesAnswer.self) { token in
            HTTPRequest(
                method: "GET", url: url,
                headers: headers(
                    token: token, device: true, partnerStatus: partnerStatus,
                    tempPassIdentity: tempPassIdentity, sso: true))
        }.profiles.first { $0.mvpd == mvpd }
        profile?.tempPassIdentity = tempPassIdentity
        return profile
    }

    /// The profile created through `code` (nil while the viewer has not finished logging in).
    package func profile(_ requestor: String, code: String) async throws(CallFailure) -> Profile? {
        let url = path(requestor, "profiles", "code", code)
        return try await call("profiles/code", ProfilesAnswer.self) { token in
            HTTPRequest(method: "GET", url: url, headers: headers(token: token, device: false))
        }.profiles.first
    }

    // MARK: Sessions

    package func createSession(_ requestor: String, mvpd: String, domainName: String, redirectURL: String)
        async throws(CallFailure) -> SessionAnswer
    {
        let url = path(requestor, "sessions")
        let body = Array(Encoding.form([("mvpd", mvpd), ("domainName", domainName), ("redirectUrl", redirectURL)]).utf8)
        return try await call("sessions", SessionAnswer.self) { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: headers(token: token, device: true, contentType: "application/x-www-form-urlencoded", sso: true),
                body: body)
        }
    }

    package func resumeSession(_ requestor: String, code: String, parameters: [(String, String)])
        async throws(CallFailure) -> SessionAnswer
    {
        let url = path(requestor, "sessions", code)
        let body = Array(Encoding.form(parameters).utf8)
        return try await call("sessions/{code}", SessionAnswer.self) { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: headers(token: token, device: false, contentType: "application/x-www-form-urlencoded"),
                body: body)
        }
    }

    /// What the session of `code` still lacks (GET sessions/{code}).
    package func sessionStatus(_ requestor: String, code: String) async throws(CallFailure) -> SessionStatusAnswer {
        let url = path(requestor, "sessions", code)
        return try await call("sessions/{code} (retrieve)", SessionStatusAnswer.self) { token in
            HTTPRequest(method: "GET", url: url, headers: headers(token: token, device: false))
        }
    }

    // MARK: Decisions

    package func preauthorize(
        _ requestor: String, mvpd: String, resources: [String], partnerStatus: String? = nil,
        tempPassIdentity: String? = nil
    ) async throws(CallFailure) -> [Decision] {
        try await decisions("preauthorize", requestor, mvpd, resources, partnerStatus, tempPassIdentity)
    }

    package func authorize(
        _ requestor: String, mvpd: String, resources: [String], partnerStatus: String? = nil,
        tempPassIdentity: String? = nil
    ) async throws(CallFailure) -> [Decision] {
        try await decisions("authorize", requestor, mvpd, resources, partnerStatus, tempPassIdentity)
    }

    private func decisions(
        _ kind: String, _ requestor: String, _ mvpd: String, _ resources: [String],
        _ partnerStatus: String?, _ tempPassIdentity: String?
    ) async throws(CallFailure) -> [Decision] {
        let url = path(requestor, "decisions", kind, mvpd)
        let body = JSON.data(JSONValue.object(["resources": .array(resources.map(JSONValue.string))]))  // no Encoder walk
        let operation = "decisions/\(kind)"
        let read = { @Sendable (response: HTTPResponse) throws(ServiceError) -> DecisionsAnswer in
            try RequestExecutor.decode(DecisionsAnswer.self, from: response, operation: operation)  // from Jansson's nodes
        }
        return try await call(operation, read: read) { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: headers(
                    token: token, device: true, contentType: "application/json;charset=utf-8",
                    partnerStatus: partnerStatus, tempPassIdentity: tempPassIdentity, sso: true),
                body: body)
        }.decisions
    }

    // MARK: Partner single sign-on

    /// sessions/sso/{partner}: the partner authentication request, or a fallback session.
    package func partnerSession(
        _ requestor: String, partner: String, domainName: String, redirectURL: String,
        partnerStatus: String
    ) async throws(CallFailure) -> SessionAnswer {
        let url = path(requestor, "sessions", "sso", partner)
        let body = Array(Encoding.form([("domainName", domainName), ("redirectUrl", redirectURL)]).utf8)
        return try await call("sessions/sso", SessionAnswer.self) { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: headers(
                    token: token, device: true, contentType: "application/x-www-form-urlencoded",
                    partnerStatus: partnerStatus),
                body: body)
        }
    }

    /// profiles/sso/{partner}: creates the partner profile; the one of `mvpd` (nil when Adobe's
    /// answer holds none of it). `samlResponse` is already encoded by SAMLResponseEncoding and goes
    /// into the body as is (never form-encoded again).
    package func partnerProfile(_ requestor: String, partner: String, mvpd: String, samlResponse: String, partnerStatus: String)
        async throws(CallFailure) -> Profile?
    {
        let url = path(requestor, "profiles", "sso", partner)
        let body = Array(("SAMLResponse=" + samlResponse).utf8)
        return try await call("profiles/sso", ProfilesAnswer.self) { token in
            HTTPRequest(
                method: "POST", url: url,
                headers: headers(
                    token: token, device: true, contentType: "application/x-www-form-urlencoded",
                    partnerStatus: partnerStatus),
                body: body)
        }.profiles.first { $0.mvpd == mvpd }
    }

    // MARK: Logout

    package func logout(_ requestor: String, mvpd: String, redirectURL: String) async throws(CallFailure)
        -> [String: LogoutAction]
    {
        let url = path(requestor, "logout", mvpd) + "?redirectUrl=" + Encoding.percentEncode(redirectURL)
        return try await call("logout", LogoutAnswer.self) { token in
            HTTPRequest(method: "GET", url: url, headers: headers(token: token, device: true, sso: true))
        }.logouts
    }
}
