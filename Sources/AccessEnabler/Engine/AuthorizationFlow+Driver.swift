// SPDX-License-Identifier: Apache-2.0

/// The driver of checkAuthorization / getAuthorization (AuthorizationFlow): each call's flow is in
/// the engine's FlowTable while its requests and retry waits run; answers come back as events.
extension Engine {
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

    /// Monotonic milliseconds (the preauthorization cache's time).
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
