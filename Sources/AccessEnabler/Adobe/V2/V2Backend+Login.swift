// SPDX-License-Identifier: Apache-2.0

/// The login operations on REST API V2 (LoginBackend): the authentication session with its
/// resumes, the code poll, TempPass, and the partner exchange's two requests.
extension V2Backend {
    /// sessions (or the partner fallback's session, `continuing`), resumed while Adobe reports
    /// missing parameters (≤ 3), then `authorize` (a profile exists: profiles/{mvpd}) or
    /// `authenticate` (the code to show).
    package func startCodeLogin(_ mvpd: MVPD, continuing: CodeLoginContinuation?) async throws(CodeLoginFailure) -> CodeLoginStart {
        var session: SessionAnswer
        var partnerStatus: String?
        if let continuing, !(continuing.kind == .afterProviderDialog && continuing.session.mvpd.map { $0 != mvpd.id } == true) {
            // The fallback's session goes on (V2 cookbook C.5–9); one fixed to another MVPD is dropped.
            session = continuing.session
            partnerStatus = continuing.partnerStatus
            if continuing.kind == .afterProviderDialog, session.mvpd == nil, session.actionName == "authenticate",
                let code = session.code
            {
                do {
                    session = try await wire.resumeSession(code: code, parameters: [("mvpd", mvpd.id)])
                } catch {
                    throw .session(error)
                }
            }
        } else {
            do {
                session = try await wire.createSession(mvpd: mvpd.id, domainName: domainName, redirectURL: redirectURL)
            } catch {
                throw .session(error)
            }
        }
        var resumes = 0
        while true {
            switch session.actionName {
            case "authorize":
                // A profile exists already (also TempPass and degraded access): no code to show.
                let profile: Profile?
                do {
                    profile = try await wire.profile(mvpd: mvpd.id, partnerStatus: partnerStatus)
                } catch {
                    throw .profile(error)
                }
                guard let profile else { throw .profileMissing }
                return .profile(profile)
            case "authenticate":
                guard let code = session.code else { throw .codeMissing }
                let url = wire.absolute(session.url ?? "/api/v2/authenticate/\(requestorID)/\(code)")
                return .code(CodeChallenge(mvpd: mvpd.id, code: code, url: url, notAfter: session.notAfter))
            case "resume", "retry":
                resumes += 1
                guard resumes <= 3, let code = session.code else {
                    throw .parametersStillMissing(session.missingParameters ?? [])
                }
                do {
                    session = try await wire.resumeSession(
                        code: code,
                        parameters: try await resumeParameters(session, code: code, mvpd: mvpd))
                } catch {
                    throw .session(error)
                }
            default:
                throw .unexpectedAction(session.actionName)
            }
        }
    }

    /// The parameters a resume sends: those the answer names missing (when it names none, the
    /// session itself says), else all of them.
    private func resumeParameters(_ session: SessionAnswer, code: String, mvpd: MVPD) async throws(CallFailure) -> [(String, String)] {
        let values = ["mvpd": mvpd.id, "domainName": domainName, "domain": domainName, "redirectUrl": redirectURL]
        var missing = session.missingParameters ?? []
        if missing.isEmpty { missing = try await wire.sessionStatus(code: code).missingParameters }
        let parameters = missing.compactMap { name -> (String, String)? in
            values[name].map { (name == "domain" ? "domainName" : name, $0) }
        }
        return parameters.isEmpty ? [("mvpd", mvpd.id), ("domainName", domainName), ("redirectUrl", redirectURL)] : parameters
    }

    /// profiles/code/{code}.
    package func pollCodeLogin(_ challenge: CodeChallenge) async throws(CallFailure) -> Profile? {
        try await wire.profile(code: challenge.code)
    }

    /// profiles/{mvpd} with AP-TempPass-Identity: no session, no code.
    package func tempPass(_ mvpd: MVPD, identity: String?) async throws(TempPassFailure) -> Profile {
        let profile: Profile?
        do {
            profile = try await wire.profile(mvpd: mvpd.id, tempPassIdentity: identity)
        } catch {
            if error.stage == .call, case .enhanced(let enhanced, _) = error.error, enhanced.endsTempPass {
                throw .over(enhanced)
            }
            throw .refused(error)
        }
        guard let profile else { throw .missing(.profile) }
        return profile
    }

    /// sessions/sso/{partner}: the profile Adobe has (authorize), the SAML request for the
    /// platform (partner_profile; SAML only, as Adobe documents), or a fallback session.
    package func partnerRequest(_ mvpd: MVPD, partnerStatus: String) async throws(CallFailure) -> PartnerRequestAnswer {
        let session = try await wire.partnerSession(
            partner: partnerName ?? "", domainName: domainName,
            redirectURL: redirectURL, partnerStatus: partnerStatus)
        switch session.actionName {
        case "authorize":
            guard let profile = try await wire.profile(mvpd: mvpd.id, partnerStatus: partnerStatus) else {
                throw CallFailure(.call, .malformed(operation: "profiles/{mvpd}", detail: "no profile"))
            }
            return .profile(profile)
        case "partner_profile":
            guard let authentication = session.authenticationRequest else {
                throw CallFailure(.call, .malformed(operation: "sessions/sso", detail: "no authenticationRequest"))
            }
            guard authentication.type?.lowercased() == "saml" else {
                return .fallback(
                    PartnerFallback(
                        reason: "unsupported_authentication_request",
                        context: "Adobe asked for a \(authentication.type ?? "untyped") authentication request, not SAML"))
            }
            return .samlRequest(
                SAMLRequest(
                    verificationToken: authentication.request,
                    attributeNames: authentication.attributesNames ?? mvpd.requiredMetadataFields,
                    allowsInterruption: true))
        default:
            // authenticate / resume with pfs_fallback, configuration_fallback, missing_parameters_fallback
            return .fallback(PartnerFallback(session: session, reason: session.reasonType))
        }
    }

    /// profiles/sso/{partner} with the SAML response (cleaned up and encoded here). Adobe's
    /// refusal (4xx: V2 cookbook C.13) or an answer without the MVPD's profile is a fallback.
    package func partnerProfile(_ mvpd: MVPD, samlResponse: String, partnerStatus: String) async throws(CallFailure)
        -> PartnerProfileAnswer
    {
        let profile: Profile?
        do {
            profile = try await wire.partnerProfile(
                partner: partnerName ?? "", mvpd: mvpd.id,
                samlResponse: SAMLResponseEncoding.encode(samlResponse),
                partnerStatus: partnerStatus)
        } catch {
            guard error.isRefusal else { throw error }
            let code = error.error.enhancedError.code
            return .fallback(
                PartnerFallback(
                    reason: code,
                    context: "Adobe refused the platform's SAML response (HTTP \(error.error.httpStatus), \(code))"))
        }
        guard let profile else {
            return .fallback(PartnerFallback(reason: "profile_mismatch", context: "Adobe's answer holds no profile of \(mvpd.id)"))
        }
        return .profile(profile)
    }
}

extension CallFailure {
    /// A 4xx answer of the call itself (Adobe refused the request as such; a 401 was already
    /// retried with a new token, a 429 after its pauses), as opposed to a failure to reach Adobe.
    package var isRefusal: Bool {
        stage == .call && (400..<500).contains(error.httpStatus) && error.httpStatus != 429
    }
}
