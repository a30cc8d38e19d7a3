// SPDX-License-Identifier: Apache-2.0

/// The REST API V2 operations the SDK calls: the one home of what each one is on the wire, from
/// Adobe's OpenAPI file (`Emulator/openapi/restApiV2.json`, a copy of
/// `../shared/reference/openapi/restApiV2.json`): its operationId, method, path, the headers it
/// carries and its content type. `V2Request` builds a request from it (pure), `V2Client.send`
/// sends it; the fuzzer's endpoint numbering (`FlowEndpoint`), the in-memory Adobe of the tests
/// and the catalogue test against the OpenAPI file (`V2OperationTests`) all read this table.
///
/// The raw value is the operation's name in logs and errors.
package enum V2Operation: String, Sendable, CaseIterable {
    case configuration = "configuration"
    case profiles = "profiles"
    case profileByMVPD = "profiles/{mvpd}"
    case profileByCode = "profiles/code"
    case createSession = "sessions"
    case resumeSession = "sessions/{code}"
    case retrieveSession = "sessions/{code} (retrieve)"
    case authorize = "decisions/authorize"
    case preauthorize = "decisions/preauthorize"
    case partnerSession = "sessions/sso"
    case partnerProfile = "profiles/sso"
    case logout = "logout"

    /// The headers an operation carries beyond `Authorization` and `Accept` (every request's).
    package struct Headers: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// `AP-Device-Identifier` and `X-Device-Info`.
        package static let device = Headers(rawValue: 1)
        /// `AP-Visitor-Identifier` (when the host set a visitor id).
        package static let visitor = Headers(rawValue: 2)
        /// `Adobe-Subject-Token` and `AD-Service-Token` (the host's SSO tokens, when held and valid).
        package static let sso = Headers(rawValue: 4)
        /// `AP-Partner-Framework-Status` (when the call has a partner status).
        package static let partnerStatus = Headers(rawValue: 8)
        /// `AP-TempPass-Identity` (promotional TempPass).
        package static let tempPassIdentity = Headers(rawValue: 16)
    }

    /// Adobe's operationId in the OpenAPI file.
    package var operationID: String {
        switch self {
        case .configuration: "handleRequestUsingGET"
        case .profiles: "getProfilesUsingGET_1"
        case .profileByMVPD: "getProfileForMvpdUsingGET"
        case .profileByCode: "getProfileForCodeUsingGET_1"
        case .createSession: "createSessionUsingPOST"
        case .resumeSession: "resumeSessionUsingPOST"
        case .retrieveSession: "getSessionStatusUsingGET_1"
        case .authorize: "retrieveAuthorizeDecisionsForMvpdUsingPOST"
        case .preauthorize: "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1"
        case .partnerSession: "retrieveVerificationTokenUsingPOST"
        case .partnerProfile: "createPartnerProfileUsingPOST"
        case .logout: "getLogoutForMvpdUsingGET"
        }
    }

    package var method: String {
        switch self {
        case .configuration, .profiles, .profileByMVPD, .profileByCode, .retrieveSession, .logout: "GET"
        case .createSession, .resumeSession, .authorize, .preauthorize, .partnerSession, .partnerProfile: "POST"
        }
    }

    /// The path under `/api/v2`, as the OpenAPI file writes it.
    package var path: String {
        switch self {
        case .configuration: "/{serviceProvider}/configuration"
        case .profiles: "/{serviceProvider}/profiles"
        case .profileByMVPD: "/{serviceProvider}/profiles/{mvpd}"
        case .profileByCode: "/{serviceProvider}/profiles/code/{code}"
        case .createSession: "/{serviceProvider}/sessions"
        case .resumeSession, .retrieveSession: "/{serviceProvider}/sessions/{code}"
        case .authorize: "/{serviceProvider}/decisions/authorize/{mvpd}"
        case .preauthorize: "/{serviceProvider}/decisions/preauthorize/{mvpd}"
        case .partnerSession: "/{serviceProvider}/sessions/sso/{partner}"
        case .partnerProfile: "/{serviceProvider}/profiles/sso/{partner}"
        case .logout: "/{serviceProvider}/logout/{mvpd}"
        }
    }

    /// The path prefix of every operation (the OpenAPI file's server URL).
    package static let basePath = "/api/v2"

    package var headers: Headers {
        switch self {
        // Adobe's V2 cookbook (step C.1) sends the device headers on every call, the configuration
        // included: its single sign-on fields are per device platform. The OpenAPI file lists
        // neither for this operation (docs/DECISIONS.md); AP-Visitor-Identifier stays off as listed.
        case .configuration: [.device]
        case .profiles: [.device, .visitor, .partnerStatus, .sso]
        case .profileByMVPD: [.device, .visitor, .partnerStatus, .tempPassIdentity, .sso]
        case .profileByCode, .resumeSession, .retrieveSession: [.visitor]
        case .createSession, .logout: [.device, .visitor, .sso]
        case .authorize, .preauthorize: [.device, .visitor, .partnerStatus, .tempPassIdentity, .sso]
        case .partnerSession, .partnerProfile: [.device, .visitor, .partnerStatus]
        }
    }

    /// The request body's content type (nil: no body).
    package var contentType: String? {
        switch self {
        case .createSession, .resumeSession, .partnerSession, .partnerProfile: "application/x-www-form-urlencoded"
        case .authorize, .preauthorize: "application/json;charset=utf-8"
        case .configuration, .profiles, .profileByMVPD, .profileByCode, .retrieveSession, .logout: nil
        }
    }

    /// The operation a request path (`/api/v2/...`, no query) and method are, with its path's
    /// parameters by name (PathTemplate); nil for none of the SDK's.
    package static func match(method: String, path: String) -> (operation: V2Operation, parameters: [String: String])? {
        PathTemplate.match(path, among: allCases.filter { $0.method == method }.map { ($0, basePath + $0.path) })
    }
}
