// SPDX-License-Identifier: Apache-2.0

/// How V1 error answers become the SDK's errors. Pure: no state, no I/O.
///
/// V1 answers errors in its legacy shape, `{"status", "message", "details"}` (JSON) or
/// `<error><status/><message/><details/></error>` (XML, also when a server ignores `Accept`);
/// Enhanced Error Codes exist for V1 only when Adobe enabled them for the integration, and then
/// are read as they are. A legacy error gets the V1 Enhanced Error Code its endpoint page and
/// status mean (Adobe's V1 code table), so the flows and `docs/ERRORS.md` treat both alike:
///
/// | endpoint | status, message | code (action) |
/// |---|---|---|
/// | config | 400 | invalid_requestor (none) |
/// | authorize, tokens/media | 403/412 "User not authenticated" | authentication_session_missing (authentication) |
/// | authorize, tokens/media | 403/412 "… expired" | authentication_session_expired (authentication) |
/// | authorize | 403 other ("User not authorized" + the MVPD's details) | authorization_denied_by_mvpd (none) |
/// | tokens/media | 403 other | authorization_not_found (authorization): authorize first |
/// | preauthorize | 412 | preauthorization_authentication_session_missing / _expired (authentication) |
/// | any | 5xx with a legacy body | internal_error (none) |
/// | any | other with a legacy body | http_<status> (none) |
///
/// An answer with no readable error body (an HTML page from a load balancer, nothing) is the
/// plain HTTP error it is, as in V2.
///
/// DCR's errors on protected calls stay DCR errors: 401 `{"error":"access_denied"}` (a new access
/// token is fetched once) and 403 `{"error":"invalid_client"}` (the app registers again).
package enum V1Errors {
    /// The error an HTTP error answer of `operation` carries.
    package static func failure(from response: HTTPResponse, operation: V1Operation) -> ServiceError {
        if response.status == 429 { return .throttled }
        let fields = legacyFields(response)
        if let code = fields["error"], fields["code"] == nil, fields["message"] == nil {
            return .registration(code: code, httpStatus: response.status)
        }
        if let code = fields["code"] {
            var error = EnhancedError(
                status: fields["status"].flatMap { Int($0) } ?? response.status, code: code,
                action: fields["action"], message: fields["message"], details: fields["details"])
            error.helpUrl = fields["helpUrl"]
            error.trace = fields["trace"]
            return .enhanced(error, httpStatus: response.status)
        }
        if fields["message"] == nil, fields["details"] == nil, fields["status"] == nil {
            return .http(status: response.status)
        }
        return .enhanced(
            mapped(operation, status: response.status, message: fields["message"], details: fields["details"]),
            httpStatus: response.status)
    }

    /// The V1 Enhanced Error Code a legacy error stands for (the table above).
    package static func mapped(_ operation: V1Operation, status: Int, message: String?, details: String?) -> EnhancedError {
        let text = (message ?? "").lowercased()
        let aboutAuthentication = text.contains(text: "authenticat")
        let expired = text.contains(text: "expired") || (details ?? "").lowercased().contains(text: "expired")
        func error(_ code: String, _ action: String) -> EnhancedError {
            EnhancedError(status: status, code: code, action: action, message: message, details: details)
        }
        switch (operation, status) {
        case (.configuration, 400):
            return error("invalid_requestor", "none")
        case (.authorize, 403), (.authorize, 412), (.mediaToken, 403), (.mediaToken, 412):
            if aboutAuthentication || status == 412 {
                return error(expired ? "authentication_session_expired" : "authentication_session_missing", "authentication")
            }
            return operation == .authorize
                ? error("authorization_denied_by_mvpd", "none")
                : error("authorization_not_found", "authorization")
        case (.preauthorize, 412):
            return error(
                expired
                    ? "preauthorization_authentication_session_expired"
                    : "preauthorization_authentication_session_missing", "authentication")
        case (_, 500...):
            return error("internal_error", "none")
        default:
            let summary = [message, details].compactMap { $0 }.joined(separator: ": ")
            return EnhancedError(
                status: status, code: "http_\(status)", action: "none",
                message: summary.isEmpty ? "HTTP \(status) without a JSON error body." : summary)
        }
    }

    /// The fields of an error body: a JSON object's string and number members, or the child
    /// elements of an XML `<error>`. Empty when the body is neither.
    static func legacyFields(_ response: HTTPResponse) -> [String: String] {
        let text = String(decoding: response.body.prefix(65_536), as: UTF8.self)
        if let object = JSONValue.parse(text)?.objectValue {
            var fields: [String: String] = [:]
            for (name, value) in object {
                if let string = value.stringValue {
                    fields[name] = string
                } else if let number = value.int64Value {
                    fields[name] = String(number)
                }
            }
            return fields
        }
        guard text.contains(text: "<error") else { return [:] }
        var fields: [String: String] = [:]
        for name in ["status", "code", "action", "message", "details", "helpUrl", "trace"] {
            if let value = xmlElement(name, in: text) { fields[name] = value }
        }
        return fields
    }

    /// The text of the first `<name>…</name>` element (entities decoded); nil when absent or empty.
    static func xmlElement(_ name: String, in text: String) -> String? {
        guard let open = text.range(ofText: "<\(name)>"),
            let close = text[open.upperBound...].range(ofText: "</\(name)>")
        else { return nil }
        var value = String(text[open.upperBound..<close.lowerBound])
        if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") {
            value = String(value.dropFirst(9).dropLast(3))
        } else {
            for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
                value = value.replacing(text: entity, with: character)
            }
        }
        let trimmed = value[...].trimmingSpaces()
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
