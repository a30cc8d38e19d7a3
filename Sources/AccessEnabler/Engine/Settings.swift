// SPDX-License-Identifier: Apache-2.0

/// The client's configuration, resolved (defaults applied). Mirrors `ae_config`. Every default is
/// `Defaults`'s.
public struct Settings: Sendable {
    public var softwareStatement: String
    /// REST API V2 (default) or the legacy V1. The calls and callbacks are the same either way.
    public var apiGeneration: APIGeneration = Defaults.apiGeneration
    /// The Adobe Pass host; by default the generation's production host (`defaultBaseURL`).
    public var baseURL: String {
        get { explicitBaseURL ?? apiGeneration.defaultBaseURL }
        set { explicitBaseURL = newValue }
    }
    private var explicitBaseURL: String?
    public var storagePath: String?
    /// 32 bytes: seal the store's secrets with AES-256-GCM under this key. nil: not encrypted
    /// (the file is mode 0600).
    public var storeKey: [UInt8]?
    /// The check of the store at create (iOS's storage integrity check).
    public var storeCheck: IntegrityCheck = Defaults.storeCheck
    /// X-Device-Info as a JSON object; nil derives it from uname(2).
    public var deviceInfo: [String: JSONValue]?
    /// nil derives a stable id from /etc/machine-id (hashed) and stores it.
    public var deviceID: String?
    /// DCR redirect_uri and sessions redirectUrl. Adobe's native SDKs use "adobepass://android.app"
    /// when the programmer configures nothing; so does this SDK.
    public var redirectURL: String = Defaults.redirectURL
    /// sessions domainName; nil: the requestor's first domain from its configuration.
    public var domainName: String?
    public var activationURL: String?
    public var loginMode: LoginMode = Defaults.loginMode
    public var pollIntervalMillis: Int = Defaults.pollIntervalMillis
    public var preauthorizeLimit: Int = Defaults.preauthorizeLimit
    public var connectTimeoutMillis: Int = Defaults.connectTimeoutMillis
    public var requestTimeoutMillis: Int = Defaults.requestTimeoutMillis
    /// Client-side pacing after a burst of `Defaults.requestBurst`; 0 or less disables it.
    public var requestsPerSecond: Double = Defaults.requestsPerSecond
    /// How long setRequestor trusts the stored configuration and profiles.
    public var cacheMaxAgeMillis: Int64 = Defaults.cacheMaxAgeMillis
    /// The platform's TV-provider SSO (Apple's Video Subscriber Account model); nil: none.
    public var partner: (any PartnerFramework)?
    /// Where the SDK asks for single sign-on tokens (platform identity, service token); nil: only
    /// the tokens the host sets (`AccessEnabler.setIdentityToken`). docs/PLATFORM-SSO.md.
    public var identityProvider: (any IdentityTokenProvider)?
    public var callbackMode: CallbackMode = Defaults.callbackMode
    /// The host's HTTP stack (C hosts: ae_config.transport); nil: libcurl.
    public var transport: (any HTTPTransport)?
    /// libcurl's TLS and proxy settings: an operator's CAs, pins, the oldest TLS version, a proxy
    /// (not used with a host transport, which verifies TLS itself).
    public var tls = TLSOptions()
    public var logLevel: LogLevel = Defaults.logLevel
    public var logSink: (@Sendable (LogLevel, String) -> Void)?

    public init(softwareStatement: String) {
        self.softwareStatement = softwareStatement
    }

    /// Checks what can be checked without the network; the message names the field.
    func validate() -> String? {
        if softwareStatement.isEmpty { return "software_statement is empty" }
        if let problem = Self.checkServiceURL(baseURL) { return "base_url: \(problem)" }
        if redirectURL.isEmpty { return "redirect_url is empty" }
        if deviceID?.isEmpty == true { return "device_id is empty" }
        if let storeKey, storeKey.count != Sealer.keyLength { return "store_key must be \(Sealer.keyLength) bytes, not \(storeKey.count)" }
        if let problem = tls.validate() { return problem }
        // Numbers as the C ABI checks them (Swift hosts reach the same engine): negative ones are
        // refused, not turned into a trap or a wait of years.
        if pollIntervalMillis <= 0 { return "poll_interval_ms must be positive" }
        if preauthorizeLimit <= 0 { return "preauthorize_limit must be positive" }
        if connectTimeoutMillis <= 0 || requestTimeoutMillis <= 0 { return "connect_timeout_ms and request_timeout_ms must be positive" }
        if !requestsPerSecond.isFinite { return "max_requests_per_second must be a finite number" }
        if cacheMaxAgeMillis < 0 { return "cacheMaxAgeMillis must not be negative" }
        if let partner {
            if let timeout = partner.timeoutMillis, timeout < 0 { return "partner: timeout_ms must not be negative" }
            if let problem = Self.checkPathSegment(partner.name) { return "partner.name: \(problem)" }
        }
        if let timeout = identityProvider?.timeoutMillis, timeout < 0 { return "identity: timeout_ms must not be negative" }
        for (name, value) in [
            ("redirect_url", redirectURL), ("domain_name", domainName ?? ""), ("device_id", deviceID ?? ""),
            ("activation_url", activationURL ?? ""),
        ]
        where value.containsControlCharacter {
            return "\(name) contains a control character"
        }
        return nil
    }

    /// sessions domainName for a requestor: the host's, else the requestor configuration's first
    /// domain, else `Defaults.domainName`.
    func domainName(for configuration: RequestorConfiguration) -> String {
        domainName ?? configuration.domains.first ?? Defaults.domainName
    }

    /// The partner's longest wait for a request (`interactive`: it may show UI): the partner's own
    /// timeout, else `Defaults.partnerTimeoutMillis(interactive:)`, within `Limits.partnerTimeoutMillis`.
    func partnerTimeoutMillis(interactive: Bool) -> Int {
        (partner?.timeoutMillis ?? Defaults.partnerTimeoutMillis(interactive: interactive)).clamped(to: Limits.partnerTimeoutMillis)
    }

    /// The second-screen poll interval for `serviceURL`: `pollIntervalMillis` within
    /// `Limits.pollIntervalMillis` (3–60 s: Adobe documents 3–5 s and no faster). A loopback service
    /// URL (an emulator, a test rig: not Adobe's service) may go down to 1 s.
    func pollIntervalMillis(serviceURL: String) -> Int {
        let range = Self.isLoopback(serviceURL) ? 1_000...Limits.pollIntervalMillis.upperBound : Limits.pollIntervalMillis
        return pollIntervalMillis.clamped(to: range)
    }

    /// nil when `segment` may be one segment of a request path: not empty, not `.` or `..` (URL
    /// normalisation would turn those into another endpoint), no control character.
    package static func checkPathSegment(_ segment: String) -> String? {
        if segment.isEmpty { return "is empty" }
        if segment == "." || segment == ".." { return "'\(segment)' is not an id (it would name another URL path)" }
        if segment.containsControlCharacter { return "contains a control character" }
        return nil
    }

    /// True when `url` is an http(s) URL whose host is a loopback address (as checkServiceURL reads it).
    static func isLoopback(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return false }
        return checkServiceURL("http://" + lower.drop { $0 != "/" }.dropFirst(2)) == nil
    }

    /// nil when `url` may be used as a service URL: https, or http to a loopback address only.
    /// Checks a service URL: https to any host, or plain http to a loopback host only. The
    /// authority must be exactly `host[:port]` (no userinfo: `http://localhost@example.com/`
    /// would reach example.com), and a loopback host is exactly `localhost`, `[::1]` or a dotted
    /// `127.a.b.c` without leading zeros (libc reads `08` as bad octal and hands the name to DNS).
    static func checkServiceURL(_ url: String) -> String? {
        let lower = url.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else { return "not an http(s) URL" }
        let authority = lower.dropFirst(secure ? 8 : 7).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.isEmpty { return "no host" }
        if authority.contains("@") { return "user information in the URL is not supported" }
        if authority.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) {
            return "the host contains a space, a control character or a backslash"
        }
        if secure { return nil }
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "malformed IPv6 address" }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                port = nil
            } else if after.hasPrefix(":") {
                port = after.dropFirst()
            } else {
                return "malformed authority after the IPv6 address"
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
            port = nil
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(port), number > 0, number <= 65535
            else { return "the port is not a number from 1 to 65535" }
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let ipv4Loopback =
            octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { octet in
                octet.allSatisfy { $0.isASCII && $0.isNumber } && UInt8(octet) != nil
                    && (octet.count == 1 || !octet.hasPrefix("0"))
            }
        let loopback = host == "localhost" || host == "::1" || ipv4Loopback
        return loopback ? nil : "plain http is allowed for loopback addresses only"
    }
}
