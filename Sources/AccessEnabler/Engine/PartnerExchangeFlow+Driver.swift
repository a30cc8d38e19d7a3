// SPDX-License-Identifier: Apache-2.0

/// The driver of setRequestor's silent partner exchange (PartnerExchangeFlow): one request or
/// question at a time, awaited in order (no callback of its own; setRequestor waits for it).
extension Engine {
    /// setRequestor's silent exchange (iOS cookbook step 2): no callback of its own; a fallback
    /// is simply dropped (the viewer logs in later with getAuthentication).
    func silentPartnerExchange(_ status: PartnerStatus) async {
        guard let requestor,
            var flow = PartnerExchangeFlow.silent(
                status: status, configuration: requestor.configuration, channelIdentifier: channelIdentifier,
                partnerTimeoutMillis: settings.partner?.timeoutMillis)
        else { return }
        var actions = flow.start()
        while !actions.isEmpty {
            var next: [PartnerExchangeFlow.Action] = []
            for action in actions {
                switch action {
                case .request(let request):
                    switch await requestor.backend.perform(request) {
                    case .partnerRequest(let result): next += flow.partnerRequestAnswered(result)
                    case .partnerProfile(let result): next += flow.partnerProfileAnswered(result)
                    default: break
                    }
                case .askPartner(let question, let timeoutMillis):
                    if case .metadata(let result) = await askPartner(question, timeoutMillis: timeoutMillis) {
                        next += flow.samlAnswered(result, now: clock.nowMillis())
                    }
                case .cachePartnerStatus(let latest):
                    partnerCache = (latest, clock.nowMillis())
                case .finish(let outcome):
                    let report = PartnerExchangeFlow.silentReport(outcome)
                    if let profile = report.save { saveProfile(profile) }
                    logger.log(report.level, report.message)
                }
            }
            actions = next
        }
    }
}
