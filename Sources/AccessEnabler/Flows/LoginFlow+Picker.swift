// SPDX-License-Identifier: Apache-2.0

/// getAuthentication with the platform picker (asked by LoginFlow+Driver.swift's `askPartner`):
/// the permission (prompt), the picker (present / dismiss_tv_provider_dialog),
/// the partner exchange for the platform's choice, and the fallbacks to the provider dialog with
/// exactly one advanced code (VSA403, VSA404, VSA503, N003, N004, N005).
extension LoginFlow {
    /// The platform's reply to partner request `operation`; `now`: when it came. A reply for any
    /// other operation than the one the login waits for is late: no actions.
    mutating func partnerAnswered(_ operation: LoginOperation, _ answer: PartnerAnswer, now: Int64) -> [Action] {
        guard let step = login?.step, step.operation == operation else { return [] }
        switch (step, answer) {
        case (.askingPermission(_, let picker), .access(let result)):
            return permissionAnswered(picker, result)
        case (.picking(_, let picker, let access, let dialog), .metadata(let result)):
            // The picker is over, whatever its answer.
            return [emit(.dismissTvProviderDialog(dialog), to: waiters)] + picked(picker, access: access, result, now: now)
        case (.exchanging(_, var exchange, let partnerStatus), .metadata(let result)):
            let actions = exchange.samlAnswered(result, now: now)
            return follow(exchange, partnerStatus: partnerStatus, actions)
        default:
            assertionFailure("partner answer \(answer) does not fit the step waiting for \(operation)")
            return []
        }
    }

    private var partnerTimeoutMillis: Int {
        PartnerExchangeFlow.timeoutMillis(configured: settings.partner?.timeoutMillis, interactive: true)
    }

    private mutating func permissionAnswered(_ picker: Picker, _ result: Result<PartnerAccess, PartnerError>) -> [Action] {
        let access: PartnerAccess
        switch result {
        case .failure(let error):
            return fallBack(
                PartnerExchangeFlow.vsa503(
                    "The partner framework failed", context: error.summary,
                    details: error.summary))
        case .success(let answer):
            access = answer
        }
        guard access.status == .granted else { return fallBack(PartnerExchangeFlow.accessStatus(access.status)) }
        let providers = picker.configuration.pickerProviders(filter: picker.filter)
        let dialog: JSONValue = [
            "partner": .string(settings.partner?.name ?? "Apple"),
            "supportedAccountProviderIdentifiers": .array(providers.supported.map { .string($0) }),
            "featuredAccountProviderIdentifiers": .array(providers.featured.map { .string($0) }),
        ]
        var request = PartnerMetadataRequest(
            channelIdentifier: requestor?.channelIdentifier ?? "",
            isInterruptionAllowed: true)
        request.supportedAccountProviderIdentifiers = providers.supported
        request.featuredAccountProviderIdentifiers = providers.featured
        let operation = newOperation()
        login?.step = .picking(operation, picker, access: access, dialog: dialog)
        return [
            emit(.presentTvProviderDialog(dialog), to: waiters),
            .askPartner(operation, .metadata(request), timeoutMillis: partnerTimeoutMillis),
        ]
    }

    /// The platform's choice: a provider of this requestor whose account is usable goes through the
    /// partner exchange; anything else falls back to the provider dialog.
    private mutating func picked(
        _ picker: Picker, access: PartnerAccess, _ result: Result<PartnerMetadata, PartnerError>,
        now: Int64
    ) -> [Action] {
        let metadata: PartnerMetadata
        switch result {
        case .failure(let error):
            guard let status = PartnerExchangeFlow.pickerFailure(error) else {
                // In the platform picker but not onboarded: select it silently, no code of our own.
                guard let id = error.detail, let mvpd = picker.configuration.mvpd(platformMappingID: id) else {
                    return fallBack(PartnerExchangeFlow.pickedProviderUnsupported(error.detail))
                }
                login?.mvpd = mvpd.id
                return [.storeSelectedMVPD(mvpd.id), .emit(Emission(settings.tracking.selection(mvpd.id)))]
                    + startCodeLogin(mvpd, continuing: nil)
            }
            return fallBack(status)
        case .success(let answer):
            metadata = answer
        }
        let status = PartnerStatus(
            access: access, providerID: metadata.accountProviderIdentifier,
            expirationDate: metadata.authenticationExpirationDate)
        guard metadata.accountProviderIdentifier != nil else {
            return fallBack(
                PartnerExchangeFlow.vsa503(
                    "The platform's account request failed",
                    context: "the platform returned no TV provider", details: nil))
        }
        guard let mvpd = status.mvpd(in: picker.configuration) else {
            return fallBack(PartnerExchangeFlow.pickedProviderUnsupported(metadata.accountProviderIdentifier))
        }
        if let problem = status.problem(at: now, configuration: picker.configuration) {
            return fallBack(
                PartnerExchangeFlow.vsa503(
                    "The platform's TV provider account could not be used",
                    context: problem, details: nil))
        }
        // The platform picker's choice is the viewer's selection, whichever way the login goes on
        // (single sign-on, or the regular flow of a provider only in the picker).
        login?.mvpd = mvpd.id
        var exchange = PartnerExchangeFlow(
            mvpd: mvpd, status: status, interactive: true,
            configuration: requestor?.configuration ?? picker.configuration,
            channelIdentifier: requestor?.channelIdentifier ?? "",
            partnerTimeoutMillis: settings.partner?.timeoutMillis)
        let actions = exchange.start()
        return [.cachePartnerStatus(status), .storeSelectedMVPD(mvpd.id), .emit(Emission(settings.tracking.selection(mvpd.id)))]
            + follow(exchange, partnerStatus: status.headerValue, actions)
    }

    /// Runs the exchange's actions: its operations become the login's, its outcome ends the
    /// login or goes on with the regular flow.
    mutating func follow(
        _ exchange: PartnerExchangeFlow, partnerStatus: String,
        _ actions: [PartnerExchangeFlow.Action]
    ) -> [Action] {
        var result: [Action] = []
        for action in actions {
            switch action {
            case .request(let request):
                let operation = newOperation()
                login?.step = .exchanging(operation, exchange, partnerStatus: partnerStatus)
                result.append(.request(operation, request))
            case .askPartner(let question, let timeout):
                let operation = newOperation()
                login?.step = .exchanging(operation, exchange, partnerStatus: partnerStatus)
                result.append(.askPartner(operation, question, timeoutMillis: timeout))
            case .cachePartnerStatus(let status):
                result.append(.cachePartnerStatus(status))
            case .finish(let outcome):
                result += exchanged(exchange.mvpd, outcome, partnerStatus: partnerStatus)
            }
        }
        return result
    }

    private mutating func exchanged(_ mvpd: MVPD, _ outcome: PartnerExchangeFlow.Outcome, partnerStatus: String) -> [Action] {
        switch outcome {
        case .profile(let profile):
            return complete(profile)
        case .fallback(let session, nil):
            // In the platform's picker, not onboarded: the regular flow for it, silently (seed 003
            // step 4), with the code and URL Adobe's answer already carries (V2) or a code of its own.
            return startCodeLogin(
                mvpd,
                continuing: session.map {
                    CodeLoginContinuation(
                        .asIs, session: $0,
                        partnerStatus: partnerStatus)
                })
        case .fallback(let session, let status?):
            // The provider dialog with one code; the selection reuses Adobe's session (no second one).
            login?.fallback = session.map {
                CodeLoginContinuation(
                    .afterProviderDialog, session: $0,
                    partnerStatus: partnerStatus)
            }
            return fallBack(status)
        case .partnerFailed(let error):
            return fallBack(
                PartnerExchangeFlow.vsa503(
                    "The platform could not complete the login",
                    context: error.summary, details: error.summary))
        case .failed(let failure):
            if failure.isCancellation { return stall() }
            return fail(StatusCatalog.loginFailure(failure, creatingSession: true))
        }
    }

    /// Back to the regular flow: exactly one advanced code, then the provider dialog.
    private mutating func fallBack(_ status: AdvancedStatus) -> [Action] {
        guard let login else { return [] }
        self.login?.step = .choosingProvider
        return [
            emit(.status(status), to: login.waiters),
            emit(.displayProviderDialog(requestor?.configuration.mvpds ?? []), to: login.waiters),
        ]
    }
}
