// SPDX-License-Identifier: Apache-2.0

/// How failures become AccessEnabler advanced statuses (errorId, level, message) — the mapping
/// table of docs/ERRORS.md. Pure: no state, no I/O.
package enum StatusCatalog {
    /// setRequestor: registration → R400, access token → R401, configuration → CFG codes.
    package static func requestorFailure(_ failure: CallFailure) -> AdvancedStatus {
        let error = failure.error
        switch failure.stage {
        case .registration:
            if case .registration = error {
                return AdvancedStatus(
                    "R400", .error,
                    "The application is not registered: the software statement "
                        + "was refused.", enhancedError: error.enhancedError)
            }
            return transport(error)
                ?? AdvancedStatus(
                    "R400", .error, "Dynamic client registration failed.",
                    enhancedError: error.enhancedError)
        case .accessToken:
            return transport(error)
                ?? AdvancedStatus(
                    "R401", .error, "No access token could be obtained.",
                    enhancedError: error.enhancedError)
        case .call:
            if let status = transport(error) { return status }
            if case .enhanced(let enhanced, let httpStatus) = error {
                if enhanced.code == "invalid_parameter_service_provider" || enhanced.code == "invalid_requestor" {
                    return AdvancedStatus("CFG400", .error, "Invalid requestor id.", enhancedError: enhanced)
                }
                if httpStatus == 401 {
                    return AdvancedStatus("R401", .error, "Adobe refused the access token.", enhancedError: enhanced)
                }
            }
            return configurationHTTP(error)
        }
    }

    /// SEC420 for a TLS failure, whichever call met it: a security error is named as one (with its
    /// cause), not as the call's generic network error (Z120, REG500, N500).
    private static func security(_ error: ServiceError) -> AdvancedStatus? {
        guard case .transport(.tls) = error else { return nil }
        return transport(error)
    }

    /// Network failures while talking to Adobe, named the way setRequestor names them.
    private static func transport(_ error: ServiceError) -> AdvancedStatus? {
        if case .unavailable = error {
            // Held back by the outage breaker: named as the answer that opened it (CFG5xx for a
            // server error, CFG404 for a connection that failed), and said so.
            let held = error.enhancedError.message ?? ""
            let status = error.httpStatus
            return status >= 500
                ? AdvancedStatus(
                    "CFG\(status)", .error, "Adobe's server failed (HTTP \(status)). \(held)", enhancedError: error.enhancedError)
                : AdvancedStatus("CFG404", .error, "Adobe's servers cannot be reached: \(held)", enhancedError: error.enhancedError)
        }
        guard case .transport(let transport) = error else { return nil }
        switch transport {
        case .tls(let failure):
            // AccessEnabler's one code for HTTPS security errors; the cause names which (docs/ERRORS.md).
            return AdvancedStatus(
                "SEC420", .error,
                "HTTPS security error talking to Adobe (\(failure.cause.rawValue)): \(failure.detail). "
                    + "Fix: \(failure.cause.fix).",
                details: failure.cause.rawValue, extras: ["cause": .string(failure.cause.rawValue)],
                enhancedError: error.enhancedError)
        default:
            return AdvancedStatus(
                "CFG404", .error, "Adobe's servers cannot be reached: \(transport.summary).",
                enhancedError: error.enhancedError)
        }
    }

    /// Adobe refused the host's SSO token (`invalid_header_*`): the call goes on without single
    /// sign-on. An SDK id (Adobe defines none for these SSO methods), level warning.
    package static func identityRefused(_ kind: IdentityTokenKind, _ error: EnhancedError) -> AdvancedStatus {
        AdvancedStatus(
            "SSO400", .warning,
            "Adobe refused the \(kind.headerName) (\(error.code)): going on without single sign-on; "
                + "the token is dropped until the host sets a new one.",
            details: error.code, enhancedError: error)
    }

    /// A logout that carries SSO tokens: Adobe's single logout (info, an SDK id).
    package static func singleLogout(_ headers: [String]) -> AdvancedStatus {
        AdvancedStatus(
            "SSO200", .info,
            "Single logout: the logout carries the \(headers.joined(separator: " and ")), so Adobe removes the "
                + "subject's single sign-on profile too, which signs out every app and device of the subject.",
            details: headers.joined(separator: ","))
    }

    /// The host's provider gave a token that fails the SDK's checks: not used (nothing was sent).
    package static func identityUnusable(_ kind: IdentityTokenKind, _ problem: any Error) -> AdvancedStatus {
        AdvancedStatus(
            "SSO400", .warning,
            "The \(kind.headerName) the host gave is not used: \(problem); going on without it.",
            details: "sdk_check")
    }

    /// CFG<HTTP status> for configuration answers without a code of their own (CFG410: too old,
    /// CFG5xx: Adobe's server errors, CFG429: still throttled after retries).
    private static func configurationHTTP(_ error: ServiceError) -> AdvancedStatus {
        let status = error.httpStatus
        let message =
            switch status {
            case 410: "This AccessEnabler is too old for Adobe's servers."
            case 500...: "Adobe's server failed (HTTP \(status))."
            case 0: "Adobe's configuration answer could not be read."
            default: "The configuration request failed (HTTP \(status))."
            }
        return AdvancedStatus(status == 0 ? "CFG500" : "CFG\(status)", .error, message, enhancedError: error.enhancedError)
    }

    /// Login failures: session creation (REG500), registration/token (R400/R401), others N500.
    package static func loginFailure(_ failure: CallFailure, creatingSession: Bool) -> AdvancedStatus {
        switch failure.stage {
        case .registration, .accessToken: return requestorFailure(failure)
        case .call:
            if let security = security(failure.error) { return security }
            let enhanced = failure.error.enhancedError
            if case .enhanced(let error, _) = failure.error,
                error.code == "invalid_authentication_session" || error.code == "invalid_parameter_code"
            {
                return codeExpired(error)
            }
            if creatingSession {
                return AdvancedStatus(
                    "REG500", .error,
                    "The registration code could not be obtained: "
                        + (enhanced.message ?? enhanced.code) + ".", enhancedError: enhanced)
            }
            return AdvancedStatus(
                "N500", .error, "Authentication failed: " + (enhanced.message ?? enhanced.code) + ".",
                enhancedError: enhanced)
        }
    }

    /// getMetadata opcode 2 while the device id metadata is not enabled (setOptions
    /// `deviceIdMetadata`): Adobe documents it "disabled by default", to be enabled by Adobe for the
    /// integration, and names no status for it (an SDK id, in the pattern of SSO400: the family,
    /// then the HTTP-like 403 "not allowed"). `set_metadata_status` follows with no value.
    package static let deviceIDMetadataDisabled = AdvancedStatus(
        "META403", .warning,
        "getMetadata: the device id metadata is not enabled (Adobe enables it per integration; "
            + "the host turns it on with setOptions {\"deviceIdMetadata\": true}).",
        details: "device_id_metadata_disabled")

    package static func codeExpired(_ error: EnhancedError? = nil) -> AdvancedStatus {
        AdvancedStatus(
            "N130", .error, "The authentication session (registration code) expired or is unknown.",
            enhancedError: error
                ?? .sdk(
                    "authentication_session_expired", action: "authentication",
                    message: "The registration code expired before the login completed."))
    }

    /// An authorization denial (item-level error) → its Z code, N000 when Adobe no longer has the
    /// profile, N111 when the TempPass is over, VSA403 / VSA404 / N000 when the platform's partner
    /// status was refused (Adobe's `invalid_header_pfs_*`, or the SDK's own refusal to send an
    /// unusable one). A code this table does not know gets the generic code of its family: N000
    /// when its action is `authentication`, else Z500 — never Z100, which says the MVPD denied.
    package static func authorizationDenial(_ error: EnhancedError?) -> AdvancedStatus {
        guard let error else {
            return AdvancedStatus("Z100", .error, "Not authorized.")
        }
        let text = error.details ?? error.message ?? error.code
        switch error.code {
        case "invalid_header_pfs_permission_access_not_granted":
            return AdvancedStatus(
                "VSA403", .info,
                "The viewer denied this app access to the TV provider account: "
                    + "not authenticated through the platform (\(text))", enhancedError: error)
        case "invalid_header_pfs_permission_access_not_determined":
            return AdvancedStatus(
                "VSA404", .info,
                "The viewer has not decided on this app's access to the TV provider "
                    + "account: not authenticated through the platform (\(text))", enhancedError: error)
        case let code where code.hasPrefix("invalid_header_pfs_"):
            return AdvancedStatus(
                "N000", .error, "The viewer is not authenticated through the platform: \(text)",
                enhancedError: error)
        case "authorization_denied_by_mvpd", "authorization_denied_by_parental_controls", "preauthorization_denied_by_mvpd",
            "authorization_not_found", "authorization_expired":
            return AdvancedStatus("Z100", .error, text, enhancedError: error)
        case "authenticated_profile_missing", "authenticated_profile_expired", "authenticated_profile_invalidated",
            "authentication_session_missing", "authentication_session_expired", "authentication_session_invalidated",
            "identity_not_recognized_by_mvpd", "authorization_denied_by_session_invalidated",
            "authorization_denied_by_hba_policies":
            return AdvancedStatus("N000", .error, "The viewer is not authenticated: \(text)", enhancedError: error)
        case "authorization_denied_by_degradation_rule":
            return AdvancedStatus("Z169", .error, text, enhancedError: error)
        case "temporary_access_duration_limit_exceeded", "temporary_access_resources_limit_exceeded":
            return tempPassExpired(mvpd: nil, error)
        case "invalid_configuration_temporary_access", "invalid_header_identity_for_temporary_access":
            return AdvancedStatus("Z500", .error, text, enhancedError: error)
        case "network_received_error", "network_connection_timeout", "maximum_execution_time_exceeded":
            return AdvancedStatus("Z120", .error, text, enhancedError: error)
        case "invalid_parameter_resources":
            return AdvancedStatus("Z130", .error, text, enhancedError: error)
        case "internal_server_error", "internal_error":
            return AdvancedStatus("Z500", .error, text, enhancedError: error)
        case let code where code.hasPrefix("http_"):
            return AdvancedStatus("Z500", .error, text, enhancedError: error)
        case _ where error.action == "authentication":
            return AdvancedStatus("N000", .error, "The viewer is not authenticated: \(text)", enhancedError: error)
        case let code where code.hasPrefix("authorization_denied"):
            return AdvancedStatus("Z100", .error, text, enhancedError: error)
        default:
            return AdvancedStatus("Z500", .error, text, enhancedError: error)
        }
    }

    /// Adobe refused the partner status of a decision (`invalid_header_pfs_*`), or the SDK did not
    /// send the decision for want of a usable one.
    package static func isPartnerStatusRefusal(_ error: EnhancedError?) -> Bool {
        error?.code.hasPrefix("invalid_header_pfs_") == true
    }

    /// An authorization call that failed as a whole (no decision).
    package static func authorizationFailure(_ failure: CallFailure) -> AdvancedStatus {
        switch failure.stage {
        case .registration, .accessToken: return requestorFailure(failure)
        case .call:
            if let security = security(failure.error) { return security }
            let enhanced = failure.error.enhancedError
            switch failure.error {
            case .transport, .throttled, .unavailable:
                return AdvancedStatus("Z120", .error, enhanced.message ?? "Network error.", enhancedError: enhanced)
            case .enhanced(let error, _):
                return authorizationDenial(error)
            default:
                return AdvancedStatus("Z500", .error, enhanced.message ?? "Authorization failed.", enhancedError: enhanced)
            }
        }
    }

    /// True when Adobe says the profile (V2) or the authentication token (V1) is gone, or names
    /// authentication as the remedy (`action: authentication`, also for a code this SDK does not
    /// know): the viewer must authenticate again. The TempPass codes (`action: authentication` too)
    /// and refused partner statuses have their own handling.
    package static func needsAuthentication(_ error: EnhancedError?) -> Bool {
        guard let error else { return false }
        if [
            "authenticated_profile_missing", "authenticated_profile_expired", "authenticated_profile_invalidated",
            "authentication_session_missing", "authentication_session_expired", "authentication_session_invalidated",
        ]
        .contains(error.code) {
            return true
        }
        return error.action == "authentication" && !isTempPassOver(error) && !isPartnerStatusRefusal(error)
    }

    package static func preauthorizationFailure(_ error: EnhancedError) -> AdvancedStatus {
        AdvancedStatus("P100", .error, "Preauthorization failed: " + (error.message ?? error.code), enhancedError: error)
    }
}
