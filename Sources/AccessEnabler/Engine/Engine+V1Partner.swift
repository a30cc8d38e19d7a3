// SPDX-License-Identifier: Apache-2.0

/// Partner single sign-on on REST API V1: the V1 Apple SSO cookbook's exchange (steps 6–9).
/// The rest of the cookbook is shared with V2 (Engine+Partner.swift): the partner status
/// (step 2), the configuration (3), the picker (4), the login check (5), the regular flow as
/// fallback (10) and authorization (11); docs/PARTNER-SSO.md maps every step to code and tests.
extension Engine {
    /// The profile request for the MVPD → the partner (attribute names = the MVPD's
    /// `requiredMetadataFields`, verification token = the payload, unparsed; no interruption, as
    /// the V1 snippet sets) → the SAMLResponse cleaned up and encoded → the token exchange (204)
    /// → the device's token and its user metadata, read together.
    func exchange(_ mvpd: MVPD, status: PartnerStatus, interactive: Bool, partner: any PartnerFramework, backend: V1Backend)
        async -> ExchangeOutcome
    {
        guard let requestor else { return .partnerFailed(PartnerError(.failed)) }
        // In the platform's picker but not onboarded for single sign-on (boardingStatus PICKER):
        // Adobe would refuse the profile request; go to the regular flow without asking.
        if mvpd.boardingStatus == "PICKER" { return .fallback(nil, status: nil) }
        let payload: String
        do {
            payload = try await backend.profileRequest(requestor.id, mvpd: mvpd.id)
        } catch {
            // 400: single sign-on is not available for the MVPD → the regular flow (step 10).
            return Self.isV1Refusal(error)
                ? .fallback(nil, status: Self.fallbackStatus(mvpd, reason: "profile_request_refused")) : .failed(error)
        }
        let saml: String
        switch await askForSAML(partner, verificationToken: payload, attributeNames: mvpd.requiredMetadataFields,
                                interruption: false, interactive: interactive)
        {
        case .failure(let error): return .partnerFailed(error)
        case .success(let answer):
            saml = answer.saml
            // As in V2: the platform's answer to the SAML request must still be usable, for this MVPD.
            switch recheck(status, answer: answer.metadata, for: mvpd) {
            case .usable(let latest): partnerCache = (latest, clock.nowMillis())
            case .unusable(let fallback): return fallback
            }
        }
        do {
            try await backend.tokenExchange(requestor.id, mvpd: mvpd.id, samlResponse: SAMLResponseEncoding.encode(saml))
        } catch {
            // Step 9: no token was made → the regular flow (step 10).
            return Self.isV1Refusal(error)
                ? .fallback(nil, status: Self.fallbackStatus(mvpd, reason: "token_exchange_refused")) : .failed(error)
        }
        async let token = Self.capture { () async throws(CallFailure) in try await backend.authenticationToken(requestor.id) }
        async let metadata = Self.capture { () async throws(CallFailure) in try await backend.userMetadata(requestor.id) }
        let (tokenOutcome, metadataOutcome) = await (token, metadata)
        let answer: V1AuthenticationToken?
        switch tokenOutcome {
        case .failure(let failure): return .failed(failure)
        case .success(let found): answer = found
        }
        guard let answer, answer.mvpd == mvpd.id else {
            return .failed(CallFailure(.call, .malformed(operation: V1Operation.authenticationToken.rawValue,
                                                         detail: "no token of \(mvpd.id) after the token exchange")))
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
    private static func isV1Refusal(_ failure: CallFailure) -> Bool {
        failure.stage == .call && failure.error.httpStatus == 400
    }
}
