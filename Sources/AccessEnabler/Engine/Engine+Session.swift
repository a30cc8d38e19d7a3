// SPDX-License-Identifier: Apache-2.0

/// getSelectedProvider and logout.
extension Engine {
    func getSelectedProvider(_ call: CallID) {
        guard let requestor else { return }
        let selected = (try? store.selectedMVPD(scope, requestor: requestor.id)) ?? currentProfile()?.mvpd
        let mvpd = selected.map { requestor.configuration.mvpd($0) ?? MVPD(id: $0, displayName: $0) }
        end(call, .selectedProvider(mvpd))
    }

    /// logout (LogoutFlow): the local profiles go first (so checkAuthentication answers 0 at once,
    /// and a logout never fails for the viewer), then Adobe is told.
    func logout(_ call: CallID) {
        guard let requestor else { return }
        let deviceID = context.withLock { $0.deviceID }
        let stored = (try? store.profiles(scope, requestor: requestor.id, deviceID: deviceID))?.profiles ?? []
        // The profile being logged out, usable now or not (a partner profile whose platform status
        // lapsed still needs its VSA203).
        var flow = LogoutFlow(
            call: call, stored: stored, current: currentProfile(),
            scheme: requestor.backend.logsOutDevice ? .device : .perMVPD,
            browserLogin: settings.loginMode == .browser, baseURL: requestor.backend.baseURL)
        let id = newFlowID()
        let actions = flow.start()
        logouts[id] = flow
        run(logout: id, actions)
    }

    private func run(logout id: Int, _ actions: [LogoutFlow.Action]) {
        guard let requestor else { return }
        let backend = requestor.backend
        for action in actions {
            switch action {
            case .endLogin:
                run(loginFlow.logout())
            case .removeStoredProfiles:
                do {
                    try store.deleteProfiles(scope, requestor: requestor.id)
                    try store.setSelectedMVPD(scope, requestor: requestor.id, nil)
                } catch {
                    logger.error("cannot remove the stored profile: \(error)")
                }
            case .clearPreauthorizationCache:
                preauthorizationCache.removeAll()
            case .readUserMetadata:
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in try await backend.userMetadata() }
                    await self.logoutEvent(id) { $0.userMetadataAnswered(result) }
                }
            case .saveProfileIfStillStored(let profile):
                saveIfStillStored(profile)
            case .sendLogout(let mvpd):
                tellSingleLogout()
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in try await backend.logout(mvpd: mvpd) }
                    await self.logoutEvent(id) { $0.logoutAnswered(mvpd: mvpd, result) }
                }
            case .sendDeviceLogout:
                tellSingleLogout()
                spawn {
                    let result = await CallFailure.capture { () async throws(CallFailure) in try await backend.logoutDevice() }
                    await self.logoutEvent(id) { $0.deviceLogoutAnswered(result) }
                }
            case .setLogoutRedirectPending:
                logoutRedirectPending = true
            case .log(let level, let message):
                logger.log(level, message)
            case .emit(let emission):
                sink.emit(emission)
            case .done:
                logouts[id] = nil
            }
        }
    }

    /// The logout carries the host's SSO token(s): Adobe removes the subject's SSO profile as well
    /// (single logout), which signs out every app and device of the subject. Said once, before.
    private func tellSingleLogout() {
        let kinds = ssoKinds
        let carried = context.withLock { $0.identityHeaders(kinds, nowMillis: clock.nowMillis()) }.map(\.name)
        guard !carried.isEmpty else { return }
        sink.emit(Emission(.status(StatusCatalog.singleLogout(carried))))
    }

    private func logoutEvent(_ id: Int, _ event: (inout LogoutFlow) -> [LogoutFlow.Action]) {
        guard var flow = logouts[id] else { return }
        let actions = event(&flow)
        logouts[id] = flow
        run(logout: id, actions)
    }
}
