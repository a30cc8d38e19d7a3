// SPDX-License-Identifier: Apache-2.0

/// The driver of checkPreauthorizedResources / preauthorize (PreauthorizationFlow): each call's flow
/// is in the engine's FlowTable while its requests and retry waits run.
extension Engine {
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
