// SPDX-License-Identifier: Apache-2.0

/// A decision of decisions/authorize or decisions/preauthorize (`DecisionResponse`).
package struct Decision: JSONNodeDecodable, Sendable {
    package struct MediaToken: JSONNodeDecodable, Sendable {
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
        /// `init(from:)`, read from Jansson's nodes.
        package init(node: JSONNode) throws {
            serializedToken = try node.member("serializedToken").string()
            notAfter = try node.millis("notAfter")
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

    package init(
        resource: String, authorized: Bool, error: EnhancedError? = nil, token: MediaToken? = nil,
        notAfter: Int64? = nil, source: String? = nil, mvpd: String? = nil
    ) {
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

    /// `init(from:)`, read from Jansson's nodes: a decision is on every getAuthorization's path
    /// (JSONNodeDecodable). Keep the two in step: DecisionNodeTests compares them.
    package init(node: JSONNode) throws {
        resource = try node.member("resource").string()
        mvpd = try node.optionalMember("mvpd")?.string()
        source = try node.optionalMember("source")?.string()
        authorized = try node.member("authorized").bool()
        token = try node.optionalMember("token").map(MediaToken.init(node:))
        notAfter = try node.millis("notAfter")
        error = try node.optionalMember("error")?.decode(EnhancedError.self)
    }
}
