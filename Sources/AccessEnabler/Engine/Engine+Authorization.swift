// SPDX-License-Identifier: Apache-2.0

/// checkAuthorization / getAuthorization: one decisions/authorize request for a viewer with a
/// valid profile; getAuthorization logs in first when needed.
extension Engine {
    func authorization(_ call: CallID, _ resource: String, check: Bool) {
        guard let profile = currentProfile() else {
            if check {
                end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.userNotAuthenticated,
                                              description: "The viewer is not authenticated."))
                trackAuthorization(success: false, profile: nil)
            } else {
                run(loginFlow.join(.authorization(call, resource: resource)))
            }
            return
        }
        startAuthorization(call, resource, check: check, profile: profile, afterLogin: false)
    }

    func startAuthorization(_ call: CallID, _ resource: String, check: Bool, profile: Profile, afterLogin: Bool) {
        spawn { await self.runAuthorization(call, resource, check: check, profile: profile, afterLogin: afterLogin) }
    }

    private func runAuthorization(_ call: CallID, _ resource: String, check: Bool, profile: Profile, afterLogin: Bool) async {
        guard let requestor else { return }
        // A partner profile is decided on only with a usable partner status (ProfileUse): without
        // one no request goes out, and the viewer counts as not authenticated.
        var partnerStatus: String?
        if ProfileUse.isPartnerProfile(profile) {
            switch await partnerHeaderForDecisions(profile) {
            case .success(let header): partnerStatus = header
            case .failure(let refusal): return denied(call, resource, check: check, profile: profile, error: refusal, afterLogin: afterLogin)
            }
            if Task.isCancelled { return }
        }
        let backend = requestor.backend
        var authorizedUntil: Int64?
        if backend.keepsAuthorizations {
            let stored = try? store.authorizationExpiry(scope, requestor: requestor.id, mvpd: profile.mvpd, resource: resource)
            authorizedUntil = stored.flatMap { $0 > clock.nowMillis() ? $0 : nil }
        }
        let header = partnerStatus
        let decide = { () async throws(CallFailure) -> [Decision] in
            try await backend.authorize(resource, profile: profile, partnerStatus: header, authorizedUntil: authorizedUntil)
        }
        var decisions: [Decision]
        do {
            decisions = try await decide()
            // An item-level error whose action is `retry` may pass when repeated (bounded, with jitter).
            for attempt in 1...2 where decisions.count == 1 && decisions[0].error?.action == "retry" {
                try? await Task.sleep(nanoseconds: (500_000_000 << UInt64(attempt - 1)) + RequestExecutor.jitter())
                if Task.isCancelled { return }
                decisions = try await decide()
            }
        } catch {
            if error.isCancellation { return }
            if case .enhanced(let enhanced, _) = error.error, StatusCatalog.needsAuthentication(enhanced)
                || StatusCatalog.isTempPassOver(enhanced) || StatusCatalog.isPartnerStatusRefusal(enhanced)
            {
                denied(call, resource, check: check, profile: profile, error: enhanced, afterLogin: afterLogin)
                return
            }
            let status = StatusCatalog.authorizationFailure(error)
            emit(.status(status), calls: [call])
            end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.genericAuthorization,
                                          description: status.message), explanation: status)
            trackAuthorization(success: false, profile: profile, error: status.enhancedError)
            return
        }
        // Adobe echoes the resource; compare without surrounding spaces (a documented answer has one).
        let wanted = resource.trimmedSpaces
        guard let decision = decisions.first(where: { $0.resource.trimmedSpaces == wanted })
            ?? (decisions.count == 1 ? decisions.first : nil)
        else {
            malformed(call, resource, profile: profile, detail: "no decision for the resource")
            return
        }
        guard decision.authorized else {
            denied(call, resource, check: check, profile: profile, error: decision.error, afterLogin: afterLogin)
            return
        }
        guard let token = decision.token else {
            malformed(call, resource, profile: profile, detail: "a permit without a media token")
            return
        }
        // Z010 (degradation rule) / Z011 (TempPass) before the token, as other statuses precede their callback.
        let status = StatusCatalog.authorized(source: decision.source, mvpd: profile.mvpd)
        if let status { emit(.status(status), calls: [call]) }
        // The token goes out before the expiry is stored: that is a durable write (an fsync), and
        // the host should not wait for it. A getMetadata(1) from the set_token callback still sees
        // it, as the engine runs that command only once this method has returned.
        end(call, .setToken(token.serializedToken, resource: resource), explanation: status)
        if let notAfter = decision.notAfter ?? token.notAfter {
            try? store.saveAuthorizationExpiry(scope, requestor: requestor.id, mvpd: profile.mvpd, resource: resource,
                                               notAfter: notAfter)
        }
        trackAuthorization(success: true, profile: profile)
    }

    private func denied(_ call: CallID, _ resource: String, check: Bool, profile: Profile, error: EnhancedError?, afterLogin: Bool) {
        // A TempPass whose token Adobe no longer has (V1 answers so when the pass ends) is over too.
        let tempPassOver = StatusCatalog.isTempPassOver(error) || (profile.isTemporary && StatusCatalog.needsAuthentication(error))
        let status = tempPassOver ? StatusCatalog.tempPassExpired(mvpd: profile.mvpd, error)
            : StatusCatalog.authorizationDenial(error)
        emit(.status(status), calls: [call])
        // Adobe refused the partner status (or the SDK did not send a decision without a usable
        // one): the viewer is not authenticated through the platform now, but Adobe keeps the
        // profile (a usable status later makes it count again), so it stays in the store.
        let partnerRefused = StatusCatalog.isPartnerStatusRefusal(error)
        if StatusCatalog.needsAuthentication(error) || tempPassOver || partnerRefused, let requestor {
            if tempPassOver {
                // The TempPass is over (N111): its profile stays, expired, so checkAuthentication says so too.
                endTempPass(profile.mvpd, identity: profile.tempPassIdentity)
            } else if !partnerRefused {
                // Adobe no longer has the profile (expired, logged out elsewhere): forget it locally.
                try? store.deleteProfiles(scope, requestor: requestor.id, mvpd: profile.mvpd)
            }
            if !check && !afterLogin {
                run(loginFlow.join(.authorization(call, resource: resource)))
                return
            }
            emit(.setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated), calls: [call])
            end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.userNotAuthenticated,
                                          description: status.message), explanation: status)
        } else {
            end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.userNotAuthorized,
                                          description: error?.details ?? error?.message ?? ""), explanation: status)
        }
        trackAuthorization(success: false, profile: profile, error: error)
    }

    private func malformed(_ call: CallID, _ resource: String, profile: Profile, detail: String) {
        let error = ServiceError.malformed(operation: "decisions/authorize", detail: detail).enhancedError
        let status = AdvancedStatus("Z500", .error, error.message ?? detail, enhancedError: error)
        emit(.status(status), calls: [call])
        end(call, .tokenRequestFailed(resource: resource, code: AccessEnablerErrorCode.genericAuthorization,
                                      description: error.message ?? detail), explanation: status)
        trackAuthorization(success: false, profile: profile, error: error)
    }
}

extension String {
    var trimmedSpaces: String { String(self[...].trimmingSpaces()) }
}
