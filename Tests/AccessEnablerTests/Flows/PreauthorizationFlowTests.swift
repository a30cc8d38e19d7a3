// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// PreauthorizationFlow without I/O: the requests, cache updates, learned limit and final callback
/// of checkPreauthorizedResources / preauthorize (PreauthorizationFlow+Driver.swift).
@Suite struct PreauthorizationFlowTests {
    static let id = CallID(3)
    static let now: UInt64 = 1_000
    static let expiry = now + 300_000
    static let tooMany = CallFailure.enhanced(.adobe("too_many_resources", action: "none", status: 400))
    static let retry = EnhancedError.adobe("network_connection_timeout", action: "retry", details: "slow MVPD")
    static let denied = EnhancedError.adobe("preauthorization_denied_by_mvpd", action: "none")

    static func check(_ resources: [String], cache: Bool = true, profile: Profile? = .regular()) -> PreauthorizationFlow {
        PreauthorizationFlow(call: id, request: .check(resources, cache: cache), profile: profile)
    }

    static func preauthorize(
        _ resources: [String], disabled: Set<PreauthorizeRequest.Feature> = [],
        profile: Profile? = .regular()
    ) -> PreauthorizationFlow {
        PreauthorizationFlow(
            call: id,
            request: .preauthorize(
                PreauthorizeRequest(resources: resources, disabledFeatures: disabled),
                completion: { _ in }), profile: profile)
    }

    static func describe(_ actions: [PreauthorizationFlow.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .askPartnerHeader(let profile): "askPartnerHeader(\(profile.mvpd))"
            case .send(let request):
                "send#\(request.id) \(request.resources.joined(separator: ","))" + (request.partnerHeader.map { " header=\($0)" } ?? "")
            case .waitToRetry(let attempt): "waitToRetry(\(attempt))"
            case .lowerLimit(let limit): "lowerLimit(\(limit))"
            case .updateCache(let update):
                "updateCache(\(update.mvpd) until \(update.expiresAt): "
                    + update.decisions.sorted { $0.key < $1.key }.map {
                        "\($0.key)=\($0.value.authorized)"
                            + ($0.value.error.map { "/" + $0.code } ?? "")
                    }.joined(separator: " ") + ")"
            case .emit(let emission): Summary.of(emission)
            case .done: "done"
            }
        }
    }

    static func answer(_ permitted: [String], denied: [String] = [], error: EnhancedError? = nil) -> Result<[Decision], CallFailure> {
        .success(permitted.map { .permit($0) } + denied.map { .deny($0, error ?? Self.denied) })
    }

    static func response(_ decisions: [(String, Bool, EnhancedError?)], status: EnhancedError? = nil) -> String {
        let response = PreauthorizeResponse(decisions: decisions.map { .init(id: $0.0, authorized: $0.1, error: $0.2) }, status: status)
        return "end#3 preauthorizeResponse(\(response.jsonText))"
    }

    // MARK: Without a profile

    @Test func withoutAProfileNothingIsPermitted() {
        var flow = Self.check(["A"], profile: nil)
        #expect(Self.describe(flow.start(cache: .init(), now: Self.now, limit: 5)) == ["end#3 preauthorizedResources([])", "done"])
        flow = Self.preauthorize(["A", "B", "A"], profile: nil)
        let missing = EnhancedError.sdk(
            "authentication_session_missing", action: "authentication", message: "The viewer is not authenticated.")
        #expect(
            Self.describe(flow.start(cache: .init(), now: Self.now, limit: 5))
                == [Self.response([("A", false, missing), ("B", false, missing)], status: missing), "done"])
    }

    // MARK: Chunks

    @Test func ceilNOverLimitRequestsAtOnceThenTheCacheAndThePermittedResources() {
        let resources = (1...12).map { "R\($0)" } + ["PREMIUM", "R1"]
        var flow = Self.check(resources)
        #expect(flow.resources.count == 13)
        #expect(
            Self.describe(flow.start(cache: .init(), now: Self.now, limit: 5))
                == ["send#1 R1,R2,R3,R4,R5", "send#2 R6,R7,R8,R9,R10", "send#3 R11,R12,PREMIUM"])
        #expect(flow.answered(2, Self.answer((6...10).map { "R\($0)" }), now: 1_100).isEmpty)
        #expect(flow.answered(1, Self.answer((1...5).map { "R\($0)" }), now: 1_200).isEmpty)
        let permitted = (1...12).map { "R\($0)" }
        #expect(
            Self.describe(flow.answered(3, Self.answer(["R11", "R12"], denied: ["PREMIUM"]), now: 1_300)) == [
                "updateCache(Cablevision until 301300: PREMIUM=false/preauthorization_denied_by_mvpd "
                    + permitted.sorted().map { "\($0)=true" }.joined(separator: " ") + ")",
                "end#3 preauthorizedResources(\(permitted))", "done",
            ])
    }

    @Test func aResourceLeftOutOfTheAnswerIsNotPermittedAndNamesAreMatchedWithoutSpaces() {
        var flow = Self.check(["A", "B", "C"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        #expect(
            Self.describe(flow.answered(1, .success([.permit(" A "), .permit("X")]), now: Self.now))
                == [
                    "updateCache(Cablevision until \(Self.expiry): A=true B=false C=false)", "end#3 preauthorizedResources([\"A\"])",
                    "done",
                ])
    }

    @Test func anEmptyListAsksNothing() {
        var flow = Self.check([])
        #expect(Self.describe(flow.start(cache: .init(), now: Self.now, limit: 5)) == ["end#3 preauthorizedResources([])", "done"])
    }

    // MARK: The cache

    static func cache(_ decisions: [String: Bool], mvpd: String = "Cablevision", until: UInt64 = expiry) -> PreauthorizationCache {
        var cache = PreauthorizationCache()
        cache.apply(.init(mvpd: mvpd, decisions: decisions.mapValues { .init(authorized: $0, error: $0 ? nil : denied) }, expiresAt: until))
        return cache
    }

    @Test func cachedDecisionsAnswerAndOnlyTheOthersAreAsked() {
        var flow = Self.check(["A", "B", "C"])
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true, "C": false]), now: Self.now, limit: 5)) == ["send#1 B"])
        #expect(
            Self.describe(flow.answered(1, Self.answer(["B"]), now: 2_000))
                == ["updateCache(Cablevision until 302000: B=true)", "end#3 preauthorizedResources([\"A\", \"B\"])", "done"])
        // Everything cached: no request, no cache write.
        flow = Self.check(["A", "C"])
        #expect(
            Self.describe(flow.start(cache: Self.cache(["A": true, "C": false]), now: Self.now, limit: 5))
                == ["end#3 preauthorizedResources([\"A\"])", "done"])
    }

    @Test func expiredOtherMVPDsAndDisabledCachesAreNotUsedButStillWritten() {
        var flow = Self.check(["A"])
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true], until: Self.now), now: Self.now, limit: 5)) == ["send#1 A"])
        flow = Self.check(["A"])
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true], mvpd: "Dish"), now: Self.now, limit: 5)) == ["send#1 A"])
        flow = Self.check(["A"], cache: false)
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5)) == ["send#1 A"])
        #expect(
            Self.describe(flow.answered(1, Self.answer([], denied: ["A"]), now: Self.now))[0]
                == "updateCache(Cablevision until \(Self.expiry): A=false/preauthorization_denied_by_mvpd)")
        flow = Self.preauthorize(["A"], disabled: [.localCache])
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5)) == ["send#1 A"])
        flow = Self.preauthorize(["A"], disabled: [.remoteCache])
        #expect(
            Self.describe(flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5))
                == [Self.response([("A", true, nil)]), "done"])
    }

    @Test func theCacheKeepsADecisionFiveMinutes() {
        var cache = PreauthorizationCache()
        cache.apply(.init(mvpd: "M", decisions: ["A": .init(authorized: true)], expiresAt: 300_000))
        #expect(cache.decision(mvpd: "M", resource: "A", at: 299_999)?.authorized == true)
        #expect(cache.decision(mvpd: "M", resource: "A", at: 300_000) == nil)
        #expect(cache.decision(mvpd: "N", resource: "A", at: 0) == nil)
        cache.removeAll()
        #expect(cache.decision(mvpd: "M", resource: "A", at: 0) == nil)
    }

    // MARK: too_many_resources

    @Test func tooManyResourcesSplitsUntilItPassesAndLearnsTheLimit() {
        let resources = (1...8).map { "R\($0)" }
        var flow = Self.check(resources)
        #expect(Self.describe(flow.start(cache: .init(), now: Self.now, limit: 8)) == ["send#1 R1,R2,R3,R4,R5,R6,R7,R8"])
        #expect(Self.describe(flow.answered(1, .failure(Self.tooMany), now: Self.now)) == ["send#2 R1,R2,R3,R4", "send#3 R5,R6,R7,R8"])
        #expect(Self.describe(flow.answered(3, .failure(Self.tooMany), now: Self.now)) == ["send#4 R5,R6", "send#5 R7,R8"])
        #expect(Self.describe(flow.answered(2, .failure(Self.tooMany), now: Self.now)) == ["send#6 R1,R2", "send#7 R3,R4"])
        #expect(flow.answered(7, Self.answer(["R3", "R4"]), now: Self.now).isEmpty)
        #expect(flow.answered(4, Self.answer(["R5", "R6"]), now: Self.now).isEmpty)
        #expect(flow.answered(5, Self.answer(["R7", "R8"]), now: Self.now).isEmpty)
        let last = Self.describe(flow.answered(6, Self.answer(["R1", "R2"]), now: Self.now))
        #expect(last.first == "lowerLimit(2)")
        #expect(last.suffix(2) == ["end#3 preauthorizedResources(\(resources))", "done"])
        // The split request's answers count once.
        #expect(flow.answered(1, Self.answer(resources), now: Self.now).isEmpty)
    }

    @Test func aLoneResourceRefusedAsTooManyIsAFailedRequest() {
        var flow = Self.check(["A", "B"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        _ = flow.answered(2, Self.answer(["B"]), now: Self.now)
        #expect(
            Self.describe(flow.answered(1, .failure(Self.tooMany), now: Self.now)) == [
                "updateCache(Cablevision until \(Self.expiry): A=false/too_many_resources B=true)",
                "emit[3] status(P100 too_many_resources)", "end#3 preauthorizedResources([\"B\"]) <- P100", "done",
            ])
    }

    @Test func theLimitGivenAtEachRoundChunksIt() {
        var flow = Self.check(["A", "B", "C", "D"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 4)
        #expect(
            Self.describe(flow.answered(1, Self.answer([], denied: ["A", "B", "C", "D"], error: Self.retry), now: Self.now))
                == ["waitToRetry(1)"])
        // Another flow learned 2 meanwhile: the retry is chunked by it.
        #expect(Self.describe(flow.retryTimerFired(attempt: 1, now: Self.now, limit: 2)) == ["send#2 A,B", "send#3 C,D"])
    }

    // MARK: Failures

    @Test func aFailedRequestIsP100BeforeTheListAndItsResourcesAreLeftOut() {
        var flow = Self.check(["A", "B", "C", "D"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 2)
        _ = flow.answered(1, Self.answer(["A", "B"]), now: Self.now)
        // A transport failure says `retry` (the executor already retried): not an item retry, not cached.
        #expect(
            Self.describe(flow.answered(2, .failure(.network), now: Self.now)) == [
                "updateCache(Cablevision until \(Self.expiry): A=true B=true)",
                "emit[3] status(P100 network_error)", "end#3 preauthorizedResources([\"A\", \"B\"]) <- P100", "done",
            ])
    }

    @Test func theFirstFailureToFinishIsTheOneReportedAndASplitChunkReportsItsFirstHalfs() {
        var flow = Self.check(["A", "B", "C"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 2)  // #1 A,B  #2 C
        _ = flow.answered(1, .failure(Self.tooMany), now: Self.now)  // #3 A  #4 B
        _ = flow.answered(2, .failure(.enhanced(.adobe("internal_error", action: "none", status: 500))), now: Self.now)
        _ = flow.answered(4, .failure(CallFailure(.call, .http(status: 404))), now: Self.now)
        let last = Self.describe(flow.answered(3, .failure(.network), now: Self.now))
        #expect(last.contains("emit[3] status(P100 internal_error)"))
        // Preauthorize's decisions carry each request's own error; the status is the first failure (all failed).
        flow = Self.preauthorize(["A", "B", "C"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 2)
        _ = flow.answered(1, .failure(Self.tooMany), now: Self.now)
        _ = flow.answered(4, .failure(CallFailure(.call, .http(status: 404))), now: Self.now)
        _ = flow.answered(3, .failure(.network), now: Self.now)
        let network = CallFailure.network.error.enhancedError
        let http = ServiceError.http(status: 404).enhancedError
        let internalError = EnhancedError.adobe("internal_error", action: "none", status: 500)
        #expect(
            Self.describe(flow.answered(2, .failure(.enhanced(internalError)), now: Self.now)).suffix(2)
                == [Self.response([("A", false, network), ("B", false, http), ("C", false, internalError)], status: network), "done"])
    }

    @Test func preauthorizeAnswersPerResourceAndHasAStatusOnlyWhenEveryRequestFailed() {
        var flow = Self.preauthorize(["LIVE", "PREMIUM"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        #expect(
            Self.describe(flow.answered(1, Self.answer(["LIVE"], denied: ["PREMIUM"]), now: Self.now)).suffix(2)
                == [Self.response([("LIVE", true, nil), ("PREMIUM", false, Self.denied)]), "done"])
        flow = Self.preauthorize(["LIVE", "PREMIUM"])
        _ = flow.start(cache: Self.cache(["LIVE": true]), now: Self.now, limit: 5)
        let network = CallFailure.network.error.enhancedError
        #expect(
            Self.describe(flow.answered(1, .failure(.network), now: Self.now))
                == [Self.response([("LIVE", true, nil), ("PREMIUM", false, network)]), "done"])
    }

    @Test func aMalformedAnswerIsCachedAsADenial() {
        // Today's behaviour: a failure whose action is not `retry` (here `none`) is cached for 5 minutes.
        var flow = Self.check(["A"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        #expect(
            Self.describe(
                flow.answered(
                    1, .failure(CallFailure(.call, .malformed(operation: "decisions/preauthorize", detail: "x"))),
                    now: Self.now))[0]
                == "updateCache(Cablevision until \(Self.expiry): A=false/server_response_format_unknown)")
    }

    // MARK: Item-level retries

    @Test func itemsThatSayRetryAreAskedAgainOnlyThemAtMostTwice() {
        var flow = Self.check(["A", "B", "C"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        #expect(
            Self.describe(flow.answered(1, .success([.permit("A"), .deny("B", Self.retry), .deny("C", Self.retry)]), now: Self.now))
                == ["waitToRetry(1)"])
        #expect(flow.state == .waitingToRetry(attempt: 1))
        #expect(Self.describe(flow.retryTimerFired(attempt: 1, now: 2_000, limit: 5)) == ["send#2 B,C"])
        #expect(Self.describe(flow.answered(2, .success([.permit("B"), .deny("C", Self.retry)]), now: 2_000)) == ["waitToRetry(2)"])
        #expect(Self.describe(flow.retryTimerFired(attempt: 2, now: 3_000, limit: 5)) == ["send#3 C"])
        // Still `retry` after two repeats: denied with it, and not cached.
        #expect(
            Self.describe(flow.answered(3, .success([.deny("C", Self.retry)]), now: 4_000))
                == ["updateCache(Cablevision until 304000: A=true B=true)", "end#3 preauthorizedResources([\"A\", \"B\"])", "done"])
    }

    @Test func aRetryRoundThatFailsReportsItsFailure() {
        var flow = Self.preauthorize(["A", "B"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        _ = flow.answered(1, .success([.deny("A", Self.retry), .deny("B", Self.retry)]), now: Self.now)
        _ = flow.retryTimerFired(attempt: 1, now: Self.now, limit: 5)
        let network = CallFailure.network.error.enhancedError
        // The failed request's resources are not item-retried again; every resource failed: the status is set.
        #expect(
            Self.describe(flow.answered(2, .failure(.network), now: Self.now))
                == [Self.response([("A", false, network), ("B", false, network)], status: network), "done"])
    }

    // MARK: Partner profiles

    @Test func aPartnerProfileAsksTheHeaderOnlyForResourcesNotCached() {
        var flow = Self.check(["A", "B"], profile: .partner())
        #expect(Self.describe(flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5)) == ["askPartnerHeader(Cablevision)"])
        #expect(flow.state == .awaitingPartnerHeader)
        #expect(Self.describe(flow.partnerHeaderAnswered(.success("PFS"), now: Self.now, limit: 5)) == ["send#1 B header=PFS"])
        flow = Self.check(["A"], profile: .partner())
        #expect(
            Self.describe(flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5))
                == ["end#3 preauthorizedResources([\"A\"])", "done"])
    }

    @Test func anUnusablePartnerStatusDeniesTheResourcesNotCachedWithoutARequest() {
        let refusal = EnhancedError.sdk("invalid_header_pfs_permission_access_not_determined", action: "authentication", message: "no")
        var flow = Self.check(["A", "B"], profile: .partner())
        _ = flow.start(cache: Self.cache(["A": true]), now: Self.now, limit: 5)
        #expect(
            Self.describe(flow.partnerHeaderAnswered(.failure(refusal), now: Self.now, limit: 5)) == [
                "emit[3] status(VSA404 invalid_header_pfs_permission_access_not_determined)",
                "end#3 preauthorizedResources([\"A\"]) <- VSA404", "done",
            ])
        flow = Self.preauthorize(["A", "B"], profile: .partner())
        _ = flow.start(cache: .init(), now: Self.now, limit: 5)
        #expect(
            Self.describe(flow.partnerHeaderAnswered(.failure(refusal), now: Self.now, limit: 5))
                == [Self.response([("A", false, refusal), ("B", false, refusal)], status: refusal), "done"])
    }

    // MARK: Late events and cancellation

    @Test func lateAndForeignEventsAreIgnored() {
        var flow = Self.check(["A", "B"])
        #expect(flow.answered(1, Self.answer(["A"]), now: Self.now).isEmpty)  // idle
        #expect(flow.partnerHeaderAnswered(.success(nil), now: Self.now, limit: 5).isEmpty)
        #expect(flow.retryTimerFired(attempt: 1, now: Self.now, limit: 5).isEmpty)
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        #expect(flow.start(cache: .init(), now: Self.now, limit: 1).isEmpty)
        #expect(flow.answered(9, Self.answer(["A"]), now: Self.now).isEmpty)  // unknown request
        #expect(flow.partnerHeaderAnswered(.success(nil), now: Self.now, limit: 5).isEmpty)
        #expect(flow.retryTimerFired(attempt: 1, now: Self.now, limit: 5).isEmpty)
        #expect(flow.answered(1, Self.answer(["A"]), now: Self.now).isEmpty)
        #expect(flow.answered(1, Self.answer(["A"]), now: Self.now).isEmpty)  // a second answer
        #expect(!flow.answered(2, Self.answer(["B"]), now: Self.now).isEmpty)
        #expect(flow.answered(2, Self.answer(["B"]), now: Self.now).isEmpty)  // finished
        #expect(flow.cancel().isEmpty && flow.state == .finished)
    }

    @Test func afterCancelNothingIsEmitted() {
        var flow = Self.check(["A", "B"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        #expect(flow.cancel().isEmpty && flow.state == .cancelled)
        #expect(flow.answered(1, Self.answer(["A"]), now: Self.now).isEmpty)
        #expect(flow.answered(2, Self.answer(["B"]), now: Self.now).isEmpty)
        flow = Self.check(["A"], profile: .partner())
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        _ = flow.cancel()
        #expect(flow.partnerHeaderAnswered(.success("PFS"), now: Self.now, limit: 5).isEmpty)
        flow = Self.check(["A"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        _ = flow.answered(1, .success([.deny("A", Self.retry)]), now: Self.now)
        _ = flow.cancel()
        #expect(flow.retryTimerFired(attempt: 1, now: Self.now, limit: 1).isEmpty)
    }

    @Test func aCancelledRequestEndsTheFlowSilently() {
        var flow = Self.check(["A", "B"])
        _ = flow.start(cache: .init(), now: Self.now, limit: 1)
        #expect(Self.describe(flow.answered(1, .failure(.cancelled), now: Self.now)) == ["done"])
        #expect(flow.answered(2, Self.answer(["B"]), now: Self.now).isEmpty)
    }

    // MARK: Every state × event

    /// The flow (a partner profile, "A" and "B") in `state`.
    static func flow(in state: String) -> PreauthorizationFlow {
        var flow = Self.check(["A", "B"], profile: .partner())
        switch state {
        case "awaitingPartnerHeader": _ = flow.start(cache: .init(), now: now, limit: 5)
        case "fetching":
            _ = flow.start(cache: .init(), now: now, limit: 5)
            _ = flow.partnerHeaderAnswered(.success("PFS"), now: now, limit: 5)
        case "waitingToRetry":
            _ = flow.start(cache: .init(), now: now, limit: 5)
            _ = flow.partnerHeaderAnswered(.success("PFS"), now: now, limit: 5)
            _ = flow.answered(1, .success([.deny("A", retry), .permit("B")]), now: now)
        case "finished":
            _ = flow.start(cache: .init(), now: now, limit: 5)
            _ = flow.partnerHeaderAnswered(.success("PFS"), now: now, limit: 5)
            _ = flow.answered(1, answer(["A", "B"]), now: now)
        case "cancelled":
            _ = flow.start(cache: .init(), now: now, limit: 5)
            _ = flow.cancel()
        default: break
        }
        return flow
    }

    @Test(arguments: [
        // state, start, partner header answered, answer to request 1, retry timer 1 (first action or "-")
        ("idle", "askPartnerHeader(Cablevision)", "-", "-", "-"),
        ("awaitingPartnerHeader", "-", "send#1 A,B header=PFS", "-", "-"),
        ("fetching", "-", "-", "updateCache(Cablevision until 301000: A=true B=true)", "-"),
        ("waitingToRetry", "-", "-", "-", "send#2 A header=PFS"),
        ("finished", "-", "-", "-", "-"),
        ("cancelled", "-", "-", "-", "-"),
    ])
    func everyStateAndEvent(state: String, start: String, header: String, answer: String, timer: String) {
        func first(_ actions: [PreauthorizationFlow.Action]) -> String { Self.describe(actions).first ?? "-" }
        var flow = Self.flow(in: state)
        #expect(first(flow.start(cache: .init(), now: Self.now, limit: 5)) == start)
        flow = Self.flow(in: state)
        #expect(first(flow.partnerHeaderAnswered(.success("PFS"), now: Self.now, limit: 5)) == header)
        flow = Self.flow(in: state)
        #expect(first(flow.answered(1, Self.answer(["A", "B"]), now: Self.now)) == answer)
        flow = Self.flow(in: state)
        #expect(first(flow.retryTimerFired(attempt: 1, now: Self.now, limit: 5)) == timer)
        flow = Self.flow(in: state)
        #expect(flow.cancel().isEmpty)
        #expect(flow.isFinished)
    }
}
