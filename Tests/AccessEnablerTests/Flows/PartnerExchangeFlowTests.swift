// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import AccessEnabler

/// PartnerExchangeFlow: partnerRequest → the platform's SAML → the recheck → partnerProfile, and
/// every way back to the regular flow (Engine+Partner.exchange, Engine+V1Partner.exchange).
struct PartnerExchangeFlowTests {
    typealias F = LoginFixtures
    let status = PartnerStatus(
        access: PartnerAccess(.granted, signIn: .signedIn), providerID: "comcast-id",
        expirationDate: LoginFixtures.far)
    let saml = SAMLRequest(verificationToken: "REQ", attributeNames: ["userID", "zip"], allowsInterruption: true)

    func exchange(_ mvpd: String = "Comcast", interactive: Bool = true, timeout: Int? = nil) -> PartnerExchangeFlow {
        PartnerExchangeFlow(
            mvpd: F.partnerConfiguration.mvpd(mvpd)!, status: status, interactive: interactive,
            configuration: F.partnerConfiguration, channelIdentifier: F.channel, partnerTimeoutMillis: timeout)
    }

    /// An exchange waiting for the platform's SAML response.
    func askingForSAML() -> PartnerExchangeFlow {
        var flow = exchange()
        _ = flow.start()
        _ = flow.partnerRequestAnswered(.success(.samlRequest(saml)))
        return flow
    }

    @Test func theWholeExchangeWithTheRecheckedStatus() {
        var flow = exchange()
        #expect(LoginTrace.lines(flow.start()) == ["request partnerRequest Comcast \(status.headerValue)"])
        #expect(flow.start().isEmpty)
        #expect(
            LoginTrace.lines(flow.partnerRequestAnswered(.success(.samlRequest(saml))))
                == ["ask metadata(interruption: true, attributes: userID,zip, token: REQ, channel: \(F.channel)) 60000ms"])
        // The platform's answer updates the expiry: the rechecked status is cached and sent.
        var latest = status
        latest.expirationDate = F.far + 1
        #expect(
            LoginTrace.lines(
                flow.samlAnswered(
                    .success(
                        PartnerMetadata(
                            accountProviderIdentifier: "comcast-id",
                            authenticationExpirationDate: F.far + 1, samlAttributeQueryResponse: "<SAML/>")), now: F.now))
                == ["cache granted comcast-id \(F.far + 1)", "request partnerProfile Comcast <SAML/> \(latest.headerValue)"])
        #expect(
            LoginTrace.lines(flow.partnerProfileAnswered(.success(.profile(F.profile("Comcast", type: "appleSSO")))))
                == ["finish profile Comcast appleSSO"])
        #expect(flow.isFinished)
        #expect(flow.partnerProfileAnswered(.success(.profile(F.profile("Comcast")))).isEmpty)
    }

    @Test func aProfileAtOnceOrAFailureEndsTheFirstStep() {
        var flow = exchange()
        _ = flow.start()
        #expect(
            LoginTrace.lines(flow.partnerRequestAnswered(.success(.profile(F.profile("Comcast", type: "degraded")))))
                == ["finish profile Comcast degraded"])
        var failing = exchange()
        _ = failing.start()
        #expect(
            LoginTrace.lines(failing.partnerRequestAnswered(.failure(F.failure(.transport(.timedOut)))))
                == [
                    "finish fallback session=nil VSA503/info The platform's TV provider account could not be used (Adobe's "
                        + "partner authentication request failed (timed out)); log in with the provider instead. details=network_error"
                ])
    }

    /// Issue 28 item 9: Adobe failing or refusing a partner step (sessions/sso, profiles/sso) is a
    /// fallback to the regular flow with exactly one code (seed 003 step 4), never REG500: N004 when
    /// Adobe says single sign-on is not set up for the integration (its documented codes for that),
    /// VSA503 when Adobe fails (5xx, network, timeout, throttled, held back, unreadable) or refuses
    /// for another reason. No access token, TLS and a cancelled login still end the login.
    @Test func adobeFailuresOfThePartnerStepsFallBackWithOneCode() {
        let n004 = "N004/info Single sign-on through the platform is not available for Comcast TV with this app."
        let vsa503 = "VSA503/info The platform's TV provider account could not be used (Adobe's "
        let cases: [(ServiceError, String)] = [
            (F.enhanced("invalid_integration", status: 400), "\(n004) details=invalid_integration"),
            (F.enhanced("invalid_parameter_partner", status: 400), "\(n004) details=invalid_parameter_partner"),
            (F.enhanced("unknown_integration", status: 412), "\(n004) details=unknown_integration"),
            (
                F.enhanced("invalid_configuration_platform_services", status: 500, action: "configuration"),
                "\(n004) details=invalid_configuration_platform_services"
            ),
            (
                F.enhanced("invalid_configuration_mvpd_platform_boarding_status", status: 500, action: "configuration"),
                "\(n004) details=invalid_configuration_mvpd_platform_boarding_status"
            ),
            (.http(status: 404), "\(n004) details=http_404"),
            (
                F.enhanced("internal_server_error", status: 503, action: "retry"),
                "\(vsa503)STEP failed (HTTP 503, internal_server_error)); log in with the provider instead. details=internal_server_error"
            ),
            (.http(status: 502), "\(vsa503)STEP failed (HTTP 502, http_502)); log in with the provider instead. details=http_502"),
            (
                .transport(.cannotConnect("refused")),
                "\(vsa503)STEP failed (cannot connect (refused))); log in with the provider instead. details=network_error"
            ),
            (
                .throttled,
                "\(vsa503)STEP failed (HTTP 429, too_many_requests)); log in with the provider instead. details=too_many_requests"
            ),
            (
                .unavailable(retryInMillis: 2_000, reason: "HTTP 503", httpStatus: 503),
                "\(vsa503)STEP failed (not sent: the outage breaker holds requests back)); log in with the provider instead. "
                    + "details=service_unavailable"
            ),
            (
                .malformed(operation: "sessions/sso", detail: "no authenticationRequest"),
                "\(vsa503)STEP failed (an answer that cannot be read: no authenticationRequest)); log in with the provider "
                    + "instead. details=server_response_format_unknown"
            ),
            (
                F.enhanced("invalid_parameter_redirect_url", status: 400),
                "\(vsa503)STEP failed (HTTP 400, invalid_parameter_redirect_url)); log in with the provider instead. "
                    + "details=invalid_parameter_redirect_url"
            ),
        ]
        for (error, outcome) in cases {
            var first = exchange()
            _ = first.start()
            #expect(
                LoginTrace.lines(first.partnerRequestAnswered(.failure(F.failure(error))))
                    == ["finish fallback session=nil " + outcome.replacingOccurrences(of: "STEP", with: "partner authentication request")])
            var second = askingForSAML()
            _ = second.samlAnswered(.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>")), now: F.now)
            #expect(
                LoginTrace.lines(second.partnerProfileAnswered(.failure(F.failure(error))))
                    == ["finish fallback session=nil " + outcome.replacingOccurrences(of: "STEP", with: "partner profile request")])
        }
        // A provider only in the platform picker goes on silently, whatever Adobe answered.
        var picker = exchange("Spectrum")
        _ = picker.start()
        #expect(
            LoginTrace.lines(picker.partnerRequestAnswered(.failure(F.failure(.http(status: 503)))))
                == ["finish fallback session=nil silent"])
        // Not the partner step's own failure: the login ends (or stalls, cancelled) as any would.
        let ending: [(CallFailure, String)] = [
            (
                F.failure(.registration(code: "invalid_software_statement", httpStatus: 400), stage: .registration),
                "registration invalid_software_statement"
            ),
            (F.failure(.http(status: 503), stage: .accessToken), "accessToken http_503"),
            (F.failure(.transport(.tls(TLSFailure(.certificateUntrusted, "x")))), "call network_error"),
            (F.failure(.transport(.cancelled)), "call request_cancelled"),
        ]
        for (failure, line) in ending {
            var flow = exchange()
            _ = flow.start()
            #expect(LoginTrace.lines(flow.partnerRequestAnswered(.failure(failure))) == ["finish failed " + line])
        }
    }

    /// Adobe's fallbacks and the SDK's own get seed 003's one code: N004 when single sign-on is not
    /// available for the provider, VSA503 (context in the message, reason in details) otherwise,
    /// none for a provider only in the platform picker.
    @Test func fallbacksGetOneAdvancedCode() throws {
        let session = try F.session(#"{"actionName":"authenticate","reasonType":"pfs_fallback","code":"FB1"}"#)
        let vsa503 = "VSA503/info The platform's TV provider account could not be used"
        let cases: [(String, PartnerFallback, String)] = [
            (
                "Comcast", PartnerFallback(session: session, reason: "pfs_fallback"),
                "fallback session=FB1 \(vsa503) (Adobe did not accept the platform's status); log in with the provider instead. details=pfs_fallback"
            ),
            (
                "Comcast", PartnerFallback(session: session, reason: "missing_parameters_fallback"),
                "fallback session=FB1 \(vsa503) (Adobe asked for parameters of the regular login); log in with the provider instead. details=missing_parameters_fallback"
            ),
            (
                "Comcast", PartnerFallback(session: session, reason: "configuration_fallback"),
                "fallback session=FB1 N004/info Single sign-on through the platform is not available for Comcast TV with this app. details=configuration_fallback"
            ),
            (
                "Comcast", PartnerFallback(reason: "profile_request_refused"),
                "fallback session=nil N004/info Single sign-on through the platform is not available for Comcast TV with this app. details=profile_request_refused"
            ),
            (
                "Comcast",
                PartnerFallback(
                    reason: "unsupported_authentication_request",
                    context: "Adobe asked for a oauth authentication request, not SAML"),
                "fallback session=nil \(vsa503) (Adobe asked for a oauth authentication request, not SAML); log in with the provider instead. details=unsupported_authentication_request"
            ),
            (
                "Comcast", PartnerFallback(reason: "something_new"),
                "fallback session=nil \(vsa503) (Adobe answered something_new); log in with the provider instead. details=something_new"
            ),
            ("Comcast", PartnerFallback(reason: nil), "fallback session=nil \(vsa503); log in with the provider instead."),
            ("Spectrum", PartnerFallback(session: session, reason: "pfs_fallback"), "fallback session=FB1 silent"),
            ("Spectrum", PartnerFallback(reason: nil), "fallback session=nil silent"),
        ]
        for (mvpd, fallback, outcome) in cases {
            var flow = exchange(mvpd)
            _ = flow.start()
            #expect(LoginTrace.lines(flow.partnerRequestAnswered(.success(.fallback(fallback)))) == ["finish " + outcome])
        }
    }

    /// isInterruptionAllowed: V2 after the picker (interactive, allowed) only; V1 never; the
    /// silent exchange never. Timeouts: the host's, else 60 s / 10 s, within 1 ms … 10 min.
    @Test func theSAMLRequestInterruptsOnlyWhenInteractiveAndAllowed() {
        let cases: [(Bool, Bool, Int?, String)] = [
            (true, true, nil, "interruption: true, attributes: userID,zip, token: REQ, channel: \(F.channel)) 60000ms"),
            (true, false, nil, "interruption: false, attributes: userID,zip, token: REQ, channel: \(F.channel)) 60000ms"),
            (false, true, nil, "interruption: false, attributes: userID,zip, token: REQ, channel: \(F.channel)) 10000ms"),
            (false, true, 5_000, "interruption: false, attributes: userID,zip, token: REQ, channel: \(F.channel)) 5000ms"),
            (true, true, 0, "interruption: true, attributes: userID,zip, token: REQ, channel: \(F.channel)) 1ms"),
            (true, true, 10_000_000, "interruption: true, attributes: userID,zip, token: REQ, channel: \(F.channel)) 600000ms"),
        ]
        for (interactive, allowed, timeout, line) in cases {
            var flow = exchange(interactive: interactive, timeout: timeout)
            _ = flow.start()
            var request = saml
            request.allowsInterruption = allowed
            #expect(LoginTrace.lines(flow.partnerRequestAnswered(.success(.samlRequest(request)))) == ["ask metadata(" + line])
        }
    }

    @Test func thePlatformFailingOrGivingNoSAMLIsAPartnerFailure() {
        for (answer, outcome) in [
            (Result<PartnerMetadata, PartnerError>.failure(PartnerError(.userCancelled)), "partnerFailed userCancelled"),
            (.failure(PartnerError(.timeout, detail: "no reply in 60000 ms")), "partnerFailed timeout: no reply in 60000 ms"),
            (
                .success(PartnerMetadata(accountProviderIdentifier: "comcast-id")),
                "partnerFailed failed: the platform returned no SAML response"
            ),
            (.success(PartnerMetadata(samlAttributeQueryResponse: "")), "partnerFailed failed: the platform returned no SAML response"),
        ] {
            var flow = askingForSAML()
            #expect(LoginTrace.lines(flow.samlAnswered(answer, now: F.now)) == ["finish " + outcome])
        }
    }

    /// The platform's answer must still be usable and still be the MVPD's (V2 C.10–12, V1 step 7).
    @Test func theRecheckFallsBackWithVSA503() {
        let prefix = "finish fallback session=nil VSA503/info The platform's TV provider account could not be used ("
        let suffix = "); log in with the provider instead. details=platform_answer_unusable"
        let cases: [(PartnerMetadata, String)] = [
            (
                PartnerMetadata(accountProviderIdentifier: "spectrum-id", samlAttributeQueryResponse: "<S/>"),
                "the platform answered for provider spectrum-id, not Comcast"
            ),
            (
                PartnerMetadata(accountProviderIdentifier: "other-id", samlAttributeQueryResponse: "<S/>"),
                "after the SAML step, provider other-id is not in the configuration"
            ),
            (
                PartnerMetadata(authenticationExpirationDate: F.now, samlAttributeQueryResponse: "<S/>"),
                "after the SAML step, the provider authentication expired"
            ),
        ]
        for (metadata, context) in cases {
            var flow = askingForSAML()
            #expect(LoginTrace.lines(flow.samlAnswered(.success(metadata), now: F.now)) == [prefix + context + suffix])
        }
        // An answer without provider or expiry keeps the status the exchange started with.
        var flow = askingForSAML()
        #expect(
            LoginTrace.lines(flow.samlAnswered(.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>")), now: F.now))
                == ["cache granted comcast-id \(F.far)", "request partnerProfile Comcast <S/> \(status.headerValue)"])
    }

    @Test func adobeRefusingTheSAMLFallsBack() {
        var refused = askingForSAML()
        _ = refused.samlAnswered(.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>")), now: F.now)
        #expect(
            LoginTrace.lines(
                refused.partnerProfileAnswered(
                    .success(
                        .fallback(
                            PartnerFallback(
                                reason: "invalid_parameter_saml_response",
                                context: "Adobe refused the platform's SAML response (HTTP 400, invalid_parameter_saml_response)")))))
                == [
                    "finish fallback session=nil VSA503/info The platform's TV provider account could not be used (Adobe refused "
                        + "the platform's SAML response (HTTP 400, invalid_parameter_saml_response)); log in with the provider instead. "
                        + "details=invalid_parameter_saml_response"
                ])
        var v1 = askingForSAML()
        _ = v1.samlAnswered(.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>")), now: F.now)
        #expect(
            LoginTrace.lines(v1.partnerProfileAnswered(.success(.fallback(PartnerFallback(reason: "token_exchange_refused")))))
                == [
                    "finish fallback session=nil VSA503/info The platform's TV provider account could not be used (Adobe refused "
                        + "the platform's SAML response); log in with the provider instead. details=token_exchange_refused"
                ])
        var failing = askingForSAML()
        _ = failing.samlAnswered(.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>")), now: F.now)
        #expect(
            LoginTrace.lines(failing.partnerProfileAnswered(.failure(F.failure(.malformed(operation: "tokens/authn", detail: "x")))))
                == [
                    "finish fallback session=nil VSA503/info The platform's TV provider account could not be used (Adobe's "
                        + "partner profile request failed (an answer that cannot be read: x)); log in with the provider instead. "
                        + "details=server_response_format_unknown"
                ])
    }

    /// Every state × every event that does not belong to it: no actions.
    @Test func eventsOutOfTurnChangeNothing() {
        let profile = Result<PartnerRequestAnswer, CallFailure>.success(.profile(F.profile("Comcast")))
        let exchanged = Result<PartnerProfileAnswer, CallFailure>.success(.profile(F.profile("Comcast")))
        let platform = Result<PartnerMetadata, PartnerError>.success(PartnerMetadata(samlAttributeQueryResponse: "<S/>"))
        var initial = exchange()
        #expect(initial.partnerRequestAnswered(profile).isEmpty)
        #expect(initial.samlAnswered(platform, now: F.now).isEmpty)
        #expect(initial.partnerProfileAnswered(exchanged).isEmpty)
        var requesting = exchange()
        _ = requesting.start()
        #expect(requesting.samlAnswered(platform, now: F.now).isEmpty)
        #expect(requesting.partnerProfileAnswered(exchanged).isEmpty)
        var asking = askingForSAML()
        #expect(asking.start().isEmpty)
        #expect(asking.partnerRequestAnswered(profile).isEmpty)
        #expect(asking.partnerProfileAnswered(exchanged).isEmpty)
        var exchanging = askingForSAML()
        _ = exchanging.samlAnswered(platform, now: F.now)
        #expect(exchanging.partnerRequestAnswered(profile).isEmpty)
        #expect(exchanging.samlAnswered(platform, now: F.now).isEmpty)
        var finished = exchanging
        _ = finished.partnerProfileAnswered(exchanged)
        #expect(finished.start().isEmpty && finished.partnerRequestAnswered(profile).isEmpty)
        #expect(finished.samlAnswered(platform, now: F.now).isEmpty && finished.partnerProfileAnswered(exchanged).isEmpty)
        #expect(!exchanging.isFinished && finished.isFinished)
    }

    /// setRequestor's silent exchange: only for a provider of the configuration with platform
    /// services; its outcome is saved or logged, never shown.
    @Test func theSilentExchange() throws {
        let flow = try #require(
            PartnerExchangeFlow.silent(
                status: status, configuration: F.partnerConfiguration,
                channelIdentifier: F.channel, partnerTimeoutMillis: nil))
        #expect(flow.mvpd.id == "Comcast" && !flow.interactive)
        var unknown = status
        unknown.providerID = "other-id"
        #expect(
            PartnerExchangeFlow.silent(
                status: unknown, configuration: F.partnerConfiguration, channelIdentifier: F.channel,
                partnerTimeoutMillis: nil) == nil)
        var disabled = F.partnerConfiguration
        disabled.mvpds[1].enablePlatformServices = false
        #expect(
            PartnerExchangeFlow.silent(
                status: status, configuration: disabled, channelIdentifier: F.channel,
                partnerTimeoutMillis: nil) == nil)

        let session = try F.session(#"{"actionName":"authenticate","reasonType":"pfs_fallback","code":"FB1"}"#)
        let reports: [(PartnerExchangeFlow.Outcome, Bool, LogLevel, String)] = [
            (.profile(F.profile("Comcast", type: "appleSSO")), true, .info, "partner account exchanged for a profile of Comcast"),
            (.fallback(session, status: nil), false, .info, "silent partner exchange fell back (pfs_fallback)"),
            (
                .fallback(nil, status: AdvancedStatus("N004", .info, "x", details: "profile_request_refused")), false, .info,
                "silent partner exchange fell back (profile_request_refused)"
            ),
            (.fallback(nil, status: nil), false, .info, "silent partner exchange fell back (not onboarded)"),
            (.partnerFailed(PartnerError(.timeout)), false, .warning, "silent partner exchange: partner failed (timeout)"),
            (.failed(F.failure(.http(status: 503))), false, .warning, "silent partner exchange failed (http_503)"),
        ]
        for (outcome, saved, level, message) in reports {
            let report = PartnerExchangeFlow.silentReport(outcome)
            #expect((report.save != nil) == saved && report.level == level && report.message == message)
        }
    }
}
