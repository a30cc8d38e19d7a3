// SPDX-License-Identifier: Apache-2.0

/// One operation the login flow asked the driver to run (a backend request, a partner request,
/// the wait before a poll). Its answer comes back with its id; an answer whose operation is no
/// longer the one the login waits for (an older login's, a cancelled or replaced one's) is late
/// and changes nothing.
package struct LoginOperation: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let value: UInt64
    package init(_ value: UInt64) { self.value = value }
    package static func < (lhs: LoginOperation, rhs: LoginOperation) -> Bool { lhs.value < rhs.value }
    package var description: String { "op#\(value)" }
}

/// The login (authentication) of AccessEnabler as a pure state machine, driven by the engine.
///
/// **Calls:** getAuthentication (and getAuthorization without a usable profile: `join`),
/// setSelectedProvider (nil cancels: N005; an unknown MVPD: N500; a new selection replaces the
/// login in progress), handleExternalURL (`externalURL`: the poller looks at once), logout and
/// setRequestor of another requestor (end the login), destroy.
///
/// **Ways in:** the provider dialog, or the platform's picker when a partner framework is set and
/// an MVPD the host's filter keeps supports it (then the partner exchange, PartnerExchangeFlow, and
/// its fallbacks: exactly one advanced code, then the provider dialog). **Ways through:** a code
/// login (a profile at once, or the code shown — REGCODE status or navigate_to_url — and polled
/// until Adobe's or the SDK's deadline), a TempPass (at once: a stored valid TempPass profile of the
/// same identity, else one request), or the exchange's profile.
///
/// **States:** `idle` (no login), `active(Login)` whose `Step` is one of: choosingProvider,
/// askingPermission, picking, exchanging, startingCode, waitingForPoll, polling, tempPass, stalled;
/// `destroyed`. Every waiter of a login is a call (`Waiter`): each gets its outcome when the login
/// ends (N010 / N011 before a success, the failure's status once before the failures; an
/// authorization waiter's authorization starts after a success).
///
/// Pure: no `async`, no I/O, no clock (times come in as `now`), no store (facts come in as
/// parameters: `current`, `stored`, `expiredTempPassMVPD`, `Requestor`). The driver executes the
/// actions in order (LoginFlow.Action).
package struct LoginFlow: Sendable {
    /// A call waiting for the login.
    package enum Waiter: Sendable, Hashable {
        /// getAuthentication, or setSelectedProvider made while no login ran.
        case authentication(CallID)
        /// getAuthorization of `resource`: authorized once the login succeeds.
        case authorization(CallID, resource: String)

        package var call: CallID {
            switch self {
            case .authentication(let call), .authorization(let call, _): call
            }
        }
    }

    /// The client's settings the flow needs.
    package struct Settings: Sendable {
        package struct Partner: Sendable {
            /// The partner name (the picker dialog's `partner`).
            package var name: String
            /// The host's `PartnerFramework.timeoutMillis`.
            package var timeoutMillis: Int?
            package init(name: String, timeoutMillis: Int?) {
                self.name = name
                self.timeoutMillis = timeoutMillis
            }
        }

        var loginMode: LoginMode
        var activationURL: String?
        var tracking: TrackingValues
        /// nil: no partner framework (never the platform picker).
        var partner: Partner?
    }

    /// What the flow needs of the current requestor (given by the driver when setRequestor
    /// completes, `requestorReady`).
    package struct Requestor: Sendable {
        package var configuration: RequestorConfiguration
        /// Settings.pollIntervalMillis(serviceURL:) for the requestor's service URL.
        package var pollIntervalMillis: Int
        /// RequestorConfiguration.samlIssuer(forBaseURL:) for the requestor's service URL.
        package var channelIdentifier: String

        package init(configuration: RequestorConfiguration, pollIntervalMillis: Int, channelIdentifier: String) {
            self.configuration = configuration
            self.pollIntervalMillis = pollIntervalMillis
            self.channelIdentifier = channelIdentifier
        }
    }

    /// What the driver does, in order.
    package enum Action: Sendable {
        /// Deliver the event to the host.
        case emit(Emission)
        /// Run the backend operation (LoginBackend.perform); feed its answer to `answered`.
        case request(LoginOperation, LoginRequest)
        /// Ask the platform within `timeoutMillis` (a timeout is `PartnerError(.timeout)`); feed
        /// its reply to `partnerAnswered`.
        case askPartner(LoginOperation, PartnerQuestion, timeoutMillis: Int)
        /// Sleep `afterMillis` on the driver's clock, then feed `pollTimerFired`.
        case schedulePoll(LoginOperation, afterMillis: Int)
        /// Stop the operation: cancel its request (a partner request: the platform is told,
        /// cancel_request), or its wait. Its answer, if one still comes, is late.
        case cancel(LoginOperation)
        /// Store the selected MVPD (nil: none).
        case storeSelectedMVPD(String?)
        /// Store the profile, then its MVPD as the selection (one write: the selection is not
        /// stored when the profile cannot be).
        case saveProfile(Profile)
        /// Adobe says the TempPass of `mvpd` is over: its stored profile expires now (one is
        /// recorded if none was stored), keeping `identity` (Engine.endTempPass).
        case endTempPass(mvpd: String, identity: String?)
        /// The latest partner status (the engine's partner cache, stamped with the driver's clock).
        case cachePartnerStatus(PartnerStatus)
        /// The login succeeded for this getAuthorization: authorize `resource` with `profile`
        /// (after a login: a denial does not start another login).
        case startAuthorization(CallID, resource: String, profile: Profile)
        case log(LogLevel, String)
    }

    enum State {
        /// No login in progress.
        case idle
        /// A login in progress.
        case active(Login)
        /// The client was destroyed: nothing happens any more.
        case destroyed
    }

    /// A login in progress: who waits for it and where it stands.
    struct Login {
        var waiters: [Waiter]
        /// Promotional TempPass: AP-TempPass-Identity from getAuthentication's data (never logged).
        var tempPassIdentity: String?
        /// The MVPD selected for this login (setSelectedProvider or the platform picker).
        var mvpd: String?
        /// V2 partner flow: Adobe's fallback session, gone on with by the next selection.
        var fallback: CodeLoginContinuation?
        /// handleExternalURL came while no poll was waiting: the next wait is skipped (kept for the
        /// whole login, as the engine's Wakeup was).
        var pendingWake = false
        var step: Step
    }

    enum Step {
        /// The provider dialog is shown: the next setSelectedProvider goes on.
        case choosingProvider
        /// The platform is asked for its permission, with a prompt (checkAccessStatus).
        case askingPermission(LoginOperation, Picker)
        /// The platform's picker is shown (`dialog`: present_tv_provider_dialog's value).
        case picking(LoginOperation, Picker, access: PartnerAccess, dialog: JSONValue)
        /// The partner exchange for the platform's choice runs `operation`; `partnerStatus`: the
        /// picker's status header, which Adobe's fallback session goes on with.
        case exchanging(LoginOperation, PartnerExchangeFlow, partnerStatus: String)
        /// startCodeLogin runs.
        case startingCode(LoginOperation, MVPD)
        /// The code is shown; the next poll waits for the timer.
        case waitingForPoll(LoginOperation, CodeSession)
        /// The code is shown; pollCodeLogin runs.
        case polling(LoginOperation, CodeSession)
        /// tempPass runs.
        case tempPass(LoginOperation, MVPD, identity: String?)
        /// The operation in progress failed as cancelled without the flow cancelling it: nothing
        /// goes on until the next selection or the end of the login (the engine's behaviour).
        case stalled(codeShown: Bool)

        /// The operation the step waits for.
        var operation: LoginOperation? {
            switch self {
            case .askingPermission(let operation, _), .picking(let operation, _, _, _), .exchanging(let operation, _, _),
                .startingCode(let operation, _), .waitingForPoll(let operation, _), .polling(let operation, _),
                .tempPass(let operation, _, _):
                operation
            case .choosingProvider, .stalled:
                nil
            }
        }

        /// True once a code was shown for the current selection (handleExternalURL wakes the poller).
        var codeShown: Bool {
            switch self {
            case .waitingForPoll, .polling: true
            case .stalled(let codeShown): codeShown
            case .choosingProvider, .askingPermission, .picking, .exchanging, .startingCode, .tempPass: false
            }
        }
    }

    /// The platform picker of a login: the host's filter and the configuration it started with.
    struct Picker {
        var filter: JSONValue?
        var configuration: RequestorConfiguration
    }

    /// A code shown to the viewer, polled until `deadline`, every `intervalMillis`.
    struct CodeSession {
        var challenge: CodeChallenge
        var deadline: Int64
        var intervalMillis: Int
    }

    let settings: Settings
    private(set) var requestor: Requestor?
    var state: State = .idle
    private var nextOperation: UInt64 = 1

    init(settings: Settings, requestor: Requestor? = nil) {
        self.settings = settings
        self.requestor = requestor
    }

    /// The calls waiting for the login in progress (empty: none).
    package var waiters: [Waiter] { login?.waiters ?? [] }
    package var isLoginInProgress: Bool { login != nil }

    // MARK: Calls

    /// setRequestor completed: the facts of its requestor (a setRequestor of the same requestor
    /// keeps the login in progress; its new configuration counts from now on).
    mutating func requestorReady(_ requestor: Requestor) {
        if case .destroyed = state { return }
        self.requestor = requestor
    }

    /// getAuthentication. `current`: the profile usable now (ProfileUse.current); `data`: promotional
    /// TempPass's identity; `expiredTempPassMVPD`: the selected MVPD when its stored TempPass is over (N111).
    mutating func getAuthentication(
        _ call: CallID, force: Bool, data: JSONValue?, filter: JSONValue?, current: Profile?,
        expiredTempPassMVPD: String?
    ) -> [Action] {
        if case .destroyed = state { return [] }
        if !force, let current {
            let status = StatusCatalog.authenticated(current)
            return (status.map { [.emit(Emission(.status($0), calls: [call]))] } ?? [])
                + [
                    .emit(.end(call, .setAuthenticationStatus(1, AccessEnablerErrorCode.userAuthenticated), explanation: status)),
                    .emit(Emission(settings.tracking.authentication(success: true, profile: current, cached: true))),
                ]
        }
        // The free preview is over; the viewer may choose another provider (or the TempPass again: N111 + 0).
        var actions: [Action] = []
        if let expiredTempPassMVPD {
            actions.append(.emit(Emission(.status(StatusCatalog.tempPassExpired(mvpd: expiredTempPassMVPD)), calls: [call])))
        }
        return actions + join(.authentication(call), filter: filter, tempPassIdentity: Self.tempPassIdentity(data))
    }

    /// Adds a waiter to the login in progress, or starts one: with the platform's picker when a
    /// partner framework is configured and an MVPD the host's filter keeps supports it, else with
    /// the provider dialog.
    mutating func join(_ waiter: Waiter, filter: JSONValue? = nil, tempPassIdentity: String? = nil) -> [Action] {
        switch state {
        case .destroyed:
            return []
        case .active(var login):
            login.waiters.append(waiter)
            if let tempPassIdentity { login.tempPassIdentity = tempPassIdentity }
            state = .active(login)
            return []
        case .idle:
            break
        }
        if let partner = settings.partner, let requestor,
            !requestor.configuration.pickerProviders(filter: filter).supported.isEmpty
        {
            let operation = newOperation()
            let picker = Picker(filter: filter, configuration: requestor.configuration)
            state = .active(
                Login(
                    waiters: [waiter], tempPassIdentity: tempPassIdentity,
                    step: .askingPermission(operation, picker)))
            return [
                .askPartner(
                    operation, .accessStatus(prompt: true),
                    timeoutMillis: PartnerExchangeFlow.timeoutMillis(
                        configured: partner.timeoutMillis, interactive: true))
            ]
        }
        state = .active(Login(waiters: [waiter], tempPassIdentity: tempPassIdentity, step: .choosingProvider))
        return [emit(.displayProviderDialog(requestor?.configuration.mvpds ?? []), to: [waiter])]
    }

    /// setSelectedProvider. `stored`: the requestor's stored profiles on this device (valid or
    /// not: a TempPass MVPD's valid profile of the same identity is the login's answer at once).
    mutating func setSelectedProvider(_ call: CallID, _ id: String?, stored: [Profile], now: Int64) -> [Action] {
        if case .destroyed = state { return [] }
        guard let requestor else { return [] }
        guard let id else {
            guard login != nil else {
                return [
                    .storeSelectedMVPD(nil),
                    .emit(.end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.providerNotSelected))),
                ]
            }
            return [.storeSelectedMVPD(nil)]
                + end(
                    code: AccessEnablerErrorCode.providerNotSelected,
                    status: AdvancedStatus("N005", .info, "The MVPD selection was cancelled."))
        }
        if login == nil { state = .active(Login(waiters: [.authentication(call)], step: .choosingProvider)) }
        guard let mvpd = requestor.configuration.mvpd(id) else {
            return end(
                code: AccessEnablerErrorCode.genericAuthentication,
                status: AdvancedStatus("N500", .error, "MVPD '\(id)' is not in the requestor's configuration."))
        }
        var actions: [Action] = [.storeSelectedMVPD(id), .emit(Emission(settings.tracking.selection(id)))]
        // A new selection replaces the login in progress (its code is abandoned, polling stops).
        let (cancelled, dismissal) = stop(keeping: true)
        actions += cancelled
        login?.mvpd = id
        // After a partner fallback, Adobe's fallback session goes on with the selected MVPD.
        let fallback = login?.fallback
        login?.fallback = nil
        if mvpd.isTempPass {
            // A TempPass MVPD authenticates at once: no session, no code to show.
            let identity = login?.tempPassIdentity
            if let stored = stored.first(where: { $0.mvpd == mvpd.id }), stored.isTemporary, stored.isValid(at: now),
                stored.tempPassIdentity == identity
            {
                actions += complete(stored)
            } else {
                let operation = newOperation()
                login?.step = .tempPass(operation, mvpd, identity: identity)
                actions.append(.request(operation, .tempPass(mvpd: mvpd, identity: identity)))
            }
        } else {
            actions += startCodeLogin(mvpd, continuing: fallback)
        }
        return actions + dismissal
    }

    /// handleExternalURL. nil when no login shows a code (the driver goes on: the end of a browser
    /// logout, or N130); else the poller looks at once (or right after the poll in progress).
    mutating func externalURL() -> [Action]? {
        guard var login, login.step.codeShown else { return nil }
        switch login.step {
        case .waitingForPoll(let timer, let session):
            let operation = newOperation()
            login.step = .polling(operation, session)
            self.login = login
            return [.cancel(timer), .request(operation, .pollCodeLogin(session.challenge))]
        default:
            login.pendingWake = true
            self.login = login
            return []
        }
    }

    /// The wait before the next poll is over.
    mutating func pollTimerFired(_ operation: LoginOperation) -> [Action] {
        guard case .waitingForPoll(operation, let session)? = login?.step else { return [] }
        let poll = newOperation()
        login?.step = .polling(poll, session)
        return [.request(poll, .pollCodeLogin(session.challenge))]
    }

    /// logout: the login in progress ends, "User Not Authenticated Error" without a status.
    mutating func logout() -> [Action] {
        end(code: AccessEnablerErrorCode.userNotAuthenticated, status: nil)
    }

    /// setRequestor of another requestor started: its login does not carry over.
    mutating func requestorChanged() -> [Action] {
        end(code: AccessEnablerErrorCode.genericAuthentication, status: nil)
    }

    /// destroy: the operation in progress stops; no callback follows.
    mutating func destroy() -> [Action] {
        let operation = login?.step.operation
        state = .destroyed
        return operation.map { [.cancel($0)] } ?? []
    }

    // MARK: Helpers

    /// The login in progress; setting nil ends it (idle). Never revives a destroyed flow.
    var login: Login? {
        get {
            if case .active(let login) = state { return login }
            return nil
        }
        set {
            if case .destroyed = state { return }
            state = newValue.map { .active($0) } ?? .idle
        }
    }

    mutating func newOperation() -> LoginOperation {
        defer { nextOperation += 1 }
        return LoginOperation(nextOperation)
    }

    /// The TempPass identity header value for getAuthentication's `data`: Base64 of its compact JSON
    /// with sorted keys ({"email":"foo@bar.com"} gives Adobe's documented eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0=).
    static func tempPassIdentity(_ data: JSONValue?) -> String? {
        guard let object = data?.objectValue, !object.isEmpty else { return nil }
        return Encoding.base64(JSONValue.object(object).jsonText)
    }
}
