// SPDX-License-Identifier: Apache-2.0

/// What every request says about the device and the app; setOptions can change the options at
/// any time (they apply to requests that start afterwards).
package struct DeviceContext: Sendable, Equatable {
    package var deviceID: String
    /// X-Device-Info: Base64 of the device information JSON.
    package var deviceInfo: String
    package var visitorID: String?
    package var applicationProfile: String?
    /// getMetadata opcode 2 answers the device id (setOptions `deviceIdMetadata`): Adobe documents
    /// the device id metadata as disabled by default, enabled by Adobe for an integration.
    package var deviceIDMetadata = false
    /// The host's single sign-on tokens (ae_set_identity_token), checked when they were set.
    package var identityTokens: [IdentityTokenKind: IdentityToken] = [:]

    package init(deviceID: String, deviceInfo: String, visitorID: String? = nil, applicationProfile: String? = nil) {
        self.deviceID = deviceID
        self.deviceInfo = deviceInfo
        self.visitorID = visitorID
        self.applicationProfile = applicationProfile
    }

    /// AP-Device-Identifier: `fingerprint <Base64 of the stable device id>` (Adobe's only type).
    package var deviceIdentifier: String { "fingerprint " + Encoding.base64(deviceID) }

    /// The SSO headers of `kinds` (`Adobe-Subject-Token`, `AD-Service-Token`) for a request made at
    /// `nowMillis`: a token past its `exp` is not sent (docs/PLATFORM-SSO.md).
    package func identityHeaders(_ kinds: [IdentityTokenKind], nowMillis: Int64) -> [(name: String, value: String)] {
        kinds.compactMap { kind in
            guard let token = identityTokens[kind], !token.isExpired(at: nowMillis) else { return nil }
            return (kind.headerName, token.text)
        }
    }
}
