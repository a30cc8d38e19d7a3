// SPDX-License-Identifier: Apache-2.0
// fuzzHostJSON: the strings and JSON a host passes through the C interface (accessenabler.h),
// checked against the Swift parsers they go through (JSONValue.parse, MetadataKey(json:),
// PreauthorizeRequest(json:)). No call reaches the network: the client has no requestor, so every
// accepted call stops at AE_E_NO_REQUESTOR after its argument checks.
import FoundationEssentials
import CAccessEnabler
import AccessEnabler
import Glibc

/// Input: byte 0 picks the mode. Mode 0x?F (1 input in 16): the rest, split at NUL bytes, is an
/// ae_config (base_url, device_info_json, software_statement, device_id, redirect_url,
/// domain_name, activation_url) for ae_client_create + ae_client_destroy. Otherwise the rest, up
/// to its first NUL, is the string passed to every call that takes JSON or a string.
///
/// Checks: nothing crashes; each call's status is the one the Swift parsers predict
/// (AE_E_NO_REQUESTOR when the argument is acceptable, AE_E_INVALID_ARG otherwise); a failed call
/// leaves an error message; JSON the SDK writes (jsonText) parses back to the same text; a client
/// is created only for an https base URL or an http one whose host is a loopback address.
public func fuzzHostJSON(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    var input = FuzzInput(data)
    let mode = input.byte()
    let payload = input.rest()
    if mode & 0x0F == 0x0F {
        try HostJSONFuzz.create(payload)
    } else {
        try HostJSONFuzz.calls(Array(payload.prefix { $0 != 0 }))
    }
}

enum HostJSONFuzz {
    static let maxLength = Int(AE_MAX_STRING_LENGTH)

    /// One client for the whole run: in memory, pointing at a port where nothing listens.
    nonisolated(unsafe) static let client: OpaquePointer = {
        var config = ae_config()
        ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
        var delegate = ae_delegate()
        ae_delegate_init(&delegate, UInt32(AE_DELEGATE_VERSION))
        var client: OpaquePointer?
        let status = "fuzz.software.statement".withCString { statement in
            "http://127.0.0.1:9".withCString { base in
                "fuzz-device".withCString { device in
                    config.software_statement = statement
                    config.base_url = base
                    config.device_id = device
                    return ae_client_create(&config, &delegate, &client)
                }
            }
        }
        precondition(status == Int32(AE_OK) && client != nil, "fuzzHostJSON: ae_client_create failed (\(status))")
        return client!
    }()

    static let ok = Int32(AE_OK), invalidArg = Int32(AE_E_INVALID_ARG), noRequestor = Int32(AE_E_NO_REQUESTOR)
    static let invalidHandle = Int32(AE_E_INVALID_HANDLE), insecureURL = Int32(AE_E_INSECURE_URL)

    /// Every call that takes a string from the host, with `bytes` (NUL-terminated) as that string.
    static func calls(_ bytes: [UInt8]) throws(FuzzFailure) {
        let client = client
        let text = bytes.count <= maxLength ? String(validating: bytes, as: UTF8.self) : nil
        let json = text.flatMap(JSONValue.parse)
        if let json { try checkJSONText(json) }
        let strings = json?.arrayValue.flatMap { array in
            array.allSatisfy { $0.stringValue != nil } ? array.compactMap(\.stringValue) : nil
        }

        func expect(_ name: String, _ result: Int32, _ expected: Int32) throws(FuzzFailure) {
            try check(
                result == expected,
                "\(name) returned \(result) (\(String(cString: ae_status_string(result)))), "
                    + "expected \(expected) for \(text.map { String($0.prefix(200)) } ?? "\(bytes.count) bytes, not UTF-8")")
            if result != ok {
                let message = ae_last_error_message()
                try check(message != nil, "\(name) failed without an error message")
                ae_string_free(message)
            }
        }
        func accepted(_ condition: Bool) -> Int32 { condition ? noRequestor : invalidArg }

        // A C string the calls read (a copy: no closure, whose typed throws Swift 6.0 does not pass on).
        let cString = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        defer { cString.deallocate() }
        for (index, byte) in bytes.enumerated() { cString[index] = CChar(bitPattern: byte) }
        cString[bytes.count] = 0
        let s = UnsafePointer(cString)
        try expect("ae_set_options", ae_set_options(client, s), optionsAccepted(json) ? ok : invalidArg)
        try expect("ae_get_metadata", ae_get_metadata(client, s), accepted(json.flatMap(MetadataKey.init(json:)) != nil))
        try expect(
            "ae_preauthorize", ae_preauthorize(client, s, { _, _ in }, nil),
            accepted(json.flatMap(PreauthorizeRequest.init(json:)) != nil))
        try expect(
            "ae_check_preauthorized_resources", ae_check_preauthorized_resources(client, s, 1),
            accepted(strings.map { !$0.contains(where: \.isEmpty) } ?? false))
        try expect("ae_set_requestor(\"\", json)", ae_set_requestor(client, "", s), invalidArg)
        try expect(
            "ae_get_authentication(data)", ae_get_authentication(client, 0, s, nil),
            accepted(json?.objectValue != nil))
        try expect(
            "ae_get_authentication(filter)", ae_get_authentication(client, 1, nil, s),
            accepted(
                json?.objectValue?.values.allSatisfy {
                    $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true
                } == true))
        try expect(
            "ae_check_authorization(data)", ae_check_authorization(client, "REF30", s),
            accepted(json?.objectValue != nil))
        try expect(
            "ae_get_authorization(resource)", ae_get_authorization(client, s, nil),
            accepted(text.map { !$0.isEmpty } ?? false))
        try expect("ae_handle_external_url", ae_handle_external_url(client, s), accepted(text.map { !$0.isEmpty } ?? false))
        try expect(
            "ae_set_selected_provider", ae_set_selected_provider(client, s),
            accepted(text.map { Settings.checkPathSegment($0) == nil } ?? false))
        // The request handle is judged before the argument (F8).
        try expect("ae_partner_request_reply_metadata(NULL)", ae_partner_request_reply_metadata(nil, s), invalidHandle)
    }

    /// setOptions' rules (AccessEnabler.setOptions): known keys with the right types, others ignored.
    static func optionsAccepted(_ json: JSONValue?) -> Bool {
        guard let options = json?.objectValue else { return false }
        return options.allSatisfy { key, value in
            switch key {
            case "applicationProfile", "visitorID", "ap_vi": return value.stringValue.map { !$0.containsControlCharacter } ?? false
            case "handleSVC", "deviceIdMetadata": return value.boolValue != nil
            case "device_info":
                switch value {
                case .object: return true
                case .string(let text):
                    // Foundation's decoder as an independent oracle of the SDK's (libcrypto's); the
                    // decoded bytes must be JSON as they are (invalid UTF-8 is no JSON, never repaired).
                    // Padding ends the last group only (stricter than Foundation, which takes "Zm9v=").
                    let padding = text.reversed().prefix { $0 == "=" }.count
                    guard text.utf8.count % 4 == 0, padding <= 2, !text.dropLast(padding).contains("="),
                        let data = Data(base64Encoded: text), let json = String(validating: data, as: UTF8.self)
                    else { return false }
                    return JSONValue.parse(json)?.objectValue != nil
                default: return false
                }
            default: return true
            }
        }
    }

    /// ae_partner_request_reply_metadata's rules: an object; the two names strings or null; the expiry
    /// milliseconds (a number or a string of digits) or null.
    static func partnerMetadataAccepted(_ json: JSONValue?) -> Bool {
        guard let object = json?.objectValue else { return false }
        for key in ["accountProviderIdentifier", "samlAttributeQueryResponse"] {
            switch object[key] {
            case nil, .null?, .string?: break
            default: return false
            }
        }
        if let expiry = object["authenticationExpirationDate"], expiry != .null, expiry.int64Value == nil { return false }
        return true
    }

    /// What the SDK writes as JSON (jsonText) it can read back, and a second round changes nothing.
    static func checkJSONText(_ value: JSONValue) throws(FuzzFailure) {
        let first = value.jsonText
        guard let again = JSONValue.parse(first) else { throw FuzzFailure("jsonText output does not parse: \(first.prefix(200))") }
        try check(sameJSON(again, value), "jsonText does not read back as the same value: \(first.prefix(200))")
        try check(again.jsonText == JSONValue.parse(again.jsonText)?.jsonText, "jsonText is not stable")
    }

    /// ae_client_create with fuzzed strings in the config (never storage_path: no files).
    static func create(_ payload: [UInt8]) throws(FuzzFailure) {
        var fields = payload.split(separator: 0, maxSplits: 7, omittingEmptySubsequences: false).map {
            Array($0).map { CChar(bitPattern: $0) } + [0]
        }
        let baseURL = fields.isEmpty ? "" : String(decoding: fields[0].dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while fields.count < 7 { fields.append([]) }
        var config = ae_config()
        ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
        var delegate = ae_delegate()
        ae_delegate_init(&delegate, UInt32(AE_DELEGATE_VERSION))
        var client: OpaquePointer?
        let result = withPointers(fields) { pointers in
            config.base_url = pointers[0]
            config.device_info_json = pointers[1]
            config.software_statement = pointers[2] ?? UnsafePointer(staticStatement)
            config.device_id = pointers[3] ?? UnsafePointer(staticDevice)
            config.redirect_url = pointers[4]
            config.domain_name = pointers[5]
            config.activation_url = pointers[6]
            return ae_client_create(&config, &delegate, &client)
        }
        if result == ok {
            try check(client != nil, "ae_client_create returned AE_OK without a client")
            ae_client_destroy(client)
            try checkServiceURL(baseURL)
        } else {
            try check(client == nil, "ae_client_create failed but set a client")
            try check(result == invalidArg || result == insecureURL, "ae_client_create returned \(result)")
            let message = ae_last_error_message()
            try check(message != nil, "ae_client_create failed without an error message")
            ae_string_free(message)
            if result == insecureURL {
                try check(baseURL.lowercased().hasPrefix("http://"), "AE_E_INSECURE_URL for \(baseURL)")
            }
        }
    }

    /// An accepted service URL: https, or plain http whose authority is exactly a loopback host
    /// with an optional port — what a URL parser such as libcurl's then connects to.
    /// F1: a userinfo ("localhost:80@host") makes libcurl connect to the host after the @.
    /// F3: anything else after the host (junk after "]" or in the port, an octet libc does not
    /// read as a number such as "08", which then goes to DNS) is accepted too.
    static func checkServiceURL(_ url: String) throws(FuzzFailure) {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") { return }
        try check(lower.hasPrefix("http://"), "accepted a service URL that is neither https nor http: \(url)")
        // RFC 3986: the authority ends at the first "/", "?" or "#"; a userinfo ends at its last "@".
        let authority = lower.dropFirst(7).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        try check(!authority.contains("@"), finding: "F1", "accepted plain http with a userinfo (the host is after the @): \(url)")
        try check(
            isLoopbackAuthority(authority), finding: "F3",
            "accepted plain http whose authority is not a loopback host[:port]: \(url)")
    }

    /// `localhost`, `[::1]` or `127.a.b.c` (decimal octets without leading zeros), then `:port`.
    static func isLoopbackAuthority(_ authority: Substring) -> Bool {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        if let port, !port.isEmpty {  // "localhost:" is the default port
            guard port.count <= 5, port.allSatisfy({ ("0"..."9").contains($0) }), UInt16(port) != nil else { return false }
        }
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { octet in
                octet.allSatisfy { ("0"..."9").contains($0) } && UInt8(octet) != nil && (octet == "0" || !octet.hasPrefix("0"))
            }
    }

    nonisolated(unsafe) static let staticStatement = strdup("fuzz.software.statement")!
    nonisolated(unsafe) static let staticDevice = strdup("fuzz-device")!

    /// `fields` as C strings for the duration of `body`; an empty field (no bytes, no NUL) is NULL.
    static func withPointers<R>(_ fields: [[CChar]], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = fields.map { field -> UnsafeMutablePointer<CChar>? in
            guard !field.isEmpty else { return nil }
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: field.count)
            copy.initialize(from: field, count: field.count)
            return copy
        }
        defer { copies.forEach { $0?.deallocate() } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
