// SPDX-License-Identifier: Apache-2.0

/// The driver of logout (LogoutFlow).
extension Engine {
    /// logout (LogoutFlow): the local profiles go first (so checkAuthentication answers 0 at once,
    /// and a logout never fails for the viewer), then Adobe is told.
    func logout(_ call: CallID) {
        guard let requestor else { return }
        let deviceID = context.withLock { $0.deviceID }
        let stored = (try? store.profiles(scope, requestor: requestor.id, deviceID: deviceID))?.profiles ?? []
        // The profile being logged out, usable now or not (a partner profile whose platform status
        // lapsed still needs its VSA203).
        let flow = LogoutFlow(
            call: call, stored: stored, current: currentProfile(),
            scheme: requestor.backend.logsOutDevice ? .device : .perMVPD,
            browserLogin: settings.loginMode == .browser, baseURL: requestor.backend.baseURL)
        start(flow) { $0.start() }
    }

    /// The logout carries the host's SSO token(s): Adobe removes the subject's SSO profile as well
    /// (single logout), which signs out every app and device of the subject. Said once, before.
    func tellSingleLogout(_ backend: any Backend) {
        let kinds = backend.identityTokenKinds
        let carried = context.withLock { $0.identityHeaders(kinds, nowMillis: clock.nowMillis()) }.map(\.name)
        guard !carried.isEmpty else { return }
        sink.emit(Emission(.status(StatusCatalog.singleLogout(carried))))
    }
}

extension LogoutFlow: DrivenFlow {
    static func perform(_ action: Action, of id: FlowID<Self>, on engine: isolated Engine) {
        guard let requestor = engine.requestor else { return }
        let backend = requestor.backend
        switch action {
        case .endLogin:
            engine.run(engine.loginFlow.logout())
        case .removeStoredProfiles:
            do {
                try engine.store.deleteProfiles(engine.scope, requestor: requestor.id)
                try engine.store.setSelectedMVPD(engine.scope, requestor: requestor.id, nil)
            } catch {
                engine.logger.error("cannot remove the stored profile: \(error)")
            }
        case .clearPreauthorizationCache:
            engine.preauthorizationCache.removeAll()
        case .readUserMetadata:
            engine.request(id) { () async throws(CallFailure) in
                try await backend.userMetadata()
            } then: {
                $0.userMetadataAnswered($1)
            }
        case .saveProfileIfStillStored(let profile):
            engine.saveIfStillStored(profile)
        case .sendLogout(let mvpd):
            engine.tellSingleLogout(backend)
            engine.request(id) { () async throws(CallFailure) in
                try await backend.logout(mvpd: mvpd)
            } then: {
                $0.logoutAnswered(mvpd: mvpd, $1)
            }
        case .sendDeviceLogout:
            engine.tellSingleLogout(backend)
            engine.request(id) { () async throws(CallFailure) in
                try await backend.logoutDevice()
            } then: {
                $0.deviceLogoutAnswered($1)
            }
        case .setLogoutRedirectPending:
            engine.logoutRedirectPending = true
        case .log, .emit, .done:
            break  // shared (Engine.execute)
        }
    }
}
