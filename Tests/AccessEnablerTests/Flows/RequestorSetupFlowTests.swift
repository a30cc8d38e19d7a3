// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// RequestorSetupFlow without sockets or clocks: every state × event, late events, the order of
/// its steps and the fallback on a stored configuration.
@Suite struct RequestorSetupFlowTests {
    let call = CallID(1)
    let configuration = RequestorConfiguration(
        requestorID: "REF30", domains: ["adobe.com"],
        mvpds: [
            MVPD(id: "Cablevision", displayName: "Optimum")
        ])

    func inputs(
        partner: Bool = false, cached: Bool = false, configurationFresh: Bool = false,
        profilesFresh: Bool = false
    ) -> RequestorSetupFlow.Inputs {
        .init(
            call: call, partnerConfigured: partner, cachedConfiguration: cached ? configuration : nil,
            configurationFresh: configurationFresh, profilesFresh: profilesFresh, now: 1_000)
    }

    /// A readable line per action.
    func lines(_ actions: [RequestorSetupFlow.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .askPartnerStatus: "askPartnerStatus"
            case .emit(let emission):
                if case .status(let status) = emission.event { "status \(status.errorID) \(emission.calls)" } else { "emit" }
            case .fetchConfiguration: "fetchConfiguration"
            case .fetchProfiles(let header): "fetchProfiles \(header ?? "-")"
            case .saveConfiguration: "saveConfiguration"
            case .replaceProfiles(let profiles, _): "replaceProfiles \(profiles.count)"
            case .log(let level, _): "log \(level)"
            case .ready: "ready"
            case .silentExchange: "silentExchange"
            case .finish(.success, let explanation): "finish ok \(explanation?.errorID ?? "-")"
            case .finish(.failure(let failure), let explanation):
                "finish \(failure.error.enhancedError.code) \(explanation?.errorID ?? "-")"
            case .preconnect: "preconnect"
            case .askIdentityTokens: "askIdentityTokens"
            }
        }
    }

    @Test func coldStartFetchesBothTogetherThenIsReady() {
        var flow = RequestorSetupFlow(inputs())
        #expect(lines(flow.start()) == ["fetchConfiguration", "fetchProfiles -"])
        #expect(lines(flow.profilesAnswered(.success([]))) == [])  // waits for the configuration
        #expect(lines(flow.configurationAnswered(.success(configuration))) == ["saveConfiguration", "replaceProfiles 0", "ready"])
        #expect(
            lines(flow.requestorReady(hasCurrentProfile: false, partnerStatus: nil, configuration: configuration, now: 1_000))
                == ["finish ok -"])
        #expect(flow.isFinished)
    }

    /// A warm start sends nothing and, once setRequestorComplete is on its way, opens the
    /// connection for the first call (a cold start already has one).
    @Test func warmStartSendsNothingThenPreconnects() {
        var flow = RequestorSetupFlow(inputs(cached: true, configurationFresh: true, profilesFresh: true))
        #expect(lines(flow.start()) == ["ready"])
        #expect(
            lines(flow.requestorReady(hasCurrentProfile: true, partnerStatus: nil, configuration: configuration, now: 1_000))
                == ["finish ok -", "preconnect"])
    }

    /// The host's identity tokens come first (the profiles call carries them), then the partner,
    /// then the fetches; a late answer changes nothing.
    @Test func identityTokensAreAskedForBeforeAnythingElse() {
        var base = inputs(partner: true, cached: true, configurationFresh: true)
        base.asksIdentity = true
        var flow = RequestorSetupFlow(base)
        #expect(lines(flow.start()) == ["askIdentityTokens"])
        #expect(flow.configurationAnswered(.success(configuration)).isEmpty)
        #expect(lines(flow.identityTokensAnswered()) == ["askPartnerStatus"])
        #expect(flow.identityTokensAnswered().isEmpty)
        var plain = inputs()
        plain.asksIdentity = true
        var other = RequestorSetupFlow(plain)
        _ = other.start()
        #expect(lines(other.identityTokensAnswered()) == ["fetchConfiguration", "fetchProfiles -"])
    }

    @Test func aTransientFailureFallsBackOnTheStoredConfiguration() {
        var flow = RequestorSetupFlow(inputs(cached: true, profilesFresh: true))
        #expect(lines(flow.start()) == ["fetchConfiguration"])
        let actions = flow.configurationAnswered(.failure(CallFailure(.call, .transport(.timedOut))))
        #expect(lines(actions).count == 2 && lines(actions).last == "ready")
        #expect(lines(actions).first?.hasPrefix("status ") == true)
        // The warning explains the end.
        let end = flow.requestorReady(hasCurrentProfile: true, partnerStatus: nil, configuration: configuration, now: 1_000)
        #expect(lines(end).first?.hasPrefix("finish ok") == true && lines(end).first != "finish ok -")
    }

    @Test func aRefusalWithoutAStoredConfigurationFails() {
        var flow = RequestorSetupFlow(inputs())
        _ = flow.start()
        let refused = CallFailure(.call, .enhanced(EnhancedError(status: 403, code: "invalid_requestor", action: "none"), httpStatus: 403))
        _ = flow.profilesAnswered(.success([]))
        #expect(lines(flow.configurationAnswered(.failure(refused))) == ["finish invalid_requestor -"])
        #expect(flow.isFinished)
        // Late events change nothing.
        #expect(flow.configurationAnswered(.success(configuration)).isEmpty)
        #expect(flow.profilesAnswered(.success([])).isEmpty)
        #expect(flow.requestorReady(hasCurrentProfile: false, partnerStatus: nil, configuration: configuration, now: 1).isEmpty)
        #expect(flow.exchangeFinished().isEmpty)
    }

    @Test func aCancelledFetchEndsSilently() {
        var flow = RequestorSetupFlow(inputs(profilesFresh: true))
        _ = flow.start()
        #expect(flow.configurationAnswered(.failure(CallFailure(.call, .transport(.cancelled)))).isEmpty)
        #expect(flow.isFinished)
    }

    @Test func aFailedProfileSyncKeepsTheStoredProfiles() {
        var flow = RequestorSetupFlow(inputs(cached: true, configurationFresh: true))
        #expect(lines(flow.start()) == ["fetchProfiles -"])
        #expect(lines(flow.profilesAnswered(.failure(CallFailure(.call, .transport(.timedOut))))) == ["log warning", "ready"])
    }

    @Test func thePartnerIsAskedFirstAndItsStatusSyncsTheProfiles() {
        var flow = RequestorSetupFlow(inputs(partner: true, cached: true, configurationFresh: true, profilesFresh: true))
        #expect(
            lines(flow.start(statuses: [AdvancedStatus("SEC412", .warning, "moved")])) == ["status SEC412 [call#1]", "askPartnerStatus"])
        // Events of later states before their turn are ignored.
        #expect(flow.configurationAnswered(.success(configuration)).isEmpty)
        #expect(flow.exchangeFinished().isEmpty)
        let denied = PartnerStatus(access: PartnerAccess(.denied))
        let advisory = AdvancedStatus("VSA403", .info, "denied")
        // An unusable status: no header, the fresh profiles are not synced again.
        #expect(lines(flow.partnerStatusAnswered(denied, advisory: advisory)) == ["status VSA403 [call#1]", "ready"])
        #expect(flow.partnerStatusAnswered(denied, advisory: advisory).isEmpty)  // a second answer is late
        #expect(
            lines(
                flow.requestorReady(
                    hasCurrentProfile: false, partnerStatus: denied, configuration: configuration,
                    now: 1_000)) == ["finish ok VSA403", "preconnect"])
    }

    @Test func aUsablePartnerStatusWithoutAProfileExchangesSilently() {
        let configuration = RequestorConfiguration(
            requestorID: "REF30", domains: [],
            mvpds: [
                {
                    var mvpd = MVPD(id: "Comcast_SSO", displayName: "Xfinity")
                    mvpd.enablePlatformServices = true
                    mvpd.platformMappingId = "Comcast"
                    return mvpd
                }()
            ])
        var flow = RequestorSetupFlow(
            .init(
                call: call, partnerConfigured: true, cachedConfiguration: configuration,
                configurationFresh: true, profilesFresh: true, now: 1_000))
        _ = flow.start()
        let status = PartnerStatus(access: PartnerAccess(.granted), providerID: "Comcast", expirationDate: 9_000_000)
        #expect(lines(flow.partnerStatusAnswered(status, advisory: nil)) == ["fetchProfiles \(status.headerValue)"])
        #expect(lines(flow.profilesAnswered(.success([]))) == ["replaceProfiles 0", "ready"])
        #expect(
            lines(
                flow.requestorReady(
                    hasCurrentProfile: false, partnerStatus: status, configuration: configuration,
                    now: 1_000)) == ["silentExchange"])
        #expect(lines(flow.exchangeFinished()) == ["finish ok -"])
        #expect(flow.exchangeFinished().isEmpty)
    }

    /// The stored profiles stand when synced within the cache age, unless the profiles call would
    /// carry an SSO token and none of them is valid: an empty list, or expired profiles only, may
    /// hide an SSO profile another app of the subject made since.
    @Test func storedProfilesStandUnlessATokenGoesOutAndNoneIsValid() {
        let now: Int64 = 10_000
        let valid = Profile(mvpd: "Cablevision", notBefore: 0, notAfter: now + 1, issuer: "Cablevision", type: "regular", attributes: [:])
        var expired = valid
        expired.notAfter = now
        func stand(_ synced: Bool, _ stored: [Profile], _ token: Bool) -> Bool {
            RequestorSetupFlow.storedProfilesStand(syncedRecently: synced, stored: stored, carriesIdentity: token, now: now)
        }
        #expect(stand(true, [], false) && stand(true, [expired], false) && stand(true, [valid], false))
        #expect(!stand(false, [valid], false) && !stand(false, [valid], true))
        #expect(!stand(true, [], true))
        #expect(!stand(true, [expired], true))
        #expect(stand(true, [expired, valid], true))
    }
}
