// SPDX-License-Identifier: Apache-2.0

/// The driver of one client's flows. Calls pass the requestor gate (RequestorGate) when the
/// facade accepts them (`accept`, synchronously, in call order); the gate's actions come to the
/// engine in that order, and each flow — setRequestor's, the login's, the decisions', logout's —
/// is a pure state machine whose actions the engine executes: requests and waits run in tasks the
/// engine keeps track of (so destroy can cancel them), and their results come back as events.
package actor Engine {
    struct Requestor {
        let id: String
        var configuration: RequestorConfiguration
        let backend: any Backend
    }

    let settings: Settings
    let store: TokenStore
    let scope: StoreScope
    let executor: RequestExecutor
    let clock: any WallClock
    let logger: Logger
    let sink: any EventSink
    let context: Locked<DeviceContext>
    let tracking: TrackingValues
    /// The client's engine thread: this actor's executor, and the one its tasks prefer
    /// (ClientExecutor; with libcurl, the network thread).
    package nonisolated let thread: ClientExecutor
    package nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    private nonisolated let tasks = Locked<(next: Int, running: [Int: Task<Void, Never>], closed: Bool)>((1, [:], false))
    /// The access-token providers by service URL (nonisolated: shutdown cancels their fetches).
    private nonisolated let providers = Locked<(byURL: [String: AccessTokenProvider], closed: Bool)>(([:], false))
    /// Accepts, queues, runs or refuses every call (shared with the facade's threads: `accept`).
    nonisolated let gate: Locked<RequestorGate>
    var requestor: Requestor? {
        didSet { readyRequestorID.withLock { $0 = requestor?.id } }
    }
    /// The requestor's id, for the gate's facts on the facade's threads.
    private nonisolated let readyRequestorID = Locked<String?>(nil)
    /// Every flow in progress but the login (Engine+Flows.swift drives them).
    var flows = FlowTable()
    /// setRequestor's steps in progress (RequestorSetupFlow+Driver.swift), in `flows`.
    var setup: FlowID<RequestorSetupFlow>?
    /// The login (getAuthentication, setSelectedProvider, ...; LoginFlow+Driver.swift runs it).
    var loginFlow: LoginFlow
    /// The tasks of the login's operations in progress (cancelled when the flow says so).
    var loginTasks: [LoginOperation: Int] = [:]
    /// When the login's code was shown (monotonic ns), for `ae.login.duration`; nil: no code shown.
    var loginCodeShownAt: UInt64?
    /// Preauthorization decisions for five minutes (PreauthorizationFlow decides what goes in).
    var preauthorizationCache = PreauthorizationCache()
    /// True while the engine runs actions with the store held open (Engine+Flows.swift: `DrivenFlow.keepsStoreOpen`).
    var keepingStoreOpen = false
    /// Resources per preauthorization request: lowered when Adobe refuses as many (read by the
    /// flows' events on the engine's thread; Locked so that their closures may read it).
    nonisolated let preauthorizeLimit: Locked<Int>
    var logoutRedirectPending = false
    /// The partner status and when it was asked (refreshed by setRequestor and when stale); read
    /// by the gate's facts on the facade's threads too.
    /// The kinds of SSO token the host's provider is being asked for now (one ask per kind).
    nonisolated let identityAsking = Locked<Set<IdentityTokenKind>>([])
    nonisolated let partnerStatusCache = Locked<(status: PartnerStatus, askedAt: Int64)?>(nil)
    var partnerCache: (status: PartnerStatus, askedAt: Int64)? {
        get { partnerStatusCache.withLock { $0 } }
        set { partnerStatusCache.withLock { $0 = newValue } }
    }
    /// V1: getMetadata calls waiting for the user metadata being read (nil: none is being read).
    var metadataWaiting: [(CallID, MetadataKey)]?

    package init(
        settings: Settings, store: TokenStore, executor: RequestExecutor, context: Locked<DeviceContext>,
        deviceInfo: [String: JSONValue], clock: any WallClock, logger: Logger, sink: any EventSink,
        thread: ClientExecutor
    ) {
        self.thread = thread
        self.settings = settings
        self.store = store
        self.scope = StoreScope(softwareStatement: settings.softwareStatement, api: settings.apiGeneration.storeName)
        self.executor = executor
        self.context = context
        let tracking = TrackingValues(deviceInfo: deviceInfo)
        self.tracking = tracking
        self.clock = clock
        self.logger = logger
        self.sink = sink
        self.preauthorizeLimit = Locked(max(1, settings.preauthorizeLimit))
        self.loginFlow = LoginFlow(settings: Self.loginSettings(settings, tracking: tracking))
        self.gate = Locked(RequestorGate(tracking: tracking))
    }

    // MARK: The gate

    /// Takes a call on the facade's thread, in call order (the facade holds its submit lock):
    /// the gate's refusal (no requestor, or the queue is full: no callback), else the gate's
    /// actions, which `execute` must run in the order they were returned.
    package nonisolated func accept(_ call: Call) -> Result<[RequestorGate.Action], RequestorGate.Refusal> {
        let facts = partnerFacts(for: call.command)
        let actions = gate.withLock { $0.callArrived(call, facts: facts) }
        for action in actions { if case .refuse(_, let why) = action { return .failure(why) } }
        return .success(actions)
    }

    /// Runs the actions of the calls the facade accepted (`queued`, in the order accepted): each
    /// call posts one of these, which takes whatever is queued by then.
    package func executeAccepted(_ queued: Locked<[[RequestorGate.Action]]>) {
        let batch = queued.withLock { commands in
            defer { commands.removeAll() }
            return commands
        }
        for actions in batch { execute(actions) }
    }

    /// Runs the gate's actions, then the queued calls whose turn came.
    package func execute(_ actions: [RequestorGate.Action]) {
        refreshIdentityTokensIfNeeded()
        for action in actions {
            switch action {
            case .startSetup(let call):
                if case .setRequestor(let id, let serviceProviders) = call.command { startSetRequestor(call.id, id, serviceProviders) }
            case .askPartnerStatus(let call):
                spawn {
                    let status = await self.refreshPartnerStatus()
                    await self.partnerStatusArrived(for: call.id, status)
                }
            case .perform(let call, let explanation):
                perform(call, explanation: explanation)
            case .emit(let emission):
                sink.emit(emission)
            case .refuse:
                break  // the facade refused it (accept)
            }
        }
    }

    private func partnerStatusArrived(for call: CallID, _ status: PartnerStatus) {
        let advisory = partnerAdvisory(status, checkingAuthentication: true)
        execute(gate.withLock { $0.partnerStatusAnswered(for: call, advisory: advisory) })
        drainQueued()
    }

    /// Runs the queued calls, one at a time, each decided with the facts of its turn.
    private func drainQueued() {
        while let actions = gate.withLock({ gate -> [RequestorGate.Action]? in
            guard let call = gate.nextQueuedCall else { return nil }
            return gate.runQueued(facts: partnerFacts(for: call.command))
        }) {
            execute(actions)
        }
    }

    /// What the gate needs to know of the partner when a call's turn comes.
    private nonisolated func partnerFacts(for command: Command) -> RequestorGate.PartnerFacts {
        guard settings.partner != nil else { return .noPartner }
        var facts = RequestorGate.PartnerFacts(
            partnerConfigured: true, statusFresh: isPartnerStatusFresh(),
            partnerProfileStored: false)
        var ifStored = facts
        ifStored.partnerProfileStored = true
        // The store is read only when the gate's answer depends on it.
        if RequestorGate.waitsForPartner(command, ifStored) != RequestorGate.waitsForPartner(command, facts),
            let requestorID = readyRequestorID.withLock({ $0 })
        {
            let deviceID = context.withLock { $0.deviceID }
            let now = clock.nowMillis()
            let stored = (try? store.profiles(scope, requestor: requestorID, deviceID: deviceID))?.profiles ?? []
            facts.partnerProfileStored = stored.contains { $0.isValid(at: now) && ProfileUse.isPartnerProfile($0) }
        }
        return facts
    }

    /// `explanation`: a status already sent for this call (checkAuthentication's partner advisory).
    private func perform(_ call: Call, explanation: AdvancedStatus? = nil) {
        let id = call.id
        switch call.command {
        case .setRequestor: break  // the gate starts it (startSetup)
        case .checkAuthentication: checkAuthentication(id, explanation: explanation)
        case .getAuthentication(let force, let data, let filter): getAuthentication(id, force: force, data: data, filter: filter)
        case .setSelectedProvider(let mvpd): setSelectedProvider(id, mvpd)
        case .getSelectedProvider: getSelectedProvider(id)
        case .authorization(let resource, let check): authorization(id, resource, check: check)
        case .checkPreauthorizedResources(let resources, let cache): checkPreauthorizedResources(id, resources, cache: cache)
        case .preauthorize(let request, let completion): preauthorize(id, request, completion: completion)
        case .getMetadata(let key): getMetadata(id, key)
        case .logout: logout(id)
        case .handleExternalURL(let url): handleExternalURL(id, url)
        }
    }

    // MARK: setRequestor

    private func startSetRequestor(_ call: CallID, _ id: String, _ serviceProviders: [String]?) {
        if let requestor, requestor.id != id {
            // Another requestor: its login and cached decisions do not carry over.
            run(loginFlow.requestorChanged())
            preauthorizationCache.removeAll()
        }
        beginSetup(call, id, serviceProviders)
    }

    func finishSetRequestor(_ call: CallID, _ outcome: Result<Void, CallFailure>, explanation: AdvancedStatus?) {
        execute(gate.withLock { $0.setupFinished(call, outcome, explanation: explanation) })
        drainQueued()
    }

    /// The backend of `requestor` at `baseURL`; with its configuration, the login's domain too.
    func backend(for baseURL: String, requestor: String, configuration: RequestorConfiguration? = nil) -> any Backend {
        let context = context
        let provider = providers.withLock { providers -> AccessTokenProvider in
            if let existing = providers.byURL[baseURL] { return existing }
            let made = AccessTokenProvider(
                executor: executor, store: store, scope: scope, baseURL: baseURL,
                softwareStatement: settings.softwareStatement, redirectURL: settings.redirectURL,
                context: { context.withLock { $0 } }, clock: clock, logger: logger, taskExecutor: thread)
            providers.byURL[baseURL] = made
            if providers.closed { made.shutdown() }  // made after destroy: it never fetches
            return made
        }
        let domain = configuration.map(settings.domainName(for:)) ?? settings.domainName ?? Defaults.domainName
        switch settings.apiGeneration {
        case .v2:
            let (sink, logger) = (sink, logger)
            let wire = V2Client(
                executor: executor, tokens: provider, baseURL: baseURL, requestorID: requestor,
                context: { context.withLock { $0 } }, clock: clock
            ) { [weak self] kind, error in
                // Weak: the engine keeps this backend (a strong self here kept every client alive
                // after destroy: sanitizers.sh's leak growth, 3 KB per client).
                let dropped = context.withLock { $0.identityTokens.removeValue(forKey: kind) }
                guard let dropped else { return }  // a concurrent call already dropped it
                logger.warning("\(kind.headerName) (sha256 \(dropped.fingerprint)…) refused: \(error.code)")
                sink.emit(Emission(.status(StatusCatalog.identityRefused(kind, error))))
                // The host may have a fresh one (asked in the background: this call goes on without).
                guard let self else { return }
                self.spawn { await self.askIdentityTokens(self.identityKindsToAsk(only: kind)) }
            }
            return V2Backend(
                wire: wire, domainName: domain, redirectURL: settings.redirectURL,
                partnerName: settings.partner?.name)
        case .v1:
            let wire = V1Client(
                executor: executor, tokens: provider, baseURL: baseURL, context: { context.withLock { $0 } }, clock: clock)
            let (store, scope) = (store, scope)
            return V1Backend(requestorID: requestor, wire: wire, domainName: domain, redirectURL: settings.redirectURL) { mvpd in
                let deviceID = context.withLock { $0.deviceID }
                return (try? store.profiles(scope, requestor: requestor, deviceID: deviceID))?.profiles.first { $0.mvpd == mvpd }?.notAfter
            }
        }
    }

    // MARK: Helpers

    /// Sends an event of `calls` (none: of no call in particular).
    nonisolated func emit(_ event: Event, calls: [CallID] = []) { sink.emit(Emission(event, calls: calls)) }

    /// Sends the event that ends `call`, with the status that explains it.
    nonisolated func end(_ call: CallID, _ event: Event, explanation: AdvancedStatus? = nil) {
        sink.emit(.end(call, event, explanation: explanation))
    }

    /// The profile the AccessEnabler calls use (ProfileUse.current: the one predicate "usable
    /// now", with the partner status last asked). Read from the store each time, so a login
    /// completed by another process of the app counts at once.
    func currentProfile() -> Profile? {
        guard let requestor else { return nil }
        let deviceID = context.withLock { $0.deviceID }
        guard let stored = try? store.profilesAndSelection(scope, requestor: requestor.id, deviceID: deviceID) else { return nil }
        return ProfileUse.current(
            stored.profiles, selected: stored.selected,
            at: clock.nowMillis(), partner: settings.partner == nil ? nil : partnerCache?.status,
            configuration: requestor.configuration)
    }

    /// Starts tracked work on the engine's thread; destroy cancels it. Returns its id.
    @discardableResult
    nonisolated func spawn(_ operation: @escaping @Sendable () async -> Void) -> Int {
        tasks.withLock { state -> Int in
            let id = state.next
            state.next += 1
            let task = Task(executorPreference: thread) {
                await operation()
                self.tasks.withLock { _ = $0.running.removeValue(forKey: id) }
            }
            if state.closed { task.cancel() } else { state.running[id] = task }
            return id
        }
    }

    nonisolated func cancelTask(_ id: Int?) {
        guard let id else { return }
        tasks.withLock { $0.running.removeValue(forKey: id) }?.cancel()
    }

    /// Cancels every task and refuses new ones (destroy).
    package nonisolated func shutdown() {
        _ = gate.withLock { $0.shutdown() }
        let running = tasks.withLock { state -> [Task<Void, Never>] in
            state.closed = true
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
        // The shared access-token fetch is no task of the engine's: cancelled here, or its DCR
        // requests would still leave after destroy (issue 28).
        let fetching = providers.withLock { providers in
            providers.closed = true
            return Array(providers.byURL.values)
        }
        for provider in fetching { provider.shutdown() }
    }

    /// True when `since` (a time read from the store) is at most `maxAge` ago; a time in the future
    /// or beyond any range (a damaged or forged row) is not fresh.
    static func isFresh(since: Int64, now: Int64, maxAge: Int64) -> Bool {
        now >= since && now.clampedSubtracting(since) < maxAge
    }

    static func trimmedURL(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
