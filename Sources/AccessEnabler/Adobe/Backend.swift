// SPDX-License-Identifier: Apache-2.0

/// The REST API a requestor is served by. The AccessEnabler flows are the same for both; where
/// the APIs differ in shape (the second-screen login, the partner exchange, logout, user
/// metadata) the flows switch on it, elsewhere they go through the calls below.
package enum Backend: Sendable {
    case v2(V2Backend)
    case v1(V1Backend)

    package var baseURL: String {
        switch self {
        case .v2(let backend): backend.baseURL
        case .v1(let backend): backend.baseURL
        }
    }

    package var isV1: Bool { if case .v1 = self { true } else { false } }

    /// The requestor's configuration (V2 configuration; V1 MVPD list).
    func configuration(_ requestor: String) async throws(CallFailure) -> RequestorConfiguration {
        switch self {
        case .v2(let backend): try await backend.configuration(requestor)
        case .v1(let backend): try await backend.configuration(requestor)
        }
    }

    /// The profiles Adobe holds for the device: V2's profiles (with the partner status, so that
    /// partner profiles count); V1's authentication token, as a profile whose user metadata is
    /// still to be read (ProfileSync.mergedV1 keeps what the store knows about it).
    func profiles(_ requestor: String, partnerStatus: String?) async throws(CallFailure) -> [Profile] {
        switch self {
        case .v2(let backend): try await backend.profiles(requestor, partnerStatus: partnerStatus)
        case .v1(let backend): try await backend.authenticationToken(requestor).map { [$0.profile] } ?? []
        }
    }

    /// Preauthorization decisions for one request's worth of resources.
    func preauthorize(_ requestor: String, profile: Profile, resources: [String], partnerStatus: String?)
        async throws(CallFailure) -> [Decision]
    {
        switch self {
        case .v2(let backend):
            try await backend.preauthorize(requestor, mvpd: profile.mvpd, resources: resources, partnerStatus: partnerStatus,
                                           tempPassIdentity: profile.tempPassIdentity)
        case .v1(let backend):
            try await backend.preauthorize(requestor, resources: resources)
        }
    }
}
