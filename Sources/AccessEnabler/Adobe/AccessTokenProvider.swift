// SPDX-License-Identifier: Apache-2.0

/// Dynamic Client Registration: client credentials (cached for good, in the store) and the
/// access token (cached until it expires). Concurrent callers share one refresh.
package actor AccessTokenProvider {
    /// Renew this long before the token's expiry, so a request never starts with a dying token.
    private static let expiryMarginMillis: Int64 = 60_000

    private let executor: RequestExecutor
    private let store: TokenStore
    private let scope: StoreScope
    private let baseURL: String
    private let softwareStatement: String
    private let redirectURL: String
    private let context: @Sendable () -> DeviceContext
    private let clock: any WallClock
    private let logger: Logger
    /// Where the shared fetch runs (the client's engine thread): never Swift's cooperative pool,
    /// which a host may keep busy (docs/THREADING.md). nil: the pool (tools and fuzz harnesses).
    private let taskExecutor: (any TaskExecutor)?

    private var loaded = false
    private var credentials: ClientCredentials?
    private var token: (value: String, expiresAt: Int64)?
    /// Whether this client had a token before (stored or fetched): the next fetch is a renewal.
    private var hadToken = false
    /// The shared fetch in progress, and whether the client is shut down (`shutdown`, from any
    /// thread: the fetch is no task of the engine's, so the engine's shutdown does not reach it).
    private nonisolated let refresh = Locked<(task: Task<String, any Error>?, closed: Bool)>((nil, false))

    package init(
        executor: RequestExecutor, store: TokenStore, scope: StoreScope, baseURL: String,
        softwareStatement: String, redirectURL: String, context: @escaping @Sendable () -> DeviceContext,
        clock: any WallClock, logger: Logger, taskExecutor: (any TaskExecutor)? = nil
    ) {
        self.executor = executor
        self.store = store
        self.scope = scope
        self.baseURL = baseURL
        self.softwareStatement = softwareStatement
        self.redirectURL = redirectURL
        self.context = context
        self.clock = clock
        self.logger = logger
        self.taskExecutor = taskExecutor
    }

    /// True when credentials and an unexpired token are at hand (no request needed).
    package func isFresh() -> Bool {
        loadFromStore()
        guard let token else { return false }
        return token.expiresAt.clampedSubtracting(Self.expiryMarginMillis) > clock.nowMillis()
    }

    /// A valid access token: cached, or fetched (registering first when there are no credentials).
    package func accessToken() async throws(CallFailure) -> String {
        loadFromStore()
        if let token, token.expiresAt.clampedSubtracting(Self.expiryMarginMillis) > clock.nowMillis() { return token.value }
        let shared = refresh.withLock { refresh -> Task<String, any Error>? in
            if refresh.closed { return nil }
            if let task = refresh.task { return task }
            // Unstructured: callers share it, and one caller's cancellation must not end it for the
            // others. Such a task does not inherit the caller's executor preference: it is given.
            let task = Task(executorPreference: taskExecutor) { try await self.fetchToken() }
            refresh.task = task
            return task
        }
        guard let task = shared else { throw CallFailure(.accessToken, .transport(.cancelled)) }
        do {
            let value = try await task.value
            refresh.withLock { if $0.task == task { $0.task = nil } }
            return value
        } catch {
            refresh.withLock { if $0.task == task { $0.task = nil } }
            throw (error as? CallFailure) ?? CallFailure(.accessToken, .transport(.cancelled))
        }
    }

    /// The client is shut down: the fetch in progress is cancelled (its request with it) and no
    /// other starts, so no DCR request leaves after destroy (issue 28).
    package nonisolated func shutdown() {
        refresh.withLock { refresh -> Task<String, any Error>? in
            refresh.closed = true
            defer { refresh.task = nil }
            return refresh.task
        }?.cancel()
    }

    /// Drops `value` after Adobe rejected it (401), so the next call fetches a new one.
    package func invalidate(_ value: String) {
        guard token?.value == value else { return }
        token = nil
        try? store.deleteAccessToken(scope, token: value)
    }

    /// Runs `call` with a valid token; on a 401 gets a new token and tries once more.
    package nonisolated func withToken<T: Sendable>(
        _ call: @Sendable (String) async throws(ServiceError) -> T
    ) async throws(CallFailure) -> T {
        let first = try await accessToken()
        do {
            return try await call(first)
        } catch .enhanced(let error, 401) {
            logger.info("access token rejected (\(error.code)); renewing once")
        } catch .http(401) {
            logger.info("access token rejected (401); renewing once")
        } catch .registration(let code, 401) {
            // REST API V1 answers protected calls with DCR's errors (401 access_denied).
            logger.info("access token rejected (\(code)); renewing once")
        } catch .registration("invalid_client", let status) {
            // V1: Adobe no longer permits this client (403): register again (profiles die with it).
            logger.warning("client credentials rejected (invalid_client, \(status)); registering again")
            await forgetCredentials()
        } catch {
            throw CallFailure(.call, error)
        }
        await invalidate(first)
        let second = try await accessToken()
        do { return try await call(second) } catch { throw CallFailure(.call, error) }
    }

    /// Drops the client credentials Adobe no longer accepts, so the next token registers anew.
    private func forgetCredentials() {
        loadFromStore()
        if let credentials { try? store.deleteCredentials(scope, clientID: credentials.clientID) }
        credentials = nil
        token = nil
    }

    private func loadFromStore(again: Bool = false) {
        guard !loaded || again else { return }
        loaded = true
        guard let (stored, storedBase) = try? store.credentials(scope) else { return }
        guard storedBase == baseURL else {
            logger.info("stored client credentials belong to another service URL; registering anew")
            return
        }
        credentials = stored
        if let saved = try? store.accessToken(scope, clientID: stored.clientID) {
            token = (saved.token, saved.expiresAt)
            hadToken = true
        }
    }

    private func fetchToken() async throws(CallFailure) -> String {
        var current: ClientCredentials
        if let credentials {
            current = credentials
        } else {
            // Another process of the app may be registering: wait for it, then use what it stored.
            let lock: ProcessLock? =
                if let path = store.lockPath {
                    await ProcessLock.acquire(path: path, timeoutMillis: 45_000)
                } else { nil }
            defer { withExtendedLifetime(lock) {} }
            if Task.isCancelled { throw CallFailure(.registration, .transport(.cancelled)) }
            loadFromStore(again: true)
            if let token, token.expiresAt.clampedSubtracting(Self.expiryMarginMillis) > clock.nowMillis() { return token.value }
            if let credentials { current = credentials } else { current = try await register() }
        }
        // Shut down meanwhile (register's answer came as the client was destroyed): nothing more leaves.
        if Task.isCancelled { throw CallFailure(.accessToken, .transport(.cancelled)) }
        do {
            return try await requestToken(current)
        } catch let failure where isInvalidClient(failure.error) {
            // Adobe no longer knows these credentials: register again (profiles die with them).
            logger.warning("client credentials rejected (invalid_client); registering again")
            try? store.deleteCredentials(scope, clientID: current.clientID)
            credentials = nil
            current = try await register()
            return try await requestToken(current)
        }
    }

    private func isInvalidClient(_ error: ServiceError) -> Bool {
        if case .registration("invalid_client", _) = error { true } else { false }
    }

    private func register() async throws(CallFailure) -> ClientCredentials {
        let body = JSON.data(["software_statement": softwareStatement, "redirect_uri": redirectURL])
        let request = HTTPRequest(
            method: "POST", url: baseURL + "/o/client/register",
            headers: [
                ("Content-Type", "application/json;charset=utf-8"), ("Accept", "application/json;charset=utf-8"),
                ("X-Device-Info", context().deviceInfo),
            ], body: body)
        do {
            let response = try await executor.send(request, operation: "register")
            let credentials = try RequestExecutor.decode(ClientCredentials.self, from: response, operation: "register")
            self.credentials = credentials
            token = nil
            do { try store.saveCredentials(scope, credentials, baseURL: baseURL) } catch {
                logger.error("cannot store client credentials: \(error)")
            }
            logger.info("registered the application (DCR)")
            return credentials
        } catch {
            throw CallFailure(.registration, error)
        }
    }

    private func requestToken(_ credentials: ClientCredentials) async throws(CallFailure) -> String {
        // Adobe's docs send these as a form body; the OpenAPI file's query parameters would put the
        // client secret in URLs and logs (erratum E12 of reference/openapi/NOTICE.md).
        let form = Encoding.form([
            ("client_id", credentials.clientID), ("client_secret", credentials.clientSecret),
            ("grant_type", "client_credentials"),
        ])
        let request = HTTPRequest(
            method: "POST", url: baseURL + "/o/client/token",
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json;charset=utf-8"),
                ("X-Device-Info", context().deviceInfo),
            ], body: Array(form.utf8))
        let sentAt = monotonicNanos()
        do {
            // The client-credentials grant is idempotent: a 5xx or a broken exchange is tried again
            // (bounded, jittered, Retry-After honoured), so one hiccup fails neither a cold
            // setRequestor nor the call whose token was being renewed.
            let response = try await executor.send(request, operation: "token", retry: .idempotent)
            let answer = try RequestExecutor.decode(AccessTokenResponse.self, from: response, operation: "token")
            // On Adobe's clock, read after the answer (whose Date header may have just set it),
            // less the time the request took: the token's life started when it was asked for.
            let elapsed = Int64((monotonicNanos() &- sentAt) / 1_000_000)
            // `expires_in` is Adobe's number: clamped (Limits.accessTokenSeconds), never trusted to fit.
            let lifetime = (answer.expiresIn ?? Defaults.accessTokenSeconds).clamped(to: Limits.accessTokenSeconds) * 1000
            let expiresAt = clock.nowMillis().clampedSubtracting(elapsed).clampedAdding(lifetime)
            token = (answer.accessToken, expiresAt)
            if hadToken { executor.metrics.add(MetricCatalog.tokenRenewals, ["access_token"]) }  // expired or refused
            hadToken = true
            do {
                try store.saveAccessToken(
                    scope, clientID: credentials.clientID, token: answer.accessToken,
                    expiresAt: expiresAt)
            } catch {
                logger.error("cannot store the access token: \(error)")
            }
            return answer.accessToken
        } catch {
            throw CallFailure(.accessToken, error)
        }
    }
}
