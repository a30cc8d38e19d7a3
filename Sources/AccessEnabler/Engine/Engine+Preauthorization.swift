// SPDX-License-Identifier: Apache-2.0
import Glibc

/// checkPreauthorizedResources and preauthorize: ⌈N / limit⌉ decisions/preauthorize requests,
/// issued together (the executor paces them within Adobe's throttle); a `too_many_resources`
/// answer splits the chunk and lowers the limit for later calls.
extension Engine {
    /// How long a cached preauthorization decision is used (cache on; LOCAL_CACHE not disabled).
    static let preauthorizationCacheNanos: UInt64 = 300 * 1_000_000_000

    struct PreauthorizationOutcome: Sendable {
        var decisions: [String: (authorized: Bool, error: EnhancedError?)] = [:]
        /// The first whole-call failure, if any request failed.
        var failure: EnhancedError?
        var failedResources = 0
        /// Resources whose request failed as a whole (the executor already retried those).
        var callFailed: Set<String> = []
        var learnedLimit: Int?
    }

    func checkPreauthorizedResources(_ call: CallID, _ resources: [String], cache: Bool) {
        let unique = Self.unique(resources)
        guard let profile = currentProfile() else {
            end(call, .preauthorizedResources([]))
            return
        }
        spawn {
            let outcome = await self.preauthorizations(unique, profile: profile, useCache: cache)
            // A refused partner status says "not authenticated" (N000 / VSA403 / VSA404), as for getAuthorization.
            let status = outcome.failure.map { failure in
                StatusCatalog.isPartnerStatusRefusal(failure) ? StatusCatalog.authorizationDenial(failure)
                    : StatusCatalog.preauthorizationFailure(failure)
            }
            if let status { self.emit(.status(status), calls: [call]) }
            self.end(call, .preauthorizedResources(unique.filter { outcome.decisions[$0]?.authorized == true }), explanation: status)
        }
    }

    func preauthorize(_ call: CallID, _ request: PreauthorizeRequest,
                      completion: @escaping @Sendable (PreauthorizeResponse) -> Void)
    {
        let unique = Self.unique(request.resources)
        guard let profile = currentProfile() else {
            let error = EnhancedError.sdk("authentication_session_missing", action: "authentication",
                                          message: "The viewer is not authenticated.")
            end(call, .preauthorizeResponse(Self.allDenied(unique, error), completion: completion))
            return
        }
        let useCache = !request.disabledFeatures.contains(.localCache)
        spawn {
            let outcome = await self.preauthorizations(unique, profile: profile, useCache: useCache)
            let decisions = unique.map { resource in
                let decision = outcome.decisions[resource] ?? (false, outcome.failure)
                return PreauthorizeResponse.Decision(id: resource, authorized: decision.authorized, error: decision.error)
            }
            let allFailed = outcome.failedResources == unique.count && !unique.isEmpty
            self.end(call, .preauthorizeResponse(PreauthorizeResponse(decisions: decisions, status: allFailed ? outcome.failure : nil),
                                                 completion: completion))
        }
    }

    /// Decisions for `resources`: cached ones first, then the rest in parallel requests.
    func preauthorizations(_ resources: [String], profile: Profile, useCache: Bool) async -> PreauthorizationOutcome {
        let mvpd = profile.mvpd
        guard let requestor else { return PreauthorizationOutcome() }
        var outcome = PreauthorizationOutcome()
        var missing: [String] = []
        let now = monotonicNanos()
        for resource in resources {
            if useCache, let cached = preauthorizationCache[mvpd + "\n" + resource], cached.expiresAt > now {
                outcome.decisions[resource] = (cached.authorized, cached.error)
            } else {
                missing.append(resource)
            }
        }
        // A partner profile is decided on only with a usable partner status (ProfileUse): without
        // one no request goes out and every resource is denied with the refusal. V2 sends the status
        // as AP-Partner-Framework-Status; V1 has no such header.
        var partnerStatus: String?
        if ProfileUse.isPartnerProfile(profile), !missing.isEmpty {
            switch await partnerHeaderForDecisions(profile) {
            case .success(let header):
                partnerStatus = header
            case .failure(let refusal):
                for resource in missing { outcome.decisions[resource] = (false, refusal) }
                outcome.failure = refusal
                outcome.failedResources = missing.count
                return outcome
            }
        }
        var fetched = await fetchAll(missing, requestor: requestor, profile: profile, partnerStatus: partnerStatus)
        // Items whose error says `retry` are asked again, only them, at most twice (Adobe's advice).
        for attempt in 1...2 {
            let again = missing.filter { !fetched.callFailed.contains($0) && fetched.decisions[$0]?.error?.action == "retry" }
            guard !again.isEmpty, !Task.isCancelled else { break }
            try? await Task.sleep(nanoseconds: (500_000_000 << UInt64(attempt - 1)) + RequestExecutor.jitter())
            let retried = await fetchAll(again, requestor: requestor, profile: profile, partnerStatus: partnerStatus)
            fetched.decisions.merge(retried.decisions) { _, new in new }
            fetched.callFailed.formUnion(retried.callFailed)
            fetched.failure = retried.failure ?? (fetched.failure.flatMap { $0.action == "retry" ? nil : $0 })
            fetched.failedResources = missing.filter { fetched.decisions[$0]?.error == fetched.failure && fetched.failure != nil }.count
        }
        if let learned = fetched.learnedLimit, learned < preauthorizeLimit {
            logger.info("Adobe refused \(preauthorizeLimit) resources per request; using \(learned)")
            preauthorizeLimit = learned
        }
        let expiresAt = monotonicNanos() + Self.preauthorizationCacheNanos
        for (resource, decision) in fetched.decisions {
            outcome.decisions[resource] = decision
            if decision.error?.action != "retry" {
                preauthorizationCache[mvpd + "\n" + resource] = CachedDecision(
                    authorized: decision.authorized, error: decision.error, expiresAt: expiresAt)
            }
        }
        outcome.failure = fetched.failure
        outcome.failedResources = fetched.failedResources
        return outcome
    }

    /// ⌈N / limit⌉ requests in parallel (the executor paces them).
    private func fetchAll(_ resources: [String], requestor: Requestor, profile: Profile, partnerStatus: String?)
        async -> PreauthorizationOutcome
    {
        let limit = preauthorizeLimit
        let chunks = stride(from: 0, to: resources.count, by: limit).map {
            Array(resources[$0..<min($0 + limit, resources.count)])
        }
        let backend = requestor.backend
        return await withTaskGroup(of: PreauthorizationOutcome.self) { group in
            for chunk in chunks {
                group.addTask {
                    await Self.fetch(chunk, backend: backend, profile: profile, partnerStatus: partnerStatus)
                }
            }
            var merged = PreauthorizationOutcome()
            for await part in group {
                merged.decisions.merge(part.decisions) { first, _ in first }
                merged.failure = merged.failure ?? part.failure
                merged.failedResources += part.failedResources
                merged.callFailed.formUnion(part.callFailed)
                if let learned = part.learnedLimit { merged.learnedLimit = min(merged.learnedLimit ?? learned, learned) }
            }
            return merged
        }
    }

    private static func fetch(_ chunk: [String], backend: any Backend, profile: Profile,
                              partnerStatus: String?) async -> PreauthorizationOutcome
    {
        var outcome = PreauthorizationOutcome()
        do {
            let decisions = try await backend.preauthorize(chunk, profile: profile, partnerStatus: partnerStatus)
            let byResource = Dictionary(decisions.map { ($0.resource.trimmedSpaces, $0) }) { first, _ in first }
            for resource in chunk {
                // A resource Adobe leaves out of the answer is not permitted.
                let decision = byResource[resource.trimmedSpaces]
                outcome.decisions[resource] = (decision?.authorized ?? false, decision?.error)
            }
        } catch {
            if case .enhanced(let enhanced, _) = error.error, enhanced.code == "too_many_resources", chunk.count > 1 {
                let half = chunk.count / 2
                async let first = fetch(Array(chunk[..<half]), backend: backend, profile: profile, partnerStatus: partnerStatus)
                async let second = fetch(Array(chunk[half...]), backend: backend, profile: profile, partnerStatus: partnerStatus)
                let parts = await [first, second]
                for part in parts {
                    outcome.decisions.merge(part.decisions) { first, _ in first }
                    outcome.failure = outcome.failure ?? part.failure
                    outcome.failedResources += part.failedResources
                    outcome.callFailed.formUnion(part.callFailed)
                }
                outcome.learnedLimit = min(parts.compactMap(\.learnedLimit).min() ?? half, half)
                return outcome
            }
            let enhanced = error.error.enhancedError
            for resource in chunk { outcome.decisions[resource] = (false, enhanced) }
            outcome.failure = enhanced
            outcome.failedResources = chunk.count
            outcome.callFailed = Set(chunk)
        }
        return outcome
    }

    static func unique(_ resources: [String]) -> [String] {
        var seen = Set<String>()
        return resources.filter { seen.insert($0).inserted }
    }
}
