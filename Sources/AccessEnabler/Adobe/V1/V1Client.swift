// SPDX-License-Identifier: Apache-2.0

/// The legacy REST API V1 ("Clientless API"): one method per endpoint the SDK uses, each built as
/// Adobe's endpoint page lists it (rest-api-v1.md §4–§5; Adobe publishes no V1 OpenAPI file), with
/// the same DCR client credentials and access token as V2 (`Authorization: Bearer`).
///
/// Choices where the pages leave room (docs/DECISIONS.md, "REST API V1"):
/// * JSON is asked for with `Accept: application/json` alone (one format selector: Adobe may refuse
///   selectors that disagree); error bodies are read as JSON or XML all the same.
/// * Parameters go in the query of GET and DELETE requests and in a form body of POST requests;
///   `X-Device-Info` is a header (Adobe prefers it to the `device_info` parameter: URL length).
/// * Logout is `DELETE /api/v1/logout` (Adobe's endpoint page; the V2 FAQ's "GET" is a slip).
/// * The Apple SSO endpoints require `deviceType` iOS or tvOS: a set-top box sends `tvOS`.
package struct V1Client: Sendable {
    /// `deviceType` of the Apple SSO profile request and token exchange (iOS or tvOS only).
    package static let partnerDeviceType = "tvOS"
    /// The SSO tokens V1 requests carry: the platform identity (V1 has no service token).
    package static let identityTokenKinds: [IdentityTokenKind] = [.platformIdentity]

    package let executor: RequestExecutor
    package let tokens: AccessTokenProvider
    /// Service host without a trailing slash, e.g. "https://api.auth.adobe.com".
    package let baseURL: String
    package let context: @Sendable () -> DeviceContext
    /// Whether the platform token has passed its `exp` is judged on this clock.
    package let clock: any WallClock

    package init(
        executor: RequestExecutor, tokens: AccessTokenProvider, baseURL: String,
        context: @escaping @Sendable () -> DeviceContext, clock: any WallClock = SystemClock()
    ) {
        self.executor = executor
        self.tokens = tokens
        self.baseURL = baseURL
        self.context = context
        self.clock = clock
    }

    // MARK: Requests

    private func headers(_ token: String, accept: String = "application/json", form: Bool = false)
        -> [(name: String, value: String)]
    {
        let context = context()
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token), ("Accept", accept), ("X-Device-Info", context.deviceInfo),
        ]
        if form { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        // Every V1 call is under /api/v1, /reggie/v1 or /adobe-services: Adobe wants the platform
        // identity on all of them (rest-api-v1.md: Amazon FireTV SSO); V1 has no service token.
        headers += context.identityHeaders(Self.identityTokenKinds, nowMillis: clock.nowMillis())
        return headers
    }

    /// The URL of `operation` (its path in V1Operation, the catalogue): `parameters` fill the path's
    /// placeholders in order, one segment each (Encoding.pathSegment); the query is form-encoded.
    private func url(_ operation: V1Operation, _ parameters: [String] = [], _ query: [(String, String)] = []) -> String {
        baseURL + PathTemplate.fill(operation.path, parameters) + (query.isEmpty ? "" : "?" + Encoding.form(query))
    }

    /// A request of `operation` (its method in V1Operation) to `url`.
    private func request(_ operation: V1Operation, _ url: String, _ headers: [(name: String, value: String)], body: [UInt8]? = nil)
        -> HTTPRequest
    {
        HTTPRequest(method: operation.method, url: url, headers: headers, body: body)
    }

    /// `requestor` and `deviceId`: the parameters of every device endpoint.
    private func device(_ requestor: String) -> [(String, String)] {
        [("requestor", requestor), ("deviceId", context().deviceID)]
    }

    /// Sends with a valid access token (renewed once on a 401); the 2xx response, or the error.
    private func exchange(
        _ operation: V1Operation, answers: Set<Int> = [], _ build: @escaping @Sendable (String) -> HTTPRequest
    )
        async throws(CallFailure) -> HTTPResponse
    {
        let executor = executor
        return try await tokens.withToken { token throws(ServiceError) in
            let response = try await executor.send(build(token), operation: operation.rawValue, answers: answers)
            guard (200..<300).contains(response.status) else { throw V1Errors.failure(from: response, operation: operation) }
            return response
        }
    }

    private func call<T: Decodable & Sendable>(
        _ operation: V1Operation, _ type: T.Type, answers: Set<Int> = [],
        _ build: @escaping @Sendable (String) -> HTTPRequest
    )
        async throws(CallFailure) -> T
    {
        let response = try await exchange(operation, answers: answers, build)
        do { return try RequestExecutor.decode(type, from: response, operation: operation.rawValue) } catch {
            throw CallFailure(.call, error)
        }
    }

    /// As `call`, but nil for the statuses that mean "none" (404 not found, 410 expired, 412 invalid).
    private func optional<T: Decodable & Sendable>(
        _ operation: V1Operation, _ type: T.Type, noneFor statuses: Set<Int>,
        _ build: @escaping @Sendable (String) -> HTTPRequest
    )
        async throws(CallFailure) -> T?
    {
        do {
            return try await call(operation, type, answers: statuses, build)
        } catch  where error.stage == .call && statuses.contains(error.error.httpStatus) {
            return nil
        }
    }

    // MARK: Configuration and authentication

    /// GET /api/v1/config/{requestor}: the MVPD list with the platform SSO fields.
    package func configuration(_ requestor: String) async throws(CallFailure) -> RequestorConfiguration {
        let url = url(.configuration, [requestor])
        return try await call(.configuration, ConfigurationAnswer.self) { token in
            request(.configuration, url, headers(token))
        }.configuration(requestorID: requestor)
    }

    /// GET /api/v1/tokens/authn: the device's authentication token; nil when it has none (404) or
    /// it expired (410).
    package func authenticationToken(_ requestor: String) async throws(CallFailure) -> V1AuthenticationToken? {
        let url = url(.authenticationToken, [], device(requestor))
        return try await optional(.authenticationToken, V1AuthenticationToken.self, noneFor: [404, 410]) { token in
            request(.authenticationToken, url, headers(token))
        }
    }

    /// POST /reggie/v1/{requestor}/regcode with the selected MVPD: the code to show.
    package func registrationCode(_ requestor: String, mvpd: String) async throws(CallFailure) -> V1RegistrationRecord {
        let url = url(.registrationCode, [requestor])
        let body = Array(Encoding.form([("deviceId", context().deviceID), ("mvpd", mvpd)]).utf8)
        return try await call(.registrationCode, V1RegistrationRecord.self) { token in
            request(.registrationCode, url, headers(token, form: true), body: body)
        }
    }

    /// The second screen's login URL (GET /api/v1/authenticate, no access token: a browser opens
    /// it). `reg_code` first and `redirect_url` last, as Adobe's page asks.
    package func authenticationURL(
        _ requestor: String, code: String, mvpd: String, domainName: String,
        redirectURL: String
    ) -> String {
        Self.authenticationURL(
            base: baseURL, requestor: requestor, code: code, mvpd: mvpd, domainName: domainName,
            redirectURL: redirectURL)
    }

    static func authenticationURL(
        base: String, requestor: String, code: String, mvpd: String, domainName: String,
        redirectURL: String
    ) -> String {
        base + "/api/v1/authenticate?"
            + Encoding.form([
                ("reg_code", code), ("requestor_id", requestor), ("mso_id", mvpd), ("domain_name", domainName),
                ("noflash", "true"), ("no_iframe", "true"), ("redirect_url", redirectURL),
            ])
    }

    /// POST /api/v1/authenticate/freepreview: a TempPass authentication token (204), no second
    /// screen. `identity`: promotional TempPass's `generic_data`, a JSON object text.
    package func freePreview(_ requestor: String, mvpd: String, domainName: String, identity: String?)
        async throws(CallFailure)
    {
        let url = url(.freePreview)
        var fields = [
            ("requestor_id", requestor), ("deviceId", context().deviceID), ("mso_id", mvpd),
            ("domain_name", domainName),
        ]
        if let identity { fields.append(("generic_data", identity)) }
        let body = Array(Encoding.form(fields).utf8)
        _ = try await exchange(.freePreview) { token in
            request(.freePreview, url, headers(token, form: true), body: body)
        }
    }

    /// GET /api/v1/tokens/usermetadata: nil when there is no valid token (404, 412).
    package func userMetadata(_ requestor: String) async throws(CallFailure) -> V1UserMetadata? {
        let url = url(.userMetadata, [], device(requestor))
        return try await optional(.userMetadata, V1UserMetadata.self, noneFor: [404, 412]) { token in
            request(.userMetadata, url, headers(token))
        }
    }

    /// DELETE /api/v1/logout: removes the device's authentication and authorization tokens (204).
    package func logout(_ requestor: String) async throws(CallFailure) {
        let url = url(.logout, [], device(requestor))
        _ = try await exchange(.logout) { token in request(.logout, url, headers(token)) }
    }

    // MARK: Authorization

    /// GET /api/v1/authorize (the MVPD's decision, cached by Adobe for its TTL). `identity`:
    /// promotional TempPass's `generic_data`.
    package func authorize(_ requestor: String, resource: String, identity: String?) async throws(CallFailure)
        -> V1AuthorizationToken
    {
        var query = device(requestor) + [("resource", resource)]
        if let identity { query.append(("generic_data", identity)) }
        let url = url(.authorize, [], query)
        return try await call(.authorize, V1AuthorizationToken.self) { token in
            request(.authorize, url, headers(token))
        }
    }

    /// GET /api/v1/tokens/media: the short media token of an authorized resource.
    package func mediaToken(_ requestor: String, resource: String) async throws(CallFailure) -> V1MediaToken {
        let url = url(.mediaToken, [], device(requestor) + [("resource", resource)])
        return try await call(.mediaToken, V1MediaToken.self) { token in
            request(.mediaToken, url, headers(token))
        }
    }

    /// getAuthorization's decision: the media token straight away when Adobe holds an authorization
    /// token for the resource (`authorizedUntil`: its stored expiry, not passed; one request), else
    /// authorize then the media token (two). The decision's `notAfter` is the authorization's
    /// expiry (stored for the next call and getMetadata(1)). A media token refused with
    /// `authorization_not_found` (Adobe's authorization ended early) falls back to authorize.
    /// A denial is a decision (`authorized` false), as V2's item-level errors are.
    package func decision(_ requestor: String, profile: Profile, resource: String, authorizedUntil cached: Int64?)
        async throws(CallFailure) -> Decision
    {
        let identity = profile.tempPassIdentity.flatMap(Self.identityJSON)
        let source = profile.isTemporary ? "temppass" : nil
        var authorizedUntil = cached
        if cached == nil {
            do {
                authorizedUntil = try await authorize(requestor, resource: resource, identity: identity).expires
            } catch  where Self.isDenial(error) {
                return Decision(resource: resource, authorized: false, error: error.error.enhancedError, mvpd: profile.mvpd)
            }
        }
        do {
            let media = try await mediaToken(requestor, resource: resource)
            return Decision(
                resource: resource, authorized: true,
                token: .init(serializedToken: media.serializedToken, notAfter: media.expires),
                notAfter: authorizedUntil, source: source, mvpd: media.mvpdID ?? profile.mvpd)
        } catch  where cached != nil && Self.code(error) == "authorization_not_found" {
            return try await decision(requestor, profile: profile, resource: resource, authorizedUntil: nil)
        }
    }

    /// GET /api/v1/preauthorize with up to the per-call limit of resources (comma-separated).
    package func preauthorize(_ requestor: String, resources: [String]) async throws(CallFailure) -> [Decision] {
        let url = url(.preauthorize, [], device(requestor) + [("resource", resources.joined(separator: ","))])
        return try await call(.preauthorize, V1PreauthorizeAnswer.self) { token in
            request(.preauthorize, url, headers(token))
        }.decisions
    }

    // MARK: Apple SSO (partner single sign-on)

    /// GET /api/v1/{requestor}/profile-requests/{mvpd}: the opaque payload for the partner's
    /// verification token (application/octet-stream, passed on unparsed).
    package func profileRequest(_ requestor: String, mvpd: String) async throws(CallFailure) -> String {
        let url = url(.profileRequest, [requestor, mvpd], [("deviceType", Self.partnerDeviceType)])
        let response = try await exchange(.profileRequest) { token in
            request(.profileRequest, url, headers(token, accept: "application/octet-stream, application/json"))
        }
        guard !response.body.isEmpty, let payload = String(validating: response.body, as: UTF8.self) else {
            throw CallFailure(
                .call,
                .malformed(
                    operation: V1Operation.profileRequest.rawValue,
                    detail: response.body.isEmpty ? "empty payload" : "payload is not text"))
        }
        return payload
    }

    /// POST /api/v1/tokens/authn (token exchange): `samlResponse` is already encoded by
    /// SAMLResponseEncoding and goes into the form body as is (never encoded again). 204: the
    /// device has an authentication token.
    package func tokenExchange(_ requestor: String, mvpd: String, samlResponse: String) async throws(CallFailure) {
        let url = url(.tokenExchange)
        let fields = Encoding.form([
            ("requestor", requestor), ("deviceId", context().deviceID), ("mvpd", mvpd),
            ("deviceType", Self.partnerDeviceType),
        ])
        let body = Array((fields + "&SAMLResponse=" + samlResponse).utf8)
        _ = try await exchange(.tokenExchange) { token in
            request(.tokenExchange, url, headers(token, form: true), body: body)
        }
    }

    // MARK: Helpers

    /// `generic_data` for an AP-TempPass-Identity value (Base64 of the identity's JSON): the JSON text.
    static func identityJSON(_ identity: String) -> String? {
        guard let bytes = Base64.decode(identity) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func code(_ failure: CallFailure) -> String? {
        guard failure.stage == .call, case .enhanced(let error, _) = failure.error else { return nil }
        return error.code
    }

    /// An authorization the MVPD (or Adobe's rules) refused: a decision, not a failed call.
    private static func isDenial(_ failure: CallFailure) -> Bool {
        guard failure.stage == .call, case .enhanced(let error, _) = failure.error else { return false }
        return error.action == "none" && error.status == 403
    }
}
