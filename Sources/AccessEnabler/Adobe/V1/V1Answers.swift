// SPDX-License-Identifier: Apache-2.0
// Answers of the legacy REST API V1 ("Clientless API"), asked for as JSON and decoded leniently:
// `expires` is a string of milliseconds in tokens (Adobe's samples) and a number in registration
// records; booleans of preauthorize items may come as strings. Tokens that are XML inside (the
// short media token, the Apple SSO profile request) are carried as the opaque strings they are.

/// POST /reggie/v1/{requestor}/regcode (201): the registration record.
package struct V1RegistrationRecord: Decodable, Sendable {
    package var code: String
    package var mvpd: String?
    package var generated: Int64?
    package var expires: Int64?

    private enum CodingKeys: String, CodingKey { case code, mvpd, generated, expires }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        mvpd = try container.decodeIfPresent(String.self, forKey: .mvpd)
        generated = try container.decodeMillis(.generated)
        expires = try container.decodeMillis(.expires)
    }
}

/// GET /api/v1/tokens/authn (200): the device's authentication token.
package struct V1AuthenticationToken: Decodable, Sendable, Equatable {
    package var mvpd: String
    package var userID: String?
    package var expires: Int64

    private enum CodingKeys: String, CodingKey { case mvpd, userId, expires }

    package init(mvpd: String, userID: String?, expires: Int64) {
        self.mvpd = mvpd
        self.userID = userID
        self.expires = expires
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mvpd = try container.decode(String.self, forKey: .mvpd)
        userID = try container.decodeIfPresent(JSONValue.self, forKey: .userId).flatMap { $0.stringValue ?? $0.int64Value.map(String.init) }
        guard let expires = try container.decodeMillis(.expires) else {
            throw DecodingError.keyNotFound(CodingKeys.expires, .init(codingPath: [], debugDescription: "expires"))
        }
        self.expires = expires
    }

    /// The profile this token stands for. V1 tokens carry no user metadata (`attributesPending`:
    /// GET tokens/usermetadata fills them when first needed) and no type: the engine types it from
    /// the configuration (TempPass) or from what it did (the Apple SSO token exchange).
    package var profile: Profile {
        var attributes: [String: ProfileAttribute] = [:]
        if let userID { attributes["userID"] = ProfileAttribute(value: .string(userID)) }
        var profile = Profile(
            mvpd: mvpd, notBefore: 0, notAfter: expires, issuer: mvpd, type: "regular",
            attributes: attributes)
        profile.attributesPending = true
        return profile
    }
}

/// GET /api/v1/authorize (200): the authorization token (Adobe caches it for its TTL).
package struct V1AuthorizationToken: Decodable, Sendable {
    package var resource: String?
    package var mvpd: String?
    package var expires: Int64?

    private enum CodingKeys: String, CodingKey { case resource, mvpd, expires }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decodeIfPresent(String.self, forKey: .resource)
        mvpd = try container.decodeIfPresent(String.self, forKey: .mvpd)
        expires = try container.decodeMillis(.expires)
    }
}

/// GET /api/v1/tokens/media (200): the short media token. `serializedToken` is Base64 of XML,
/// passed to the host untouched.
package struct V1MediaToken: Decodable, Sendable {
    package var serializedToken: String
    package var expires: Int64?
    package var mvpdID: String?

    private enum CodingKeys: String, CodingKey { case serializedToken, expires, mvpdId }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        serializedToken = try container.decode(String.self, forKey: .serializedToken)
        expires = try container.decodeMillis(.expires)
        mvpdID = try container.decodeIfPresent(String.self, forKey: .mvpdId)
    }
}

/// GET /api/v1/preauthorize (200): a decision per resource, with item-level Enhanced Error Codes.
struct V1PreauthorizeAnswer: Decodable {
    struct Item: Decodable {
        var id: String
        var authorized: Bool
        var error: EnhancedError?

        private enum CodingKeys: String, CodingKey { case id, authorized, error }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            switch try container.decode(JSONValue.self, forKey: .authorized) {
            case .bool(let value): authorized = value
            case .string(let text) where text == "true" || text == "false": authorized = text == "true"
            default:
                throw DecodingError.dataCorruptedError(forKey: .authorized, in: container, debugDescription: "not a boolean")
            }
            error = try container.decodeIfPresent(EnhancedError.self, forKey: .error)
        }
    }

    var resources: [Item]

    var decisions: [Decision] {
        resources.map { Decision(resource: $0.id, authorized: $0.authorized, error: $0.error) }
    }
}

/// GET /api/v1/tokens/usermetadata (200): `{updated, encrypted: [keys], data: {key: value}}`.
package struct V1UserMetadata: Decodable, Sendable {
    package var encrypted: [String]
    package var data: [String: JSONValue]

    private enum CodingKeys: String, CodingKey { case encrypted, data }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        encrypted = (try? container.decodeIfPresent([String].self, forKey: .encrypted)) ?? []
        data = try container.decodeIfPresent([String: JSONValue].self, forKey: .data) ?? [:]
    }

    /// `tokenSource` ("Apple" for a login through the Apple SSO token exchange; no other value is
    /// documented).
    package var tokenSource: String? { data["tokenSource"]?.stringValue }

    /// The metadata as profile attributes (`enc` for the keys Adobe lists as encrypted).
    package var attributes: [String: ProfileAttribute] {
        let sealed = Set(encrypted)
        var attributes: [String: ProfileAttribute] = [:]
        for (name, value) in data where name != "tokenSource" {
            attributes[name] = ProfileAttribute(value: value, state: sealed.contains(name) ? "enc" : "plain")
        }
        return attributes
    }
}
