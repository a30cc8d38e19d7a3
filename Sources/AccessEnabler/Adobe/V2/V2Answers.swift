// SPDX-License-Identifier: Apache-2.0
// Answers of REST API V2 and DCR, decoded leniently where Adobe's documented answers vary:
// timestamps come as JSON numbers or strings, attribute values as strings, numbers or arrays.

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
            Profile(
                mvpd: mvpd, notBefore: entry.notBefore ?? 0, notAfter: entry.notAfter, issuer: entry.issuer,
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
        existingParameters =
            try container.decodeIfPresent([String: String].self, forKey: .existingParameters)
            ?? legacy?.existing ?? [:]
        missingParameters =
            try container.decodeIfPresent([String].self, forKey: .missingParameters)
            ?? legacy?.missing ?? []
        notAfter = try container.decodeMillis(.notAfter)
    }
}

struct DecisionsAnswer: JSONNodeDecodable {
    var decisions: [Decision]

    /// Read from Jansson's nodes (the per-call path): the same rules as the synthesized `init(from:)`.
    init(node: JSONNode) throws { decisions = try node.member("decisions").array().map(Decision.init(node:)) }
}

/// One MVPD's entry of the logout answer (`MvpdLogoutResponse`).
package struct LogoutAction: Decodable, Sendable {
    package var actionName: String
    package var actionType: String?
    package var mvpd: String?
    package var url: String?
}

struct LogoutAnswer: Decodable { var logouts: [String: LogoutAction] }
