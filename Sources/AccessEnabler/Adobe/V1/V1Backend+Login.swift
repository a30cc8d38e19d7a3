// SPDX-License-Identifier: Apache-2.0

/// The login operations on REST API V1 (LoginBackend): a registration code and its poll on
/// tokens/authn, TempPass through freepreview, and the Apple SSO cookbook's exchange (steps 6–9).
extension V1Backend {
    /// POST regcode for the MVPD; the second screen's login URL is built here. A token the device
    /// already holds for this MVPD (forceAuthn) is not this login's answer: its expiry is kept.
    package func startCodeLogin(_ mvpd: MVPD, continuing: CodeLoginContinuation?) async throws(CodeLoginFailure) -> CodeLoginStart {
        let previous = storedNotAfter(mvpd.id)
        let record: V1RegistrationRecord
        do {
            record = try await wire.registrationCode(requestorID, mvpd: mvpd.id)
        } catch {
            throw .session(error)
        }
        let url = wire.authenticationURL(
            requestorID, code: record.code, mvpd: mvpd.id, domainName: domainName,
            redirectURL: redirectURL)
        return .code(CodeChallenge(mvpd: mvpd.id, code: record.code, url: url, notAfter: record.expires, previousNotAfter: previous))
    }

    /// tokens/authn: a token of the MVPD whose expiry changed.
    package func pollCodeLogin(_ challenge: CodeChallenge) async throws(CallFailure) -> Profile? {
        guard let token = try await wire.authenticationToken(requestorID), token.mvpd == challenge.mvpd,
            token.expires != challenge.previousNotAfter
        else { return nil }
        return token.profile
    }

    /// authenticate/freepreview (204; a 400 for a TempPass the configuration lists means the pass
    /// is used up), then tokens/authn for the token's expiry.
    package func tempPass(_ mvpd: MVPD, identity: String?) async throws(TempPassFailure) -> Profile {
        do {
            try await wire.freePreview(
                requestorID, mvpd: mvpd.id, domainName: domainName,
                identity: identity.flatMap(V1Client.identityJSON))
        } catch {
            if error.stage == .call, error.error.httpStatus == 400 { throw .over(error.error.enhancedError) }
            throw .refused(error)
        }
        let token: V1AuthenticationToken?
        do {
            token = try await wire.authenticationToken(requestorID)
        } catch {
            throw .tokenUnreadable(error)
        }
        guard var profile = token?.profile, profile.mvpd == mvpd.id else { throw .missing(.token) }
        profile.type = "temporary"
        profile.issuer = "Adobe"
        profile.tempPassIdentity = identity
        return profile
    }

    /// profile-requests/{mvpd}: the payload the platform gets as verification token, unparsed (no
    /// interruption, as the V1 snippet sets). A 400: single sign-on is not available (step 10).
    package func partnerRequest(_ mvpd: MVPD, partnerStatus: String) async throws(CallFailure) -> PartnerRequestAnswer {
        // In the platform's picker but not onboarded (boardingStatus PICKER): Adobe would refuse.
        if mvpd.boardingStatus == "PICKER" { return .fallback(PartnerFallback(reason: nil)) }
        let payload: String
        do {
            payload = try await wire.profileRequest(requestorID, mvpd: mvpd.id)
        } catch {
            guard Self.isRefusal(error) else { throw error }
            return .fallback(PartnerFallback(reason: "profile_request_refused"))
        }
        return .samlRequest(
            SAMLRequest(
                verificationToken: payload, attributeNames: mvpd.requiredMetadataFields,
                allowsInterruption: false))
    }

    /// The token exchange (204; a 400: no token was made, step 10), then the device's token and
    /// its user metadata, read together.
    package func partnerProfile(_ mvpd: MVPD, samlResponse: String, partnerStatus: String) async throws(CallFailure)
        -> PartnerProfileAnswer
    {
        do {
            try await wire.tokenExchange(requestorID, mvpd: mvpd.id, samlResponse: SAMLResponseEncoding.encode(samlResponse))
        } catch {
            guard Self.isRefusal(error) else { throw error }
            return .fallback(PartnerFallback(reason: "token_exchange_refused"))
        }
        let wire = wire, requestorID = requestorID
        async let token = CallFailure.capture { () async throws(CallFailure) in try await wire.authenticationToken(requestorID) }
        async let metadata = CallFailure.capture { () async throws(CallFailure) in try await wire.userMetadata(requestorID) }
        let (tokenOutcome, metadataOutcome) = await (token, metadata)
        let answer: V1AuthenticationToken?
        switch tokenOutcome {
        case .failure(let failure): throw failure
        case .success(let found): answer = found
        }
        guard let answer, answer.mvpd == mvpd.id else {
            throw CallFailure(
                .call,
                .malformed(
                    operation: V1Operation.authenticationToken.rawValue,
                    detail: "no token of \(mvpd.id) after the token exchange"))
        }
        var profile = answer.profile
        profile.type = "appleSSO"
        profile.issuer = "Apple"
        if case .success(let found?) = metadataOutcome {
            profile.attributes.merge(found.attributes) { _, adobe in adobe }
            profile.attributesPending = nil
        }
        return .profile(profile)
    }

    /// A 400 (Adobe refused the request as such), as opposed to a failure to reach it.
    private static func isRefusal(_ failure: CallFailure) -> Bool {
        failure.stage == .call && failure.error.httpStatus == 400
    }
}
