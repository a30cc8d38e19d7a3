// SPDX-License-Identifier: Apache-2.0

/// One checkPreauthorizedResources or preauthorize call (PreauthorizationFlow+Driver.swift): the
/// resources without duplicates; cached decisions first (5 minutes, `PreauthorizationCache`); for
/// the others ⌈N / limit⌉ decisions/preauthorize requests at once (the executor paces them). A
/// chunk answered `too_many_resources` is split in halves (recursively) and the smaller limit is
/// learned; resources whose item-level error says `retry` are asked again, only them, at most
/// twice after a backoff. A partner profile is decided on only with a usable partner status.
///
/// States (`State`):
/// - `idle`: created, `start` not called yet.
/// - `awaitingPartnerHeader`: a partner profile and resources not in the cache: the partner
///   header (or the SDK's refusal) is asked.
/// - `fetching(attempt)`: the requests of round `attempt` (0 first, then the retries 1, 2) are out.
/// - `waitingToRetry(attempt)`: the backoff before retry round `attempt`.
/// - `finished`: the call's outcome was emitted.
/// - `cancelled`: destroyed, or a request was cancelled; nothing more is emitted.
struct PreauthorizationFlow: Sendable {
    enum State: Equatable, Sendable {
        case idle
        case awaitingPartnerHeader
        case fetching(attempt: Int)
        case waitingToRetry(attempt: Int)
        case finished
        case cancelled
    }

    /// The call: checkPreauthorizedResources answers the permitted resources, preauthorize a
    /// decision per resource to its completion.
    enum Request: Sendable {
        case check([String], cache: Bool)
        case preauthorize(PreauthorizeRequest, completion: @Sendable (PreauthorizeResponse) -> Void)
    }

    /// A decision on one resource.
    struct Verdict: Hashable, Sendable {
        var authorized: Bool
        var error: EnhancedError?
    }

    /// One decisions/preauthorize request (V2 with `partnerHeader`; V1 `authorize` per resource list).
    struct ChunkRequest: Hashable, Sendable {
        var id: Int
        var resources: [String]
        var profile: Profile
        var partnerHeader: String?
    }

    enum Action: Sendable {
        /// Engine.partnerHeaderForDecisions(profile); answer with `partnerHeaderAnswered`.
        case askPartnerHeader(Profile)
        case send(ChunkRequest)
        /// Wait `ItemRetry.baseDelayNanos(attempt:)` plus jitter, then `retryTimerFired(attempt:limit:)`.
        case waitToRetry(attempt: Int)
        /// Adobe refused more than `to` resources per request: the driver lowers its limit to it if
        /// smaller (and logs "Adobe refused N resources per request; using M").
        case lowerLimit(to: Int)
        case updateCache(PreauthorizationCache.Update)
        case emit(Emission)
        /// The flow is over: the driver forgets it.
        case done
    }

    /// What a set of requests decided (the engine's PreauthorizationOutcome).
    struct Outcome: Equatable, Sendable {
        var decisions: [String: Verdict] = [:]
        /// The first whole-request failure, if any request failed.
        var failure: EnhancedError?
        var failedResources = 0
        /// Resources whose request failed as a whole (the executor already retried those).
        var callFailed: Set<String> = []
        var learnedLimit: Int?
    }

    /// A request out, or a chunk split in two whose halves are out.
    private struct Node: Sendable {
        var resources: [String]
        var parent: Int?
        var children: [Int] = []
        var outcome: Outcome?
    }

    let call: CallID
    let request: Request
    let profile: Profile?
    /// The resources without duplicates, in call order.
    let resources: [String]
    private(set) var state: State = .idle
    /// Resources the cache did not answer.
    private var missing: [String] = []
    private var cached: [String: Verdict] = [:]
    private var header: String?
    /// What the requests decided so far (the engine's `fetched`).
    private var fetched = Outcome()
    /// The round in progress: its requests, and what its finished top-level chunks decided.
    private var nodes: [Int: Node] = [:]
    private var openChunks = 0
    private var round = Outcome()
    private var nextRequestID = 1

    /// - Parameter profile: the current profile (ProfileUse.current); nil when not authenticated.
    init(call: CallID, request: Request, profile: Profile?) {
        self.call = call
        self.request = request
        self.profile = profile
        let given =
            switch request {
            case .check(let resources, _): resources
            case .preauthorize(let request, _): request.resources
            }
        var seen = Set<String>()
        resources = given.filter { seen.insert($0).inserted }
    }

    var isFinished: Bool { state == .finished || state == .cancelled }

    private var useCache: Bool {
        switch request {
        case .check(_, let cache): cache
        case .preauthorize(let request, _): !request.disabledFeatures.contains(.localCache)
        }
    }

    // MARK: Events

    /// - Parameters: `now`: monotonic ms; `limit`: the driver's resources-per-request limit now.
    mutating func start(cache: PreauthorizationCache, now: UInt64, limit: Int) -> [Action] {
        guard state == .idle else { return [] }
        guard let profile else {
            state = .finished
            switch request {
            case .check: return [.emit(.end(call, .preauthorizedResources([]))), .done]
            case .preauthorize(_, let completion):
                let error = EnhancedError.sdk(
                    "authentication_session_missing", action: "authentication",
                    message: "The viewer is not authenticated.")
                return [.emit(.end(call, .preauthorizeResponse(.allDenied(resources, error), completion: completion))), .done]
            }
        }
        for resource in resources {
            if useCache, let verdict = cache.decision(mvpd: profile.mvpd, resource: resource, at: now) {
                cached[resource] = verdict
            } else {
                missing.append(resource)
            }
        }
        if ProfileUse.isPartnerProfile(profile), !missing.isEmpty {
            state = .awaitingPartnerHeader
            return [.askPartnerHeader(profile)]
        }
        return fetch(missing, attempt: 0, limit: limit, now: now)
    }

    /// The partner header for the decisions (the backend sends it where its API has one), or the
    /// SDK's refusal: then no request goes out and every resource not in the cache is denied with it.
    mutating func partnerHeaderAnswered(_ result: Result<String?, EnhancedError>, now: UInt64, limit: Int) -> [Action] {
        guard state == .awaitingPartnerHeader else { return [] }
        switch result {
        case .success(let value):
            header = value
            return fetch(missing, attempt: 0, limit: limit, now: now)
        case .failure(let refusal):
            var outcome = Outcome(failure: refusal, failedResources: missing.count)
            for resource in missing { outcome.decisions[resource] = Verdict(authorized: false, error: refusal) }
            return finish(outcome)
        }
    }

    /// The answer to request `id`. `now`: monotonic ms (the cache's expiry counts from the last answer).
    mutating func answered(_ id: Int, _ result: Result<[Decision], CallFailure>, now: UInt64) -> [Action] {
        guard case .fetching = state, let node = nodes[id], node.children.isEmpty, node.outcome == nil else { return [] }
        let chunk = node.resources
        var outcome = Outcome()
        switch result {
        case .success(let decisions):
            let byResource = Dictionary(decisions.map { ($0.resource.trimmedSpaces, $0) }) { first, _ in first }
            for resource in chunk {
                // A resource Adobe leaves out of the answer is not permitted.
                let decision = byResource[resource.trimmedSpaces]
                outcome.decisions[resource] = Verdict(authorized: decision?.authorized ?? false, error: decision?.error)
            }
        case .failure(let failure):
            if failure.isCancellation {
                state = .cancelled
                return [.done]
            }
            if case .enhanced(let enhanced, _) = failure.error, enhanced.code == "too_many_resources", chunk.count > 1 {
                let half = chunk.count / 2
                let first = newNode(Array(chunk[..<half]), parent: id)
                let second = newNode(Array(chunk[half...]), parent: id)
                nodes[id]?.children = [first, second]
                return [.send(chunkRequest(first)), .send(chunkRequest(second))]
            }
            let enhanced = failure.error.enhancedError
            for resource in chunk { outcome.decisions[resource] = Verdict(authorized: false, error: enhanced) }
            outcome.failure = enhanced
            outcome.failedResources = chunk.count
            outcome.callFailed = Set(chunk)
        }
        return complete(id, outcome, now: now)
    }

    mutating func retryTimerFired(attempt: Int, now: UInt64, limit: Int) -> [Action] {
        guard state == .waitingToRetry(attempt: attempt) else { return [] }
        return fetch(retryable, attempt: attempt, limit: limit, now: now)
    }

    /// Destroy: nothing more is emitted.
    mutating func cancel() -> [Action] {
        if !isFinished { state = .cancelled }
        nodes = [:]
        return []
    }

    // MARK: Rounds

    /// Items whose error says `retry` (not those whose request failed as a whole).
    private var retryable: [String] {
        missing.filter { !fetched.callFailed.contains($0) && ItemRetry.asksRetry(fetched.decisions[$0]?.error) }
    }

    /// ⌈N / limit⌉ requests at once.
    private mutating func fetch(_ resources: [String], attempt: Int, limit: Int, now: UInt64) -> [Action] {
        state = .fetching(attempt: attempt)
        nodes = [:]
        round = Outcome()
        let limit = max(1, limit)
        let chunks = stride(from: 0, to: resources.count, by: limit).map {
            Array(resources[$0..<min($0 + limit, resources.count)])
        }
        openChunks = chunks.count
        guard !chunks.isEmpty else { return roundFinished(attempt: attempt, now: now) }
        let ids = chunks.map { newNode($0, parent: nil) }
        return ids.map { .send(chunkRequest($0)) }
    }

    private mutating func newNode(_ resources: [String], parent: Int?) -> Int {
        let id = nextRequestID
        nextRequestID += 1
        nodes[id] = Node(resources: resources, parent: parent)
        return id
    }

    private func chunkRequest(_ id: Int) -> ChunkRequest {
        ChunkRequest(id: id, resources: nodes[id]!.resources, profile: profile!, partnerHeader: header)
    }

    /// A request (or a split chunk) decided: the halves of a split chunk merge in order once both
    /// are in; top-level chunks merge in the order they finish.
    private mutating func complete(_ id: Int, _ outcome: Outcome, now: UInt64) -> [Action] {
        guard let node = nodes[id] else { return [] }
        nodes[id]?.outcome = outcome
        if let parent = node.parent, let children = nodes[parent]?.children {
            let parts = children.compactMap { nodes[$0]?.outcome }
            guard parts.count == children.count else { return [] }
            var merged = Outcome()
            for part in parts { merged.absorb(part) }
            let half = nodes[children[0]]?.resources.count ?? 1
            merged.learnedLimit = min(parts.compactMap(\.learnedLimit).min() ?? half, half)
            for child in children { nodes[child] = nil }
            return complete(parent, merged, now: now)
        }
        nodes[id] = nil
        round.absorb(outcome)
        if let learned = outcome.learnedLimit { round.learnedLimit = min(round.learnedLimit ?? learned, learned) }
        openChunks -= 1
        guard openChunks == 0, case .fetching(let attempt) = state else { return [] }
        return roundFinished(attempt: attempt, now: now)
    }

    private mutating func roundFinished(attempt: Int, now: UInt64) -> [Action] {
        if attempt == 0 {
            fetched = round
        } else {
            // A retry's decisions replace the earlier ones; its learned limit is not kept (as today).
            fetched.decisions.merge(round.decisions) { _, new in new }
            fetched.callFailed.formUnion(round.callFailed)
            fetched.failure = round.failure ?? (fetched.failure.flatMap { ItemRetry.asksRetry($0) ? nil : $0 })
            let failure = fetched.failure
            fetched.failedResources = missing.filter { fetched.decisions[$0]?.error == failure && failure != nil }.count
        }
        if attempt < ItemRetry.maxAttempts, !retryable.isEmpty {
            state = .waitingToRetry(attempt: attempt + 1)
            return [.waitToRetry(attempt: attempt + 1)]
        }
        var actions: [Action] = []
        if let learned = fetched.learnedLimit { actions.append(.lowerLimit(to: learned)) }
        var remembered: [String: Verdict] = [:]
        for (resource, verdict) in fetched.decisions where !ItemRetry.asksRetry(verdict.error) {
            remembered[resource] = verdict
        }
        if !remembered.isEmpty, let profile {
            actions.append(
                .updateCache(
                    .init(
                        mvpd: profile.mvpd, decisions: remembered,
                        expiresAt: now + PreauthorizationCache.lifetimeMillis)))
        }
        return actions + finish(fetched)
    }

    // MARK: The outcome

    private mutating func finish(_ outcome: Outcome) -> [Action] {
        state = .finished
        nodes = [:]
        var decisions = cached
        decisions.merge(outcome.decisions) { _, new in new }
        switch request {
        case .check:
            var actions: [Action] = []
            var status: AdvancedStatus?
            if let failure = outcome.failure {
                // A refused partner status says "not authenticated" (N000 / VSA403 / VSA404), as for getAuthorization.
                status =
                    StatusCatalog.isPartnerStatusRefusal(failure)
                    ? StatusCatalog.authorizationDenial(failure)
                    : StatusCatalog.preauthorizationFailure(failure)
                actions.append(.emit(Emission(.status(status!), calls: [call])))
            }
            let permitted = resources.filter { decisions[$0]?.authorized == true }
            return actions + [.emit(.end(call, .preauthorizedResources(permitted), explanation: status)), .done]
        case .preauthorize(_, let completion):
            let answer = resources.map { resource in
                let verdict = decisions[resource] ?? Verdict(authorized: false, error: outcome.failure)
                return PreauthorizeResponse.Decision(id: resource, authorized: verdict.authorized, error: verdict.error)
            }
            let allFailed = outcome.failedResources == resources.count && !resources.isEmpty
            let response = PreauthorizeResponse(decisions: answer, status: allFailed ? outcome.failure : nil)
            return [.emit(.end(call, .preauthorizeResponse(response, completion: completion))), .done]
        }
    }
}

extension PreauthorizationFlow.Outcome {
    /// Merges `part` (a chunk's outcome) into this one; the first failure stays.
    mutating func absorb(_ part: Self) {
        decisions.merge(part.decisions) { first, _ in first }
        failure = failure ?? part.failure
        failedResources += part.failedResources
        callFailed.formUnion(part.callFailed)
    }
}
