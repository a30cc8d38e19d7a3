// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import AccessEnabler

/// getAuthentication with the platform picker (LoginFlow+Driver.swift's `askPartner`): the permission,
/// the picker, the exchange of the platform's choice, and the fallbacks to the provider dialog
/// with exactly one advanced code (test_partner.py and test_partner_edges.py show the same end to end).
struct LoginFlowPickerTests {
    typealias F = LoginFixtures
    let dialog =
        #"{"featuredAccountProviderIdentifiers":[],"partner":"Apple","supportedAccountProviderIdentifiers":["comcast-id","spectrum-id"]}"#
    var picker: String {
        "ask 2 metadata(interruption: true, supported: comcast-id,spectrum-id, channel: \(F.channel)) 60000ms"
    }
    let providerDialog = "emit [1] dialog[Cablevision,Comcast,Spectrum]"
    let chosen = PartnerStatus(access: PartnerAccess(.granted), providerID: "comcast-id", expirationDate: LoginFixtures.far)

    /// Call 1 waits; the picker is shown (operation 2).
    func picking(filter: JSONValue? = nil) -> LoginFlow {
        var flow = F.flow(partner: true)
        _ = flow.getAuthentication(F.call(1), force: false, data: nil, filter: filter, current: nil, expiredTempPassMVPD: nil)
        _ = flow.partnerAnswered(F.op(1), .access(.success(PartnerAccess(.granted))), now: F.now)
        return flow
    }

    /// The platform chose Comcast; partnerRequest is operation 3.
    func exchanging() -> LoginFlow {
        var flow = picking()
        _ = flow.partnerAnswered(
            F.op(2),
            .metadata(
                .success(
                    PartnerMetadata(
                        accountProviderIdentifier: "comcast-id",
                        authenticationExpirationDate: F.far))), now: F.now)
        return flow
    }

    @Test func thePickersChoiceIsExchangedForAPartnerProfile() {
        var flow = F.flow(partner: true)
        #expect(
            LoginTrace.lines(
                flow.getAuthentication(
                    F.call(1), force: false, data: nil, filter: nil, current: nil,
                    expiredTempPassMVPD: nil))
                == ["ask 1 accessStatus(prompt: true) 60000ms"])
        #expect(
            LoginTrace.lines(flow.partnerAnswered(F.op(1), .access(.success(PartnerAccess(.granted))), now: F.now))
                == ["emit [1] present \(dialog)", picker])
        #expect(
            LoginTrace.lines(
                flow.partnerAnswered(
                    F.op(2),
                    .metadata(
                        .success(
                            PartnerMetadata(
                                accountProviderIdentifier: "comcast-id", authenticationExpirationDate: F.far))), now: F.now))
                == [
                    "emit [1] dismiss \(dialog)", "cache granted comcast-id \(F.far)", "select Comcast", F.selection("Comcast"),
                    "request 3 partnerRequest Comcast \(chosen.headerValue)",
                ])
        let saml = SAMLRequest(verificationToken: "REQ", attributeNames: ["userID"], allowsInterruption: true)
        #expect(
            LoginTrace.lines(flow.answered(F.op(3), .partnerRequest(.success(.samlRequest(saml))), now: F.now))
                == ["ask 4 metadata(interruption: true, attributes: userID, token: REQ, channel: \(F.channel)) 60000ms"])
        #expect(
            LoginTrace.lines(
                flow.partnerAnswered(
                    F.op(4),
                    .metadata(
                        .success(
                            PartnerMetadata(
                                accountProviderIdentifier: "comcast-id", samlAttributeQueryResponse: "<S/>"))), now: F.now))
                == ["cache granted comcast-id \(F.far)", "request 5 partnerProfile Comcast <S/> \(chosen.headerValue)"])
        let profile = F.profile("Comcast", type: "appleSSO")
        #expect(
            LoginTrace.lines(flow.answered(F.op(5), .partnerProfile(.success(.profile(profile))), now: F.now))
                == ["save Comcast appleSSO", "end 1 authenticated(1, ) ← -", F.authN(true, profile)])
    }

    @Test func theHostsFilterShapesThePickerOrLeavesTheProviderDialog() {
        var filtered = F.flow(partner: true)
        _ = filtered.getAuthentication(
            F.call(1), force: false, data: nil,
            filter: ["TV_PROVIDERS": ["Spectrum", "Comcast"], "FEATURED_TV_PROVIDERS": ["Comcast"]],
            current: nil, expiredTempPassMVPD: nil)
        #expect(
            LoginTrace.lines(filtered.partnerAnswered(F.op(1), .access(.success(PartnerAccess(.granted))), now: F.now))
                == [
                    #"emit [1] present {"featuredAccountProviderIdentifiers":["comcast-id"],"partner":"Apple","supportedAccountProviderIdentifiers":["spectrum-id","comcast-id"]}"#,
                    "ask 2 metadata(interruption: true, supported: spectrum-id,comcast-id, featured: comcast-id, channel: \(F.channel)) 60000ms",
                ])
        // No SSO provider left by the filter, none in the configuration, or no partner: the dialog.
        var noneKept = F.flow(partner: true)
        #expect(
            LoginTrace.lines(noneKept.join(.authentication(F.call(1)), filter: ["TV_PROVIDERS": ["Cablevision"]]))
                == [providerDialog])
        var noneConfigured = F.flow(partner: true, configuration: F.configuration)
        #expect(
            LoginTrace.lines(noneConfigured.join(.authentication(F.call(1))))
                == ["emit [1] dialog[Cablevision,Dish,TempPass_TEST40]"])
        var noPartner = F.flow(configuration: F.partnerConfiguration)
        #expect(LoginTrace.lines(noPartner.join(.authentication(F.call(1)))) == [providerDialog])
    }

    @Test func withoutPermissionTheProviderDialogComesWithVSA403VSA404OrVSA503() {
        let cases: [(Result<PartnerAccess, PartnerError>, String)] = [
            (
                .success(PartnerAccess(.denied, signIn: .signedOut)),
                "VSA403/info The viewer denied this app access to the TV provider account."
            ),
            (.success(PartnerAccess(.restricted)), "VSA403/info The viewer denied this app access to the TV provider account."),
            (
                .success(PartnerAccess(.notDetermined)),
                "VSA404/info The viewer has not decided on this app's access to the TV provider account."
            ),
            (
                .failure(PartnerError(.timeout, detail: "no reply in 60000 ms")),
                "VSA503/info The partner framework failed (timeout: no reply in 60000 ms); log in with the provider instead. "
                    + "details=timeout: no reply in 60000 ms"
            ),
        ]
        for (answer, status) in cases {
            var flow = F.flow(partner: true)
            _ = flow.join(.authentication(F.call(1)))
            #expect(
                LoginTrace.lines(flow.partnerAnswered(F.op(1), .access(answer), now: F.now))
                    == ["emit [1] status " + status, providerDialog])
            #expect(
                LoginTrace.lines(flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now))
                    == ["select Cablevision", F.selection("Cablevision"), "request 2 startCodeLogin Cablevision"])
        }
    }

    @Test func thePickersFailuresFallBackWithOneCode() {
        let vsa503 = "VSA503/info The platform's account request failed"
        let cases: [(PartnerError, String)] = [
            (PartnerError(.userCancelled), "N005/info The platform's provider picker was cancelled."),
            (PartnerError(.otherProvider), "N003/info The viewer chose another TV provider in the platform picker."),
            (PartnerError(.accessNotGranted), "VSA403/info The viewer denied this app access to the TV provider account."),
            (
                PartnerError(.serviceUnavailable),
                "\(vsa503) (serviceUnavailable); log in with the provider instead. details=serviceUnavailable"
            ),
            (PartnerError(.rejected, detail: "no"), "\(vsa503) (rejected: no); log in with the provider instead. details=rejected: no"),
            (PartnerError(.timeout), "\(vsa503) (timeout); log in with the provider instead. details=timeout"),
            (
                PartnerError(.unsupportedProvider, detail: "nope-id"),
                "N004/info The TV provider chosen in the platform picker is not supported by this requestor. details=nope-id"
            ),
            (
                PartnerError(.unsupportedProvider),
                "N004/info The TV provider chosen in the platform picker is not supported by this requestor."
            ),
        ]
        for (error, status) in cases {
            var flow = picking()
            #expect(
                LoginTrace.lines(flow.partnerAnswered(F.op(2), .metadata(.failure(error)), now: F.now))
                    == ["emit [1] dismiss \(dialog)", "emit [1] status " + status, providerDialog])
        }
    }

    /// Issue 28 item 10: a platform that gives no authentication expiry still signs in through the
    /// partner exchange (V2 cookbook C.4: the expiry "if any"); the header goes without `expirationDate`.
    @Test func aChoiceWithoutAnExpiryIsExchanged() {
        var flow = picking()
        let noExpiry = PartnerStatus(access: PartnerAccess(.granted), providerID: "comcast-id")
        #expect(
            LoginTrace.lines(
                flow.partnerAnswered(F.op(2), .metadata(.success(PartnerMetadata(accountProviderIdentifier: "comcast-id"))), now: F.now))
                == [
                    "emit [1] dismiss \(dialog)", "cache granted comcast-id nil", "select Comcast", F.selection("Comcast"),
                    "request 3 partnerRequest Comcast \(noExpiry.headerValue)",
                ])
    }

    /// In the platform's picker but not onboarded: selected silently, no code of our own.
    @Test func anUnsupportedProviderOfThePickerIsSelectedSilently() {
        var flow = picking()
        #expect(
            LoginTrace.lines(
                flow.partnerAnswered(
                    F.op(2),
                    .metadata(
                        .failure(
                            PartnerError(
                                .unsupportedProvider,
                                detail: "spectrum-id"))), now: F.now))
                == ["emit [1] dismiss \(dialog)", "select Spectrum", F.selection("Spectrum"), "request 3 startCodeLogin Spectrum"])
    }

    @Test func anUnusableChoiceFallsBack() {
        let cases: [(PartnerMetadata, String)] = [
            (
                PartnerMetadata(authenticationExpirationDate: F.far),
                "VSA503/info The platform's account request failed (the platform returned no TV provider); log in with the provider instead."
            ),
            (
                PartnerMetadata(accountProviderIdentifier: "nope-id", authenticationExpirationDate: F.far),
                "N004/info The TV provider chosen in the platform picker is not supported by this requestor. details=nope-id"
            ),
            (
                PartnerMetadata(accountProviderIdentifier: "comcast-id", authenticationExpirationDate: F.now),
                "VSA503/info The platform's TV provider account could not be used (the provider authentication expired); log in with the provider instead."
            ),
        ]
        for (metadata, status) in cases {
            var flow = picking()
            #expect(
                LoginTrace.lines(flow.partnerAnswered(F.op(2), .metadata(.success(metadata)), now: F.now))
                    == ["emit [1] dismiss \(dialog)", "emit [1] status " + status, providerDialog])
        }
    }

    /// Adobe's fallback: the dialog with one code, then the selection goes on with Adobe's session
    /// (once; whichever MVPD: the backend opens a new session for another MVPD).
    @Test func aFallbackSessionIsReusedByTheNextSelection() throws {
        var flow = exchanging()
        let session = try F.session(#"{"actionName":"authenticate","reasonType":"pfs_fallback","code":"FB1"}"#)
        #expect(
            LoginTrace.lines(
                flow.answered(
                    F.op(3),
                    .partnerRequest(
                        .success(
                            .fallback(
                                PartnerFallback(
                                    session: session,
                                    reason: "pfs_fallback")))), now: F.now))
                == [
                    "emit [1] status VSA503/info The platform's TV provider account could not be used (Adobe did not accept the "
                        + "platform's status); log in with the provider instead. details=pfs_fallback", providerDialog,
                ])
        let actions = flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now)
        #expect(
            LoginTrace.lines(actions) == [
                "select Cablevision", F.selection("Cablevision"),
                "request 4 startCodeLogin Cablevision continuing afterProviderDialog FB1",
            ])
        guard case .request(_, .startCodeLogin(_, let continuing?))? = actions.last else {
            Issue.record("no continuation")
            return
        }
        #expect(continuing.partnerStatus == chosen.headerValue)
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(3), "Comcast", stored: [], now: F.now))
                == ["select Comcast", F.selection("Comcast"), "cancel 4", "request 5 startCodeLogin Comcast"])
    }

    /// A provider only in the platform picker (boardingStatus PICKER) goes on with the regular
    /// flow silently: on Adobe's session as it is (V2), or a code of its own (V1).
    @Test func aPickerOnlyProviderGoesOnSilently() throws {
        let session = try F.session(#"{"actionName":"authenticate","reasonType":"pfs_fallback","code":"FB1"}"#)
        for (fallback, request) in [
            (
                PartnerFallback(session: session, reason: "pfs_fallback"),
                "request 4 startCodeLogin Spectrum continuing asIs FB1"
            ),
            (PartnerFallback(reason: nil), "request 4 startCodeLogin Spectrum"),
        ] {
            var flow = picking()
            _ = flow.partnerAnswered(
                F.op(2),
                .metadata(
                    .success(
                        PartnerMetadata(
                            accountProviderIdentifier: "spectrum-id",
                            authenticationExpirationDate: F.far))), now: F.now)
            #expect(
                LoginTrace.lines(flow.answered(F.op(3), .partnerRequest(.success(.fallback(fallback))), now: F.now))
                    == [request])
        }
    }

    @Test func theExchangeFailingEndsOrFallsBack() {
        var platform = exchanging()
        _ = platform.answered(
            F.op(3),
            .partnerRequest(
                .success(
                    .samlRequest(
                        SAMLRequest(
                            verificationToken: "REQ", attributeNames: [], allowsInterruption: true)))), now: F.now)
        #expect(
            LoginTrace.lines(platform.partnerAnswered(F.op(4), .metadata(.failure(PartnerError(.userCancelled))), now: F.now))
                == [
                    "emit [1] status VSA503/info The platform could not complete the login (userCancelled); log in with the "
                        + "provider instead. details=userCancelled", providerDialog,
                ])
        // Adobe failing after the picker: the regular flow with one code (issue 28 item 9), not REG500.
        var adobe = exchanging()
        #expect(
            LoginTrace.lines(adobe.answered(F.op(3), .partnerRequest(.failure(F.failure(.transport(.timedOut)))), now: F.now))
                == [
                    "emit [1] status VSA503/info The platform's TV provider account could not be used (Adobe's partner "
                        + "authentication request failed (timed out)); log in with the provider instead. details=network_error",
                    providerDialog,
                ])
        #expect(adobe.isLoginInProgress)
        var disabled = exchanging()
        #expect(
            LoginTrace.lines(
                disabled.answered(F.op(3), .partnerRequest(.failure(F.failure(F.enhanced("invalid_integration", status: 400)))), now: F.now)
            )
                == [
                    "emit [1] status N004/info Single sign-on through the platform is not available for Comcast TV with this app. "
                        + "details=invalid_integration", providerDialog,
                ])
        // No access token: the login ends, as any login would.
        var token = exchanging()
        #expect(
            LoginTrace.lines(
                token.answered(F.op(3), .partnerRequest(.failure(F.failure(.http(status: 503), stage: .accessToken))), now: F.now))
                == [
                    "emit [1] status R401/error No access token could be obtained. error=http_503",
                    "end 1 authenticated(0, Generic Authentication Error) ← R401", F.authN(false),
                ])
        var cancelled = exchanging()
        #expect(cancelled.answered(F.op(3), .partnerRequest(.failure(F.failure(.transport(.cancelled)))), now: F.now).isEmpty)
        #expect(cancelled.isLoginInProgress)
    }

    /// Cancelling while the picker shows: the request is cancelled (the platform told), the login
    /// ends, then the picker is dismissed (the engine's picker task did so once cancelled).
    @Test func cancellingThePickerDismissesItLast() {
        var flow = picking()
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), nil, stored: [], now: F.now))
                == [
                    "select nil", "cancel 2", "emit [1] status N005/info The MVPD selection was cancelled.",
                    "end 1 authenticated(0, Provider Not Selected Error) ← N005", F.authN(false), "emit [] dismiss \(dialog)",
                ])
        #expect(flow.partnerAnswered(F.op(2), .metadata(.failure(PartnerError(.failed, detail: "cancelled"))), now: F.now).isEmpty)

        var replaced = picking()
        #expect(
            LoginTrace.lines(replaced.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now))
                == [
                    "select Cablevision", F.selection("Cablevision"), "cancel 2", "request 3 startCodeLogin Cablevision",
                    "emit [1] dismiss \(dialog)",
                ])
        #expect(
            replaced.partnerAnswered(
                F.op(2),
                .metadata(
                    .success(
                        PartnerMetadata(
                            accountProviderIdentifier: "comcast-id",
                            authenticationExpirationDate: F.far))), now: F.now
            ).isEmpty)

        var destroyed = picking()
        #expect(LoginTrace.lines(destroyed.destroy()) == ["cancel 2"])
    }

    /// The permission request's late answer (the engine sent VSA503 and the dialog even after a
    /// new selection: its cancelled ask still reached partnerFallback) changes nothing.
    @Test func aLatePermissionAnswerChangesNothing() {
        var flow = F.flow(partner: true)
        _ = flow.join(.authentication(F.call(1)))
        #expect(
            LoginTrace.lines(flow.setSelectedProvider(F.call(2), "Cablevision", stored: [], now: F.now))
                == ["select Cablevision", F.selection("Cablevision"), "cancel 1", "request 2 startCodeLogin Cablevision"])
        #expect(flow.partnerAnswered(F.op(1), .access(.failure(PartnerError(.failed, detail: "cancelled"))), now: F.now).isEmpty)
        var logout = F.flow(partner: true)
        _ = logout.join(.authorization(F.call(1), resource: "LIVE"))
        #expect(
            LoginTrace.lines(logout.logout())
                == [
                    "cancel 1", "emit [1] authenticated(0, User Not Authenticated Error)", F.authN(false),
                    "end 1 tokenRequestFailed(LIVE, User Not Authenticated Error, The viewer did not authenticate.) ← -",
                    F.authZFailed,
                ])
    }

    @Test func callsJoiningDuringThePickerHearOfIt() {
        var flow = F.flow(partner: true)
        _ = flow.join(.authentication(F.call(1)))
        #expect(flow.join(.authorization(F.call(2), resource: "LIVE")).isEmpty)
        #expect(
            LoginTrace.lines(flow.partnerAnswered(F.op(1), .access(.success(PartnerAccess(.granted))), now: F.now))
                == ["emit [1,2] present \(dialog)", picker])
        #expect(
            LoginTrace.lines(flow.partnerAnswered(F.op(2), .metadata(.failure(PartnerError(.otherProvider))), now: F.now))
                == [
                    "emit [1,2] dismiss \(dialog)",
                    "emit [1,2] status N003/info The viewer chose another TV provider in the platform picker.",
                    "emit [1,2] dialog[Cablevision,Comcast,Spectrum]",
                ])
    }
}
