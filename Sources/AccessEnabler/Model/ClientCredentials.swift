// SPDX-License-Identifier: Apache-2.0

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
