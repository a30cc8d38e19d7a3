// SPDX-License-Identifier: Apache-2.0

// The options of the Swift and C settings that name a mode.

/// How the viewer logs in.
public enum LoginMode: Int32, Sendable {
    /// tvOS style: a REGCODE status with a code and a URL for another device, then polling.
    case secondScreen = 0
    /// The host has a browser: navigateToUrl, then handleExternalURL.
    case browser = 1
}

/// The Adobe Pass REST API the client speaks (the header's AE_API_*).
public enum APIGeneration: Int32, Sendable {
    /// The legacy REST API V1 ("Clientless API"), for integrations still configured for it (Adobe
    /// supports it until the end of 2026).
    case v1 = 1
    /// REST API V2 (the default).
    case v2 = 2

    /// Adobe's production host for this generation: V2 at sp.auth.adobe.com, V1 at
    /// api.auth.adobe.com (V1's endpoint pages name both its registration-code and its service
    /// hosts api.auth.adobe.com).
    public var defaultBaseURL: String {
        switch self {
        case .v1: Defaults.baseURLV1
        case .v2: Defaults.baseURLV2
        }
    }

    /// How the token store keys this generation's records.
    var storeName: String { self == .v1 ? "v1" : "v2" }
}

/// How callbacks are delivered (the header's AE_CALLBACKS_*).
public enum CallbackMode: Int32, Sendable {
    /// On the client's callback thread.
    case thread = 0
    /// Queued; the host runs them with `dispatch()` when `eventFileDescriptor` is readable.
    case eventLoop = 1
}

/// What `ae_config.store_check` asks at create (the iOS SDK's `IntegrityCheckType`, plus a quick
/// check as the default). The values are the header's AE_STORE_CHECK_*.
public enum IntegrityCheck: Int32, Sendable {
    /// `PRAGMA quick_check` (default): finds a truncated or overwritten file in well under a
    /// millisecond on a store of this size.
    case quick = 0
    /// iOS `INTEGRITY_CHECK_NONE`: no check beyond opening (a file SQLite cannot read at all is
    /// still moved aside: it could not be used).
    case none = 1
    /// iOS `INTEGRITY_CHECK_ALL`: the full `PRAGMA integrity_check`; on failure the store is
    /// moved aside and a new one started (the viewer is logged out).
    case all = 2
    /// iOS `INTEGRITY_CHECK_CLEAR`: the app's records are cleared at every create.
    case clear = 3
}
