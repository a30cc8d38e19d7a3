// SPDX-License-Identifier: Apache-2.0

/// Admits, queues, runs or refuses every AccessEnabler call around setRequestor and the partner
/// status wait (the engine's `accept`, `execute` and `drainQueued` run its actions; the facade
/// throws its `noRequestor` refusal).
///
/// States (`State`):
/// - `none`: no setRequestor yet. A call other than setRequestor is refused (`refuse`, the facade's
///   `noRequestor`, no callback).
/// - `settingUp(id)`: the setRequestor `id` runs; every call queues behind it.
/// - `ready`: calls run (`perform`), after the partner status when they depend on it.
/// - `awaitingPartner(call)`: ready, `call` waits for the partner status; later calls queue.
/// - `failed`: the last setRequestor failed: new calls are refused; calls queued behind it end with
///   their own failure callback (the machine emits them).
/// - `shutDown`: destroyed; every event is ignored.
///
/// Calls leave the queue in call order, one at a time. After executing the actions of
/// `setupFinished` and `partnerStatusAnswered` the driver drains:
///
///     while let call = gate.nextQueuedCall { execute(gate.runQueued(facts: partnerFacts(for: call.command))) }
///
/// so each call's facts are read at its turn, after the calls before it ran (`Engine.drainQueued`).
package struct RequestorGate: Sendable {
    enum State: Sendable {
        case none
        case settingUp(CallID)
        case ready
        case awaitingPartner(Call)
        case failed
        case shutDown
    }

    /// What the driver knows of the partner when a call's turn comes (read at that moment).
    struct PartnerFacts: Sendable, Hashable {
        /// A partner framework is configured (`settings.partner != nil`).
        var partnerConfigured: Bool
        /// The cached partner status was asked less than `partnerStatusMaxAgeMillis` ago.
        var statusFresh: Bool
        /// A stored profile whose `notAfter` has not passed is a partner profile. The driver may
        /// leave it false when the answer does not depend on it (`waitsForPartner`).
        var partnerProfileStored: Bool

        static let noPartner = PartnerFacts(partnerConfigured: false, statusFresh: false, partnerProfileStored: false)
    }

    package enum Action: Sendable {
        /// Run setRequestor (the driver ends a login and clears the preauthorization cache when the
        /// requestor id changes, then fetches); answer with `setupFinished`.
        case startSetup(Call)
        /// Ask the partner for its status (refreshing the cache); answer with `partnerStatusAnswered`.
        case askPartnerStatus(Call)
        /// Run the call. `explanation`: a status the gate already emitted for it (checkAuthentication's
        /// partner advisory), to carry on the event that ends it when no later status does.
        case perform(Call, explanation: AdvancedStatus?)
        case emit(Emission)
        /// Refuse the call at once (`AccessEnablerError.noRequestor` or `.queueFull`): no callback.
        case refuse(CallID, Refusal)
    }

    /// Why a call was refused at once.
    package enum Refusal: Error, Sendable, Equatable {
        /// No setRequestor ran, or the last one failed.
        case noRequestor
        /// `maxQueued` calls already wait (behind a setRequestor or the partner status).
        case queueFull
    }

    /// The most calls that wait behind a running setRequestor (or a partner status): the header's
    /// AE_MAX_QUEUED_CALLS. Each holds its arguments (about 200 bytes); a host that goes on calling
    /// while setRequestor cannot complete is refused instead of growing the queue without end.
    package static let maxQueued = 1_000

    private(set) var state: State = .none
    private(set) var queue: [Call] = []
    private let tracking: TrackingValues

    init(tracking: TrackingValues) {
        self.tracking = tracking
    }

    /// Whether `command` would be accepted now (pure; the facade's `noRequestor` check): setRequestor
    /// always; another call while a setRequestor is running or queued, or the last one succeeded.
    func admits(_ command: Command) -> Bool {
        if case .shutDown = state { return false }
        if case .setRequestor = command { return true }
        switch state {
        case .settingUp, .ready, .awaitingPartner: return true
        case .none, .failed: return queue.contains { if case .setRequestor = $0.command { true } else { false } }
        case .shutDown: return false
        }
    }

    /// The queued call whose turn has come (nil while a setRequestor runs, a call waits for the
    /// partner, or nothing is queued).
    var nextQueuedCall: Call? {
        switch state {
        case .none, .ready, .failed: queue.first
        case .settingUp, .awaitingPartner, .shutDown: nil
        }
    }

    // MARK: Events

    /// A new call, in call order. `facts` is read only when the call runs at once.
    mutating func callArrived(_ call: Call, facts: PartnerFacts) -> [Action] {
        guard admits(call.command) else {
            if case .shutDown = state { return [] }
            return [.refuse(call.id, .noRequestor)]
        }
        if !queue.isEmpty || !isIdle {
            guard queue.count < Self.maxQueued else { return [.refuse(call.id, .queueFull)] }
            queue.append(call)
            return []
        }
        return run(call, facts: facts)
    }

    /// Runs the head of the queue (`nextQueuedCall`), deciding with `facts` read now.
    mutating func runQueued(facts: PartnerFacts) -> [Action] {
        guard nextQueuedCall != nil else { return [] }
        return run(queue.removeFirst(), facts: facts)
    }

    /// The setRequestor `id` ended. `explanation`: the last status the driver emitted for it during
    /// the setup (SEC412, APPL, a stale-configuration warning), carried by setRequestorComplete(1).
    mutating func setupFinished(
        _ id: CallID, _ outcome: Result<Void, CallFailure>,
        explanation: AdvancedStatus? = nil
    ) -> [Action] {
        guard case .settingUp(let running) = state, running == id else { return [] }
        switch outcome {
        case .success:
            state = .ready
            return [.emit(.end(id, .setRequestorComplete(AccessEnablerStatus.success), explanation: explanation))]
        case .failure(let failure):
            state = .failed
            let status = StatusCatalog.requestorFailure(failure)
            return [
                .emit(Emission(.status(status), calls: [id])),
                .emit(.end(id, .setRequestorComplete(AccessEnablerStatus.error), explanation: status)),
            ]
        }
    }

    /// The partner status the call `id` waited for is at hand. `advisory`: what the engine's
    /// `partnerAdvisory(status, checkingAuthentication: true)` says of it (VSA403 / VSA404 /
    /// APPL_ERROR), emitted for checkAuthentication only.
    mutating func partnerStatusAnswered(for id: CallID, advisory: AdvancedStatus?) -> [Action] {
        guard case .awaitingPartner(let call) = state, call.id == id else { return [] }
        state = .ready
        var actions: [Action] = []
        var explanation: AdvancedStatus?
        if case .checkAuthentication = call.command, let advisory {
            actions.append(.emit(Emission(.status(advisory), calls: [id])))
            explanation = advisory
        }
        actions.append(.perform(call, explanation: explanation))
        return actions
    }

    /// Destroy: queued calls are dropped without callbacks; later events are ignored.
    mutating func shutdown() -> [Action] {
        state = .shutDown
        queue = []
        return []
    }

    // MARK: Deciding

    /// True when a call may run at once (no setup running, no partner wait).
    private var isIdle: Bool {
        switch state {
        case .none, .ready, .failed: true
        case .settingUp, .awaitingPartner, .shutDown: false
        }
    }

    private mutating func run(_ call: Call, facts: PartnerFacts) -> [Action] {
        if case .setRequestor = call.command {
            state = .settingUp(call.id)
            return [.startSetup(call)]
        }
        switch state {
        case .ready:
            guard Self.waitsForPartner(call.command, facts) else { return [.perform(call, explanation: nil)] }
            state = .awaitingPartner(call)
            return [.askPartnerStatus(call)]
        case .none, .failed:
            return failure(call).map { .emit($0) }
        case .settingUp, .awaitingPartner, .shutDown:
            return []  // not reached: callers queue instead
        }
    }

    /// A partner profile is usable only with a usable partner status (ProfileUse): the calls that use
    /// a profile ask the partner first when the status they would go by is stale (checkAuthentication
    /// always asks, as the cookbooks' step does). Without a partner framework nothing waits.
    static func waitsForPartner(_ command: Command, _ facts: PartnerFacts) -> Bool {
        guard facts.partnerConfigured else { return false }
        switch command {
        case .checkAuthentication:
            return true
        case .getAuthentication, .authorization, .checkPreauthorizedResources, .preauthorize, .getMetadata:
            return !facts.statusFresh && facts.partnerProfileStored
        case .setRequestor, .setSelectedProvider, .getSelectedProvider, .logout, .handleExternalURL:
            return false
        }
    }

    /// What a call queued behind a setRequestor that failed gets: its own failure callback.
    func failure(_ call: Call) -> [Emission] {
        let notConfigured = "setRequestor did not complete successfully."
        let id = call.id
        switch call.command {
        case .setRequestor:
            return []
        case .checkAuthentication:
            return [
                .end(id, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated)),
                Emission(tracking.authentication(success: false, profile: nil, cached: false)),
            ]
        case .getAuthentication, .setSelectedProvider, .handleExternalURL:
            return [.end(id, .setAuthenticationStatus(0, AccessEnablerErrorCode.genericAuthentication))]
        case .getSelectedProvider:
            return [.end(id, .selectedProvider(nil))]
        case .authorization(let resource, _):
            return [
                .end(
                    id,
                    .tokenRequestFailed(
                        resource: resource, code: AccessEnablerErrorCode.genericAuthorization,
                        description: notConfigured))
            ]
        case .checkPreauthorizedResources:
            return [.end(id, .preauthorizedResources([]))]
        case .preauthorize(let request, let completion):
            let error = EnhancedError.sdk("requestor_not_configured", action: "retry", message: notConfigured)
            return [.end(id, .preauthorizeResponse(.allDenied(request.resources, error), completion: completion))]
        case .getMetadata(let key):
            return [.end(id, .setMetadataStatus(nil, encrypted: false, key: key.opCode, arguments: key.arguments))]
        case .logout:
            return [.end(id, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated))]
        }
    }
}

extension PreauthorizeResponse {
    /// Every resource denied with `error`, which is also the call's status (as `Engine.allDenied`).
    static func allDenied(_ resources: [String], _ error: EnhancedError) -> PreauthorizeResponse {
        PreauthorizeResponse(decisions: resources.map { .init(id: $0, authorized: false, error: error) }, status: error)
    }
}
