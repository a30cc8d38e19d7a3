// SPDX-License-Identifier: Apache-2.0

/// The driver of the login (LoginFlow): runs its actions — backend requests, questions to the platform,
/// waits on the injected clock, store writes — and feeds the results back as events. The flows
/// decide; nothing here re-checks the world after an await (a late answer is the flow's to drop).
extension Engine {
    /// Runs the login flow's actions, in order (the one flow not in the FlowTable: it lives as long
    /// as the engine, and calls join it).
    func run(_ actions: [LoginFlow.Action]) {
        execute(actions) { action in
            switch action {
            case .emit, .log:
                break  // shared (Engine.execute)
            case .request(let operation, let request):
                guard let backend = requestor?.backend else { return }
                loginTasks[operation] = spawn {
                    let answer = await backend.perform(request)
                    await self.loginAnswered(operation, answer)
                }
            case .askPartner(let operation, let question, let timeoutMillis):
                loginTasks[operation] = spawn {
                    let answer = await self.askPartner(question, timeoutMillis: timeoutMillis)
                    await self.loginPartnerAnswered(operation, answer)
                }
            case .schedulePoll(let operation, let afterMillis):
                let clock = clock
                loginTasks[operation] = spawn {
                    await clock.sleep(millis: Int64(afterMillis))  // a cancelled wait ends early: its event is late
                    await self.loginPollFired(operation)
                }
            case .cancel(let operation):
                cancelTask(loginTasks.removeValue(forKey: operation))
            case .storeSelectedMVPD(let mvpd):
                guard let requestor else { return }
                do { try store.setSelectedMVPD(scope, requestor: requestor.id, mvpd) } catch {
                    logger.error("cannot store the selected MVPD: \(error)")
                }
            case .saveProfile(let profile):
                saveProfile(profile)
                if let shownAt = loginCodeShownAt {
                    executor.metrics.observe(MetricCatalog.loginDuration, Double(monotonicNanos() &- shownAt) / 1e9)
                    loginCodeShownAt = nil
                }
            case .endTempPass(let mvpd, let identity):
                endTempPass(mvpd, identity: identity)
            case .cachePartnerStatus(let status):
                partnerCache = (status, clock.nowMillis())
            case .startAuthorization(let call, let resource, let profile):
                startAuthorization(call, resource, check: false, profile: profile, afterLogin: true)
            }
        }
        noteCodeShown()
    }

    /// Starts the login's clock when its code is first shown (`ae.login.duration`); a login that
    /// ended without a profile stops it.
    private func noteCodeShown() {
        guard let login = loginFlow.login else {
            loginCodeShownAt = nil
            return
        }
        if login.step.codeShown, loginCodeShownAt == nil { loginCodeShownAt = monotonicNanos() }
    }

    private func loginAnswered(_ operation: LoginOperation, _ answer: LoginAnswer) {
        loginTasks[operation] = nil
        run(loginFlow.answered(operation, answer, now: clock.nowMillis()))
    }

    private func loginPartnerAnswered(_ operation: LoginOperation, _ answer: PartnerAnswer) {
        loginTasks[operation] = nil
        run(loginFlow.partnerAnswered(operation, answer, now: clock.nowMillis()))
    }

    private func loginPollFired(_ operation: LoginOperation) {
        loginTasks[operation] = nil
        run(loginFlow.pollTimerFired(operation))
    }

    /// Asks the platform (Engine.ask: within `timeoutMillis`; cancelling the task abandons the
    /// request, and the platform is told).
    func askPartner(_ question: PartnerQuestion, timeoutMillis: Int) async -> PartnerAnswer {
        guard let partner = settings.partner else {
            return .access(.failure(PartnerError(.failed, detail: "no partner framework")))
        }
        switch question {
        case .accessStatus(let prompt):
            return .access(await Self.ask(timeoutMillis: timeoutMillis) { partner.checkAccessStatus(prompt: prompt, reply: $0) })
        case .metadata(let request):
            return .metadata(await Self.ask(timeoutMillis: timeoutMillis) { partner.enqueue(request, reply: $0) })
        }
    }

    /// What the login flow needs of the requestor (when setRequestor completes).
    func loginRequestor(_ requestor: Requestor) -> LoginFlow.Requestor {
        LoginFlow.Requestor(
            configuration: requestor.configuration,
            pollIntervalMillis: settings.pollIntervalMillis(serviceURL: requestor.backend.baseURL),
            channelIdentifier: channelIdentifier)
    }

    /// The login flow's settings (its partner: name and timeout).
    static func loginSettings(_ settings: Settings, tracking: TrackingValues) -> LoginFlow.Settings {
        LoginFlow.Settings(
            loginMode: settings.loginMode, activationURL: settings.activationURL, tracking: tracking,
            partner: settings.partner.map { .init(name: $0.name, timeoutMillis: $0.timeoutMillis) })
    }
}
