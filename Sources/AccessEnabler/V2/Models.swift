// SPDX-License-Identifier: Apache-2.0
// Answers of REST API V2 and DCR, decoded leniently where Adobe's documented answers vary:
// timestamps come as JSON numbers or strings, attribute values as strings, numbers or arrays.

extension KeyedDecodingContainer {
    /// Epoch milliseconds sent as a number or as a string of digits, clamped to `Limits.epochMillis`
    /// (a negative time is past, a later one than year 9999 is far away: neither traps arithmetic).
    /// A fraction, an exponent beyond Int64 or a non-number is an error (the answer is malformed).
    func decodeMillis(_ key: Key) throws -> Int64? {
        guard let value = try decodeIfPresent(JSONValue.self, forKey: key), value != .null else { return nil }
        guard let millis = value.int64Value else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a timestamp")
        }
        return millis.clamped(to: Limits.epochMillis)
    }
}

/// DCR `ClientApplication` (201 of /o/client/register).
package struct ClientCredentials: Codable, Sendable, Equatable {
    package var clientID: String
    package var clientSecret: String

    package init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id", clientSecret = "client_secret"
    }
}

/// DCR `ClientRegistrationAccessTokenResponse` (201 of /o/client/token).
package struct AccessTokenResponse: Decodable, Sendable {
    package var accessToken: String
    package var expiresIn: Int64?

    private enum CodingKeys: String, CodingKey { case accessToken = "access_token", expiresIn = "expires_in" }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        expiresIn = try container.decodeMillis(.expiresIn)
    }
}

/// An MVPD of the requestor's configuration (`MvpdType`), with AccessEnabler's field names when
/// encoded for the host (`ID`, `displayName`, `logoURL`, ...).
public struct MVPD: Sendable, Hashable, Codable {
    public var id: String
    public var displayName: String
    public var logoURL: String?
    public var isTempPass: Bool
    public var isProxy: Bool
    public var enablePlatformServices: Bool
    public var boardingStatus: String?
    public var platformMappingId: String?
    public var displayInPlatformPicker: Bool
    /// SAML attribute names the partner must return (V1's MVPD list field; read when present).
    public var requiredMetadataFields: [String]

    public init(id: String, displayName: String, logoURL: String? = nil, isTempPass: Bool = false) {
        self.id = id
        self.displayName = displayName
        self.logoURL = logoURL
        self.isTempPass = isTempPass
        self.isProxy = false
        self.enablePlatformServices = false
        self.boardingStatus = nil
        self.platformMappingId = nil
        self.displayInPlatformPicker = false
        self.requiredMetadataFields = []
    }

    private enum HostKeys: String, CodingKey {
        case id = "ID", displayName, logoURL, isTempPass, isProxy, enablePlatformServices, boardingStatus,
            platformMappingId, displayInPlatformPicker, requiredMetadataFields
    }

    private enum AdobeKeys: String, CodingKey {
        case id, displayName, logoUrl, isTempPass, isProxy, enablePlatformServices, boardingStatus,
            platformMappingId, displayInPlatformPicker, requiredMetadataFields
    }

    /// Decodes Adobe's `MvpdType` (configuration answer) or the host form written by `encode`.
    public init(from decoder: any Decoder) throws {
        let adobe = try decoder.container(keyedBy: AdobeKeys.self)
        if adobe.contains(.id) {
            id = try adobe.decode(String.self, forKey: .id)
            displayName = try adobe.decodeIfPresent(String.self, forKey: .displayName) ?? id
            logoURL = try adobe.decodeIfPresent(String.self, forKey: .logoUrl)
            isTempPass = try adobe.decodeIfPresent(Bool.self, forKey: .isTempPass) ?? false
            isProxy = try adobe.decodeIfPresent(Bool.self, forKey: .isProxy) ?? false
            enablePlatformServices = try adobe.decodeIfPresent(Bool.self, forKey: .enablePlatformServices) ?? false
            boardingStatus = try adobe.decodeIfPresent(String.self, forKey: .boardingStatus)
            platformMappingId = try adobe.decodeIfPresent(String.self, forKey: .platformMappingId)
            displayInPlatformPicker = try adobe.decodeIfPresent(Bool.self, forKey: .displayInPlatformPicker) ?? false
            requiredMetadataFields = (try? adobe.decodeIfPresent([String].self, forKey: .requiredMetadataFields)) ?? []
            return
        }
        let host = try decoder.container(keyedBy: HostKeys.self)
        id = try host.decode(String.self, forKey: .id)
        displayName = try host.decodeIfPresent(String.self, forKey: .displayName) ?? id
        logoURL = try host.decodeIfPresent(String.self, forKey: .logoURL)
        isTempPass = try host.decodeIfPresent(Bool.self, forKey: .isTempPass) ?? false
        isProxy = try host.decodeIfPresent(Bool.self, forKey: .isProxy) ?? false
        enablePlatformServices = try host.decodeIfPresent(Bool.self, forKey: .enablePlatformServices) ?? false
        boardingStatus = try host.decodeIfPresent(String.self, forKey: .boardingStatus)
        platformMappingId = try host.decodeIfPresent(String.self, forKey: .platformMappingId)
        displayInPlatformPicker = try host.decodeIfPresent(Bool.self, forKey: .displayInPlatformPicker) ?? false
        requiredMetadataFields = try host.decodeIfPresent([String].self, forKey: .requiredMetadataFields) ?? []
    }

    /// The host form: AccessEnabler's MVPD field names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: HostKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(displayName, forKey: .displayName)
        try container.encodeIfPresent(logoURL, forKey: .logoURL)
        try container.encode(isTempPass, forKey: .isTempPass)
        try container.encode(isProxy, forKey: .isProxy)
        try container.encode(enablePlatformServices, forKey: .enablePlatformServices)
        try container.encodeIfPresent(boardingStatus, forKey: .boardingStatus)
        try container.encodeIfPresent(platformMappingId, forKey: .platformMappingId)
        try container.encode(displayInPlatformPicker, forKey: .displayInPlatformPicker)
        if !requiredMetadataFields.isEmpty { try container.encode(requiredMetadataFields, forKey: .requiredMetadataFields) }
    }
}

/// The requestor configuration this SDK keeps (`ConfigurationResponse`, reduced).
package struct RequestorConfiguration: Codable, Sendable, Equatable {
    package var requestorID: String
    package var name: String?
    package var domains: [String]
    package var mvpds: [MVPD]

    package init(requestorID: String, name: String? = nil, domains: [String], mvpds: [MVPD]) {
        self.requestorID = requestorID
        self.name = name
        self.domains = domains
        self.mvpds = mvpds
    }

    package func mvpd(_ id: String) -> MVPD? { mvpds.first { $0.id == id } }
}

/// `ConfigurationResponse`: the sample and the OpenAPI file nest `mvpds` in `requestor`; the doc
/// table puts it at the top level. Both are accepted.
struct ConfigurationAnswer: Decodable {
    /// `{"name": …}` in V2; a bare string is read too (V1's MVPD list nesting is not documented).
    struct Domain: Decodable {
        var name: String
        private enum CodingKeys: String, CodingKey { case name }
        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                name = text
            } else {
                name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
            }
        }
    }
    struct Requestor: Decodable {
        var id: String?
        var name: String?
        var domains: [Domain]?
        var mvpds: [MVPD]?
    }
    var requestor: Requestor?
    var mvpds: [MVPD]?

    func configuration(requestorID: String) -> RequestorConfiguration {
        RequestorConfiguration(
            requestorID: requestor?.id ?? requestorID, name: requestor?.name,
            domains: requestor?.domains?.map(\.name) ?? [], mvpds: requestor?.mvpds ?? mvpds ?? [])
    }
}

/// A profile attribute (`UserMetadataResponse`): `state` "plain" or "enc".
package struct ProfileAttribute: Codable, Sendable, Hashable {
    package var value: JSONValue
    package var state: String?

    package init(value: JSONValue, state: String? = "plain") {
        self.value = value
        self.state = state
    }

    package var isEncrypted: Bool { state == "enc" }
}

/// An authenticated profile (`MvpdProfileResponse`) with the MVPD it is keyed by.
package struct Profile: Codable, Sendable, Hashable {
    package var mvpd: String
    package var notBefore: Int64
    package var notAfter: Int64
    package var issuer: String
    package var type: String
    package var attributes: [String: ProfileAttribute]
    /// Promotional TempPass: the AP-TempPass-Identity value the profile was obtained with (the
    /// decisions on it need it again). Kept with the profile in the store; never logged.
    package var tempPassIdentity: String?
    /// REST API V1: the profile came from tokens/authn, whose answer has no user metadata;
    /// `attributes` holds only `userID` until GET tokens/usermetadata fills them (nil: complete).
    package var attributesPending: Bool?
    /// REST API V1: a token found at Adobe that this SDK did not make (another build of the app, a
    /// lost store): whether the platform's SSO made it (`tokenSource`) is known only from the user
    /// metadata, which logout then reads first (the V1 cookbook's logout step). nil: known.
    package var originUnknown: Bool?

    package init(mvpd: String, notBefore: Int64, notAfter: Int64, issuer: String, type: String,
                 attributes: [String: ProfileAttribute]) {
        self.mvpd = mvpd
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issuer = issuer
        self.type = type
        self.attributes = attributes
    }

    package func isValid(at millis: Int64) -> Bool { millis < notAfter }

    /// A TempPass profile (`type: temporary`, issuer `Adobe`).
    package var isTemporary: Bool { type == "temporary" }

    /// A profile Adobe issued under an authenticate-all degradation rule (`type: degraded`).
    package var isDegraded: Bool { type == "degraded" }

    /// AccessEnabler's `tokenSource` user metadata: "Apple" for Apple SSO profiles, else the issuer
    /// (the MVPD, or "Adobe" for temporary and degraded profiles). V2 profiles carry no such attribute.
    package var tokenSource: String { type == "appleSSO" || issuer == "Apple" ? "Apple" : issuer }

    /// Adobe's user id (the tracking GUID is its MD5).
    package var userID: String? { attributes["userID"]?.value.stringValue }
}

/// `ProfilesResponse`: `{"profiles": {"<mvpd>": MvpdProfileResponse}}`.
struct ProfilesAnswer: Decodable {
    private struct Entry: Decodable {
        var notBefore: Int64?
        var notAfter: Int64
        var issuer: String
        var type: String
        var attributes: [String: ProfileAttribute]

        private enum CodingKeys: String, CodingKey { case notBefore, notAfter, issuer, type, attributes }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            notBefore = try container.decodeMillis(.notBefore)
            guard let notAfter = try container.decodeMillis(.notAfter) else {
                throw DecodingError.keyNotFound(CodingKeys.notAfter, .init(codingPath: [], debugDescription: "notAfter"))
            }
            self.notAfter = notAfter
            issuer = try container.decode(String.self, forKey: .issuer)
            type = try container.decode(String.self, forKey: .type)
            attributes = try container.decodeIfPresent([String: ProfileAttribute].self, forKey: .attributes) ?? [:]
        }
    }

    private var entries: [String: Entry]
    private enum CodingKeys: String, CodingKey { case profiles }

    init(from decoder: any Decoder) throws {
        entries = try decoder.container(keyedBy: CodingKeys.self).decode([String: Entry].self, forKey: .profiles)
    }

    var profiles: [Profile] {
        entries.map { mvpd, entry in
            Profile(mvpd: mvpd, notBefore: entry.notBefore ?? 0, notAfter: entry.notAfter, issuer: entry.issuer,
                    type: entry.type, attributes: entry.attributes)
        }.sorted { $0.mvpd < $1.mvpd }
    }
}

/// `SessionResponse` (create, resume, partner sessions). `notBefore`/`notAfter` are strings here.
package struct SessionAnswer: Decodable, Sendable {
    package var actionName: String
    package var actionType: String?
    package var reasonType: String?
    package var missingParameters: [String]?
    package var url: String?
    package var code: String?
    package var mvpd: String?
    package var notAfter: Int64?
    /// sessions/sso: the partner authentication request (`partner_profile`).
    package var authenticationRequest: AuthenticationRequest?

    package struct AuthenticationRequest: Decodable, Sendable {
        package var type: String?
        package var request: String
        package var attributesNames: [String]?
    }

    private enum CodingKeys: String, CodingKey {
        case actionName, actionType, reasonType, missingParameters, url, code, mvpd, notAfter, authenticationRequest
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        actionName = try container.decode(String.self, forKey: .actionName)
        actionType = try container.decodeIfPresent(String.self, forKey: .actionType)
        reasonType = try container.decodeIfPresent(String.self, forKey: .reasonType)
        missingParameters = try container.decodeIfPresent([String].self, forKey: .missingParameters)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        mvpd = try container.decodeIfPresent(String.self, forKey: .mvpd)
        notAfter = try container.decodeMillis(.notAfter)
        authenticationRequest = try container.decodeIfPresent(AuthenticationRequest.self, forKey: .authenticationRequest)
    }
}

/// `SessionStatusResponse` (GET sessions/{code}). The docs once used `{"parameters": {"existing",
/// "missing"}}`; both shapes are read.
package struct SessionStatusAnswer: Decodable, Sendable {
    package var existingParameters: [String: String]
    package var missingParameters: [String]
    package var notAfter: Int64?

    private enum CodingKeys: String, CodingKey { case existingParameters, missingParameters, parameters, notAfter }
    private struct Legacy: Decodable {
        var existing: [String: String]?
        var missing: [String]?
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let legacy = try container.decodeIfPresent(Legacy.self, forKey: .parameters)
        existingParameters = try container.decodeIfPresent([String: String].self, forKey: .existingParameters)
            ?? legacy?.existing ?? [:]
        missingParameters = try container.decodeIfPresent([String].self, forKey: .missingParameters)
            ?? legacy?.missing ?? []
        notAfter = try container.decodeMillis(.notAfter)
    }
}

/// A decision of decisions/authorize or decisions/preauthorize (`DecisionResponse`).
package struct Decision: Decodable, Sendable {
    package struct MediaToken: Decodable, Sendable {
        package var serializedToken: String
        package var notAfter: Int64?
        private enum CodingKeys: String, CodingKey { case serializedToken, notAfter }
        package init(serializedToken: String, notAfter: Int64?) {
            self.serializedToken = serializedToken
            self.notAfter = notAfter
        }
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            serializedToken = try container.decode(String.self, forKey: .serializedToken)
            notAfter = try container.decodeMillis(.notAfter)
        }
    }

    package var resource: String
    package var mvpd: String?
    package var source: String?
    package var authorized: Bool
    package var token: MediaToken?
    package var notAfter: Int64?
    package var error: EnhancedError?

    private enum CodingKeys: String, CodingKey { case resource, mvpd, source, authorized, token, notAfter, error }

    package init(resource: String, authorized: Bool, error: EnhancedError? = nil, token: MediaToken? = nil,
                 notAfter: Int64? = nil, source: String? = nil, mvpd: String? = nil)
    {
        self.resource = resource
        self.authorized = authorized
        self.error = error
        self.token = token
        self.notAfter = notAfter
        self.source = source
        self.mvpd = mvpd
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decode(String.self, forKey: .resource)
        mvpd = try container.decodeIfPresent(String.self, forKey: .mvpd)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        authorized = try container.decode(Bool.self, forKey: .authorized)
        token = try container.decodeIfPresent(MediaToken.self, forKey: .token)
        notAfter = try container.decodeMillis(.notAfter)
        error = try container.decodeIfPresent(EnhancedError.self, forKey: .error)
    }
}

struct DecisionsAnswer: Decodable { var decisions: [Decision] }

/// One MVPD's entry of the logout answer (`MvpdLogoutResponse`).
package struct LogoutAction: Decodable, Sendable {
    package var actionName: String
    package var actionType: String?
    package var mvpd: String?
    package var url: String?
}

struct LogoutAnswer: Decodable { var logouts: [String: LogoutAction] }
