// SPDX-License-Identifier: Apache-2.0

/// The driver of setRequestor's steps (RequestorSetupFlow): the partner status, the configuration
/// and profiles fetched together, the store writes, the silent partner exchange.
extension Engine {
    func beginSetup(_ call: CallID, _ id: String, _ serviceProviders: [String]?) {
        let baseURL = Self.trimmedURL(serviceProviders?.first ?? settings.baseURL)
        if let serviceProviders, serviceProviders.count > 1 {
            logger.warning("Adobe serves a requestor from one service URL; using \(baseURL) only")
        }
        let deviceID = context.withLock { $0.deviceID }
        var statuses: [AdvancedStatus] = []
        if let removed = try? store.deleteProfilesOfOtherDevices(scope, deviceID: deviceID), removed > 0 {
            statuses.append(
                AdvancedStatus(
                    "SEC412", .warning,
                    "The device id changed: \(removed) stored profile(s) "
                        + "were bound to another device id and were removed; the viewer must authenticate again."))
        }
        let now = clock.nowMillis()
        let maxAge = settings.cacheMaxAgeMillis
        let cached = try? store.configuration(scope, requestor: id)
        let storedProfiles = try? store.profiles(scope, requestor: id, deviceID: deviceID)
        let asks = identityKindsToAsk()
        let backend = backend(for: baseURL, requestor: id)
        // The SSO tokens the profiles call would carry: held and not past `exp` (what the wire
        // sends), or asked for first; only the kinds the backend's requests carry.
        let sent = backend.identityTokenKinds
        let carriesIdentity =
            asks.contains { sent.contains($0.0) } || !context.withLock { $0.identityHeaders(sent, nowMillis: now) }.isEmpty
        let flow = RequestorSetupFlow(
            .init(
                call: call, partnerConfigured: settings.partner != nil, cachedConfiguration: cached?.0,
                configurationFresh: cached.map { Self.isFresh(since: $0.fetchedAt, now: now, maxAge: maxAge) } ?? false,
                profilesFresh: RequestorSetupFlow.storedProfilesStand(
                    syncedRecently: storedProfiles?.syncedAt.map { Self.isFresh(since: $0, now: now, maxAge: maxAge) } ?? false,
                    stored: storedProfiles?.profiles ?? [], carriesIdentity: carriesIdentity, now: now),
                now: now, asksIdentity: asks.contains { $0.1 == .needed }))
        // A newer setRequestor replaces the one in progress: the old one's late answers are dropped.
        if let running = setup { end(running) }
        setup = start(flow, context: SetupContext(call: call, requestorID: id, baseURL: baseURL, backend: backend)) {
            $0.start(statuses: statuses)
        }
    }

    fileprivate func setupPartnerStatus(_ id: FlowID<RequestorSetupFlow>, _ status: PartnerStatus) {
        let advisory = partnerAdvisory(status, checkingAuthentication: false)
        feed(id) { $0.partnerStatusAnswered(status, advisory: advisory) }
    }
}

/// What the setup's driver keeps beside the flow.
struct SetupContext: Sendable {
    let call: CallID
    let requestorID: String
    let baseURL: String
    let backend: any Backend
}

extension RequestorSetupFlow: DrivenFlow {
    static func perform(_ action: Action, of flowID: FlowID<Self>, on engine: isolated Engine) {
        // `preconnect` follows `finish` in the same batch, when the flow has left the table: the
        // ready requestor's service URL is the setup's.
        if case .preconnect = action {
            if let baseURL = engine.requestor?.backend.baseURL { engine.executor.preconnect(to: baseURL) }
            return
        }
        guard let setup = engine.context(of: flowID, as: SetupContext.self) else { return }
        let (id, baseURL, backend) = (setup.requestorID, setup.baseURL, setup.backend)
        let (store, scope, clock, logger) = (engine.store, engine.scope, engine.clock, engine.logger)
        let deviceID = engine.context.withLock { $0.deviceID }
        switch action {
        case .askIdentityTokens:
            engine.answer(flowID) {
                // Waited for: the kinds with no valid token (NEEDED). A held token nearing its
                // exp is asked for in the background (refreshIdentityTokensIfNeeded), never
                // waited for: setRequestor goes on with it.
                await engine.askIdentityTokens(engine.identityKindsToAsk().filter { $0.1 == .needed })
            } then: { flow, _ in
                flow.identityTokensAnswered()
            }
        case .askPartnerStatus:
            engine.spawn {
                let status = await engine.refreshPartnerStatus()
                await engine.setupPartnerStatus(flowID, status)
            }
        case .fetchConfiguration:
            engine.request(flowID) { () async throws(CallFailure) in
                try await backend.configuration()
            } then: {
                $0.configurationAnswered($1)
            }
        case .fetchProfiles(let partnerStatus):
            engine.request(flowID) { () async throws(CallFailure) in
                try await backend.profiles(partnerStatus: partnerStatus)
            } then: {
                $0.profilesAnswered($1)
            }
        case .saveConfiguration(let configuration):
            // Times taken after the answers: their Date header may just have set Adobe's clock.
            do { try store.saveConfiguration(scope, configuration, fetchedAt: clock.nowMillis()) } catch {
                logger.error("cannot store the configuration: \(error)")
            }
        case .replaceProfiles(let answered, let configuration):
            let stored = (try? store.profiles(scope, requestor: id, deviceID: deviceID))?.profiles ?? []
            let synced = clock.nowMillis()  // after the answer: its Date header may have just set Adobe's clock
            let profiles = backend.synced(answered, stored: stored, configuration: configuration, now: synced)
            do { try store.replaceProfiles(scope, requestor: id, deviceID: deviceID, with: profiles, syncedAt: synced) } catch {
                logger.error("cannot store profiles: \(error)")
            }
        case .ready(let configuration):
            let ready = Engine.Requestor(
                id: id, configuration: configuration,
                backend: engine.backend(for: baseURL, requestor: id, configuration: configuration))
            engine.requestor = ready
            engine.loginFlow.requestorReady(engine.loginRequestor(ready))
            let current = engine.currentProfile() != nil
            let status = engine.partnerCache?.status
            let now = clock.nowMillis()
            engine.feed(flowID) {
                $0.requestorReady(hasCurrentProfile: current, partnerStatus: status, configuration: configuration, now: now)
            }
        case .silentExchange(let status):
            engine.answer(flowID) {
                await engine.silentPartnerExchange(status)
            } then: { flow, _ in
                flow.exchangeFinished()
            }
        case .finish(let outcome, let explanation):
            engine.end(flowID)
            engine.setup = nil
            engine.finishSetRequestor(setup.call, outcome, explanation: explanation)
        case .preconnect:
            break  // above
        case .emit, .log:
            break  // shared (Engine.execute)
        }
    }
}
