// SPDX-License-Identifier: Apache-2.0

/// What a login needs from Adobe, as operations of a backend bound to one requestor: the login
/// flow (LoginFlow) and the partner exchange (PartnerExchangeFlow) ask for these and never see
/// which REST API answers them, nor the requestor id, the domain name or the redirect URL. The
/// driver implements them on V2Client and V1Client (LoginBackend) and feeds the answers back.
///
/// | operation | REST API V2 | REST API V1 |
/// |---|---|---|
/// | startCodeLogin | sessions (+ resume ≤ 3, GET sessions/{code} when the answer names nothing), authorize → profiles/{mvpd} | regcode; the login URL built by the backend |
/// | pollCodeLogin | profiles/code/{code} | tokens/authn, a token of the MVPD whose expiry changed |
/// | tempPass | profiles/{mvpd} with AP-TempPass-Identity | authenticate/freepreview, then tokens/authn |
/// | partnerRequest | sessions/sso/{partner} (authorize → profiles/{mvpd}) | profile-requests/{mvpd} |
/// | partnerProfile | profiles/sso/{partner} | tokens/authn (exchange), then tokens/authn + tokens/usermetadata |
package enum LoginRequest: Sendable {
    /// A second-screen login for `mvpd`: a profile at once, or a code to show and poll.
    /// `continuing`: a session Adobe opened already (a partner fallback's), gone on with.
    case startCodeLogin(mvpd: MVPD, continuing: CodeLoginContinuation?)
    /// Has the viewer logged in with the challenge's code? (nil: not yet)
    case pollCodeLogin(CodeChallenge)
    /// A TempPass MVPD's profile; `identity`: promotional TempPass's AP-TempPass-Identity value.
    case tempPass(mvpd: MVPD, identity: String?)
    /// Partner single sign-on, first step, with the platform's status (`AP-Partner-Framework-Status`).
    case partnerRequest(mvpd: MVPD, partnerStatus: String)
    /// Partner single sign-on, second step: the platform's SAML response, as the platform gave it
    /// (the backend cleans it up and encodes it: SAMLResponseEncoding; never logged).
    case partnerProfile(mvpd: MVPD, samlResponse: String, partnerStatus: String)
}

/// The code the viewer enters on another device (or the page the browser opens).
package struct CodeChallenge: Sendable, Hashable {
    package var mvpd: String
    package var code: String
    /// Absolute URL of the login page (V2: Adobe's answer made absolute; V1: built by the backend).
    package var url: String
    /// Adobe's expiry of the code (ms since the epoch), if it gave one.
    package var notAfter: Int64?
    /// V1: the expiry of the token the device held for the MVPD when the code was asked (read from
    /// the store just before the regcode request): a token with that expiry is not this login's
    /// answer (forceAuthn). nil for V2, or when none was held.
    package var previousNotAfter: Int64?

    package init(mvpd: String, code: String, url: String, notAfter: Int64? = nil, previousNotAfter: Int64? = nil) {
        self.mvpd = mvpd
        self.code = code
        self.url = url
        self.notAfter = notAfter
        self.previousNotAfter = previousNotAfter
    }
}

/// A session Adobe already opened for this login (REST API V2's partner fallbacks), which the
/// code login goes on with instead of opening one. Opaque to the flows.
package struct CodeLoginContinuation: Sendable {
    package enum Kind: Sendable, Hashable {
        /// The viewer chose in the provider dialog shown after the fallback (LoginFlow+Picker.swift):
        /// a session fixed to another MVPD is dropped for a new one; a session without an MVPD that
        /// asks to authenticate is resumed with the chosen MVPD; then it is followed.
        case afterProviderDialog
        /// A provider only in the platform picker (no advanced code): the session is followed as it is.
        case asIs
    }

    package var kind: Kind
    package var session: SessionAnswer
    /// The platform status the session was opened with, sent again on profiles/{mvpd} (authorize).
    package var partnerStatus: String

    package init(_ kind: Kind, session: SessionAnswer, partnerStatus: String) {
        self.kind = kind
        self.session = session
        self.partnerStatus = partnerStatus
    }
}

/// startCodeLogin's answer.
package enum CodeLoginStart: Sendable {
    /// Adobe has a profile already (also TempPass and degraded access): no code to show.
    case profile(Profile)
    case code(CodeChallenge)
}

/// Why startCodeLogin failed, as the flow names it (StatusCatalog.loginFailure and REG500/N500).
package enum CodeLoginFailure: Error, Sendable {
    /// Opening or resuming the session (V1: the regcode request) failed: REG500 family.
    case session(CallFailure)
    /// Reading the profile Adobe reported (authorize) failed: N500 family.
    case profile(CallFailure)
    /// Adobe reported a profile (authorize) but returned none.
    case profileMissing
    /// Adobe's session answer (authenticate) carries no code.
    case codeMissing
    /// Adobe still asks for session parameters after three resumes (or gave no code to resume):
    /// the parameters it names.
    case parametersStillMissing([String])
    /// A session action the flow cannot follow.
    case unexpectedAction(String)
}

/// What Adobe did not return (the words of the N500 statuses).
package enum AdobeRecord: String, Sendable, Hashable {
    /// V2's answers hold profiles.
    case profile
    /// V1's answers hold authentication tokens.
    case token
}

/// Why tempPass failed.
package enum TempPassFailure: Error, Sendable {
    /// Adobe says the TempPass is over (V2: 403 `temporary_access_*_limit_exceeded` at the call
    /// stage; V1: freepreview's 400): the stored TempPass profile expires (N111).
    case over(EnhancedError)
    /// The TempPass request failed otherwise (StatusCatalog.tempPassLoginFailure).
    case refused(CallFailure)
    /// V1: the token could not be read after freepreview (N500 family).
    case tokenUnreadable(CallFailure)
    /// Adobe's answer held no TempPass profile (token) of the MVPD.
    case missing(AdobeRecord)
}

/// The partner's SAML request Adobe asks the platform to answer.
package struct SAMLRequest: Sendable, Hashable {
    /// The SAML request, passed to the platform unparsed.
    package var verificationToken: String
    package var attributeNames: [String]
    /// The API's cookbook lets the platform interrupt the viewer for it when the login is
    /// interactive (V2 C.10: yes; V1 step 7: never).
    package var allowsInterruption: Bool

    package init(verificationToken: String, attributeNames: [String], allowsInterruption: Bool) {
        self.verificationToken = verificationToken
        self.attributeNames = attributeNames
        self.allowsInterruption = allowsInterruption
    }
}

/// Back to the regular login: why (PartnerExchangeFlow.fallbackStatus turns it into the one
/// advanced code of the provider dialog).
package struct PartnerFallback: Sendable {
    /// V2: the session Adobe opened instead (its code is reused once the viewer chose); nil otherwise.
    package var session: SessionAnswer?
    /// Adobe's reason (`pfs_fallback`, `configuration_fallback`, ...) or the SDK's
    /// (`profile_request_refused`, `token_exchange_refused`, `profile_mismatch`,
    /// `unsupported_authentication_request`, a refusal's error code; nil: not onboarded).
    package var reason: String?
    /// The context of a VSA503, in words (nil: the reason's own words).
    package var context: String?

    package init(session: SessionAnswer? = nil, reason: String?, context: String? = nil) {
        self.session = session
        self.reason = reason
        self.context = context
    }
}

/// partnerRequest's answer.
package enum PartnerRequestAnswer: Sendable {
    /// Adobe has the profile already (V2's `authorize`).
    case profile(Profile)
    /// The platform must answer Adobe's SAML request.
    case samlRequest(SAMLRequest)
    case fallback(PartnerFallback)
}

/// partnerProfile's answer.
package enum PartnerProfileAnswer: Sendable {
    case profile(Profile)
    case fallback(PartnerFallback)
}

/// The answer of one backend operation, fed back to the flow with the operation's id.
package enum LoginAnswer: Sendable {
    case codeLoginStarted(Result<CodeLoginStart, CodeLoginFailure>)
    case codeLoginPolled(Result<Profile?, CallFailure>)
    case tempPass(Result<Profile, TempPassFailure>)
    case partnerRequest(Result<PartnerRequestAnswer, CallFailure>)
    case partnerProfile(Result<PartnerProfileAnswer, CallFailure>)
}

/// The backend operations, bound to one requestor (the driver implements them on V2Client and
/// V1Client). A cancelled operation may throw a failure whose `isCancellation` is true.
package protocol LoginBackend: Sendable {
    func startCodeLogin(_ mvpd: MVPD, continuing: CodeLoginContinuation?) async throws(CodeLoginFailure) -> CodeLoginStart
    func pollCodeLogin(_ challenge: CodeChallenge) async throws(CallFailure) -> Profile?
    func tempPass(_ mvpd: MVPD, identity: String?) async throws(TempPassFailure) -> Profile
    func partnerRequest(_ mvpd: MVPD, partnerStatus: String) async throws(CallFailure) -> PartnerRequestAnswer
    func partnerProfile(_ mvpd: MVPD, samlResponse: String, partnerStatus: String) async throws(CallFailure)
        -> PartnerProfileAnswer
}

extension LoginBackend {
    /// Runs `request` and returns its answer in the form the flows take.
    package func perform(_ request: LoginRequest) async -> LoginAnswer {
        switch request {
        case .startCodeLogin(let mvpd, let continuing):
            do throws(CodeLoginFailure) {
                return .codeLoginStarted(.success(try await startCodeLogin(mvpd, continuing: continuing)))
            } catch {
                return .codeLoginStarted(.failure(error))
            }
        case .pollCodeLogin(let challenge):
            do throws(CallFailure) {
                return .codeLoginPolled(.success(try await pollCodeLogin(challenge)))
            } catch {
                return .codeLoginPolled(.failure(error))
            }
        case .tempPass(let mvpd, let identity):
            do throws(TempPassFailure) {
                return .tempPass(.success(try await tempPass(mvpd, identity: identity)))
            } catch {
                return .tempPass(.failure(error))
            }
        case .partnerRequest(let mvpd, let partnerStatus):
            do throws(CallFailure) {
                return .partnerRequest(.success(try await partnerRequest(mvpd, partnerStatus: partnerStatus)))
            } catch {
                return .partnerRequest(.failure(error))
            }
        case .partnerProfile(let mvpd, let samlResponse, let partnerStatus):
            do throws(CallFailure) {
                return .partnerProfile(
                    .success(
                        try await partnerProfile(
                            mvpd, samlResponse: samlResponse,
                            partnerStatus: partnerStatus)))
            } catch {
                return .partnerProfile(.failure(error))
            }
        }
    }
}
