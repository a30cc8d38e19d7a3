// SPDX-License-Identifier: Apache-2.0
// ae_config / ae_delegate: initialisers, version checks, and reading a config into Settings.
public import CAccessEnabler
import AccessEnabler

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_config_init")
#endif
public func ae_config_init(_ config: UnsafeMutablePointer<ae_config>?, _ version: UInt32) -> Int32 {
    // Every field 0 / NULL: "the default" (ConfigReader resolves them to `Defaults`).
    status { () throws(AccessEnablerError) in try Layouts.config.initialize(config, version: version) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_delegate_init")
#endif
public func ae_delegate_init(_ delegate: UnsafeMutablePointer<ae_delegate>?, _ version: UInt32) -> Int32 {
    status { () throws(AccessEnablerError) in try Layouts.delegate.initialize(delegate, version: version) }
}

/// A user_data pointer the host owns; the SDK only passes it back.
struct HostPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer?
}

enum ConfigReader {
    /// `ae_config` → Settings. Field names in messages are the header's; a field left 0 or NULL
    /// keeps `Settings`' default (`Defaults`).
    static func settings(_ config: ae_config) throws(AccessEnablerError) -> Settings {
        var settings = Settings(softwareStatement: try CInput.string(config.software_statement, "software_statement"))
        if let baseURL = try CInput.optionalString(config.base_url, "base_url") { settings.baseURL = baseURL }
        switch config.api_generation {
        case 0: settings.apiGeneration = Defaults.apiGeneration
        case Int32(AE_API_V2): settings.apiGeneration = .v2
        case Int32(AE_API_V1): settings.apiGeneration = .v1
        default: throw .invalidArgument("api_generation \(config.api_generation) is unknown")
        }
        settings.storagePath = try CInput.optionalString(config.storage_path, "storage_path")
        if let info = try CInput.optionalJSON(config.device_info_json, "device_info_json") {
            guard let object = info.objectValue else { throw .invalidArgument("device_info_json must be a JSON object") }
            settings.deviceInfo = object
        }
        settings.deviceID = try CInput.optionalString(config.device_id, "device_id")
        if let redirect = try CInput.optionalString(config.redirect_url, "redirect_url") { settings.redirectURL = redirect }
        settings.domainName = try CInput.optionalString(config.domain_name, "domain_name")
        settings.activationURL = try CInput.optionalString(config.activation_url, "activation_url")
        guard let mode = LoginMode(rawValue: config.login_mode) else {
            throw .invalidArgument("login_mode \(config.login_mode) is unknown")
        }
        settings.loginMode = mode
        settings.pollIntervalMillis = try positive(
            config.poll_interval_ms, "poll_interval_ms",
            default: Defaults.pollIntervalMillis)  // clamped by the engine
        settings.preauthorizeLimit = try positive(
            config.preauthorize_limit, "preauthorize_limit",
            default: Defaults.preauthorizeLimit)
        settings.connectTimeoutMillis = try positive(
            config.connect_timeout_ms, "connect_timeout_ms",
            default: Defaults.connectTimeoutMillis)
        settings.requestTimeoutMillis = try positive(
            config.request_timeout_ms, "request_timeout_ms",
            default: Defaults.requestTimeoutMillis)
        switch config.max_requests_per_second {
        case 0: settings.requestsPerSecond = Defaults.requestsPerSecond
        case -1: settings.requestsPerSecond = 0
        case 1...: settings.requestsPerSecond = Double(config.max_requests_per_second)
        default: throw .invalidArgument("max_requests_per_second must be -1, 0 or positive")
        }
        guard let level = LogLevel(rawValue: config.log_level) else {
            throw .invalidArgument("log_level \(config.log_level) is unknown")
        }
        settings.logLevel = level
        if let partner = config.partner { settings.partner = try CPartner(try Layouts.partner.copy(partner)) }
        if let identity = config.identity {
            settings.identityProvider = try CIdentityProvider(try Layouts.identity.copy(identity))
        }
        guard let mode = CallbackMode(rawValue: config.callback_mode) else {
            throw .invalidArgument("callback_mode \(config.callback_mode) is unknown")
        }
        settings.callbackMode = mode
        if let transport = config.transport {
            settings.transport = try CTransport(
                try Layouts.transport.copy(transport), maxBodyBytes: Defaults.maxBodyBytes,
                timeoutMillis: settings.requestTimeoutMillis)
        }
        guard let check = IntegrityCheck(rawValue: config.store_check) else {
            throw .invalidArgument("store_check \(config.store_check) is unknown")
        }
        settings.storeCheck = check
        settings.tls = try tls(config)
        // The key is copied last: nothing below throws, so ae_client_create wipes the copy (Sealer.wipe).
        settings.storeKey = try storeKey(config)
        if let log = config.log {
            let userData = HostPointer(raw: config.log_user_data)
            settings.logSink = { level, message in message.withCString { log(level.rawValue, $0, userData.raw) } }
        }
        return settings
    }

    /// The store key (a copy the caller wipes with `Sealer.wipe`), or nil.
    static func storeKey(_ config: ae_config) throws(AccessEnablerError) -> [UInt8]? {
        if let key = config.store_key {
            guard config.store_key_length == Int(AE_STORE_KEY_LENGTH) else {
                throw .invalidArgument("store_key_length must be \(AE_STORE_KEY_LENGTH), not \(config.store_key_length)")
            }
            return Array(UnsafeBufferPointer(start: key, count: config.store_key_length))
        } else if config.store_key_length != 0 {
            throw .invalidArgument("store_key is NULL but store_key_length is \(config.store_key_length)")
        }
        return nil
    }

    /// Version 5's TLS and proxy fields (0 / NULL in an older struct: libcurl's defaults).
    static func tls(_ config: ae_config) throws(AccessEnablerError) -> TLSOptions {
        var tls = TLSOptions()
        tls.caFile = try CInput.optionalString(config.ca_file, "ca_file")
        tls.caPath = try CInput.optionalString(config.ca_path, "ca_path")
        switch config.ca_mode {
        case Int32(AE_CA_WITH_SYSTEM): tls.trustSystemStore = true
        case Int32(AE_CA_ONLY): tls.trustSystemStore = false
        default: throw .invalidArgument("ca_mode \(config.ca_mode) is unknown")
        }
        if let pins = try CInput.optionalString(config.pinned_public_keys, "pinned_public_keys") {
            tls.pinnedPublicKeys = pins.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        }
        guard let version = TLSVersion(rawValue: config.min_tls_version) else {
            throw .invalidArgument("min_tls_version \(config.min_tls_version) is unknown")
        }
        tls.minimumVersion = version
        tls.proxy = try CInput.optionalString(config.proxy, "proxy")
        tls.proxyFromEnvironment = config.proxy_from_environment != 0
        return tls
    }

    static func positive(_ value: Int32, _ name: String, default fallback: Int) throws(AccessEnablerError) -> Int {
        guard value >= 0 else { throw .invalidArgument("\(name) must not be negative") }
        return value == 0 ? fallback : Int(value)
    }
}
