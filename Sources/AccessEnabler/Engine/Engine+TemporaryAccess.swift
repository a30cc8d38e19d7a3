// SPDX-License-Identifier: Apache-2.0

/// Temporary access (TempPass) and degraded access in the AccessEnabler flows.
///
/// * A TempPass MVPD (`isTempPass` in the configuration) authenticates at once when it is
///   selected, as Adobe's SDKs do: REST API V2 needs no session for it ("not required" in Adobe's
///   samples), so the login is one GET profiles/{mvpd} — none when a valid TempPass profile of the
///   same identity is stored — and ends with N011.
/// * Promotional TempPass takes the viewer's identity from getAuthentication's `data` (a JSON
///   object such as {"email": ...}): Base64 of its compact JSON is sent as AP-TempPass-Identity on
///   profiles/{mvpd} and, kept with the profile, on the decisions.
/// * A TempPass that is over (Adobe's 403 `temporary_access_*_limit_exceeded`, or the stored
///   profile's `notAfter` passed) leaves its profile stored as expired, so that checkAuthentication
///   and getAuthentication can say N111 until another MVPD is used.
/// * Degraded profiles (authenticate-all rule) report N010; both kinds are kept across profile syncs
///   (GET /profiles does not list them) and need no logout request for TempPass.
extension Engine {
    /// The stored profile of `mvpd` (valid or not) for this requestor and device.
    func storedProfile(_ mvpd: String) -> Profile? {
        guard let requestor else { return nil }
        let deviceID = context.withLock { $0.deviceID }
        return (try? store.profiles(scope, requestor: requestor.id, deviceID: deviceID))?.profiles.first { $0.mvpd == mvpd }
    }

    /// The selected MVPD's stored TempPass profile when that TempPass is over (N111).
    func expiredTempPass() -> Profile? {
        guard let requestor, let selected = try? store.selectedMVPD(scope, requestor: requestor.id),
            let profile = storedProfile(selected), profile.isTemporary, !profile.isValid(at: clock.nowMillis())
        else { return nil }
        return profile
    }

    /// Adobe says the TempPass of `mvpd` is over: its stored profile expires now (one is recorded
    /// if none was stored, so that checkAuthentication says N111 too).
    func endTempPass(_ mvpd: String, identity: String?) {
        guard let requestor else { return }
        let now = clock.nowMillis()
        var profile =
            storedProfile(mvpd)
            ?? Profile(mvpd: mvpd, notBefore: now, notAfter: now, issuer: "Adobe", type: "temporary", attributes: [:])
        guard profile.isTemporary else { return }
        profile.notAfter = min(profile.notAfter, now)
        profile.notBefore = min(profile.notBefore, profile.notAfter)
        profile.tempPassIdentity = profile.tempPassIdentity ?? identity
        do {
            try store.saveProfile(scope, requestor: requestor.id, deviceID: context.withLock { $0.deviceID }, profile)
        } catch {
            logger.error("cannot store the end of the TempPass: \(error)")
        }
    }

    /// set_authentication_status for a check (checkAuthentication, getAuthentication already
    /// authenticated), preceded by the status that explains it: N010 / N011 for a degraded / TempPass
    /// profile, N111 when the selected MVPD's TempPass is over.
    ///
    /// `explanation`: a status already sent for this call (checkAuthentication's partner advisory).
    func reportAuthentication(_ call: CallID, _ profile: Profile?, explanation: AdvancedStatus? = nil) {
        if let profile {
            let status = StatusCatalog.authenticated(profile)
            if let status { emit(.status(status), calls: [call]) }
            end(call, .setAuthenticationStatus(1, AccessEnablerErrorCode.userAuthenticated), explanation: status ?? explanation)
        } else {
            let status = expiredTempPass().map { StatusCatalog.tempPassExpired(mvpd: $0.mvpd) }
            if let status { emit(.status(status), calls: [call]) }
            end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated), explanation: status ?? explanation)
        }
        emit(tracking.authentication(success: profile != nil, profile: profile, cached: profile != nil))
    }
}
