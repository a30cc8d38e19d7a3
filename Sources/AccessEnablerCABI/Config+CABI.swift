// SPDX-License-Identifier: Apache-2.0
// ae_config / ae_delegate: initialisers, version checks, and reading a config into Settings.
public import CAccessEnabler
import AccessEnabler

@c @implementation
public func ae_config_init(_ config: UnsafeMutablePointer<ae_config>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let config else { throw .invalidArgument("config is NULL") }
        // Numbers and strings stay 0 / NULL ("the default": ConfigReader resolves them to
        // `Defaults`); the enumerations are set to the default value itself.
        config.pointee = ae_config()
        config.pointee.version = UInt32(AE_CONFIG_VERSION)
        config.pointee.api_generation = Defaults.apiGeneration.rawValue
        config.pointee.login_mode = Defaults.loginMode.rawValue
        config.pointee.log_level = Defaults.logLevel.rawValue
        config.pointee.callback_mode = Defaults.callbackMode.rawValue
        config.pointee.store_check = Defaults.storeCheck.rawValue
    }
}

@c @implementation
public func ae_delegate_init(_ delegate: UnsafeMutablePointer<ae_delegate>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let delegate else { throw .invalidArgument("delegate is NULL") }
        delegate.pointee = ae_delegate()
        delegate.pointee.version = UInt32(AE_DELEGATE_VERSION)
    }
}

/// A user_data pointer the host owns; the SDK only passes it back.
struct HostPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer?
}

enum ConfigReader {
    /// Copies the host's `ae_config`, reading no further than its version's last field (a struct
    /// compiled against an older header is shorter).
    static func copy(_ pointer: UnsafePointer<ae_config>) throws(AccessEnablerError) -> ae_config {
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        let size: Int
        switch version {
        case 1: size = MemoryLayout<ae_config>.offset(of: \ae_config.partner)!
        case 2: size = MemoryLayout<ae_config>.offset(of: \ae_config.callback_mode)!
        case 3: size = MemoryLayout<ae_config>.offset(of: \ae_config.store_key)!
        case UInt32(AE_CONFIG_VERSION): size = MemoryLayout<ae_config>.size
        default:
            throw .unsupportedVersion("ae_config version \(version) is not supported (this library knows 1...\(AE_CONFIG_VERSION))")
        }
        var config = ae_config()
        withUnsafeMutableBytes(of: &config) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size)) }
        return config
    }

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
        if let partner = config.partner { settings.partner = try CPartner(try CPartner.copy(partner)) }
        guard let mode = CallbackMode(rawValue: config.callback_mode) else {
            throw .invalidArgument("callback_mode \(config.callback_mode) is unknown")
        }
        settings.callbackMode = mode
        if let transport = config.transport {
            settings.transport = try CTransport(
                transport.pointee, maxBodyBytes: Defaults.maxBodyBytes,
                timeoutMillis: settings.requestTimeoutMillis)
        }
        guard let check = IntegrityCheck(rawValue: config.store_check) else {
            throw .invalidArgument("store_check \(config.store_check) is unknown")
        }
        settings.storeCheck = check
        // The key is copied last: nothing below throws, so ae_client_create wipes the copy (Sealer.wipe).
        if let key = config.store_key {
            guard config.store_key_length == Int(AE_STORE_KEY_LENGTH) else {
                throw .invalidArgument("store_key_length must be \(AE_STORE_KEY_LENGTH), not \(config.store_key_length)")
            }
            settings.storeKey = Array(UnsafeBufferPointer(start: key, count: config.store_key_length))
        } else if config.store_key_length != 0 {
            throw .invalidArgument("store_key is NULL but store_key_length is \(config.store_key_length)")
        }
        if let log = config.log {
            let userData = HostPointer(raw: config.log_user_data)
            settings.logSink = { level, message in message.withCString { log(level.rawValue, $0, userData.raw) } }
        }
        return settings
    }

    private static func positive(_ value: Int32, _ name: String, default fallback: Int) throws(AccessEnablerError) -> Int {
        guard value >= 0 else { throw .invalidArgument("\(name) must not be negative") }
        return value == 0 ? fallback : Int(value)
    }
}
