// SPDX-License-Identifier: Apache-2.0

/// The advanced statuses of temporary access (TempPass) and degraded access — N010, N011, N111,
/// Z010, Z011 (Z169 is an authorization denial, in StatusCatalog.swift) — and what Adobe's
/// TempPass errors mean for the AccessEnabler callbacks. Pure: no state, no I/O.
extension StatusCatalog {
    static var tempPassOverCodes: Set<String> { EnhancedError.tempPassOverCodes }

    /// Adobe's codes for a TempPass that cannot be used any more: its time is up, or (promotional
    /// TempPass) its resources are. Both ask for a new authentication (action `authentication`).
    /// The status that goes with `set_authentication_status(1)` for `profile`: N010 for a degraded
    /// profile (authenticate-all rule), N011 for a TempPass, none for the others.
    package static func authenticated(_ profile: Profile) -> AdvancedStatus? {
        if profile.isDegraded {
            return AdvancedStatus(
                "N010", .warning,
                "Authenticated under an authenticate-all degradation rule "
                    + "(the MVPD's systems are degraded).", extras: ["mvpd": .string(profile.mvpd)])
        }
        if profile.isTemporary {
            return AdvancedStatus(
                "N011", .info, "Authenticated with TempPass.",
                extras: ["mvpd": .string(profile.mvpd), "notAfter": .int(profile.notAfter)])
        }
        return nil
    }

    /// N111: the TempPass expired (its time or, promotional, its resources are used up). `error`:
    /// Adobe's answer when it said so; nil when the stored profile's `notAfter` has passed.
    package static func tempPassExpired(mvpd: String?, _ error: EnhancedError? = nil) -> AdvancedStatus {
        let message =
            error?.code == "temporary_access_resources_limit_exceeded"
            ? "TempPass expired: its resources are used up." : "TempPass expired."
        return AdvancedStatus(
            "N111", .warning, message, extras: mvpd.map { ["mvpd": .string($0)] } ?? [:],
            enhancedError: error)
    }

    /// True when Adobe says the TempPass is over (403 top-level on profiles, item-level on decisions).
    package static func isTempPassOver(_ error: EnhancedError?) -> Bool {
        error?.endsTempPass ?? false
    }

    /// A TempPass login (profiles/{mvpd} of a TempPass MVPD) that failed: N111 with
    /// "User Not Authenticated Error" when the TempPass is over (the viewer is simply not
    /// authenticated any more), else the login failure it is (N500 for Adobe's TempPass
    /// configuration and identity errors, R400/R401 for registration) with "Generic Authentication Error".
    package static func tempPassLoginFailure(_ failure: CallFailure, mvpd: String) -> (AdvancedStatus, code: String) {
        if failure.stage == .call, case .enhanced(let error, _) = failure.error {
            if isTempPassOver(error) {
                return (tempPassExpired(mvpd: mvpd, error), AccessEnablerErrorCode.userNotAuthenticated)
            }
            if error.code == "invalid_header_identity_for_temporary_access" {
                return (
                    AdvancedStatus(
                        "N500", .error,
                        "Promotional TempPass needs the viewer's identity: pass it as "
                            + "getAuthentication's data, e.g. {\"email\": ...}.", enhancedError: error),
                    AccessEnablerErrorCode.genericAuthentication
                )
            }
        }
        return (loginFailure(failure, creatingSession: false), AccessEnablerErrorCode.genericAuthentication)
    }

    /// The status that goes with `set_token` for a permit from `source`: Z010 under a degradation
    /// rule (authenticate-all or authorize-all), Z011 under TempPass, none for the MVPD's own.
    package static func authorized(source: String?, mvpd: String) -> AdvancedStatus? {
        switch source {
        case "degradation":
            return AdvancedStatus(
                "Z010", .warning,
                "Authorized under a degradation rule (authenticate-all or "
                    + "authorize-all): the MVPD's systems are degraded.", extras: ["mvpd": .string(mvpd)])
        case "temppass":
            return AdvancedStatus("Z011", .info, "Authorized using TempPass.", extras: ["mvpd": .string(mvpd)])
        default:
            return nil
        }
    }
}
