// SPDX-License-Identifier: Apache-2.0

/// The driver of the decision flows: checkAuthorization / getAuthorization (AuthorizationFlow)
/// and checkPreauthorizedResources / preauthorize (PreauthorizationFlow). Each call's flow is in
/// the engine's FlowTable while its requests and retry waits run; answers come back as events.
extension Engine {
    // MARK: Authorization

    func authorization(_ call: CallID, _ resource: String, check: Bool) {
        startAuthorization(call, resource, check: check, profile: currentProfile(), afterLogin: false)
    }

    func startAuthorization(_ call: CallID, _ resource: String, check: Bool, profile: Profile?, afterLogin: Bool) {
        var authorizedUntil: Int64?
        if let profile, let requestor, requestor.backend.keepsAuthorizations {
            let stored = try? store.authorizationExpiry(scope, requestor: requestor.id, mvpd: profile.mvpd, resource: resource)
            authorizedUntil = stored.flatMap { $0 > clock.nowMillis() ? $0 : nil }
        }
        let flow = AuthorizationFlow(
            call: call, resource: resource, check: check, profile: profile, afterLogin: afterLogin,
            authorizedUntil: authorizedUntil, tracking: tracking)
        start(flow) { $0.start() }
    }

    // MARK: Preauthorization

    func checkPreauthorizedResources(_ call: CallID, _ resources: [String], cache: Bool) {
        beginPreauthorization(call, .check(resources, cache: cache))
    }

    func preauthorize(_ call: CallID, _ request: PreauthorizeRequest, completion: @escaping @Sendable (PreauthorizeResponse) -> Void) {
        beginPreauthorization(call, .preauthorize(request, completion: completion))
    }

    private func beginPreauthorization(_ call: CallID, _ request: PreauthorizationFlow.Request) {
        let (cache, limit) = (preauthorizationCache, preauthorizeLimit.withLock { $0 })
        start(PreauthorizationFlow(call: call, request: request, profile: currentProfile())) {
            $0.start(cache: cache, now: Self.monotonicMillis(), limit: limit)
        }
    }

    // MARK: Helpers

    static func monotonicMillis() -> UInt64 { monotonicNanos() / 1_000_000 }
}

extension AuthorizationFlow: DrivenFlow {
    /// The store stays open while the actions run: a token goes out before its expiry is stored
    /// (that write is an fsync the host should not wait for), and a host that destroys the client
    /// as soon as it has the token must not lose the expiry.
    static var keepsStoreOpen: Bool { true }

    static func perform(_ action: Action, of id: FlowID<Self>, on engine: isolated Engine) {
        switch action {
        case .askPartnerHeader(let profile):
            engine.answer(id, { await engine.partnerHeaderForDecisions(profile) }) { $0.partnerHeaderAnswered($1) }
        case .sendDecisionRequest(let request):
            guard let backend = engine.requestor?.backend else { return }
            engine.request(id) { () async throws(CallFailure) in
                try await backend.authorize(
                    request.resource, profile: request.profile, partnerStatus: request.partnerHeader,
                    authorizedUntil: request.authorizedUntil)
            } then: {
                $0.decisionAnswered(attempt: request.attempt, $1)
            }
        case .waitToRetry(let attempt):
            let clock = engine.clock
            engine.answer(id, { await clock.sleep(millis: Backoff.itemRetry(attempt: attempt)) }) { flow, _ in
                flow.retryTimerFired(attempt: attempt)
            }
        case .saveAuthorizationExpiry(let mvpd, let resource, let notAfter):
            // After the token went out: a durable write (an fsync) the host should not wait for.
            guard let requestor = engine.requestor else { return }
            try? engine.store.saveAuthorizationExpiry(
                engine.scope, requestor: requestor.id, mvpd: mvpd, resource: resource, notAfter: notAfter)
        case .deleteProfiles(let mvpd):
            guard let requestor = engine.requestor else { return }
            try? engine.store.deleteProfiles(engine.scope, requestor: requestor.id, mvpd: mvpd)
        case .endTempPass(let mvpd, let identity):
            engine.endTempPass(mvpd, identity: identity)
        case .joinLogin(let call, let resource):
            engine.run(engine.loginFlow.join(.authorization(call, resource: resource)))
        case .emit, .done:
            break  // shared (Engine.execute)
        }
    }
}

extension PreauthorizationFlow: DrivenFlow {
    static func perform(_ action: Action, of id: FlowID<Self>, on engine: isolated Engine) {
        let limit = engine.preauthorizeLimit
        switch action {
        case .askPartnerHeader(let profile):
            // V1's backend sends no partner header: it drops the value.
            engine.answer(id, { await engine.partnerHeaderForDecisions(profile).map { Optional($0) } }) { flow, answer in
                flow.partnerHeaderAnswered(answer, now: Engine.monotonicMillis(), limit: limit.withLock { $0 })
            }
        case .send(let chunk):
            guard let backend = engine.requestor?.backend else { return }
            engine.request(id) { () async throws(CallFailure) in
                try await backend.preauthorize(chunk.resources, profile: chunk.profile, partnerStatus: chunk.partnerHeader)
            } then: {
                $0.answered(chunk.id, $1, now: Engine.monotonicMillis())
            }
        case .waitToRetry(let attempt):
            let clock = engine.clock
            engine.answer(id, { await clock.sleep(millis: Backoff.itemRetry(attempt: attempt)) }) { flow, _ in
                flow.retryTimerFired(attempt: attempt, now: Engine.monotonicMillis(), limit: limit.withLock { $0 })
            }
        case .lowerLimit(let learned):
            let lowered = limit.withLock { current -> Int? in
                guard learned < current else { return nil }
                defer { current = learned }
                return current
            }
            if let lowered { engine.logger.info("Adobe refused \(lowered) resources per request; using \(learned)") }
        case .updateCache(let update):
            engine.preauthorizationCache.apply(update)
        case .emit, .done:
            break  // shared (Engine.execute)
        }
    }
}
