// SPDX-License-Identifier: Apache-2.0
import CCurl

/// AccessEnabler for Linux: Adobe's AccessEnabler API (iOS names) on REST API V2 (or the legacy V1).
///
/// Every call checks its arguments and returns at once; outcomes arrive through `delegate` and
/// `statusDelegate` on the client's callback thread, in order, never inside the call. A call that
/// throws triggers no callback. Calls are safe from any thread, including from callbacks.
public final class AccessEnabler: @unchecked Sendable {
    private struct Delegates {
        weak var delegate: (any EntitlementDelegate)?
        weak var status: (any EntitlementStatus)?
    }

    let engine: Engine
    /// The gate's actions of accepted calls, in order, for the engine: each accepted call starts a
    /// task on the engine's thread that runs whatever is queued by then (Engine.executeAccepted).
    private let queuedCommands = Locked<[[RequestorGate.Action]]>([])
    let callbacks: any CallbackRunner
    private let transport: any HTTPTransport
    private let store: TokenStore
    /// The app's records in the store (the diagnostics rows: recent failures, the last metrics).
    private let storeScope: StoreScope
    private let context: Locked<DeviceContext>
    /// The clock SSO tokens' `exp` is judged on (Adobe's time when known).
    let wallClock: any WallClock
    /// Set by shutdown; held while a call is handed over, so calls and destroy do not interleave.
    private let destroyed = Locked(false)
    private let delegates = Locked(Delegates())
    private let logger: Logger
    /// The client's metrics (docs/METRICS.md; AccessEnabler+Metrics.swift).
    let metricsRegistry: Metrics
    /// The push timer's task (`setMetricsPush`), cancelled by the next call and by shutdown.
    let metricsPush = Locked<Task<Void, Never>?>(nil)
    /// How the store was found at create (opened, created, recovered from damage, cleared, …).
    public let storeStatus: StoreOpenStatus
    /// The async calls waiting for their events, by call id (AccessEnabler+Async.swift).
    let asyncCalls = AsyncCalls()
    private let callIDs = Locked<UInt64>(0)
    /// The preauthorize completions not yet called, by call: each is called exactly once, with its
    /// answer (`deliver`) or, when the client is destroyed first, from `shutdown` with
    /// `client_destroyed` (issue 28: destroy dropped them, though the header says "exactly once").
    private let openCompletions = Locked<[CallID: (PreauthorizeRequest, @Sendable (PreauthorizeResponse) -> Void)]>([:])

    /// Receives AccessEnabler's callbacks (weak, as on iOS).
    public var delegate: (any EntitlementDelegate)? {
        get { delegates.withLock { $0.delegate } }
        set { delegates.withLock { $0.delegate = newValue } }
    }

    /// Receives advanced statuses (weak, as on iOS).
    public var statusDelegate: (any EntitlementStatus)? {
        get { delegates.withLock { $0.status } }
        set { delegates.withLock { $0.status = newValue } }
    }

    /// Creates a client: opens the store and settles the device id. No network.
    public convenience init(settings: Settings) throws(AccessEnablerError) {
        var options = CurlTransport.Options()
        options.connectTimeoutMs = settings.connectTimeoutMillis
        options.totalTimeoutMs = settings.requestTimeoutMillis
        options.userAgent = "AccessEnabler-Linux/\(Version.string)"
        options.tls = settings.tls
        try self.init(settings: settings, transport: nil, transportOptions: options, clock: SystemClock())
    }

    /// Creates a client on a given transport and clock (tests).
    package convenience init(settings: Settings, transport: any HTTPTransport, clock: any WallClock) throws(AccessEnablerError) {
        try self.init(settings: settings, transport: transport, transportOptions: nil, clock: clock)
    }

    private init(
        settings: Settings, transport: (any HTTPTransport)?, transportOptions: CurlTransport.Options?,
        clock: any WallClock
    ) throws(AccessEnablerError) {
        if let problem = settings.validate() {
            throw problem.contains(text: "plain http") ? .insecureURL(problem) : .invalidArgument(problem)
        }
        // libcurl and OpenSSL set up once per process, then the exit gate's handler, which must come
        // after OpenSSL's own (ccurl.c): every client, a host transport's too (its engine uses OpenSSL).
        _ = ccurl_global_init_once()
        logger = Logger(maxLevel: settings.logLevel, sink: settings.logSink)
        let metrics = Metrics()
        metricsRegistry = metrics
        let store: TokenStore
        let deviceID: String
        do throws(StoreError) {
            store = try TokenStore(
                path: settings.storagePath, app: StoreScope(softwareStatement: settings.softwareStatement, api: "").app,
                sealer: settings.storeKey.flatMap(Sealer.init(key:)), check: settings.storeCheck, logger: logger,
                metrics: metrics)
            if let given = settings.deviceID {
                deviceID = given
            } else {
                deviceID = try store.deviceID(orCreate: DeviceDefaults.derivedDeviceID)
            }
        } catch {
            let message = "\(settings.storagePath ?? ":memory:"): \(error)"
            throw error.kind == .wrongKey || error.kind == .keyRequired ? .storeKey(message) : .storage(message)
        }
        storeStatus = store.openStatus
        self.store = store
        // Adobe's clock: from this boot's anchor in the store, else the latest server time seen.
        let bootID = ServerClock.bootID
        let stored = try? store.clockAnchor(bootID: bootID)
        let serverClock = ServerClock(local: clock, anchor: stored?.anchor, latestServerMillis: stored?.latest) { anchor in
            try? store.saveClockAnchor(bootID: bootID, anchor)
        }
        if settings.storagePath == nil { logger.info("no storage path: nothing persists after destroy") }
        let deviceInfo = settings.deviceInfo ?? DeviceDefaults.deviceInfo()
        for key in ["model", "version", "osName", "osVersion", "connectionType"] where deviceInfo[key] == nil {
            logger.warning("device info lacks \(key), which Adobe requires")
        }
        let context = Locked(DeviceContext(deviceID: deviceID, deviceInfo: Encoding.base64(JSONValue.object(deviceInfo).jsonText)))
        self.context = context
        self.wallClock = serverClock
        // The engine's thread: libcurl's network thread when the SDK makes its own transport, else
        // a thread of the executor's own (docs/THREADING.md).
        let engineThread: ClientExecutor
        if let chosen = transport ?? settings.transport {
            engineThread = ClientExecutor(ownThread: true)
            self.transport = chosen
        } else {
            engineThread = ClientExecutor(ownThread: false)
            self.transport = CurlTransport(options: transportOptions ?? .init(), executor: engineThread, metrics: metrics)
        }
        let callbacks: any CallbackRunner
        switch settings.callbackMode {
        case .thread: callbacks = CallbackQueue()
        case .eventLoop:
            guard let queue = EventLoopQueue() else { throw .internalError("eventfd failed") }
            callbacks = queue
        }
        self.callbacks = callbacks
        let executor = RequestExecutor(
            transport: self.transport, requestsPerSecond: settings.requestsPerSecond,
            serverClock: serverClock, logger: logger, requestTimeoutMillis: settings.requestTimeoutMillis, metrics: metrics)
        // Weak: the clock holds the store (its anchor), which holds the registry; a strong capture
        // here would be a cycle that outlives the client (the struct-versions fuzzer's leak).
        metrics.gauge(MetricCatalog.clockSkew) { [weak serverClock] in serverClock?.skewMillis.map { Double($0) / 1000 } }
        metrics.gauge(MetricCatalog.outageState) { [weak executor] in executor?.outageGauge }
        let scope = StoreScope(softwareStatement: settings.softwareStatement, api: settings.apiGeneration.storeName)
        storeScope = scope
        let sink = CallbackSink(queue: callbacks, logger: logger, metrics: metrics) { failure in
            // On the engine thread, as the store's other writes; a failure to record is not the host's.
            try? store.recordFailure(
                scope, level: failure.isError ? "error" : "warning", errorID: failure.errorID, message: failure.line,
                at: SystemClock().nowMillis())
        }
        // The engine never needs the store key (the store's sealer holds its own copy): without it
        // here, the caller's copy is the only one left, which the C thunk then wipes in place.
        var engineSettings = settings
        engineSettings.storeKey = nil
        engine = Engine(
            settings: engineSettings, store: store, executor: executor, context: context, deviceInfo: deviceInfo,
            clock: serverClock, logger: logger, sink: sink, thread: engineThread)
        sink.owner = self
    }

    deinit { shutdown() }

    /// Ends the client: cancels requests and polling; after it returns no callback runs (unless
    /// called from a callback, which finishes first). Later calls throw `invalidHandle`.
    public func shutdown() {
        let first = destroyed.withLock { destroyed -> Bool in
            defer { destroyed = true }
            return !destroyed
        }
        guard first else { return }
        // What the engine's job had not taken yet is never executed (the engine shuts down next); a
        // preauthorize completion among it holds this client, which would keep it alive.
        queuedCommands.withLock { $0.removeAll() }
        metricsPush.withLock { $0?.cancel() }
        callbacks.close()
        asyncCalls.close()
        // The transport first: the host's `send` running on the engine thread is waited for and the
        // exchanges in flight are cancelled in the host, then no request reaches it any more, whatever
        // the tasks the engine cancels next still try (issue 28).
        transport.shutdown()
        engine.shutdown()
        // The client's last metrics, for accessenabler-diag's bundle (docs/METRICS.md): one row per app, replaced.
        try? store.saveDiagnostic(
            storeScope, key: TokenStore.metricsKey, value: metricsRegistry.snapshot().json.jsonText, at: SystemClock().nowMillis())
        store.close()
        logger.close()  // tasks still winding down (cancelled waits) log nothing to the host any more
        // No callback of this client runs any more (or only the one that called this, which these
        // then follow on its thread): the preauthorize completions still open end here.
        let open = openCompletions.withLock { open in
            defer { open.removeAll() }
            return open.sorted { $0.key < $1.key }
        }
        for (_, (request, completion)) in open { completion(.allDenied(request.resources, Self.destroyedError)) }
    }

    /// What a preauthorize completion gets when the client is destroyed before its answer: every
    /// resource denied with it, and it as the call's status.
    static let destroyedError = EnhancedError.sdk(
        "client_destroyed", action: "none", message: "The client was destroyed before the decisions came.")

    // MARK: Event-loop mode

    /// Event-loop mode: readable while callbacks are queued (nil in thread mode). Do not read or close it.
    public var eventFileDescriptor: Int32? { (callbacks as? EventLoopQueue)?.fileDescriptor }

    /// Event-loop mode: runs the queued callbacks on the calling thread; returns how many ran.
    @discardableResult
    public func dispatch() throws(AccessEnablerError) -> Int {
        guard let queue = callbacks as? EventLoopQueue else {
            throw .invalidArgument("dispatch: the client is not in event-loop mode")
        }
        try checkAlive()
        return queue.dispatch()
    }

    // MARK: Calls

    /// setOptions: `applicationProfile`, `visitorID` (or Android's `ap_vi`), `device_info`
    /// (object or Base64 of one), `handleSVC` (ignored), `deviceIdMetadata` (bool: getMetadata
    /// opcode 2 answers the device id; false by default, as Adobe's device id metadata is disabled
    /// until Adobe enables it for the integration). No callback.
    public func setOptions(_ options: [String: JSONValue]) throws(AccessEnablerError) {
        // Check everything first, then apply all of it at once (concurrent calls do not interleave).
        var changes: [(inout DeviceContext) -> Void] = []
        for (key, value) in options {
            switch key {
            case "applicationProfile":
                let text = try Self.optionText(value, key)
                changes.append { $0.applicationProfile = text.isEmpty ? nil : text }
            case "visitorID", "ap_vi":
                // Sent as the AP-Visitor-Identifier header: a CR or LF would add headers of its own.
                let text = try Self.optionText(value, key)
                changes.append { $0.visitorID = text.isEmpty ? nil : text }
            case "device_info":
                let info = try Self.deviceInfoOption(value)
                changes.append { $0.deviceInfo = info }
            case "handleSVC":
                guard value.boolValue != nil else { throw .invalidArgument("handleSVC must be a boolean") }
            case "deviceIdMetadata":
                guard let enabled = value.boolValue else { throw .invalidArgument("deviceIdMetadata must be a boolean") }
                changes.append { $0.deviceIDMetadata = enabled }
            default:
                logger.info("setOptions: ignoring unknown key \(key)")
            }
        }
        try checkAlive()
        context.withLock { context in for change in changes { change(&context) } }
    }

    /// Sets the host's single sign-on token of `kind` (nil clears it): a platform identity
    /// (`Adobe-Subject-Token`) or a service token (`AD-Service-Token`), sent from then on with the
    /// calls Adobe lists for it (docs/PLATFORM-SSO.md). Checked now (`IdentityToken.parse`):
    /// malformed, `alg` none or not allowed, expired, a lifetime over a year, over 16 KiB, a
    /// character outside base64url → `invalidArgument` naming why, and the previous token stays.
    /// A token past its `exp` later is no longer sent. The text never reaches a log (a SHA-256
    /// prefix does). No callback.
    public func setIdentityToken(_ token: String?, kind: IdentityTokenKind) throws(AccessEnablerError) {
        var parsed: IdentityToken?
        if let token {
            do {
                parsed = try IdentityToken.parse(token, kind: kind, nowMillis: wallClock.nowMillis())
            } catch {
                throw .invalidArgument("\(kind.headerName) refused: \(error)")
            }
        }
        try checkAlive()
        context.withLock { $0.identityTokens[kind] = parsed }
        logger.info("\(kind.headerName): " + (parsed.map { "set (sha256 \($0.fingerprint)…)" } ?? "cleared"))
    }

    /// A string option; control characters are refused (options end up in headers and URLs).
    private static func optionText(_ value: JSONValue, _ key: String) throws(AccessEnablerError) -> String {
        guard let text = value.stringValue else { throw .invalidArgument("\(key) must be a string") }
        if text.containsControlCharacter { throw .invalidArgument("\(key) contains a control character") }
        return text
    }

    private static func deviceInfoOption(_ value: JSONValue) throws(AccessEnablerError) -> String {
        switch value {
        case .object: return Encoding.base64(value.jsonText)
        case .string(let text):
            // Sent as it is (X-Device-Info): only the Base64 alphabet, and it must decode to an object.
            guard let bytes = Base64.decode(text), (try? JSON.parse(bytes))?.objectValue != nil
            else { throw .invalidArgument("device_info must be a JSON object or the Base64 of one") }
            return text
        default: throw .invalidArgument("device_info must be a JSON object or the Base64 of one")
        }
    }

    public func setRequestor(_ requestorID: String, serviceProviders: [String]? = nil) throws(AccessEnablerError) {
        try setRequestor(requestorID, serviceProviders: serviceProviders, id: nil)
    }

    func setRequestor(_ requestorID: String, serviceProviders: [String]?, id: CallID?) throws(AccessEnablerError) {
        if let problem = Settings.checkPathSegment(requestorID) { throw .invalidArgument("requestor_id \(problem)") }
        if let serviceProviders {
            guard !serviceProviders.isEmpty else { throw .invalidArgument("service providers: the array is empty") }
            for url in serviceProviders {
                if let problem = Settings.checkServiceURL(url) {
                    throw problem.contains(text: "plain http")
                        ? .insecureURL("\(url): \(problem)")
                        : .invalidArgument("service provider \(url): \(problem)")
                }
            }
        }
        try submit(.setRequestor(id: requestorID, serviceProviders: serviceProviders), id: id)
    }

    public func checkAuthentication() throws(AccessEnablerError) { try submit(.checkAuthentication) }

    public func getAuthentication(
        forceAuthn: Bool = false, withData data: JSONValue? = nil,
        andFilter filter: JSONValue? = nil
    ) throws(AccessEnablerError) {
        try getAuthentication(forceAuthn: forceAuthn, withData: data, andFilter: filter, id: nil)
    }

    func getAuthentication(
        forceAuthn: Bool, withData data: JSONValue?, andFilter filter: JSONValue?,
        id: CallID?
    ) throws(AccessEnablerError) {
        if let data, data.objectValue == nil { throw .invalidArgument("data must be a JSON object") }
        if let filter {
            guard let object = filter.objectValue,
                object.values.allSatisfy({ $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true })
            else { throw .invalidArgument("filter must be an object of string arrays (TV_PROVIDERS, FEATURED_TV_PROVIDERS)") }
        }
        try submit(.getAuthentication(force: forceAuthn, data: data, filter: filter), id: id)
    }

    /// nil cancels the login in progress.
    public func setSelectedProvider(_ mvpdID: String?) throws(AccessEnablerError) {
        if mvpdID?.isEmpty == true { throw .invalidArgument("mvpd_id is empty (pass NULL to cancel)") }
        if let mvpdID, let problem = Settings.checkPathSegment(mvpdID) { throw .invalidArgument("mvpd_id \(problem)") }
        try submit(.setSelectedProvider(mvpdID))
    }

    public func getSelectedProvider() throws(AccessEnablerError) { try submit(.getSelectedProvider) }

    public func checkAuthorization(_ resource: String, withData data: JSONValue? = nil) throws(AccessEnablerError) {
        try authorization(resource, data, check: true, id: nil)
    }

    public func getAuthorization(_ resource: String, withData data: JSONValue? = nil) throws(AccessEnablerError) {
        try authorization(resource, data, check: false, id: nil)
    }

    func authorization(_ resource: String, _ data: JSONValue?, check: Bool, id: CallID?) throws(AccessEnablerError) {
        guard !resource.isEmpty else { throw .invalidArgument("resource is empty") }
        if let data, data.objectValue == nil { throw .invalidArgument("data must be a JSON object") }
        try submit(.authorization(resource: resource, check: check), id: id)
    }

    public func checkPreauthorizedResources(_ resources: [String], cache: Bool = true) throws(AccessEnablerError) {
        guard !resources.contains(where: \.isEmpty) else { throw .invalidArgument("resources: an empty resource id") }
        try submit(.checkPreauthorizedResources(resources, cache: cache))
    }

    public func preauthorize(
        _ request: PreauthorizeRequest,
        completion: @escaping @Sendable (PreauthorizeResponse) -> Void
    ) throws(AccessEnablerError) {
        try preauthorize(request, id: nil, completion: completion)
    }

    func preauthorize(
        _ request: PreauthorizeRequest, id: CallID?,
        completion: @escaping @Sendable (PreauthorizeResponse) -> Void
    ) throws(AccessEnablerError) {
        guard !request.resources.isEmpty, !request.resources.contains(where: \.isEmpty) else {
            throw .invalidArgument("resources must be a non-empty array of non-empty strings")
        }
        try submit(.preauthorize(request, completion: completion), id: id)
    }

    public func getMetadata(_ key: MetadataKey) throws(AccessEnablerError) { try submit(.getMetadata(key)) }

    public func logout() throws(AccessEnablerError) { try submit(.logout) }

    public func handleExternalURL(_ url: String) throws(AccessEnablerError) {
        guard !url.isEmpty else { throw .invalidArgument("url is empty") }
        try submit(.handleExternalURL(url))
    }

    // MARK: Plumbing

    private func checkAlive() throws(AccessEnablerError) {
        if destroyed.withLock({ $0 }) { throw .invalidHandle() }
    }

    /// Runs `body` unless the client was destroyed (then `invalidHandle`); a destroy waits for it.
    func whileAlive<T>(_ body: () throws(AccessEnablerError) -> T) throws(AccessEnablerError) -> T {
        try destroyed.withLock { destroyed throws(AccessEnablerError) in
            if destroyed { throw .invalidHandle() }
            return try body()
        }
    }

    /// A new call identity (`id` of `submit`; the async API takes one before it submits).
    func newCallID() -> CallID {
        CallID(
            callIDs.withLock { value in
                value += 1
                return value
            })
    }

    /// Hands a checked call to the engine with its identity (`id`, or a new one). The requestor
    /// gate (RequestorGate) takes it here, on the caller's thread, and refuses a call made before
    /// any setRequestor at once; its decision and the enqueue happen under one lock, so the engine
    /// sees calls in the order they were accepted.
    func submit(_ command: Command, id: CallID? = nil) throws(AccessEnablerError) {
        let call = Call(id ?? newCallID(), command)
        try destroyed.withLock { destroyed throws(AccessEnablerError) in
            if destroyed { throw .invalidHandle() }
            let actions: [RequestorGate.Action]
            switch engine.accept(call) {
            case .success(let accepted): actions = accepted
            case .failure(.noRequestor):
                metricsRegistry.callRefused(command, outcome: "no_requestor")
                throw .noRequestor()
            case .failure(.queueFull):
                metricsRegistry.callRefused(command, outcome: "queue_full")
                throw .queueFull("\(RequestorGate.maxQueued) calls already wait for setRequestor to complete")
            }
            metricsRegistry.callAccepted(call)
            if case .preauthorize(let request, let completion) = command {
                openCompletions.withLock { $0[call.id] = (request, completion) }
            }
            guard !actions.isEmpty else { return }
            queuedCommands.withLock { $0.append(actions) }
            let (engine, queued) = (engine, queuedCommands)
            Task(executorPreference: engine.thread) { await engine.executeAccepted(queued) }
        }
    }

    /// Delivers an engine event to the async caller it ends or belongs to, then to the delegates
    /// (on the callback thread).
    fileprivate func deliver(_ emission: Emission) {
        asyncCalls.observe(emission)
        let event = emission.event
        let (delegate, status) = delegates.withLock { ($0.delegate, $0.status) }
        switch event {
        case .setRequestorComplete(let value): delegate?.setRequestorComplete(value)
        case .setAuthenticationStatus(let value, let code): delegate?.setAuthenticationStatus(value, errorCode: code)
        case .setToken(let token, let resource, let notAfter): delegate?.setToken(token, forResource: resource, notAfter: notAfter)
        case .tokenRequestFailed(let resource, let code, let description):
            delegate?.tokenRequestFailed(resource, errorCode: code, errorDescription: description)
        case .selectedProvider(let mvpd): delegate?.selectedProvider(mvpd)
        case .displayProviderDialog(let mvpds): delegate?.displayProviderDialog(mvpds)
        case .navigateToURL(let url): delegate?.navigate(toUrl: url)
        case .sendTrackingData(let event, let data): delegate?.sendTrackingData(data, forEventType: event)
        case .setMetadataStatus(let value, let encrypted, let key, let arguments):
            delegate?.setMetadataStatus(value, encrypted: encrypted, forKey: key, andArguments: arguments)
        case .preauthorizedResources(let resources): delegate?.preauthorizedResources(resources)
        case .presentTvProviderDialog(let dialog): delegate?.presentTvProviderDialog(dialog)
        case .dismissTvProviderDialog(let dialog): delegate?.dismissTvProviderDialog(dialog)
        case .status(let advanced): status?.status(advanced)
        case .preauthorizeResponse(let response, let completion):
            // Once: unless destroy already answered it (then it is no longer open).
            let open = emission.calls.isEmpty || openCompletions.withLock { $0.removeValue(forKey: emission.calls[0]) } != nil
            if open { completion(response) }
        }
    }
}

/// Puts engine events on the callback thread; the failures among them go to the log as well, and
/// to the store's recent failures (what `accessenabler-diag bundle` shows a support engineer).
private final class CallbackSink: EventSink, @unchecked Sendable {
    private let queue: any CallbackRunner
    private let logger: Logger
    private let metrics: Metrics
    private let recorder: (@Sendable (Failure) -> Void)?
    weak var owner: AccessEnabler?

    /// A failure as logged: its level, AccessEnabler's error id (or the callback's name) and the line.
    struct Failure {
        var isError: Bool
        var errorID: String
        var line: String
    }

    init(queue: any CallbackRunner, logger: Logger, metrics: Metrics, recorder: (@Sendable (Failure) -> Void)?) {
        self.queue = queue
        self.logger = logger
        self.metrics = metrics
        self.recorder = recorder
    }

    func emit(_ emission: Emission) {
        if let failure = Self.failure(emission.event) {
            if failure.isError { logger.error(failure.line) } else { logger.warning(failure.line) }
            recorder?(failure)
        }
        if emission.ends, let call = emission.calls.first { metrics.callEnded(call.value, outcome: emission.outcome(of:)) }
        queue.enqueue { [weak self] in self?.owner?.deliver(emission) }
    }

    /// Every failure that reaches a callback is logged too, at error or warning (issue 28: a wrong
    /// requestor id or a TLS failure left the log silent): the status that names it, with Adobe's
    /// code and action, and the callback that ends the call. The request it came from is logged by
    /// RequestExecutor. Never a token or secret: statuses and error strings carry none.
    static func failure(_ event: Event) -> Failure? {
        switch event {
        case .status(let status) where status.level != .info:
            var line = "\(status.errorID): \(status.message)"
            if let error = status.enhancedError {
                line += " [\(error.code), status \(error.status), action \(error.action ?? "none")]"
            }
            return Failure(isError: status.level == .error, errorID: status.errorID, line: line)
        case .setRequestorComplete(let value) where value != AccessEnablerStatus.success:
            return Failure(isError: true, errorID: "setRequestor", line: "setRequestor failed (the status before names why)")
        case .tokenRequestFailed(let resource, let code, let description):
            return Failure(
                isError: false, errorID: code,
                line: "authorization of \(resource) failed: \(code)\(description.isEmpty ? "" : ": \(description)")")
        case .setAuthenticationStatus(let value, let code) where value == 0 && code == AccessEnablerErrorCode.genericAuthentication:
            return Failure(isError: false, errorID: code, line: "authentication failed: \(code)")
        case .preauthorizeResponse(let response, _):
            guard let status = response.status else { return nil }
            return Failure(isError: false, errorID: status.code, line: "preauthorize failed: \(status.code): \(status.message ?? "")")
        default:
            return nil
        }
    }
}
