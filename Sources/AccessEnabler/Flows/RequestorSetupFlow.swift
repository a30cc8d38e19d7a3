// SPDX-License-Identifier: Apache-2.0

/// setRequestor's steps as a pure state machine (RequestorGate admits and queues the calls around
/// it). With a partner framework the platform's status is asked first (setRequestor, also on
/// return to foreground, refreshes it); then the configuration and the profiles go out together
/// (one round trip once the token is at hand), each only when the stored one is older than the
/// cache age (the profiles also when a usable partner status makes partner profiles count); then
/// the requestor is ready, and a viewer signed in at platform level without a profile gets a
/// silent partner exchange (no callback of its own); then setRequestorComplete.
///
/// A configuration that cannot be fetched fails setRequestor unless a stored one exists and the
/// failure is transient (network, throttling, 5xx): a set-top on a flaky network keeps working
/// with the configuration it has (a warning says so). A failed profile sync keeps the stored ones.
///
/// States: `idle`, `askingPartner`, `fetching` (what is still awaited), `exchanging`, `finished`.
/// Pure: facts come in as parameters (the stored configuration and the freshness of the stored
/// state at start, the partner status, whether a profile is usable once ready), time as `now`.
package struct RequestorSetupFlow: Sendable {
    package struct Inputs: Sendable {
        package var call: CallID
        package var partnerConfigured: Bool
        /// The stored configuration, if any.
        package var cachedConfiguration: RequestorConfiguration?
        package var configurationFresh: Bool
        package var profilesFresh: Bool
        package var now: Int64
        /// The host's identity provider has tokens to give that the SDK lacks (or that near their
        /// `exp`): asked for first, so that the profiles call carries them.
        package var asksIdentity: Bool

        package init(
            call: CallID, partnerConfigured: Bool, cachedConfiguration: RequestorConfiguration?,
            configurationFresh: Bool, profilesFresh: Bool, now: Int64, asksIdentity: Bool = false
        ) {
            self.asksIdentity = asksIdentity
            self.call = call
            self.partnerConfigured = partnerConfigured
            self.cachedConfiguration = cachedConfiguration
            self.configurationFresh = configurationFresh
            self.profilesFresh = profilesFresh
            self.now = now
        }
    }

    package enum Action: Sendable {
        /// Ask the host's identity provider for its SSO tokens (waiting at most its timeout);
        /// answer with `identityTokensAnswered`.
        case askIdentityTokens
        /// Ask the platform for its status (and cache it); answer with `partnerStatusAnswered`.
        case askPartnerStatus
        case emit(Emission)
        /// GET the configuration; answer with `configurationAnswered`.
        case fetchConfiguration
        /// GET the profiles (with the partner status, so that partner profiles count); answer with
        /// `profilesAnswered`.
        case fetchProfiles(partnerStatus: String?)
        /// Store the configuration fetched (stamped with the driver's clock after the answer).
        case saveConfiguration(RequestorConfiguration)
        /// Store Adobe's profiles, merged with what the store knows (Backend.synced, with the
        /// requestor's configuration; stamped after the answer).
        case replaceProfiles([Profile], configuration: RequestorConfiguration)
        case log(LogLevel, String)
        /// The requestor is ready with this configuration; answer with `requestorReady`.
        case ready(RequestorConfiguration)
        /// Run setRequestor's silent partner exchange with this status; answer with `exchangeFinished`.
        case silentExchange(PartnerStatus)
        /// setRequestor ended (the gate sends setRequestorComplete); `explanation`: the last status
        /// sent for the call.
        case finish(Result<Void, CallFailure>, explanation: AdvancedStatus?)
        /// After a warm start (nothing fetched, nothing exchanged): open the connection to Adobe in
        /// the background, sending no API request, so that the first call pays no handshakes. Comes
        /// after `finish`: setRequestorComplete never waits for it.
        case preconnect
    }

    enum State: Sendable {
        case idle
        case askingIdentity
        case askingPartner
        case fetching
        case exchanging
        case finished
    }

    let inputs: Inputs
    private(set) var state: State = .idle
    private var explanation: AdvancedStatus?
    private var partnerStatus: PartnerStatus?
    /// nil: not asked (fresh) or not answered yet; see `awaiting`.
    private var configuration: Result<RequestorConfiguration, CallFailure>?
    private var profiles: Result<[Profile], CallFailure>?
    private var awaiting: (configuration: Bool, profiles: Bool) = (false, false)

    package init(_ inputs: Inputs) { self.inputs = inputs }

    /// Whether the stored profiles stand without asking Adobe (`Inputs.profilesFresh`): synced
    /// within the cache age (`syncedRecently`), unless the profiles call would carry a single
    /// sign-on token (`carriesIdentity`: one held and not past its `exp`, as `DeviceContext.
    /// identityHeaders` sends it, or one asked for first) while no stored profile is valid at `now`.
    /// Adobe may then hold an SSO profile another app or device of the subject made since the last
    /// sync: an empty list, or one of expired profiles only, is not trusted.
    package static func storedProfilesStand(
        syncedRecently: Bool, stored: [Profile], carriesIdentity: Bool, now: Int64
    ) -> Bool {
        guard syncedRecently else { return false }
        return !carriesIdentity || stored.contains { $0.isValid(at: now) }
    }

    package var isFinished: Bool { if case .finished = state { true } else { false } }

    // MARK: Events

    /// `statuses`: what the driver found before starting (SEC412: profiles of another device id removed).
    package mutating func start(statuses: [AdvancedStatus] = []) -> [Action] {
        guard case .idle = state else { return [] }
        let emitted = statuses.map { status(of: $0) }
        if inputs.asksIdentity {
            state = .askingIdentity
            return emitted + [.askIdentityTokens]
        }
        return emitted + afterIdentity()
    }

    /// The host's provider answered (or timed out): the tokens it gave are in place.
    package mutating func identityTokensAnswered() -> [Action] {
        guard case .askingIdentity = state else { return [] }
        return afterIdentity()
    }

    private mutating func afterIdentity() -> [Action] {
        if inputs.partnerConfigured {
            state = .askingPartner
            return [.askPartnerStatus]
        }
        return fetch(partnerHeader: nil)
    }

    /// The platform's status; `advisory`: what it says to the host (VSA403 / VSA404 / APPL).
    package mutating func partnerStatusAnswered(_ status: PartnerStatus, advisory: AdvancedStatus?) -> [Action] {
        guard case .askingPartner = state else { return [] }
        partnerStatus = status
        let emitted = advisory.map { [self.status(of: $0)] } ?? []
        let sent = ProfileUse.statusWorthSending(status, at: inputs.now, configuration: inputs.cachedConfiguration)
        return emitted + fetch(partnerHeader: sent ? status.headerValue : nil)
    }

    package mutating func configurationAnswered(_ result: Result<RequestorConfiguration, CallFailure>) -> [Action] {
        guard case .fetching = state, awaiting.configuration, configuration == nil else { return [] }
        configuration = result
        return fetched()
    }

    package mutating func profilesAnswered(_ result: Result<[Profile], CallFailure>) -> [Action] {
        guard case .fetching = state, awaiting.profiles, profiles == nil else { return [] }
        profiles = result
        return fetched()
    }

    /// The requestor is set. `hasCurrentProfile`: a profile is usable now (ProfileUse.current);
    /// `partnerStatus`: the cached one (nil: none).
    package mutating func requestorReady(
        hasCurrentProfile: Bool, partnerStatus: PartnerStatus?,
        configuration: RequestorConfiguration, now: Int64
    ) -> [Action] {
        guard case .fetching = state else { return [] }
        if inputs.partnerConfigured, !hasCurrentProfile, let partnerStatus,
            partnerStatus.problem(at: now, configuration: configuration) == nil
        {
            // Signed in at platform level but no profile: exchange silently (no callback of its own).
            state = .exchanging
            return [.silentExchange(partnerStatus)]
        }
        let warm = !awaiting.configuration && !awaiting.profiles
        return finish(.success(())) + (warm ? [.preconnect] : [])
    }

    package mutating func exchangeFinished() -> [Action] {
        guard case .exchanging = state else { return [] }
        return finish(.success(()))
    }

    // MARK: Steps

    private mutating func fetch(partnerHeader: String?) -> [Action] {
        state = .fetching
        let syncProfiles = !inputs.profilesFresh || partnerHeader != nil
        awaiting = (!inputs.configurationFresh || inputs.cachedConfiguration == nil, syncProfiles)
        var actions: [Action] = []
        if awaiting.configuration { actions.append(.fetchConfiguration) }
        if awaiting.profiles { actions.append(.fetchProfiles(partnerStatus: partnerHeader)) }
        return actions.isEmpty ? fetched() : actions
    }

    /// Both answers are in (or were not needed): the configuration first, then the profiles.
    private mutating func fetched() -> [Action] {
        if awaiting.configuration && configuration == nil { return [] }
        if awaiting.profiles && profiles == nil { return [] }
        var actions: [Action] = []
        let chosen: RequestorConfiguration
        switch configuration {
        case .success(let fetched)?:
            chosen = fetched
            actions.append(.saveConfiguration(fetched))
        case nil:
            guard let cached = inputs.cachedConfiguration else { return [] }  // not reached: fetched when none is stored
            chosen = cached
        case .failure(let failure)?:
            if failure.isCancellation {  // destroyed: nothing more
                state = .finished
                return []
            }
            guard let cached = inputs.cachedConfiguration, Self.isTransient(failure) else {
                state = .finished
                return [.finish(.failure(failure), explanation: explanation)]
            }
            // A set-top on a flaky network keeps working with the configuration it has.
            var warning = StatusCatalog.requestorFailure(failure)
            warning.level = .warning
            warning.message += " Using the stored configuration."
            actions.append(status(of: warning))
            chosen = cached
        }
        switch profiles {
        case .success(let answered)?:
            actions.append(.replaceProfiles(answered, configuration: chosen))
        case .failure(let failure)?:
            actions.append(.log(.warning, "profile sync failed (\(failure.error.enhancedError.code)); keeping the stored profiles"))
        case nil:
            break
        }
        return actions + [.ready(chosen)]
    }

    private mutating func finish(_ outcome: Result<Void, CallFailure>) -> [Action] {
        state = .finished
        return [.finish(outcome, explanation: explanation)]
    }

    private mutating func status(of status: AdvancedStatus) -> Action {
        explanation = status
        return .emit(Emission(.status(status), calls: [inputs.call]))
    }

    /// Network trouble, throttling and server errors: worth falling back on stored state.
    static func isTransient(_ failure: CallFailure) -> Bool {
        switch failure.error {
        case .transport, .throttled, .unavailable: true
        case .http(let status), .enhanced(_, let status): status >= 500
        case .registration, .malformed: false
        }
    }
}
