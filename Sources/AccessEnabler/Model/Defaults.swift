// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Every default value of the SDK, defined once. `Settings` starts from these, the C ABI's
/// `ae_config_init` and its "0 means the default" fields resolve to them, and the header, the
/// Python package and the docs name the same numbers (Tests/AccessEnablerTests/DefaultsTests.swift
/// compares them with the header's text and with what `ae_config_init` resolves to).
package enum Defaults {
    // MARK: ae_config / Settings

    /// REST API V2 (AE_API_V2).
    package static let apiGeneration: APIGeneration = .v2
    /// Adobe's production host for REST API V2.
    package static let baseURLV2 = "https://sp.auth.adobe.com"
    /// Adobe's production host for REST API V1 (V1's endpoint pages name both its registration-code
    /// and its service hosts api.auth.adobe.com).
    package static let baseURLV1 = "https://api.auth.adobe.com"
    /// DCR redirect_uri and sessions redirectUrl: what Adobe's native SDKs use when the programmer
    /// configures none.
    package static let redirectURL = "adobepass://android.app"
    /// sessions domainName when neither the host nor the requestor's configuration names one.
    package static let domainName = "adobe.com"
    /// A code and a URL for another device (tvOS style).
    package static let loginMode: LoginMode = .secondScreen
    /// Second-screen polling (Adobe documents 3–5 s; clamped by `Limits.pollIntervalMillis`).
    package static let pollIntervalMillis = 4_000
    /// Resources per preauthorization request (Adobe's default).
    package static let preauthorizeLimit = 5
    /// libcurl's connect timeout.
    package static let connectTimeoutMillis = 10_000
    /// The whole request's budget (libcurl's, and the host transport's `timeout_ms`).
    package static let requestTimeoutMillis = 30_000
    /// Client-side pacing after the burst: Adobe's throttle is one request per second per device.
    package static let requestsPerSecond: Double = 1
    /// Requests that go out at once before the pacing starts (Adobe's one-time burst).
    package static let requestBurst = 10
    /// How long setRequestor trusts the stored configuration and profiles.
    package static let cacheMaxAgeMillis: Int64 = 300_000
    /// Callbacks on the client's own thread.
    package static let callbackMode: CallbackMode = .thread
    /// Highest level passed to the log sink.
    package static let logLevel: LogLevel = .error
    /// The store check at create (PRAGMA quick_check).
    package static let storeCheck: IntegrityCheck = .quick
    /// Largest answer body taken from the network or the host transport (4 MiB).
    package static let maxBodyBytes = 4 << 20

    // MARK: Partner (platform SSO)

    /// The partner name on the wire (`/sessions/sso/{partner}`).
    package static let partnerName = "Apple"
    /// Longest wait for a partner request that may show UI (the picker, the login).
    package static let partnerTimeoutInteractiveMillis = 60_000
    /// Longest wait for a partner request that shows none.
    package static let partnerTimeoutSilentMillis = 10_000
    /// The host's identity provider's longest wait when it gives none (`timeout_ms` 0).
    package static let identityTimeoutMillis = 10_000
    /// A single sign-on token this close to its `exp` is asked for again before it is needed.
    package static let identityRefreshMarginMillis: Int64 = 60_000
    /// How long a partner status is reused for decisions before it is asked again.
    package static let partnerStatusMaxAgeMillis: Int64 = 300_000

    /// The partner's longest wait when the partner gives none (`PartnerFramework.timeoutMillis`
    /// nil, `ae_partner_framework.timeout_ms` 0).
    package static func partnerTimeoutMillis(interactive: Bool) -> Int {
        interactive ? partnerTimeoutInteractiveMillis : partnerTimeoutSilentMillis
    }

    // MARK: What Adobe's answers may leave out

    /// How long a registration code is polled when Adobe's answer has no `notAfter` (its codes
    /// live 30 minutes by default).
    package static let codeLifetimeMillis: Int64 = 1_800_000
    /// DCR access token lifetime when the answer has no `expires_in`.
    package static let accessTokenSeconds: Int64 = 3_600
    /// How long preauthorization decisions are reused (ae_check_preauthorized_resources `cache`).
    package static let preauthorizationCacheMillis: Int64 = 300_000

    // MARK: The device

    /// X-Device-Info's values that uname(2) and DMI do not give (a Linux set-top box on a wire).
    package static let primaryHardwareType = "SetTopBox"
    package static let osName = "Linux"
    package static let connectionType = "LAN"
    /// Prefix of the machine id before it is hashed into the device id.
    package static let deviceIDPrefix = "accessenabler-linux:"
}

/// Where the device id and X-Device-Info come from when the host does not give them.
enum DeviceDefaults {
    /// A stable id for this machine and app family: SHA-256 of /etc/machine-id with a fixed
    /// prefix (machine-id(5) asks applications not to expose the raw id); random if there is none.
    static func derivedDeviceID() -> String {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let id = SystemFile.firstLine(path), !id.isEmpty { return Digest.sha256Hex(Defaults.deviceIDPrefix + id) }
        }
        return Digest.hex(Digest.randomBytes(32))
    }

    /// X-Device-Info from uname(2) and DMI: the keys Adobe requires (model, version, osName,
    /// osVersion, connectionType) plus the hardware type.
    static func deviceInfo() -> [String: JSONValue] {
        var names = utsname()
        uname(&names)
        func field<T>(_ value: inout T) -> String {
            withUnsafeBytes(of: &value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let release = field(&names.release)
        let machine = field(&names.machine)
        let model =
            SystemFile.firstLine("/sys/devices/virtual/dmi/id/product_name")
            ?? SystemFile.firstLine("/proc/device-tree/model") ?? "Linux \(machine)"
        var info: [String: JSONValue] = [
            "primaryHardwareType": .string(Defaults.primaryHardwareType), "model": .string(model), "version": .string(machine),
            "osName": .string(Defaults.osName), "osFamily": .string(Defaults.osName), "osVersion": .string(release),
            "connectionType": .string(Defaults.connectionType),
        ]
        if let vendor = SystemFile.firstLine("/sys/devices/virtual/dmi/id/sys_vendor") {
            info["manufacturer"] = .string(vendor)
            info["vendor"] = .string(vendor)
        }
        return info
    }
}
