// SPDX-License-Identifier: Apache-2.0

/// The device fields of AccessEnabler's tracking data arrays.
struct TrackingValues: Sendable {
    /// AccessEnabler's device types: computer, tablet, mobile, gameconsole, unknown.
    let deviceType: String
    /// AccessEnabler's client types name the SDK platform (ios, android, tvos, ...): "linux" here.
    let clientType = "linux"
    let os: String

    init(deviceInfo: [String: JSONValue]) {
        deviceType =
            switch deviceInfo["primaryHardwareType"]?.stringValue {
            case "MobilePhone": "mobile"
            case "Tablet": "tablet"
            case "Desktop": "computer"
            case "GamesConsole": "gameconsole"
            default: "unknown"
            }
        os = deviceInfo["osName"]?.stringValue ?? "Linux"
    }
}
