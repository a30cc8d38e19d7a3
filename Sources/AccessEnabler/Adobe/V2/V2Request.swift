// SPDX-License-Identifier: Apache-2.0

/// One REST API V2 request as a value: its operation (`V2Operation`: method, path, headers,
/// content type) with what varies per call. `http` makes the HTTP request of it (pure: the
/// device context, the token and the time are given).
package struct V2Request: Sendable {
    package let operation: V2Operation
    /// The path's parameters after `{serviceProvider}` (the client's requestor), in the path's order.
    package var parameters: [String]
    package var query: [(String, String)]
    package var body: [UInt8]?
    /// `AP-Partner-Framework-Status`, on the operations that carry it (`.partnerStatus`).
    package var partnerStatus: String?
    /// `AP-TempPass-Identity`, on the operations that carry it (`.tempPassIdentity`).
    package var tempPassIdentity: String?

    package init(
        _ operation: V2Operation, _ parameters: [String] = [], query: [(String, String)] = [], body: [UInt8]? = nil,
        partnerStatus: String? = nil, tempPassIdentity: String? = nil
    ) {
        self.operation = operation
        self.parameters = parameters
        self.query = query
        self.body = body
        self.partnerStatus = partnerStatus
        self.tempPassIdentity = tempPassIdentity
    }

    /// The URL under `baseURL` (the service URL, no trailing slash) for `requestor`: each parameter
    /// is one path segment (Encoding.pathSegment), the query is percent-encoded.
    package func url(baseURL: String, requestor: String) -> String {
        let path = PathTemplate.fill(operation.path, [requestor] + parameters)
        let query = query.map { $0.0 + "=" + Encoding.percentEncode($0.1) }.joined(separator: "&")
        return baseURL + V2Operation.basePath + path + (query.isEmpty ? "" : "?" + query)
    }

    /// The headers: `Authorization` and `Accept`, then those the operation carries, in this order.
    package func headers(token: String, context: DeviceContext, nowMillis: Int64) -> [(name: String, value: String)] {
        let carries = operation.headers
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token), ("Accept", "application/json;charset=utf-8"),
        ]
        if let contentType = operation.contentType { headers.append(("Content-Type", contentType)) }
        if carries.contains(.device) {
            headers.append(("AP-Device-Identifier", context.deviceIdentifier))
            headers.append(("X-Device-Info", context.deviceInfo))
        }
        if carries.contains(.visitor), let visitorID = context.visitorID { headers.append(("AP-Visitor-Identifier", visitorID)) }
        if carries.contains(.partnerStatus), let partnerStatus { headers.append(("AP-Partner-Framework-Status", partnerStatus)) }
        // Spelled as in Adobe's header page; the OpenAPI file writes AP-Temppass-Identity (names are case-insensitive).
        if carries.contains(.tempPassIdentity), let tempPassIdentity { headers.append(("AP-TempPass-Identity", tempPassIdentity)) }
        if carries.contains(.sso) { headers += context.identityHeaders(IdentityTokenKind.allCases, nowMillis: nowMillis) }
        return headers
    }

    /// The HTTP request, for `requestor` at `baseURL`, with the access token `token`.
    package func http(baseURL: String, requestor: String, token: String, context: DeviceContext, nowMillis: Int64) -> HTTPRequest {
        HTTPRequest(
            method: operation.method, url: url(baseURL: baseURL, requestor: requestor),
            headers: headers(token: token, context: context, nowMillis: nowMillis), body: body)
    }
}
