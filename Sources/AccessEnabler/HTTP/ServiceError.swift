// SPDX-License-Identifier: Apache-2.0

/// Why a service call failed. Transient errors (network, throttling, 5xx) leave stored state
/// alone; Adobe's answers (enhanced errors, DCR errors) are decisions the flows act on.
package enum ServiceError: Error, Sendable {
    case transport(TransportError)
    /// 429 after the SDK's bounded retries.
    case throttled
    /// Adobe answered with an Enhanced Error Code (top-level).
    case enhanced(EnhancedError, httpStatus: Int)
    /// DCR's OAuth-style error `{"error": "invalid_client"}`.
    case registration(code: String, httpStatus: Int)
    /// An HTTP error status without a usable error body.
    case http(status: Int)
    /// A success status whose body is not what the API documents.
    case malformed(operation: String, detail: String)
    /// Not sent: Adobe has been failing (`reason`: its last outage answer, `httpStatus` its status
    /// or 0 for a connection that failed) and the outage breaker holds requests back; it lets the
    /// next one out in `retryInMillis` (0: a probe is out now). Named like that answer (CFG503 or
    /// CFG404, Z120, ...), with an enhanced error of its own (`service_unavailable`).
    case unavailable(retryInMillis: Int64, reason: String, httpStatus: Int)

    /// The enhanced error to show the host (SDK-side ones for transport and format problems).
    package var enhancedError: EnhancedError {
        switch self {
        case .enhanced(let error, _): error
        case .registration(let code, let status):
            // A server error of DCR's is worth repeating; its 4xx answers are about the registration.
            EnhancedError(
                status: status, code: code, action: status >= 500 ? "retry" : "application-registration",
                message: "Dynamic client registration answered \(code).")
        case .transport(.cancelled):
            .sdk("request_cancelled", action: "none", message: "The request was cancelled.")
        case .transport(.tls(let failure)):
            .sdk(
                "network_error", action: failure.cause.action,
                message: "HTTPS security error (\(failure.cause.rawValue)): \(failure.detail). Fix: \(failure.cause.fix).")
        case .transport(let error):
            .sdk("network_error", action: "retry", message: "Network error: \(error.summary).")
        case .throttled:
            .sdk("too_many_requests", action: "retry", message: "Adobe throttled the device (HTTP 429).")
        case .http(let status):
            EnhancedError(
                status: status, code: "http_\(status)", action: status >= 500 ? "retry" : "none",
                message: "HTTP \(status) without a JSON error body.")
        case .malformed(let operation, let detail):
            .sdk(
                "server_response_format_unknown", action: "none",
                message: "Unexpected \(operation) answer: \(detail).")
        case .unavailable(let retryIn, let reason, _):
            .sdk(
                "service_unavailable", action: "retry",
                message: "Not sent: Adobe Pass is failing (last: \(reason)); "
                    + (retryIn > 0
                        ? "the SDK sends again in \((retryIn + 999) / 1_000) s."
                        : "the SDK is probing whether it is back."))
        }
    }

    /// The HTTP status behind the error, 0 when there was no response.
    package var httpStatus: Int {
        switch self {
        case .enhanced(_, let status), .registration(_, let status): status
        case .http(let status): status
        case .throttled: 429
        case .unavailable(_, _, let status): status
        case .transport, .malformed: 0
        }
    }

    package var isCancellation: Bool {
        if case .transport(.cancelled) = self { true } else { false }
    }
}

extension TransportError {
    /// Name resolution or connect failed.
    package var isConnectFailure: Bool {
        if case .cannotConnect = self { true } else { false }
    }

    package var summary: String {
        switch self {
        case .cannotConnect(let text): "cannot connect (\(text))"
        case .timedOut: "timed out"
        case .tls(let text): "TLS failure (\(text))"
        case .bodyTooLarge(let limit): "answer larger than \(limit) bytes"
        case .failed(let text): text
        case .cancelled: "cancelled"
        }
    }
}
