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
        var flow = RequestorSetupFlow(
            .init(
                call: call, partnerConfigured: settings.partner != nil, cachedConfiguration: cached?.0,
                configurationFresh: cached.map { Self.isFresh(since: $0.fetchedAt, now: now, maxAge: maxAge) } ?? false,
                profilesFresh: RequestorSetupFlow.storedProfilesStand(
                    syncedRecently: storedProfiles?.syncedAt.map { Self.isFresh(since: $0, now: now, maxAge: maxAge) } ?? false,
                    stored: storedProfiles?.profiles ?? [], carriesIdentity: carriesIdentity, now: now),
                now: now, asksIdentity: asks.contains { $0.1 == .needed }))
        let actions = flow.start(statuses: statuses)
        setup = (flow, id, baseURL, backend)
        runSetup(actions)
    }

    private func runSetup(_ actions: [RequestorSetupFlow.Action]) {
        guard let (flow, id, baseURL, backend) = setup else { return }
        let call = flow.inputs.call
        let deviceID = context.withLock { $0.deviceID }
        for action in actions {
            switch action {
            case .askIdentityTokens:
                spawn {
                    // Waited for: the kinds with no valid token (NEEDED). A held token nearing its
                    // exp is asked for in the background (refreshIdentityTokensIfNeeded), never
                    // waited for: setRequestor goes on with it.
                    await self.askIdentityTokens(self.identityKindsToAsk().filter { $0.1 == .needed })
                    await self.setupEvent(call) { flow, _ in flow.identityTokensAnswered() }
                }
            case .askPartnerStatus:
                spawn {
                    let status = await self.refreshPartnerStatus()
                    await self.setupPartnerStatus(call, status)
                }
            case .emit(let emission):
                sink.emit(emission)
            case .fetchConfiguration:
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in try await backend.configuration() }
                    await self.setupEvent(call) { flow, _ in flow.configurationAnswered(result) }
                }
            case .fetchProfiles(let partnerStatus):
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in
                        try await backend.profiles(partnerStatus: partnerStatus)
                    }
                    await self.setupEvent(call) { flow, _ in flow.profilesAnswered(result) }
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
            case .log(let level, let message):
                logger.log(level, message)
            case .ready(let configuration):
                let ready = Requestor(
                    id: id, configuration: configuration,
                    backend: self.backend(for: baseURL, requestor: id, configuration: configuration))
                requestor = ready
                loginFlow.requestorReady(loginRequestor(ready))
                let current = currentProfile() != nil
                let status = partnerCache?.status
                let now = clock.nowMillis()
                setupEvent(call) { flow, _ in
                    flow.requestorReady(hasCurrentProfile: current, partnerStatus: status, configuration: configuration, now: now)
                }
            case .silentExchange(let status):
                spawn {
                    await self.silentPartnerExchange(status)
                    await self.setupEvent(call) { flow, _ in flow.exchangeFinished() }
                }
            case .finish(let outcome, let explanation):
                setup = nil
                finishSetRequestor(call, outcome, explanation: explanation)
            case .preconnect:
                executor.preconnect(to: baseURL)
            }
        }
    }

    private func setupPartnerStatus(_ call: CallID, _ status: PartnerStatus) {
        let advisory = partnerAdvisory(status, checkingAuthentication: false)
        setupEvent(call) { flow, _ in flow.partnerStatusAnswered(status, advisory: advisory) }
    }

    /// Feeds an event to the setup of `call` (none: ended, or a newer setRequestor replaced it).
    private func setupEvent(_ call: CallID, _ event: (inout RequestorSetupFlow, Void) -> [RequestorSetupFlow.Action]) {
        guard var current = setup, current.flow.inputs.call == call else { return }
        let actions = event(&current.flow, ())
        setup?.flow = current.flow
        runSetup(actions)
    }
}
