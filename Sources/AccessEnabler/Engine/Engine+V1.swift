// SPDX-License-Identifier: Apache-2.0

/// The flows REST API V1 shapes differently from V2 (the host sees the same calls and callbacks):
///
/// * Second-screen login: a registration code for the selected MVPD (`POST /reggie/v1/…/regcode`),
///   shown as V2's is (REGCODE status or navigate_to_url) with the second screen's login URL
///   (`/api/v1/authenticate?reg_code=…`), then `GET tokens/authn` polled until the device has a new
///   token of that MVPD.
/// * TempPass: `POST authenticate/freepreview`, then `GET tokens/authn` for the token's expiry.
///   Freepreview answers only 204 or 400: a 400 for a TempPass the configuration lists means the
///   pass is used up (N111).
/// * User metadata: tokens/authn carries none; `GET tokens/usermetadata` is read the first time
///   getMetadata needs it (not at every login: most sessions never ask), and kept with the profile.
/// * Logout: one `DELETE /api/v1/logout` for the device (TempPass tokens too: V1 would hand them
///   back at the next sync), after the viewer is told to sign out of the platform (VSA203) when
///   the token's `tokenSource` is "Apple" (the V1 cookbook's logout step). The SDK knows the source
///   of the tokens it made; for a token it found at Adobe, the user metadata is read first.
extension Engine {
    // MARK: User metadata

    /// getMetadata of user metadata while the V1 profile's metadata has not been read: the first
    /// such call reads it; calls made meanwhile wait, and all are answered in call order.
    /// Returns false when the call can be answered at once.
    func deferMetadata(_ call: CallID, _ key: MetadataKey) -> Bool {
        if metadataWaiting != nil {
            metadataWaiting?.append((call, key))
            return true
        }
        guard key.opCode == MetadataKey.userMetadata, case .v1(let backend)? = requestor?.backend.api,
            let profile = currentProfile(), profile.attributesPending == true
        else { return false }
        metadataWaiting = [(call, key)]
        spawn {
            _ = await self.completedV1Profile(profile, backend: backend)
            await self.answerWaitingMetadata()
        }
        return true
    }

    private func answerWaitingMetadata() {
        let keys = metadataWaiting ?? []
        metadataWaiting = nil
        for (call, key) in keys { answerMetadata(call, key) }
    }

    /// `profile` with its user metadata (GET tokens/usermetadata), stored for the next calls; the
    /// profile as it is when Adobe has none or cannot be reached (the host then gets no value).
    func completedV1Profile(_ profile: Profile, backend: V1Backend) async -> Profile {
        guard profile.attributesPending == true, let requestor else { return profile }
        let metadata: V1UserMetadata
        do {
            guard let answer = try await backend.userMetadata(requestor.id) else { return profile }
            metadata = answer
        } catch {
            if !error.isCancellation { logger.warning("user metadata: \(error.error.enhancedError.code)") }
            return profile
        }
        var complete = profile
        complete.attributes.merge(metadata.attributes) { _, adobe in adobe }
        complete.attributesPending = nil
        complete.originUnknown = nil
        if metadata.tokenSource == "Apple" {
            complete.type = "appleSSO"
            complete.issuer = "Apple"
        }
        // Stored only while it is still the device's token (a logout or a new login may have come meanwhile).
        if let stored = storedProfile(profile.mvpd), stored.notAfter == profile.notAfter {
            do {
                try store.saveProfile(scope, requestor: requestor.id, deviceID: context.withLock { $0.deviceID }, complete)
            } catch {
                logger.error("cannot store the user metadata: \(error)")
            }
        }
        return complete
    }

    // MARK: Logout

    /// `profile`: the current profile before the local ones were removed (for its tokenSource).
    func runV1Logout(_ call: CallID, _ requestor: Requestor, backend: V1Backend, profile: Profile?) async {
        var source = profile?.tokenSource
        if let profile, profile.originUnknown == true {
            // A token this SDK did not make: the cookbook reads its tokenSource from the user
            // metadata before logging out. (The SDK knows the source of the tokens it made.)
            source = await completedV1Profile(profile, backend: backend).tokenSource
        }
        if Task.isCancelled { return }
        if source == "Apple", let profile { emit(.status(Self.platformSignOut(profile.mvpd)), calls: [call]) }
        do {
            try await backend.logout(requestor.id)
        } catch {
            if error.isCancellation { return }
            logger.warning("logout could not reach Adobe (\(error.error.enhancedError.code)); the local profile was removed")
        }
        end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated))
    }
}
