// SPDX-License-Identifier: Apache-2.0

/// What every request says about the device and the app; setOptions can change the options at
/// any time (they apply to requests that start afterwards).
package struct DeviceContext: Sendable, Equatable {
    package var deviceID: String
    /// X-Device-Info: Base64 of the device information JSON.
    package var deviceInfo: String
    package var visitorID: String?
    package var applicationProfile: String?

    package init(deviceID: String, deviceInfo: String, visitorID: String? = nil, applicationProfile: String? = nil) {
        self.deviceID = deviceID
        self.deviceInfo = deviceInfo
        self.visitorID = visitorID
        self.applicationProfile = applicationProfile
    }

    /// AP-Device-Identifier: `fingerprint <Base64 of the stable device id>` (Adobe's only type).
    package var deviceIdentifier: String { "fingerprint " + Encoding.base64(deviceID) }
}
