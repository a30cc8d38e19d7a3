// SPDX-License-Identifier: Apache-2.0

/// The REST API V1 endpoints the SDK calls: the one home of their names (logs, errors: V1Errors),
/// methods and paths, from Adobe's endpoint pages (`../shared/reference/rest-api-v1.md` §4–§5;
/// Adobe publishes no V1 OpenAPI file; the emulator's table is `Emulator/aepass/v1/spec.py`).
/// The case order is the server-answer fuzzer's numbering (append only).
package enum V1Operation: String, Sendable, CaseIterable {
    case configuration = "config"
    case registrationCode = "regcode"
    case authenticationToken = "tokens/authn"
    case freePreview = "authenticate/freepreview"
    case authorize = "authorize"
    case mediaToken = "tokens/media"
    case preauthorize = "preauthorize"
    case userMetadata = "tokens/usermetadata"
    case logout = "logout"
    case profileRequest = "profile-requests"
    case tokenExchange = "tokens/authn (exchange)"

    package var method: String {
        switch self {
        case .configuration, .authenticationToken, .authorize, .mediaToken, .preauthorize, .userMetadata, .profileRequest: "GET"
        case .registrationCode, .freePreview, .tokenExchange: "POST"
        case .logout: "DELETE"
        }
    }

    /// The path (V1 has no common prefix: `/api/v1`, `/reggie/v1`).
    package var path: String {
        switch self {
        case .configuration: "/api/v1/config/{requestor}"
        case .registrationCode: "/reggie/v1/{requestor}/regcode"
        case .authenticationToken, .tokenExchange: "/api/v1/tokens/authn"
        case .freePreview: "/api/v1/authenticate/freepreview"
        case .authorize: "/api/v1/authorize"
        case .mediaToken: "/api/v1/tokens/media"
        case .preauthorize: "/api/v1/preauthorize"
        case .userMetadata: "/api/v1/tokens/usermetadata"
        case .logout: "/api/v1/logout"
        case .profileRequest: "/api/v1/{requestor}/profile-requests/{mvpd}"
        }
    }

    /// The operation a request path (no query) and method are, with its path's parameters by name
    /// (PathTemplate); nil for none of the SDK's.
    package static func match(method: String, path: String) -> (operation: V1Operation, parameters: [String: String])? {
        PathTemplate.match(path, among: allCases.filter { $0.method == method }.map { ($0, $0.path) })
    }
}
