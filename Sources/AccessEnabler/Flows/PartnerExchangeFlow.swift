// SPDX-License-Identifier: Apache-2.0

/// The partner exchange: the platform's TV-provider account → an Adobe profile (V2 cookbook
/// C.5–C.14, V1 cookbook steps 6–9), on the backend operations of LoginOperations.swift.
///
/// Runs in **setRequestor** (silent: `PartnerExchangeFlow.silent`, no callback of its own, no UI)
/// and in **getAuthentication / getAuthorization** after the platform picker (LoginFlow,
/// `interactive`). Steps:
///
/// 1. `partnerRequest` with the platform's status: a profile at once, a fallback, or Adobe's SAML
///    request;
/// 2. the SAML request to the platform (`isInterruptionAllowed` when interactive and the API's
///    cookbook allows it);
/// 3. the platform's answer checked again (permission, provider = the MVPD asked, expiry ahead:
///    V2 C.10–12, V1 step 7), then cached as the latest partner status;
/// 4. `partnerProfile` with it: the profile, or a fallback.
///
/// States: `initial` → `requesting` → `askingForSAML` → `exchangingSAML` → `finished`; every step
/// may finish early. Pure: no I/O, no clock (`now` comes with the platform's answer); one
/// operation at a time, so the caller matches answers to operations (an answer in the wrong state
/// returns no actions).
package struct PartnerExchangeFlow: Sendable {
    /// How the exchange ended.
    package enum Outcome: Sendable {
        case profile(Profile)
        /// Back to the regular flow. `session`: Adobe's fallback session (V2), whose code is reused;
        /// `status`: the one advanced code the provider dialog comes with; nil for an MVPD in the
        /// platform's picker but not onboarded (`boardingStatus` PICKER): the regular flow goes on
        /// silently with it.
        case fallback(SessionAnswer?, status: AdvancedStatus?)
        /// The platform failed (error, timeout, no SAML response).
        case partnerFailed(PartnerError)
        /// Adobe could not be reached or answered what the exchange cannot use.
        /// The login fails as any would: no access token (R400 / R401), a TLS failure (SEC420), or
        /// the login was cancelled. Adobe's answers to the partner steps themselves, failures
        /// included, are fallbacks (`adobeFailed`).
        case failed(CallFailure)
    }

    package enum Action: Sendable {
        /// Run the backend operation; feed its answer to `partnerRequestAnswered` / `partnerProfileAnswered`.
        case request(LoginRequest)
        /// Ask the platform (the SAML request) within `timeoutMillis`; feed the reply to `samlAnswered`.
        case askPartner(PartnerQuestion, timeoutMillis: Int)
        /// The platform's rechecked status is the latest partner status (the engine's cache, stamped now).
        case cachePartnerStatus(PartnerStatus)
        case finish(Outcome)
    }

    enum State {
        /// Not started.
        case initial
        /// partnerRequest runs.
        case requesting
        /// The platform has Adobe's SAML request.
        case askingForSAML
        /// partnerProfile runs with the platform's SAML response and its rechecked status.
        case exchangingSAML
        /// An outcome was given.
        case finished
    }

    package let mvpd: MVPD
    /// The platform's status the exchange starts with (sent on partnerRequest).
    package let status: PartnerStatus
    package let interactive: Bool
    private let configuration: RequestorConfiguration
    private let channelIdentifier: String
    private let timeoutMillis: Int
    private var state: State = .initial

    /// - Parameters:
    ///   - status: a usable status (`problem` nil) whose provider is `mvpd`.
    ///   - configuration: the requestor's (the recheck's provider rules).
    ///   - channelIdentifier: the environment's SAML issuer (RequestorConfiguration.samlIssuer).
    ///   - partnerTimeoutMillis: the host's `PartnerFramework.timeoutMillis`.
    package init(
        mvpd: MVPD, status: PartnerStatus, interactive: Bool, configuration: RequestorConfiguration,
        channelIdentifier: String, partnerTimeoutMillis: Int?
    ) {
        self.mvpd = mvpd
        self.status = status
        self.interactive = interactive
        self.configuration = configuration
        self.channelIdentifier = channelIdentifier
        self.timeoutMillis = Self.timeoutMillis(configured: partnerTimeoutMillis, interactive: interactive)
    }

    /// setRequestor's silent exchange (iOS cookbook step 2) for a usable `status`, when its
    /// provider is an MVPD of `configuration` with platform services enabled; nil: nothing to exchange.
    package static func silent(
        status: PartnerStatus, configuration: RequestorConfiguration, channelIdentifier: String,
        partnerTimeoutMillis: Int?
    ) -> PartnerExchangeFlow? {
        guard let mvpd = status.mvpd(in: configuration), mvpd.enablePlatformServices else { return nil }
        return PartnerExchangeFlow(
            mvpd: mvpd, status: status, interactive: false, configuration: configuration,
            channelIdentifier: channelIdentifier, partnerTimeoutMillis: partnerTimeoutMillis)
    }

    package var isFinished: Bool { if case .finished = state { true } else { false } }

    // MARK: Events

    package mutating func start() -> [Action] {
        guard case .initial = state else { return [] }
        state = .requesting
        return [.request(.partnerRequest(mvpd: mvpd, partnerStatus: status.headerValue))]
    }

    package mutating func partnerRequestAnswered(_ result: Result<PartnerRequestAnswer, CallFailure>) -> [Action] {
        guard case .requesting = state else { return [] }
        switch result {
        case .failure(let failure):
            return finish(adobeFailed(failure))
        case .success(.profile(let profile)):
            return finish(.profile(profile))
        case .success(.fallback(let fallback)):
            return finish(fallbackOutcome(fallback))
        case .success(.samlRequest(let saml)):
            var request = PartnerMetadataRequest(
                channelIdentifier: channelIdentifier,
                isInterruptionAllowed: interactive && saml.allowsInterruption)
            request.attributeNames = saml.attributeNames
            request.verificationToken = saml.verificationToken
            state = .askingForSAML
            return [.askPartner(.metadata(request), timeoutMillis: timeoutMillis)]
        }
    }

    /// The platform answered the SAML request; `now`: when (for the recheck's expiry).
    package mutating func samlAnswered(_ result: Result<PartnerMetadata, PartnerError>, now: Int64) -> [Action] {
        guard case .askingForSAML = state else { return [] }
        let metadata: PartnerMetadata
        switch result {
        case .failure(let error): return finish(.partnerFailed(error))
        case .success(let answer): metadata = answer
        }
        guard let saml = metadata.samlAttributeQueryResponse, !saml.isEmpty else {
            return finish(.partnerFailed(PartnerError(.failed, detail: "the platform returned no SAML response")))
        }
        switch recheck(metadata, now: now) {
        case .unusable(let fallback):
            return finish(fallback)
        case .usable(let latest):
            state = .exchangingSAML
            return [
                .cachePartnerStatus(latest),
                .request(.partnerProfile(mvpd: mvpd, samlResponse: saml, partnerStatus: latest.headerValue)),
            ]
        }
    }

    package mutating func partnerProfileAnswered(_ result: Result<PartnerProfileAnswer, CallFailure>) -> [Action] {
        guard case .exchangingSAML = state else { return [] }
        switch result {
        case .failure(let failure): return finish(adobeFailed(failure))
        case .success(.profile(let profile)): return finish(.profile(profile))
        case .success(.fallback(let fallback)): return finish(fallbackOutcome(fallback))
        }
    }

    // MARK: Helpers

    private mutating func finish(_ outcome: Outcome) -> [Action] {
        state = .finished
        return [.finish(outcome)]
    }

    private func fallbackOutcome(_ fallback: PartnerFallback) -> Outcome {
        .fallback(fallback.session, status: Self.fallbackStatus(mvpd, reason: fallback.reason, context: fallback.context))
    }

    /// A partner step failed at Adobe (sessions/sso, profiles/sso; V1's profile request and token
    /// exchange): back to the regular flow (seed 003 step 4), with N004 when Adobe says single
    /// sign-on is not set up for this integration (`invalid_integration`, `invalid_parameter_partner`,
    /// the platform's `invalid_configuration_*`, a 404: fallbackStatus) and VSA503 otherwise (a
    /// 5xx, a timeout, a network error, an answer that cannot be read, any other refusal). Not a
    /// fallback: no access token, a TLS failure, a cancelled login (`failed`: the login ends as
    /// any would, since the regular flow could not do better).
    private func adobeFailed(_ failure: CallFailure) -> Outcome {
        guard failure.stage == .call, !failure.isCancellation else { return .failed(failure) }
        if case .transport(.tls) = failure.error { return .failed(failure) }
        let error = failure.error
        let code = error.enhancedError.code
        let answer =
            switch error {
            case .transport(let transport): transport.summary
            case .unavailable: "not sent: the outage breaker holds requests back"
            case .malformed(_, let detail): "an answer that cannot be read: \(detail)"
            default: "HTTP \(error.httpStatus), \(code)"
            }
        var step = "partner authentication request"
        if case .exchangingSAML = state { step = "partner profile request" }
        return .fallback(nil, status: Self.fallbackStatus(mvpd, reason: code, context: "Adobe's \(step) failed (\(answer))"))
    }

    private enum Recheck {
        case usable(PartnerStatus)
        case unusable(Outcome)
    }

    /// The platform's answer to the SAML request: its account must still be usable (permission,
    /// provider, expiry) and still be `mvpd`'s before its SAML is sent; else the regular flow, with VSA503.
    private func recheck(_ metadata: PartnerMetadata, now: Int64) -> Recheck {
        var latest = status
        if let provider = metadata.accountProviderIdentifier { latest.providerID = provider }
        if let expiration = metadata.authenticationExpirationDate { latest.expirationDate = expiration }
        if let problem = latest.problem(at: now, configuration: configuration) {
            return .unusable(
                .fallback(
                    nil,
                    status: Self.fallbackStatus(
                        mvpd, reason: "platform_answer_unusable",
                        context: "after the SAML step, \(problem)")))
        }
        if latest.mvpd(in: configuration)?.id != mvpd.id {
            return .unusable(
                .fallback(
                    nil,
                    status: Self.fallbackStatus(
                        mvpd, reason: "platform_answer_unusable",
                        context: "the platform answered for provider \(latest.providerID ?? "none"), not \(mvpd.id)")))
        }
        return .usable(latest)
    }
}

extension PartnerExchangeFlow {
    /// What setRequestor's silent exchange does with its outcome: the profile to save (with its
    /// MVPD as the selection), and the log line; a fallback is simply dropped (the viewer logs in
    /// later with getAuthentication).
    package static func silentReport(_ outcome: Outcome) -> (save: Profile?, level: LogLevel, message: String) {
        switch outcome {
        case .profile(let profile):
            return (profile, .info, "partner account exchanged for a profile of \(profile.mvpd)")
        case .fallback(let session, let status):
            let reason = session?.reasonType ?? status?.details ?? "not onboarded"
            return (nil, .info, "silent partner exchange fell back (\(reason))")
        case .partnerFailed(let error):
            return (nil, .warning, "silent partner exchange: partner failed (\(error.summary))")
        case .failed(let failure):
            return (nil, .warning, "silent partner exchange failed (\(failure.error.enhancedError.code))")
        }
    }
}
