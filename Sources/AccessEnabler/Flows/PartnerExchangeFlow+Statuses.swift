// SPDX-License-Identifier: Apache-2.0

/// The advanced codes of partner single sign-on's fallbacks (seed 003, iOS cookbook step 4: the
/// provider dialog comes with exactly one of VSA403, VSA404, VSA503, N003, N004, N005) and the
/// partner's timeouts. Pure.
extension PartnerExchangeFlow {
    /// The longest wait for a partner reply: the host's `timeoutMillis`, else 60 s for a request
    /// that may show UI and 10 s for one that may not; within `Limits.partnerTimeoutMillis`.
    package static func timeoutMillis(configured: Int?, interactive: Bool) -> Int {
        (configured ?? Defaults.partnerTimeoutMillis(interactive: interactive)).clamped(to: Limits.partnerTimeoutMillis)
    }

    /// The advanced code of a fallback for `mvpd` (nil: continue silently). N004 when single
    /// sign-on is not available for the provider (`notSetUp`: Adobe's `configuration_fallback`,
    /// V1's refused profile request, Adobe's errors that say the integration or its partner single
    /// sign-on is not set up); VSA503 when the platform's account could not be used or Adobe
    /// failed, with the context in its `message` (the cookbook: "more context is provided in the
    /// message section") and the reason in `details`. An MVPD in the platform's picker but not
    /// onboarded (`boardingStatus` PICKER) gets none: the regular flow goes on silently with it.
    package static func fallbackStatus(_ mvpd: MVPD, reason: String?, context: String? = nil) -> AdvancedStatus? {
        if mvpd.boardingStatus == "PICKER" { return nil }
        switch reason {
        case let reason? where notSetUp.contains(reason):
            return AdvancedStatus(
                "N004", .info,
                "Single sign-on through the platform is not available for \(mvpd.displayName) "
                    + "with this app.", details: reason)
        default:
            return vsa503(
                "The platform's TV provider account could not be used", context: context ?? reason.map(describe),
                details: reason)
        }
    }

    /// The reasons that mean single sign-on is not set up for the integration (N004, seed 003: "a TV
    /// provider not supported (integration or SSO disabled)"): Adobe's `configuration_fallback`
    /// (sessions/sso), V1's refused profile request, and the errors of sessions/sso and
    /// profiles/sso that say so — `invalid_integration` (the integration is missing or disabled),
    /// `invalid_parameter_partner` (Adobe has no such partner for it), `unknown_integration` (V1's
    /// code of the same), the platform configuration errors `invalid_configuration_platform*` and
    /// `invalid_configuration_mvpd_platform*` (the integration's platform single sign-on is not
    /// configured), and a 404 without a code (no partner endpoint). Every other failure is VSA503.
    static let notSetUp: Set<String> = [
        "configuration_fallback", "profile_request_refused", "invalid_integration", "invalid_parameter_partner",
        "unknown_integration", "invalid_configuration_platform", "invalid_configuration_platform_id",
        "invalid_configuration_platform_trait", "invalid_configuration_platform_category_trait",
        "invalid_configuration_platform_services", "invalid_configuration_mvpd_platform",
        "invalid_configuration_mvpd_platform_boarding_status", "invalid_configuration_mvpd_platform_profile_exchange",
        "http_404",
    ]

    /// VSA503: the platform's account request failed or its account could not be used; `context`
    /// says why (in the message, as the cookbook asks), `details` carries the raw reason.
    package static func vsa503(_ what: String, context: String?, details: String?) -> AdvancedStatus {
        AdvancedStatus(
            "VSA503", .info, what + (context.map { " (\($0))" } ?? "") + "; log in with the provider instead.",
            details: details)
    }

    /// Adobe's fallback reasons in words.
    static func describe(_ reason: String) -> String {
        switch reason {
        case "pfs_fallback": "Adobe did not accept the platform's status"
        case "missing_parameters_fallback": "Adobe asked for parameters of the regular login"
        case "token_exchange_refused": "Adobe refused the platform's SAML response"
        default: "Adobe answered \(reason)"
        }
    }

    /// VSA403: the permission is denied or restricted.
    package static let accessDenied = AdvancedStatus(
        "VSA403", .info,
        "The viewer denied this app access to the TV provider account.")

    /// VSA404: the viewer has not decided on the permission.
    package static let accessNotDetermined = AdvancedStatus(
        "VSA404", .info, "The viewer has not decided on this app's access to the TV provider account.")

    /// The picker's permission answer when it is not `granted` (VSA403 / VSA404).
    package static func accessStatus(_ status: PartnerAccessStatus) -> AdvancedStatus {
        switch status {
        case .notDetermined: accessNotDetermined
        case .denied, .restricted, .granted: accessDenied
        }
    }

    /// N004: the provider the viewer chose in the platform picker is not this requestor's.
    package static func pickedProviderUnsupported(_ detail: String?) -> AdvancedStatus {
        AdvancedStatus(
            "N004", .info, "The TV provider chosen in the platform picker is not supported by this requestor.",
            details: detail)
    }

    /// What the platform picker's failures mean (iOS cookbook step 4); nil for
    /// `unsupportedProvider` (the caller selects the provider or says N004).
    package static func pickerFailure(_ error: PartnerError) -> AdvancedStatus? {
        switch error.code {
        case .unsupportedProvider:
            return nil
        case .userCancelled:
            return AdvancedStatus("N005", .info, "The platform's provider picker was cancelled.")
        case .otherProvider:
            return AdvancedStatus("N003", .info, "The viewer chose another TV provider in the platform picker.")
        case .accessNotGranted:
            return accessDenied
        case .serviceUnavailable, .rejected, .failed, .timeout:
            return vsa503("The platform's account request failed", context: error.summary, details: error.summary)
        }
    }
}
