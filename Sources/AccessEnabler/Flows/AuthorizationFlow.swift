// SPDX-License-Identifier: Apache-2.0

/// One checkAuthorization / getAuthorization call (AuthorizationFlow+Driver.swift): one
/// decisions/authorize request (V1: authorize + media token, or the media token alone while the
/// stored authorization lasts) for the current profile; an answer whose only decision carries an
/// item-level `retry` is asked again at most twice, after a backoff. getAuthorization without a
/// usable profile, or whose profile Adobe no longer has, joins a login (once: not after a login).
///
/// States (`State`):
/// - `idle`: created, `start()` not called yet.
/// - `askingPartner`: a partner profile's `AP-Partner-Framework-Status` value is being asked for
///   (`askPartnerHeader`); `partnerHeaderAnswered` goes on.
/// - `deciding(attempt)`: the decision request of `attempt` (0 first, then 1, 2) is out.
/// - `waitingToRetry(attempt)`: the backoff before `attempt` runs.
/// - `finished`: the call ended here, or went on in a login (`joinLogin`).
/// - `cancelled`: destroyed, or the request was cancelled; nothing more is emitted.
struct AuthorizationFlow: Sendable {
    enum State: Equatable, Sendable {
        case idle
        case askingPartner
        case deciding(attempt: Int)
        case waitingToRetry(attempt: Int)
        case finished
        case cancelled
    }

    /// The request the driver sends: V2 `decisions/authorize/{mvpd}` for `[resource]` with
    /// `partnerHeader` (AP-Partner-Framework-Status) and the profile's TempPass identity; V1
    /// authorize + short media token, or the media token alone with `authorizedUntil`.
    struct DecisionRequest: Sendable, Equatable {
        var attempt: Int
        var resource: String
        var profile: Profile
        var partnerHeader: String?
        var authorizedUntil: Int64?
    }

    enum Action: Sendable {
        /// A partner profile is decided on only with a usable partner status (ProfileUse): its
        /// header value, or the SDK's refusal (Engine.partnerHeaderForDecisions), goes to
        /// `partnerHeaderAnswered`.
        case askPartnerHeader(Profile)
        case sendDecisionRequest(DecisionRequest)
        /// Wait `ItemRetry.baseDelayNanos(attempt:)` plus jitter, then `retryTimerFired(attempt:)`.
        case waitToRetry(attempt: Int)
        case emit(Emission)
        /// Store the authorization's expiry (getMetadata(1), V1's media-token shortcut).
        case saveAuthorizationExpiry(mvpd: String, resource: String, notAfter: Int64)
        /// Adobe no longer has the profile: remove the MVPD's stored profiles.
        case deleteProfiles(mvpd: String)
        /// The TempPass is over (N111): its stored profile expires now (Engine.endTempPass).
        case endTempPass(mvpd: String, identity: String?)
        /// getAuthorization goes on in the login (started or joined) as waiter `.authorization(resource)`.
        case joinLogin(CallID, resource: String)
        /// The flow is over: the driver forgets it.
        case done
    }

    let call: CallID
    let resource: String
    let check: Bool
    let profile: Profile?
    let afterLogin: Bool
    let authorizedUntil: Int64?
    private let tracking: TrackingValues
    private(set) var state: State = .idle
    /// The partner header the first request went with (the retries send it again).
    private var header: String?

    /// - Parameters:
    ///   - profile: the current profile (ProfileUse.current); nil when the viewer is not authenticated.
    ///     After a login (`afterLogin`), the profile the login made.
    ///   - authorizedUntil: V1, the stored authorization's expiry when it is still in the future.
    init(
        call: CallID, resource: String, check: Bool, profile: Profile?, afterLogin: Bool = false,
        authorizedUntil: Int64? = nil, tracking: TrackingValues
    ) {
        self.call = call
        self.resource = resource
        self.check = check
        self.profile = profile
        self.afterLogin = afterLogin
        self.authorizedUntil = authorizedUntil
        self.tracking = tracking
    }

    var isFinished: Bool { state == .finished || state == .cancelled }

    // MARK: Events

    mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        guard let profile else {
            state = .finished
            if check {
                return [
                    fails(AccessEnablerErrorCode.userNotAuthenticated, "The viewer is not authenticated.", explanation: nil),
                    track(success: false, profile: nil), .done,
                ]
            }
            return [.joinLogin(call, resource: resource), .done]
        }
        if ProfileUse.isPartnerProfile(profile) {
            state = .askingPartner
            return [.askPartnerHeader(profile)]
        }
        state = .deciding(attempt: 0)
        return [.sendDecisionRequest(request(0, profile))]
    }

    /// A partner profile's header value (sent with every attempt), or the SDK's refusal: then no
    /// request goes out and the profile stays.
    mutating func partnerHeaderAnswered(_ answer: Result<String, EnhancedError>) -> [Action] {
        guard state == .askingPartner, let profile else { return [] }
        switch answer {
        case .success(let value):
            header = value
            state = .deciding(attempt: 0)
            return [.sendDecisionRequest(request(0, profile))]
        case .failure(let refusal):
            return denied(refusal, profile: profile)
        }
    }

    mutating func decisionAnswered(attempt: Int, _ result: Result<[Decision], CallFailure>) -> [Action] {
        guard state == .deciding(attempt: attempt), let profile else { return [] }
        switch result {
        case .success(let decisions):
            if attempt < ItemRetry.maxAttempts, decisions.count == 1, ItemRetry.asksRetry(decisions[0].error) {
                state = .waitingToRetry(attempt: attempt + 1)
                return [.waitToRetry(attempt: attempt + 1)]
            }
            return decided(decisions, profile: profile)
        case .failure(let failure):
            if failure.isCancellation {
                state = .cancelled
                return [.done]
            }
            if case .enhanced(let enhanced, _) = failure.error,
                StatusCatalog.needsAuthentication(enhanced)
                    || StatusCatalog.isTempPassOver(enhanced) || StatusCatalog.isPartnerStatusRefusal(enhanced)
            {
                return denied(enhanced, profile: profile)
            }
            state = .finished
            let status = StatusCatalog.authorizationFailure(failure)
            return [
                emit(status), fails(AccessEnablerErrorCode.genericAuthorization, status.message, explanation: status),
                track(success: false, profile: profile, error: status.enhancedError), .done,
            ]
        }
    }

    mutating func retryTimerFired(attempt: Int) -> [Action] {
        guard state == .waitingToRetry(attempt: attempt), let profile else { return [] }
        state = .deciding(attempt: attempt)
        return [.sendDecisionRequest(request(attempt, profile))]
    }

    /// Destroy (or the call's task cancelled): nothing more is emitted.
    mutating func cancel() -> [Action] {
        if !isFinished { state = .cancelled }
        return []
    }

    // MARK: Outcomes

    private func request(_ attempt: Int, _ profile: Profile) -> DecisionRequest {
        DecisionRequest(
            attempt: attempt, resource: resource, profile: profile, partnerHeader: header,
            authorizedUntil: authorizedUntil)
    }

    private mutating func decided(_ decisions: [Decision], profile: Profile) -> [Action] {
        // Adobe echoes the resource; compare without surrounding spaces (a documented answer has one).
        let wanted = resource.trimmedSpaces
        guard
            let decision = decisions.first(where: { $0.resource.trimmedSpaces == wanted })
                ?? (decisions.count == 1 ? decisions.first : nil)
        else { return malformed("no decision for the resource", profile: profile) }
        guard decision.authorized else { return denied(decision.error, profile: profile) }
        guard let token = decision.token else { return malformed("a permit without a media token", profile: profile) }
        state = .finished
        var actions: [Action] = []
        // Z010 (degradation rule) / Z011 (TempPass) before the token, as other statuses precede their callback.
        let status = StatusCatalog.authorized(source: decision.source, mvpd: profile.mvpd)
        if let status { actions.append(emit(status)) }
        // The token goes out before the expiry is stored (a durable write the host should not wait for).
        let notAfter = decision.notAfter ?? token.notAfter
        actions.append(
            .emit(.end(call, .setToken(token.serializedToken, resource: resource, notAfter: notAfter), explanation: status)))
        if let notAfter {
            actions.append(.saveAuthorizationExpiry(mvpd: profile.mvpd, resource: resource, notAfter: notAfter))
        }
        actions += [track(success: true, profile: profile), .done]
        return actions
    }

    private mutating func denied(_ error: EnhancedError?, profile: Profile) -> [Action] {
        state = .finished
        // A TempPass whose token Adobe no longer has (V1 answers so when the pass ends) is over too.
        let tempPassOver = StatusCatalog.isTempPassOver(error) || (profile.isTemporary && StatusCatalog.needsAuthentication(error))
        let status = tempPassOver ? StatusCatalog.tempPassExpired(mvpd: profile.mvpd, error) : StatusCatalog.authorizationDenial(error)
        var actions: [Action] = [emit(status)]
        // A refused partner status: Adobe keeps the profile (a usable status later makes it count again).
        let partnerRefused = StatusCatalog.isPartnerStatusRefusal(error)
        if StatusCatalog.needsAuthentication(error) || tempPassOver || partnerRefused {
            if tempPassOver {
                // Its profile stays, expired, so checkAuthentication says N111 too.
                actions.append(.endTempPass(mvpd: profile.mvpd, identity: profile.tempPassIdentity))
            } else if !partnerRefused {
                actions.append(.deleteProfiles(mvpd: profile.mvpd))
            }
            if !check && !afterLogin {
                actions += [.joinLogin(call, resource: resource), .done]
                return actions
            }
            actions.append(.emit(Emission(.setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated), calls: [call])))
            actions.append(fails(AccessEnablerErrorCode.userNotAuthenticated, status.message, explanation: status))
        } else {
            let description = error?.details ?? error?.message ?? ""
            actions.append(fails(AccessEnablerErrorCode.userNotAuthorized, description, explanation: status))
        }
        return actions + [track(success: false, profile: profile, error: error), .done]
    }

    private mutating func malformed(_ detail: String, profile: Profile) -> [Action] {
        state = .finished
        let error = ServiceError.malformed(operation: "decisions/authorize", detail: detail).enhancedError
        let status = AdvancedStatus("Z500", .error, error.message ?? detail, enhancedError: error)
        return [
            emit(status), fails(AccessEnablerErrorCode.genericAuthorization, error.message ?? detail, explanation: status),
            track(success: false, profile: profile, error: error), .done,
        ]
    }

    // MARK: Emissions

    /// A status of the call in progress.
    private func emit(_ status: AdvancedStatus) -> Action { .emit(Emission(.status(status), calls: [call])) }

    /// The event that ends the call in failure.
    private func fails(_ code: String, _ description: String, explanation: AdvancedStatus?) -> Action {
        .emit(.end(call, .tokenRequestFailed(resource: resource, code: code, description: description), explanation: explanation))
    }

    /// The authZ tracking data (of no call).
    private func track(success: Bool, profile: Profile?, error: EnhancedError? = nil) -> Action {
        .emit(Emission(tracking.authorization(success: success, profile: profile, error: error)))
    }
}
