// SPDX-License-Identifier: Apache-2.0

/// The driver of the decision flows: checkAuthorization / getAuthorization (AuthorizationFlow)
/// and checkPreauthorizedResources / preauthorize (PreauthorizationFlow). Each call's flow is
/// kept by an id while its requests and retry waits run; answers come back as events.
extension Engine {
    // MARK: Authorization

    func authorization(_ call: CallID, _ resource: String, check: Bool) {
        startAuthorization(call, resource, check: check, profile: currentProfile(), afterLogin: false)
    }

    /// Starts an authorization. A partner profile is decided on only with a usable partner status
    /// (ProfileUse): its header is at hand first (asked again when stale), or the flow denies.
    func startAuthorization(_ call: CallID, _ resource: String, check: Bool, profile: Profile?, afterLogin: Bool) {
        guard let profile, ProfileUse.isPartnerProfile(profile) else {
            return beginAuthorization(call, resource, check: check, profile: profile, afterLogin: afterLogin, partner: nil)
        }
        spawn {
            let partner = await self.partnerHeaderForDecisions(profile)
            await self.beginAuthorization(
                call, resource, check: check, profile: profile, afterLogin: afterLogin,
                partner: partner)
        }
    }

    private func beginAuthorization(
        _ call: CallID, _ resource: String, check: Bool, profile: Profile?, afterLogin: Bool,
        partner: Result<String, EnhancedError>?
    ) {
        var authorizedUntil: Int64?
        if let profile, let requestor, requestor.backend.keepsAuthorizations {
            let stored = try? store.authorizationExpiry(scope, requestor: requestor.id, mvpd: profile.mvpd, resource: resource)
            authorizedUntil = stored.flatMap { $0 > clock.nowMillis() ? $0 : nil }
        }
        var flow = AuthorizationFlow(
            call: call, resource: resource, check: check, profile: profile, afterLogin: afterLogin,
            partner: partner, authorizedUntil: authorizedUntil, tracking: tracking)
        let id = newFlowID()
        let actions = flow.start()
        authorizations[id] = flow
        run(authorization: id, actions)
    }

    /// Runs the flow's actions. The store stays open meanwhile: a token goes out before its expiry
    /// is stored (that write is an fsync the host should not wait for), and a host that destroys
    /// the client as soon as it has the token must not lose the expiry.
    private func run(authorization id: Int, _ actions: [AuthorizationFlow.Action]) {
        guard !keepingStoreOpen else { return runActions(authorization: id, actions) }  // nested: held already
        keepingStoreOpen = true
        defer { keepingStoreOpen = false }
        store.keepingOpen { runActions(authorization: id, actions) }
    }

    private func runActions(authorization id: Int, _ actions: [AuthorizationFlow.Action]) {
        for action in actions {
            switch action {
            case .sendDecisionRequest(let request):
                guard let backend = requestor?.backend else { continue }
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in
                        try await backend.authorize(
                            request.resource, profile: request.profile,
                            partnerStatus: request.partnerHeader,
                            authorizedUntil: request.authorizedUntil)
                    }
                    await self.authorizationEvent(id) { $0.decisionAnswered(attempt: request.attempt, result) }
                }
            case .waitToRetry(let attempt):
                let clock = clock
                spawn {
                    await clock.sleep(millis: Backoff.itemRetry(attempt: attempt))
                    await self.authorizationEvent(id) { $0.retryTimerFired(attempt: attempt) }
                }
            case .emit(let emission):
                sink.emit(emission)
            case .saveAuthorizationExpiry(let mvpd, let resource, let notAfter):
                // After the token went out: a durable write (an fsync) the host should not wait for.
                guard let requestor else { continue }
                try? store.saveAuthorizationExpiry(scope, requestor: requestor.id, mvpd: mvpd, resource: resource, notAfter: notAfter)
            case .deleteProfiles(let mvpd):
                guard let requestor else { continue }
                try? store.deleteProfiles(scope, requestor: requestor.id, mvpd: mvpd)
            case .endTempPass(let mvpd, let identity):
                endTempPass(mvpd, identity: identity)
            case .joinLogin(let call, let resource):
                run(loginFlow.join(.authorization(call, resource: resource)))
            case .done:
                authorizations[id] = nil
            }
        }
    }

    private func authorizationEvent(_ id: Int, _ event: (inout AuthorizationFlow) -> [AuthorizationFlow.Action]) {
        guard var flow = authorizations[id] else { return }  // ended (or the client was destroyed)
        let actions = event(&flow)
        authorizations[id] = flow
        run(authorization: id, actions)
    }

    // MARK: Preauthorization

    func checkPreauthorizedResources(_ call: CallID, _ resources: [String], cache: Bool) {
        beginPreauthorization(call, .check(resources, cache: cache))
    }

    func preauthorize(_ call: CallID, _ request: PreauthorizeRequest, completion: @escaping @Sendable (PreauthorizeResponse) -> Void) {
        beginPreauthorization(call, .preauthorize(request, completion: completion))
    }

    private func beginPreauthorization(_ call: CallID, _ request: PreauthorizationFlow.Request) {
        var flow = PreauthorizationFlow(call: call, request: request, profile: currentProfile())
        let id = newFlowID()
        let actions = flow.start(cache: preauthorizationCache, now: Self.monotonicMillis(), limit: preauthorizeLimit)
        preauthorizations[id] = flow
        run(preauthorization: id, actions)
    }

    private func run(preauthorization id: Int, _ actions: [PreauthorizationFlow.Action]) {
        for action in actions {
            switch action {
            case .askPartnerHeader(let profile):
                spawn {  // V1's backend sends no partner header: it drops the value
                    let answer = await self.partnerHeaderForDecisions(profile).map { Optional($0) }
                    await self.preauthorizationEvent(id) { flow, limit in
                        flow.partnerHeaderAnswered(answer, now: Self.monotonicMillis(), limit: limit)
                    }
                }
            case .send(let chunk):
                guard let backend = requestor?.backend else { continue }
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in
                        try await backend.preauthorize(chunk.resources, profile: chunk.profile, partnerStatus: chunk.partnerHeader)
                    }
                    await self.preauthorizationEvent(id) { flow, _ in flow.answered(chunk.id, result, now: Self.monotonicMillis()) }
                }
            case .waitToRetry(let attempt):
                let clock = clock
                spawn {
                    await clock.sleep(millis: Backoff.itemRetry(attempt: attempt))
                    await self.preauthorizationEvent(id) { flow, limit in
                        flow.retryTimerFired(attempt: attempt, now: Self.monotonicMillis(), limit: limit)
                    }
                }
            case .lowerLimit(let learned):
                if learned < preauthorizeLimit {
                    logger.info("Adobe refused \(preauthorizeLimit) resources per request; using \(learned)")
                    preauthorizeLimit = learned
                }
            case .updateCache(let update):
                preauthorizationCache.apply(update)
            case .emit(let emission):
                sink.emit(emission)
            case .done:
                preauthorizations[id] = nil
            }
        }
    }

    /// Feeds an event to the flow `id` (with the resources-per-request limit now).
    private func preauthorizationEvent(_ id: Int, _ event: (inout PreauthorizationFlow, Int) -> [PreauthorizationFlow.Action]) {
        guard var flow = preauthorizations[id] else { return }
        let actions = event(&flow, preauthorizeLimit)
        preauthorizations[id] = flow
        run(preauthorization: id, actions)
    }

    // MARK: Helpers

    static func monotonicMillis() -> UInt64 { monotonicNanos() / 1_000_000 }
}
