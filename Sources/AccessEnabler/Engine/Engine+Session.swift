// SPDX-License-Identifier: Apache-2.0

/// getSelectedProvider, getMetadata and logout.
extension Engine {
    func getSelectedProvider(_ call: CallID) {
        guard let requestor else { return }
        let selected = (try? store.selectedMVPD(scope, requestor: requestor.id)) ?? currentProfile()?.mvpd
        let mvpd = selected.map { requestor.configuration.mvpd($0) ?? MVPD(id: $0, displayName: $0) }
        end(call, .selectedProvider(mvpd))
    }

    /// Opcodes 0 and 1 answer an expiry in ms since the epoch, 2 the device id, 3 a profile
    /// attribute (or `tokenSource`, derived from the profile's type and issuer). V1 reads the user
    /// metadata first when the profile does not have it yet (Engine+V1.swift).
    func getMetadata(_ call: CallID, _ key: MetadataKey) {
        if deferMetadata(call, key) { return }
        answerMetadata(call, key)
    }

    func answerMetadata(_ call: CallID, _ key: MetadataKey) {
        let profile = currentProfile()
        var value: JSONValue?
        var encrypted = false
        switch key.opCode {
        case MetadataKey.authentication:
            value = profile.map { .int($0.notAfter) }
        case MetadataKey.authorization:
            if let profile, let requestor, let resource = key.resourceID,
                let notAfter = try? store.authorizationExpiry(scope, requestor: requestor.id, mvpd: profile.mvpd,
                                                              resource: resource),
                notAfter > clock.nowMillis()
            {
                value = .int(notAfter)
            }
        case MetadataKey.deviceID:
            value = .string(context.withLock { $0.deviceID })
        default:
            guard let profile, let name = key.userMetadataName else { break }
            if name == "tokenSource" {
                value = .string(profile.tokenSource)
            } else if let attribute = profile.attributes[name] {
                value = attribute.value
                encrypted = attribute.isEncrypted
            }
        }
        end(call, .setMetadataStatus(value, encrypted: encrypted, key: key.opCode, arguments: key.arguments))
    }

    /// Removes the local profiles first (so checkAuthentication answers 0 at once, and a logout
    /// never fails for the viewer), then tells Adobe — except, in V2, for TempPass profiles: Adobe
    /// needs no logout for them ("not required"; it would answer `complete`) and their TempPass goes
    /// on. V1 logs the device out once, TempPass included (Engine+V1.swift).
    func logout(_ call: CallID) {
        guard let requestor else { return }
        run(loginFlow.logout())
        let deviceID = context.withLock { $0.deviceID }
        let stored = (try? store.profiles(scope, requestor: requestor.id, deviceID: deviceID))?.profiles ?? []
        // The profile being logged out, usable now or not (a partner profile whose platform status
        // lapsed still needs its VSA203).
        let current = currentProfile() ?? stored.max { $0.notAfter < $1.notAfter }
        let loggedOut = stored.filter { !$0.isTemporary }
        do {
            try store.deleteProfiles(scope, requestor: requestor.id)
            try store.setSelectedMVPD(scope, requestor: requestor.id, nil)
        } catch {
            logger.error("cannot remove the stored profile: \(error)")
        }
        preauthorizationCache.removeAll()
        if case .v1(let backend) = requestor.backend.api, !stored.isEmpty {
            spawn { await self.runV1Logout(call, requestor, backend: backend, profile: current) }
            return
        }
        guard !loggedOut.isEmpty else {
            end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated))
            return
        }
        spawn { await self.runLogout(call, requestor, profiles: loggedOut) }
    }

    /// VSA203: the viewer must also sign out of the platform's TV provider account, or the silent
    /// exchange signs them in again at the next setRequestor.
    static func platformSignOut(_ mvpd: String) -> AdvancedStatus {
        AdvancedStatus("VSA203", .info, "The viewer signed in through the platform's TV provider account: ask them to "
            + "sign out of it in the platform's TV provider settings too.", extras: ["mvpd": .string(mvpd)])
    }

    /// One logout request per MVPD. VSA203 comes for every partner profile whatever Adobe answers
    /// (also when Adobe cannot be reached: the viewer must still sign out of the platform), and for
    /// Adobe's `partner_logout` action.
    private func runLogout(_ call: CallID, _ requestor: Requestor, profiles: [Profile]) async {
        guard case .v2(let backend) = requestor.backend.api else { return }
        let partnerMVPDs = Set(profiles.filter(ProfileUse.isPartnerProfile).map(\.mvpd))
        let mvpds = profiles.map(\.mvpd)
        let redirect = settings.redirectURL
        let answers = await withTaskGroup(of: (String, Result<[String: LogoutAction], CallFailure>).self) { group in
            for mvpd in mvpds {
                group.addTask {
                    (mvpd, await Self.capture { () async throws(CallFailure) in
                        try await backend.logout(requestor.id, mvpd: mvpd, redirectURL: redirect)
                    })
                }
            }
            var answers: [(String, Result<[String: LogoutAction], CallFailure>)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }
        }
        if Task.isCancelled { return }
        for (mvpd, answer) in answers {
            switch answer {
            case .success(let logouts):
                if partnerMVPDs.contains(mvpd) || logouts.values.contains(where: { $0.actionName == "partner_logout" }) {
                    emit(.status(Self.platformSignOut(mvpd)), calls: [call])
                }
                for action in logouts.values where action.actionName == "logout" {
                    guard let url = action.url.map(backend.absolute) else { continue }
                    if settings.loginMode == .browser {
                        logoutRedirectPending = true
                        emit(.navigateToURL(url), calls: [call])
                    } else {
                        emit(.status(AdvancedStatus("LOGOUT", .info, "Open the MVPD's logout page to end its session too.",
                                                    extras: ["url": .string(url), "mvpd": .string(mvpd)])), calls: [call])
                    }
                }
            case .failure(let failure):
                logger.warning("logout of \(mvpd) could not reach Adobe (\(failure.error.enhancedError.code)); "
                    + "the local profile was removed")
                if partnerMVPDs.contains(mvpd) { emit(.status(Self.platformSignOut(mvpd)), calls: [call]) }
            }
        }
        end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated))
    }
}
