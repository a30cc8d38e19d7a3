// SPDX-License-Identifier: Apache-2.0
// fuzzCBoundary: the C interface (accessenabler.h) as a host drives it — every string argument
// with control characters, dot segments, NUL-truncation and invalid UTF-8; a host HTTP transport
// (ae_http_transport) that answers with ae_http_request_reply / ae_http_request_reply_error, body lengths at their
// limits included; a partner framework answered with ae_partner_request_reply_* (numbers and ints at
// their extremes) — and what the SDK hands the transport checked on every request.
import Dispatch
import Glibc
import CAccessEnabler
import AccessEnabler

/// Input (bytes past the end read as 0):
///
/// | bytes | what |
/// |---|---|
/// | 0 | flags: bit 0 REST API V1, 1 a partner framework, 2 browser login mode, 3–5 an id variant in Adobe's answers (MVPD ids and codes `.`, `..`, `%2e%2E`, ...; `FlowAnswers.ids`), 6 preauthorize_limit 1, 7 re-entrant: the callbacks, the log sink (debug level) and the partner's requests call back into the SDK (`Host.reenter`) |
/// | 1–16 | how the host replies, per endpoint (`FlowEndpoint` raw value % 16): bits 0–2 the kind (`CBoundaryFuzz.Host.reply`), 3–7 its parameter |
/// | 17–20 | how the host answers the partner: access status reply, its parameter, metadata reply, authenticationExpirationDate selector (`FuzzNumbers`) |
/// | 21– | the ae_config strings (device_id, redirect_url, domain_name, activation_url, partner name, device_info model), then up to 24 calls: a call byte and its arguments (0xF0–0xFF: the single sign-on calls of CBoundary+Identity.swift; 0xE0–0xEF: destroy from inside a callback kind, `Host.Inside`, at the plan byte's occurrence (1–4), armed for the calls after it; below, the byte % 16) |
///
/// Strings: a byte < 0x80 picks `CBoundaryFuzz.strings[byte % count]` (entry 0 is NULL); a byte
/// ≥ 0x80 is a length (byte & 0x7F) and that many raw bytes follow (NUL-terminated by the
/// harness: a NUL inside ends the C string there).
///
/// Checks: nothing crashes; every call returns a status its header documents, the one the Swift
/// parsers predict (AE_E_INVALID_ARG for a bad string, AE_E_NO_REQUESTOR before a requestor, ...);
/// a failed call leaves an error message; every accepted call ends with its callback; callbacks
/// pass valid UTF-8 and the JSON their documentation names; a bad handle is reported before a bad
/// argument; replies to answered, unknown or destroyed requests are AE_E_INVALID_HANDLE; every
/// request the transport gets has header lines without CR, LF or another control character, a
/// printable ASCII URL without raw `.`/`..` path segments, a body pointer for its length, SSO
/// headers only where they belong. The host has an identity provider (both kinds) that answers at
/// once with none unless the input says otherwise (CBoundary+Identity.swift). A client destroyed
/// from inside any callback kind (the log sink, a delegate callback, the preauthorize completion,
/// the transport's `send`, a partner or identity request) calls none of the host's functions once
/// that destroy returned (issue 28), and the rest of the input is not run.
public func fuzzCBoundary(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    try CBoundaryFuzz.serial.withLock { (_: inout Int) throws(FuzzFailure) in try CBoundaryFuzz.run(Array(data)) }
}

enum CBoundaryFuzz {
    static let serial = Locked(0)
    static let base = "https://fuzz.invalid"
    static let ok = Int32(AE_OK), invalidArg = Int32(AE_E_INVALID_ARG), invalidHandle = Int32(AE_E_INVALID_HANDLE)
    static let noRequestor = Int32(AE_E_NO_REQUESTOR), insecureURL = Int32(AE_E_INSECURE_URL)

    /// Strings a host may pass by mistake or an attacker may plant: dot segments (raw and
    /// encoded), CR/LF/TAB/DEL/C1 controls, a NUL that truncates, invalid UTF-8 (lone
    /// continuation, 0xFF, a surrogate, an overlong form, past U+10FFFF), long text.
    static let strings: [[UInt8]?] = [
        nil, b("REF30"), b("Cablevision"), b("."), b(".."), b("%2e"), b("%2E%2E"), b("/"), b("./"), b("a/../b"),
        b("..%2f"), b(""), b(" "), b("\t"), b("a\tb"), b("a\r\nX-Injected: 1"), b("a\nb"), b("a\rb"), b("a") + [0] + b("b"),
        b("\u{7F}"), b("\u{85}"), b("\u{9B}1m"), b("\u{2028}"), [0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
        [0xF4, 0x90, 0x80, 0x80], b("caf\u{e9}"), b("\u{1F600}"), b(String(repeating: "a", count: 300)),
        b("TempPass_TEST40"), b("Dish"), b("LIVE"), b("{\"opCode\":\"0\"}"), b("https://fuzz.invalid"),
        b("adobepass://android.app"), b("viewer\u{0}hidden"), b("x\u{1B}[2J"), b("\u{FEFF}BOM"),
    ]

    static func b(_ text: String) -> [UInt8] { Array(text.utf8) }

    struct Reader {
        var bytes: ArraySlice<UInt8>
        var isEmpty: Bool { bytes.isEmpty }
        mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
        /// A string argument (nil: NULL).
        mutating func string() -> [UInt8]? {
            let selector = byte()
            if selector & 0x80 == 0 { return strings[Int(selector) % strings.count] }
            let count = min(Int(selector & 0x7F), bytes.count)
            defer { bytes = bytes.dropFirst(count) }
            return Array(bytes.prefix(count))
        }
    }

    /// What the SDK reads from a C string: the bytes before the first NUL, if valid UTF-8 and
    /// not too long (nil otherwise, or for NULL).
    static func text(_ bytes: [UInt8]?) -> String? {
        guard let bytes else { return nil }
        let effective = bytes.prefix { $0 != 0 }
        guard effective.count <= Int(AE_MAX_STRING_LENGTH) else { return nil }
        return String(validating: effective, as: UTF8.self)
    }

    /// `bytes` as a JSON string literal: valid UTF-8 is escaped (CR, LF, NUL, ... as \u escapes,
    /// so the SDK gets them back); invalid bytes go in raw (the whole argument is then invalid).
    static func quoted(_ bytes: [UInt8]?) -> [UInt8] {
        guard let bytes else { return b("null") }
        if let text = String(validating: bytes, as: UTF8.self) { return b(JText.quote(text)) }
        return b("\"") + bytes.filter { $0 != 0 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } + b("\"")
    }

    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var reader = Reader(bytes: bytes[...])
        let flags = reader.byte()
        let quirks = (0..<16).map { _ in reader.byte() }
        let partnerQuirks = (0..<4).map { _ in reader.byte() }
        let configStrings = (0..<6).map { _ in reader.string() }
        let host = Host(flags: flags, quirks: quirks, partnerQuirks: partnerQuirks, now: SystemClock().nowMillis())
        defer { withExtendedLifetime(host) {} }
        let client = try host.create(configStrings)
        guard let client else { return }
        host.reentrantClient.withLock { $0 = client }
        let driver = FlowDriver(log: host.log)
        driver.pump = { () throws(FuzzFailure) in try host.serve() }
        driver.polls = { host.polls }
        driver.select = { id in
            let status = withCStrings([id.map(b)]) { ae_set_selected_provider(client, $0[0]) }
            return status == ok
        }
        driver.wake = { ae_handle_external_url(client, "adobepass://android.app?done=1") == ok }
        driver.stopped = { host.destroyedInside.withLock { $0 } }
        var calls = Calls(client: client, host: host, driver: driver)
        calls.diagInputs = configStrings
        var count = 0
        do {
            while !reader.isEmpty && count < 24 && !host.destroyedInside.withLock({ $0 }) {
                count += 1
                do {
                    try calls.perform(&reader)
                } catch  where host.destroying.withLock({ $0 }) {
                    // Destroyed from inside a callback during this call: its outcome is gone (the
                    // call's own checks expected a live client). What the destroy must keep is
                    // checked below (F9 problems, afterDestroy). The callback may run on another
                    // thread, so the handle can be gone before that destroy returned.
                }
                try host.check()
            }
        } catch {
            ae_client_destroy(client)
            host.trace()
            throw error
        }
        // A destroy from inside a callback on another thread: its checks start once it returned.
        var waited = 0
        while host.destroying.withLock({ $0 }) && !host.destroyedInside.withLock({ $0 }) && waited < 10_000 {
            usleep(1000)
            waited += 1
        }
        ae_client_destroy(client)  // a no-op after a destroy from inside a callback
        host.destroyed.withLock { $0 = true }
        host.reentrantClient.withLock { $0 = nil }
        host.trace()
        try host.afterDestroy(client)
        try host.check()
    }

    /// Runs `body` with C copies of `fields` (NUL-terminated; nil is NULL). A body that cannot
    /// throw makes the call non-throwing (`E` is `Never`).
    static func withCStrings<R, E: Error>(_ fields: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) throws(E) -> R) throws(E) -> R {
        let copies = fields.map { field -> UnsafeMutablePointer<CChar>? in
            guard let field else { return nil }
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: field.count + 1)
            for (index, byte) in field.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[field.count] = 0
            return copy
        }
        defer { copies.forEach { $0?.deallocate() } }
        return try body(copies.map { $0.map { UnsafePointer($0) } })
    }

    /// The status and, when it is not AE_OK, that the thread's error message is set.
    /// `finding`: an open finding a wrong status reproduces (the status is then not checked further).
    static func expect(
        _ name: String, _ status: Int32, documented: Set<Int32>, predicted: Int32? = nil,
        finding: String? = nil
    ) throws(FuzzFailure) {
        try check(
            documented.contains(status),
            "\(name) returned \(status) (\(String(cString: ae_status_string(status)))), "
                + "which its documentation does not list")
        if let predicted {
            let message =
                "\(name) returned \(status) (\(String(cString: ae_status_string(status)))), "
                + "expected \(predicted) (\(String(cString: ae_status_string(predicted))))"
            if let finding {
                try check(status == predicted, finding: finding, message)
                if status != predicted { _ = ae_last_error_message().map { ae_string_free($0) }; return }
            }
            try check(status == predicted, message)
        }
        let message = ae_last_error_message()
        defer { ae_string_free(message) }
        try check((status == ok) == (message == nil), "\(name) returned \(status) with\(message == nil ? "out" : "") an error message")
        if let message { try check(String(validatingCString: message) != nil, "\(name): the error message is not UTF-8") }
    }
}

// MARK: The calls

extension CBoundaryFuzz {
    struct Calls {
        let client: OpaquePointer
        let host: Host
        let driver: FlowDriver
        var requestorReady = false
        /// The config strings (read before the calls): call 14's diagnostics use them as a store's
        /// bytes, a requestor id and a store key.
        var diagInputs: [[UInt8]?] = []

        static let handleOnly: Set<Int32> = [ok, invalidHandle, noRequestor]
        static let withArgument: Set<Int32> = [ok, invalidHandle, noRequestor, invalidArg]

        /// AE_OK for an accepted call (or AE_E_NO_REQUESTOR before a requestor), else AE_E_INVALID_ARG.
        func accepted(_ valid: Bool) -> Int32 { valid ? (requestorReady ? ok : noRequestor) : invalidArg }

        mutating func perform(_ reader: inout Reader) throws(FuzzFailure) {
            let raw = reader.byte()
            let call = raw % 16
            let plan = LoginPlan(byte: reader.byte())
            FuzzTrace.print("call \(raw) (plan \(plan.byte))", if: FuzzTrace.enabled)
            if raw >= 0xF0 { return try identityCall(raw & 0x0F, &reader) }
            if raw >= 0xE0 {
                // Arms a destroy from inside the next callbacks of a kind (issue 28): no call of its own.
                let kind = Host.Inside(rawValue: Int(raw & 0x0F))!
                host.trigger.withLock { $0 = (kind, 1 + Int(plan.byte % 4)) }
                return
            }
            switch call {
            case 0, 15:
                // ae_set_options: one key, with a string value (escaped into JSON), or the raw string.
                let key = reader.byte()
                let value = reader.string()
                let keys = ["visitorID", "ap_vi", "applicationProfile", "device_info", "device_info", "handleSVC", "X-Other"]
                let json: [UInt8]?
                if call == 15 {
                    json = value
                } else if key % 7 == 3 {
                    json = b("{\"device_info\":{\"model\":") + quoted(value) + b(",\"osName\":\"Linux\"}}")
                } else {
                    json = b("{\"\(keys[Int(key) % 7])\":") + quoted(value) + b("}")
                }
                let status = withCStrings([json]) { ae_set_options(client, $0[0]) }
                let parsed = text(json).flatMap(JSONValue.parse)
                let valid = parsed?.objectValue != nil && HostJSONFuzz.optionsAccepted(parsed)
                try expect("ae_set_options", status, documented: [ok, invalidArg, invalidHandle], predicted: valid ? ok : invalidArg)
            case 1:
                let id = reader.string()
                let providerChoices: [[UInt8]?] = [
                    nil, b("[\"https://fuzz.invalid\"]"), b("[\"https://fuzz.invalid/\"]"),
                    b("[\"http://example.com\"]"), b("[]"), b("[\"https://fuzz.invalid\",\"https://other.invalid\"]"),
                ]
                let providers = providerChoices[Int(reader.byte()) % providerChoices.count]
                let status = withCStrings([id, providers]) { ae_set_requestor(client, $0[0], $0[1]) }
                let idValid = text(id).map { Settings.checkPathSegment($0) == nil } ?? false
                let predicted: Int32 =
                    !idValid
                    ? invalidArg
                    : providers == providerChoices[3]
                        ? insecureURL
                        : providers == providerChoices[4] ? invalidArg : ok
                try expect("ae_set_requestor", status, documented: [ok, invalidArg, insecureURL, invalidHandle], predicted: predicted)
                if status == ok,
                    case .requestorComplete(let value)? = try driver.await(
                        .requestorComplete, plan: plan,
                        call: "ae_set_requestor")
                {
                    requestorReady = value == 1
                }
            case 2:
                try simple("ae_check_authentication", ae_check_authentication(client), .authenticationStatus, plan)
            case 3:
                let force = Int32(bitPattern: UInt32(reader.byte()) << 24)
                let data = jsonArgument(&reader, object: "email")
                let filter = jsonArgument(&reader, array: "TV_PROVIDERS")
                let status = withCStrings([data, filter]) { ae_get_authentication(client, force, $0[0], $0[1]) }
                let dataJSON = data.map { text($0).flatMap(JSONValue.parse) }
                let filterJSON = filter.map { text($0).flatMap(JSONValue.parse) }
                let dataOK = dataJSON.map { $0?.objectValue != nil } ?? true
                let filterOK =
                    filterJSON.map { json in
                        json?.objectValue?.values.allSatisfy { $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true } == true
                    } ?? true
                try outcome("ae_get_authentication", status, predicted: accepted(dataOK && filterOK), .authenticationStatus, plan)
            case 4:
                let id = reader.string()
                let status = withCStrings([id]) { ae_set_selected_provider(client, $0[0]) }
                let valid = id == nil || (text(id).map { Settings.checkPathSegment($0) == nil } ?? false)
                try outcome("ae_set_selected_provider", status, predicted: accepted(valid), .authenticationStatus, plan)
            case 5, 6:
                let resource = reader.string()
                let status = withCStrings([resource]) {
                    call == 5 ? ae_get_authorization(client, $0[0], nil) : ae_check_authorization(client, $0[0], nil)
                }
                let name = text(resource) ?? ""
                try outcome(
                    call == 5 ? "ae_get_authorization" : "ae_check_authorization", status,
                    predicted: accepted(!name.isEmpty), .authorization(resource: name), plan)
            case 7:
                let json = resourcesArgument(&reader)
                let status = withCStrings([json]) { ae_check_preauthorized_resources(client, $0[0], 1) }
                let list = text(json).flatMap(JSONValue.parse)?.arrayValue
                let valid = list.map { $0.allSatisfy { $0.stringValue.map { !$0.isEmpty } ?? false } } ?? false
                try outcome("ae_check_preauthorized_resources", status, predicted: accepted(valid), .preauthorized, plan)
            case 8:
                let resources = resourcesArgument(&reader)
                let features = [
                    b(""), b(",\"disableFeatures\":[\"LOCAL_CACHE\"]"), b(",\"disableFeatures\":[\"LOCAL\"]"),
                    b(",\"disableFeatures\":\"REMOTE_CACHE\""),
                ][Int(reader.byte()) % 4]
                let json = b("{\"resources\":") + (resources ?? b("null")) + features + b("}")
                let status = withCStrings([json]) { pointers in
                    ae_preauthorize(
                        client, pointers[0],
                        { response, userData in
                            let host = Unmanaged<Host>.fromOpaque(userData!).takeUnretainedValue()
                            if host.enter(.preauthorizeCompletion, "the preauthorize completion") { return }
                            host.jsonCallback("preauthorize", response, shape: .object)
                            host.log.append(.preauthorizeResponse)
                        }, Unmanaged.passUnretained(host).toOpaque())
                }
                let valid = text(json).flatMap(JSONValue.parse).flatMap(PreauthorizeRequest.init(json:)) != nil
                try outcome("ae_preauthorize", status, predicted: accepted(valid), .preauthorizeResponse, plan)
            case 9:
                let codes = [
                    "0", "1", "2", "3", "\"0\"", "\"3\"", "-1", "4", "2147483647", "2147483648", "-2147483649",
                    "9223372036854775807", "1e300", "1.5", "3.0", "\"1e0\"", "null", "true", "\"03\"", "-0",
                ]
                let opCode = codes[Int(reader.byte()) % codes.count]
                let resource = reader.string()
                let name = reader.string()
                var json = b("{\"opCode\":\(opCode)")
                if resource != nil { json += b(",\"resource_id\":") + quoted(resource) }
                if name != nil { json += b(",\"user_metadata_name\":") + quoted(name) }
                json += b("}")
                let status = withCStrings([json]) { ae_get_metadata(client, $0[0]) }
                let parsed = text(json).flatMap(JSONValue.parse)
                let key = parsed.flatMap(MetadataKey.init(json:))
                try outcome("ae_get_metadata", status, predicted: accepted(key != nil), .metadata(arguments: parsed ?? .null), plan)
            case 10:
                try simple("ae_logout", ae_logout(client), .authenticationStatus, plan, name: "logout")
            case 11:
                // Outside a login its answer (N130 and setAuthenticationStatus(0)) is left to the
                // driver; after a browser logout it has none.
                let url = reader.string()
                let status = withCStrings([url]) { ae_handle_external_url(client, $0[0]) }
                try expect(
                    "ae_handle_external_url", status, documented: Self.withArgument,
                    predicted: accepted(text(url).map { !$0.isEmpty } ?? false))
            case 12:
                try simple("ae_get_selected_provider", ae_get_selected_provider(client), .selected, plan)
            case 13:
                try host.bogusReplies(reader.byte(), reader.string())
            default:
                var storeStatus: Int32 = -1
                try expect("ae_client_store_status", ae_client_store_status(client, &storeStatus), documented: [ok], predicted: ok)
                try check(storeStatus == Int32(AE_STORE_IN_MEMORY), "ae_client_store_status: \(storeStatus) for an in-memory store")
                try expect("ae_client_store_status(NULL out)", ae_client_store_status(client, nil), documented: [invalidArg])
                var count: Int32 = 7
                try expect("ae_client_dispatch", ae_client_dispatch(client, &count), documented: [invalidArg])
                try check(count == 0, "ae_client_dispatch set out_count to \(count) in thread mode")
                try check(ae_client_event_fd(client) == -1, "ae_client_event_fd gave a descriptor in thread mode")
                _ = ae_last_error_message().map { ae_string_free($0) }
                try metricsCalls()
                try diagCalls()
            }
        }

        /// A call with no argument: AE_OK once a requestor is ready (else AE_E_NO_REQUESTOR), then its callback.
        func simple(_ name: String, _ status: Int32, _ expected: ExpectedOutcome, _ plan: LoginPlan, name call: String? = nil)
            throws(FuzzFailure)
        {
            try outcome(call ?? name, status, predicted: requestorReady ? ok : noRequestor, expected, plan, label: name)
        }

        func outcome(
            _ name: String, _ status: Int32, predicted: Int32, _ expected: ExpectedOutcome, _ plan: LoginPlan,
            label: String? = nil
        ) throws(FuzzFailure) {
            try expect(label ?? name, status, documented: Self.withArgument, predicted: predicted)
            if status == ok { try driver.await(expected, plan: plan, call: name) }
        }

        /// NULL, a JSON object/array with the string escaped in, or the raw string.
        func jsonArgument(_ reader: inout Reader, object key: String? = nil, array arrayKey: String? = nil) -> [UInt8]? {
            let mode = reader.byte() % 4
            let value = reader.string()
            switch mode {
            case 0: return nil
            case 1: return key.map { b("{\"\($0)\":") + quoted(value) + b("}") } ?? b("{\"\(arrayKey!)\":[") + quoted(value) + b("]}")
            case 2: return value
            default: return b("{}")
            }
        }

        /// A JSON array of 1–3 escaped strings, or the raw string.
        func resourcesArgument(_ reader: inout Reader) -> [UInt8]? {
            let count = Int(reader.byte() % 5)
            if count == 4 { return reader.string() }
            let items = (0...count).prefix(3).map { _ in quoted(reader.string()) }
            return b("[") + Array(items.joined(separator: b(","))) + b("]")
        }
    }
}

// MARK: The host: delegate, HTTP transport and partner framework

extension CBoundaryFuzz {
    final class Host: @unchecked Sendable {
        struct Pending {
            var handle: OpaquePointer
            var method: String
            var url: String
        }

        let log = EventLog()
        let flags: UInt8
        let quirks: [UInt8]
        let partnerQuirks: [UInt8]
        let now: Int64
        let state = Locked<
            (
                requests: [Pending], partner: [(OpaquePointer, metadata: Bool)], problems: [String],
                answered: [OpaquePointer], calls: [Int: Int], polls: Int, mvpd: String, trace: [String],
                codeIssued: Bool
            )
        >(([], [], [], [], [:], 0, "Cablevision", [], false))

        /// The identity provider's policy and requests (CBoundary+Identity.swift); its token dictionary.
        let identity = Locked(IdentityState())
        let identityTokens: [[UInt8]?]

        init(flags: UInt8, quirks: [UInt8], partnerQuirks: [UInt8], now: Int64) {
            self.flags = flags
            self.quirks = quirks
            self.partnerQuirks = partnerQuirks
            self.now = now
            self.identityTokens = CBoundaryFuzz.identityTokens(now: now)
        }

        var polls: Int { state.withLock { $0.polls } }

        // MARK: Re-entrancy

        /// The client the callbacks call back into (flags bit 7); nil before create and after destroy.
        let reentrantClient = Locked<OpaquePointer?>(nil)
        /// Set once ae_client_destroy returned: no callback of the client may run after (F9).
        let destroyed = Locked(false)
        private let reentries = Locked(0)

        /// The callback kinds a client may be destroyed from inside (call bytes 0xE0–0xEF).
        enum Inside: Int {
            case log, status, requestorComplete, authenticationStatus, token, tokenFailed, selected, dialog, navigate
            case tracking, metadata, preauthorized, preauthorizeCompletion, send, partner, identity
        }

        /// The armed destroy: from inside the `remaining`-th next callback of `kind`.
        let trigger = Locked<(kind: Inside, remaining: Int)?>(nil)
        /// The client was destroyed from inside one of its callbacks (the input stops there).
        let destroyedInside = Locked(false)
        /// That destroy started: the calls of the input may find the handle gone from then on.
        let destroying = Locked(false)
        /// The view of the last callback's data (CBoundary+Payload.swift), as a number: it must read as
        /// absent once that callback returned.
        let lastPayload = Locked<UInt?>(nil)

        /// At the start of each of the host's functions the client calls: none may run once
        /// ae_client_destroy returned (F9); the armed destroy fires here. True when the function
        /// must return at once (destroyed here, or called after destroy).
        func enter(_ kind: Inside, _ place: String) -> Bool {
            if destroyed.withLock({ $0 }) {
                problem("[F9] \(place) ran after ae_client_destroy returned")
                return true
            }
            readPayload(kind, place)
            let fire = trigger.withLock { armed -> Bool in
                guard let current = armed, current.kind == kind else { return false }
                armed = current.remaining > 1 ? (kind, current.remaining - 1) : nil
                return current.remaining <= 1
            }
            guard fire, let client = reentrantClient.withLock({ $0 }) else { return false }
            reentrantClient.withLock { $0 = nil }
            FuzzTrace.print("destroy from inside \(place)", if: FuzzTrace.enabled)
            destroying.withLock { $0 = true }
            ae_client_destroy(client)  // returns at once from inside one of its own callbacks
            destroyedInside.withLock { $0 = true }
            destroyed.withLock { $0 = true }
            log.poke()  // the driver waiting for this call's outcome stops now
            return true
        }

        /// From inside a callback, the log sink or a partner request: one C call that must not
        /// deadlock, trap or break the order of callbacks. Only calls with no callback of their own
        /// (the driver matches each call with its callback): options (one of which logs at once, so
        /// the log sink runs again inside this call's logging), the store status, and refused ones.
        func reenter(_ place: String) {
            if destroyed.withLock({ $0 }) { problem("[F9] \(place) ran after ae_client_destroy returned") }
            guard flags & 0x80 != 0, let client = reentrantClient.withLock({ $0 }) else { return }
            let turn = reentries.withLock { value -> Int in
                value += 1
                return value
            }
            guard turn <= 64 else { return }  // a sink that logs on every line would otherwise never end
            var storeStatus: Int32 = 0
            let (name, status, allowed): (String, Int32, Set<Int32>) =
                switch turn % 6 {
                case 0: ("ae_set_options(visitorID)", ae_set_options(client, "{\"visitorID\":\"re-entrant\"}"), [ok, invalidHandle])
                case 1: ("ae_set_options(ignored key)", ae_set_options(client, "{\"ignored_key_that_logs\":1}"), [ok, invalidHandle])
                case 2: ("ae_client_store_status", ae_client_store_status(client, &storeStatus), [ok, invalidHandle])
                case 3: ("ae_set_requestor(\"..\")", ae_set_requestor(client, "..", nil), [invalidArg, invalidHandle])
                case 4: ("ae_get_metadata(\"0\")", ae_get_metadata(client, "{\"opCode\":\"0\"}"), [invalidArg, invalidHandle])
                default: ("ae_set_options(CR LF)", ae_set_options(client, "{\"visitorID\":\"a\\r\\nX: 1\"}"), [invalidArg, invalidHandle])
                }
            if status != ok { _ = ae_last_error_message().map { ae_string_free($0) } }
            if !allowed.contains(status) { problem("\(name) from inside \(place) returned \(status)") }
        }
        var user: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        func problem(_ text: String) { state.withLock { $0.problems.append(text) } }

        func check() throws(FuzzFailure) {
            if let first = state.withLock({ $0.problems.first }) { throw FuzzFailure(first) }
        }

        static func from(_ pointer: UnsafeMutableRawPointer?) -> Host { Unmanaged<Host>.fromOpaque(pointer!).takeUnretainedValue() }

        // MARK: Create

        func create(_ strings: [[UInt8]?]) throws(FuzzFailure) -> OpaquePointer? {
            var config = ae_config()
            ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
            var delegate = ae_delegate()
            ae_delegate_init(&delegate, UInt32(AE_DELEGATE_VERSION))
            delegate.user_data = user
            installDelegate(&delegate)
            var transport = ae_http_transport()
            ae_http_transport_init(&transport, UInt32(AE_HTTP_TRANSPORT_VERSION))
            transport.user_data = user
            transport.send = { method, url, headers, body, length, timeout, request, userData in
                if Host.from(userData).enter(.send, "the transport's send") { return }
                Host.from(userData).received(method, url, headers, body, length, timeout, request)
            }
            transport.cancel = { _, userData in
                let host = Host.from(userData)
                if host.destroyed.withLock({ $0 }) { host.problem("[F9] the transport's cancel ran after ae_client_destroy returned") }
            }
            var partner = ae_partner_framework()
            ae_partner_framework_init(&partner, UInt32(AE_PARTNER_FRAMEWORK_VERSION))
            partner.user_data = user
            partner.timeout_ms = 2_000
            partner.check_access_status = { _, request, userData in
                if Host.from(userData).enter(.partner, "check_access_status") { return }
                Host.from(userData).reenter("check_access_status")
                Host.from(userData).state.withLock { $0.partner.append((request!, false)) }
                Host.from(userData).log.poke()
            }
            partner.enqueue_metadata_request = { json, request, userData in
                let host = Host.from(userData)
                if host.enter(.partner, "enqueue_metadata_request") { return }
                host.jsonCallback("enqueue_metadata_request", json, shape: .object)
                host.state.withLock { $0.partner.append((request!, true)) }
                host.log.poke()
            }
            var identityProvider = ae_identity_provider()
            ae_identity_provider_init(&identityProvider, UInt32(AE_IDENTITY_PROVIDER_VERSION))
            installIdentityProvider(&identityProvider)
            let info = b("{\"model\":") + quoted(strings[5]) + b(",\"osName\":\"Linux\"}")
            let fields: [[UInt8]?] = [b("fuzz.software.statement"), b(CBoundaryFuzz.base)] + strings[0..<5] + [info]
            var client: OpaquePointer?
            let status = withCStrings(fields) { p -> Int32 in
                config.software_statement = p[0]
                config.base_url = p[1]
                config.api_generation = flags & 1 != 0 ? Int32(AE_API_V1) : Int32(AE_API_V2)
                config.device_id = p[2] ?? UnsafePointer(HostJSONFuzz.staticDevice)
                config.redirect_url = p[3]
                config.domain_name = p[4]
                config.activation_url = p[5]
                config.device_info_json = p[7]
                config.login_mode = flags & 4 != 0 ? Int32(AE_LOGIN_BROWSER) : Int32(AE_LOGIN_SECOND_SCREEN)
                config.preauthorize_limit = flags & 0x40 != 0 ? 1 : 0
                config.request_timeout_ms = 5_000
                config.max_requests_per_second = -1
                // Every line (a destroy may be armed inside the sink); it calls back in with flags bit 7.
                config.log = { _, message, userData in
                    if Host.from(userData).enter(.log, "the log sink") { return }
                    if message == nil { Host.from(userData).problem("log: NULL message") }
                    Host.from(userData).reenter("the log sink")
                }
                config.log_user_data = user
                config.log_level = Int32(AE_LOG_DEBUG)
                partner.name = p[6]
                // ae_client_create copies the tables: their addresses need to live for the call only.
                return withUnsafePointer(to: &partner) { partnerPointer in
                    withUnsafePointer(to: &transport) { transportPointer in
                        withUnsafePointer(to: &identityProvider) { identityPointer in
                            config.transport = transportPointer
                            config.partner = flags & 2 != 0 ? partnerPointer : nil
                            config.identity = identityPointer
                            return ae_client_create(&config, &delegate, &client)
                        }
                    }
                }
            }
            // What the SDK must refuse: a string that is not UTF-8 before its NUL, an empty
            // device id, redirect URL or partner name, a control character in any of them (they
            // reach headers, URLs and forms), a partner name that is `.` or `..`, device info JSON
            // that is not UTF-8 (the model is escaped into it, so only invalid bytes break it).
            func valid(_ field: [UInt8]?, empty: Bool) -> Bool {
                field == nil || text(field).map { (empty || !$0.isEmpty) && !$0.containsControlCharacter } == true
            }
            let partnerValid = strings[4] == nil || text(strings[4]).map { Settings.checkPathSegment($0) == nil } == true
            let predictedValid =
                valid(strings[0], empty: false) && valid(strings[1], empty: false) && valid(strings[2], empty: true)
                && valid(strings[3], empty: true) && (flags & 2 == 0 || partnerValid)
                && (strings[5].map { String(validating: $0, as: UTF8.self) != nil } ?? true)
            try CBoundaryFuzz.expect(
                "ae_client_create", status,
                documented: [
                    ok, invalidArg, Int32(AE_E_UNSUPPORTED_VERSION), insecureURL,
                    Int32(AE_E_STORAGE), Int32(AE_E_STORE_KEY),
                ],
                predicted: predictedValid ? ok : invalidArg)
            try AccessEnablerFuzz.check(
                (status == ok) == (client != nil), "ae_client_create: status \(status) with client \(String(describing: client))")
            return client
        }

        // MARK: Delegate

        enum Shape { case object, array, stringArray, any }

        /// A JSON argument of a callback: valid UTF-8 and the documented JSON shape.
        @discardableResult
        func jsonCallback(_ name: String, _ pointer: UnsafePointer<CChar>?, shape: Shape) -> JSONValue? {
            guard let pointer else {
                problem("\(name): NULL where JSON is documented")
                return nil
            }
            guard let text = String(validatingCString: pointer) else {
                problem("\(name): not UTF-8")
                return nil
            }
            guard let json = JSONValue.parse(text) else {
                problem("\(name): not JSON: \(text.prefix(200).debugDescription)")
                return nil
            }
            let fits =
                switch shape {
                case .object: json.objectValue != nil
                case .array: json.arrayValue != nil
                case .stringArray: json.arrayValue?.allSatisfy { $0.stringValue != nil } == true
                case .any: true
                }
            if !fits { problem("\(name): not the documented JSON shape: \(text.prefix(200).debugDescription)") }
            return json
        }

        func string(_ name: String, _ pointer: UnsafePointer<CChar>?) -> String {
            guard let pointer, let text = String(validatingCString: pointer) else {
                problem("\(name): NULL or not UTF-8")
                return ""
            }
            return text
        }

        func installDelegate(_ delegate: inout ae_delegate) {
            delegate.set_requestor_complete = { status, user in
                if Host.from(user).enter(.requestorComplete, "set_requestor_complete") { return }
                Host.from(user).reenter("set_requestor_complete")
                Host.from(user).log.append(.requestorComplete(status))
            }
            delegate.set_authentication_status = { status, code, user in
                let host = Host.from(user)
                if host.enter(.authenticationStatus, "set_authentication_status") { return }
                host.reenter("set_authentication_status")
                host.log.append(.authenticationStatus(status, host.string("set_authentication_status", code)))
            }
            delegate.set_token = { token, resource, user in
                let host = Host.from(user)
                if host.enter(.token, "set_token") { return }
                _ = host.string("set_token", token)
                host.log.append(.token(resource: host.string("set_token resource", resource)))
            }
            delegate.token_request_failed = { resource, code, description, user in
                let host = Host.from(user)
                if host.enter(.tokenFailed, "token_request_failed") { return }
                _ = host.string("token_request_failed description", description)
                host.log.append(
                    .tokenFailed(
                        resource: host.string("token_request_failed", resource),
                        code: host.string("token_request_failed code", code)))
            }
            delegate.selected_provider = { json, user in
                let host = Host.from(user)
                if host.enter(.selected, "selected_provider") { return }
                let mvpd = json.flatMap { host.jsonCallback("selected_provider", $0, shape: .object) }
                host.log.append(.selected(mvpd?["ID"]?.stringValue))
            }
            delegate.display_provider_dialog = { json, user in
                let host = Host.from(user)
                if host.enter(.dialog, "display_provider_dialog") { return }
                let list = host.jsonCallback("display_provider_dialog", json, shape: .array)
                host.log.append(.dialog(list?.arrayValue?.compactMap { $0["ID"]?.stringValue } ?? []))
            }
            delegate.navigate_to_url = { url, user in
                let host = Host.from(user)
                if host.enter(.navigate, "navigate_to_url") { return }
                host.log.append(.navigate(host.string("navigate_to_url", url)))
            }
            delegate.send_tracking_data = { _, json, user in
                let host = Host.from(user)
                if host.enter(.tracking, "send_tracking_data") { return }
                host.jsonCallback("send_tracking_data", json, shape: .stringArray)
                host.log.append(.other("tracking"))
            }
            delegate.set_metadata_status = { metadata, _, key, arguments, user in
                let host = Host.from(user)
                if host.enter(.metadata, "set_metadata_status") { return }
                host.reenter("set_metadata_status")
                if let metadata { host.jsonCallback("set_metadata_status", metadata, shape: .any) }
                let parsed = host.jsonCallback("set_metadata_status arguments", arguments, shape: .object)
                host.log.append(.metadata(key: key, arguments: parsed))
            }
            delegate.preauthorized_resources = { json, user in
                let host = Host.from(user)
                if host.enter(.preauthorized, "preauthorized_resources") { return }
                let list = host.jsonCallback("preauthorized_resources", json, shape: .stringArray)
                host.log.append(.preauthorized(list?.arrayValue?.compactMap(\.stringValue) ?? []))
            }
            delegate.present_tv_provider_dialog = { json, user in
                if Host.from(user).enter(.partner, "present_tv_provider_dialog") { return }
                Host.from(user).jsonCallback("present_tv_provider_dialog", json, shape: .object)
                Host.from(user).log.append(.other("present"))
            }
            delegate.dismiss_tv_provider_dialog = { json, user in
                if Host.from(user).enter(.partner, "dismiss_tv_provider_dialog") { return }
                Host.from(user).jsonCallback("dismiss_tv_provider_dialog", json, shape: .object)
                Host.from(user).log.append(.other("dismiss"))
            }
            delegate.status = { json, user in
                let host = Host.from(user)
                if host.enter(.status, "status") { return }
                host.reenter("status")
                let status = host.jsonCallback("status", json, shape: .object)
                host.checkSSOStatus(status)
                let id = status?["errorId"]?.stringValue ?? ""
                if status != nil && (id.isEmpty || status?["level"]?.stringValue == nil || status?["message"]?.stringValue == nil) {
                    host.problem("status: errorId, level or message missing")
                }
                host.log.append(.status(id, message: status?["message"]?.stringValue ?? ""))
            }
        }

        // MARK: HTTP transport

        /// `send`: on an SDK thread; the request is checked and queued for the harness's thread.
        func received(
            _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
            _ headers: UnsafePointer<UnsafePointer<CChar>?>?, _ body: UnsafePointer<UInt8>?, _ length: Int,
            _ timeout: Int32, _ request: OpaquePointer?
        ) {
            var problems: [String] = []
            let methodText = method.flatMap { String(validatingCString: $0) } ?? ""
            let urlText = url.flatMap { String(validatingCString: $0) } ?? ""
            if method == nil || url == nil { problems.append("send: NULL method or URL") }
            var lines: [(name: String, value: String)] = []
            var index = 0
            while let headers, let line = headers[index] {
                let raw = String(decoding: UnsafeRawBufferPointer(start: line, count: strlen(line)), as: UTF8.self)
                if let colon = raw.firstIndex(of: ":"), raw[raw.index(after: colon)...].hasPrefix(" ") {
                    lines.append((String(raw[..<colon]), String(raw[raw.index(colon, offsetBy: 2)...])))
                } else {
                    problems.append("send: header line \(raw.prefix(120).debugDescription) is not \"Name: value\"")
                }
                index += 1
            }
            problems += RequestChecks.problems(method: methodText, url: urlText, headers: lines, base: CBoundaryFuzz.base)
                .compactMap { $0.failure?.description }
            problems += identityHeaderProblems(
                lines, path: String(urlText.dropFirst(CBoundaryFuzz.base.count).prefix { $0 != "?" && $0 != "#" }))
            if length > 0 && body == nil { problems.append("send: body NULL with body_length \(length)") }
            if timeout <= 0 { problems.append("send: timeout_ms \(timeout)") }
            guard let request else {
                problems.append("send: NULL request")
                state.withLock { $0.problems += problems }
                return
            }
            let bodyBytes = body.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            let path = String(urlText.dropFirst(CBoundaryFuzz.base.count).prefix { $0 != "?" && $0 != "#" })
            if let endpoint = FlowEndpoint.route(method: methodText, path: path),
                let named = RequestFields.mvpd(endpoint, path: path, url: urlText, body: bodyBytes)
            {
                state.withLock { $0.mvpd = named }
            }
            state.withLock {
                $0.problems += problems
                $0.requests.append(Pending(handle: request, method: methodText, url: urlText))
                bodies[UInt(bitPattern: request)] = bodyBytes
            }
            log.poke()
        }

        /// Request bodies by handle (for the resources decisions answer).
        nonisolated(unsafe) var bodies: [UInt: [UInt8]] = [:]

        /// Answers every request and partner request waiting (the harness's thread).
        func serve() throws(FuzzFailure) {
            // Destroyed from inside a callback: what waits is left for afterDestroy (replies refused).
            if destroyedInside.withLock({ $0 }) { return }
            while true {
                let next = state.withLock { state -> Pending? in state.requests.isEmpty ? nil : state.requests.removeFirst() }
                guard let next else { break }
                try reply(next)
            }
            while true {
                let next = state.withLock { state -> (OpaquePointer, metadata: Bool)? in
                    state.partner.isEmpty ? nil : state.partner.removeFirst()
                }
                guard let next else { break }
                try partnerReply(next.0, metadata: next.metadata)
            }
            serveIdentity()
        }

        static let maxBody = 4 << 20
        /// A real buffer of 4 MiB + 1 (spaces: a JSON body padded to 4 MiB stays valid JSON).
        nonisolated(unsafe) static let bigBuffer: UnsafeMutablePointer<UInt8> = {
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: maxBody + 1)
            buffer.initialize(repeating: UInt8(ascii: " "), count: maxBody + 1)
            return buffer
        }()

        func reply(_ pending: Pending) throws(FuzzFailure) {
            let path = String(pending.url.dropFirst(CBoundaryFuzz.base.count).prefix { $0 != "?" && $0 != "#" })
            guard let endpoint = FlowEndpoint.route(method: pending.method, path: path) else {
                problem("the SDK called \(pending.method) \(path.prefix(200).debugDescription), not an endpoint of Adobe's")
                try replyStatus(pending.handle, 404, [], [])
                return
            }
            let body = state.withLock { _ in bodies.removeValue(forKey: UInt(bitPattern: pending.handle)) } ?? []
            let context = state.withLock { state -> AnswerContext in
                let call = state.calls[endpoint.rawValue, default: 0]
                state.calls[endpoint.rawValue] = call + 1
                if endpoint.isPoll { state.polls += 1 }
                if endpoint == .v1RegistrationCode { state.codeIssued = true }
                return AnswerContext(
                    now: now, endpoint: endpoint, call: call, pollsSinceCode: call > 0 || state.codeIssued ? 0 : nil,
                    mvpd: state.mvpd, resources: RequestFields.resources(endpoint, url: pending.url, body: body))
            }
            // Documented successes; no profile at the first sync (so that logins happen), the
            // input's id variant in MVPD ids and codes.
            var spec = AnswerSpec()
            spec.extra = (flags >> 3 & 7) << 2 | (endpoint == .profiles ? 0x20 : 0)
            let answer = FlowAnswers.answer(spec, context)
            // No failure replies to DCR's token call: the SDK would retry it after a real backoff.
            let quirk = endpoint == .token && quirks[endpoint.rawValue % 16] & 7 == 5 ? 0 : quirks[endpoint.rawValue % 16]
            let handle = pending.handle
            if FuzzTrace.enabled {
                let url = pending.url.dropFirst(CBoundaryFuzz.base.count).prefix(80)
                state.withLock { $0.trace.append("\(endpoint) \(url) → \(answer.response?.status ?? 0) (reply \(quirk & 7))") }
            }
            if let failure = answer.failure {
                try replyError(handle, failure)
                return
            }
            let response = answer.response ?? HTTPResponse(status: 500)
            let lines = response.headers.map { "\($0.name): \($0.value)" }
            let parameter = Int(quirk >> 3)
            switch quirk & 7 {
            case 1:
                try invalidReply(handle, parameter)
                try replyStatus(handle, Int32(response.status), lines, response.body)
            case 2:
                // A body_length the SDK must refuse without reading (the buffer is 2 bytes).
                // Only lengths no buffer can have: >= 2^63 (negative as a Swift Int) or absurdly large.
                let lengths: [UInt] = [UInt.max, 1 << 63, (1 << 63) + 1, UInt.max - 4, 1 << 62, 1 << 40]
                let length = lengths[parameter % lengths.count]
                if let avoided = CBoundaryFuzz.knownTrap(length: length) {
                    if let failure = avoided { throw failure }
                    try replyStatus(handle, Int32(response.status), lines, response.body)
                    return
                }
                let status = withCStrings(lines.map { b($0) }) { pointers in
                    var array = pointers + [nil]
                    return array.withUnsafeMutableBufferPointer { headers in
                        [UInt8]("{}".utf8).withUnsafeBufferPointer { bytes in
                            ae_http_request_reply(
                                handle, Int32(response.status), headers.baseAddress, bytes.baseAddress, Int(bitPattern: length))
                        }
                    }
                }
                // Documented: bodies over 4 MiB end the exchange with an error (AE_OK);
                // AE_E_INVALID_ARG leaves it pending (then it gets its answer).
                try CBoundaryFuzz.expect("ae_http_request_reply(body_length \(length))", status, documented: [ok, invalidArg])
                if status == invalidArg { try replyStatus(handle, Int32(response.status), lines, response.body) }
            case 3:
                // A real 4 MiB + 1 body: refused as too large.
                let status = ae_http_request_reply(handle, 200, nil, Host.bigBuffer, Host.maxBody + 1)
                try CBoundaryFuzz.expect("ae_http_request_reply(4 MiB + 1)", status, documented: [ok], predicted: ok)
                state.withLock { $0.answered.append(handle) }
            case 4:
                // Exactly 4 MiB: the answer padded with spaces (still the same JSON).
                let size = Host.maxBody
                if response.body.count <= size {
                    let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
                    defer { copy.deallocate() }
                    copy.initialize(repeating: UInt8(ascii: " "), count: size)
                    for (index, byte) in response.body.enumerated() { copy[index] = byte }
                    let status = withCStrings(lines.map { b($0) }) { pointers in
                        var array = pointers + [nil]
                        return array.withUnsafeMutableBufferPointer {
                            ae_http_request_reply(handle, Int32(response.status), $0.baseAddress, copy, size)
                        }
                    }
                    try CBoundaryFuzz.expect("ae_http_request_reply(4 MiB)", status, documented: [ok], predicted: ok)
                    state.withLock { $0.answered.append(handle) }
                } else {
                    try replyStatus(handle, Int32(response.status), lines, response.body)
                }
            case 5:
                try errorReply(handle, parameter)
            case 6:
                try replyStatus(handle, Int32(response.status), lines, response.body)
                try replyStatus(handle, Int32(response.status), lines, response.body, predicted: invalidHandle)
            case 7:
                // Header lines with numbers at their limits and control characters inside values.
                let extra = [
                    "Retry-After: " + FuzzHeaders.retryAfter[parameter % FuzzHeaders.retryAfter.count],
                    "Date: " + FuzzHeaders.date[parameter % FuzzHeaders.date.count],
                    "X-Trace: a\rb\u{85}c", "Content-Length: 18446744073709551616", "X-Empty:",
                ]
                try replyStatus(handle, Int32(response.status), lines + extra, response.body)
            default:
                try replyStatus(handle, Int32(response.status), lines, response.body)
            }
        }

        func replyStatus(
            _ handle: OpaquePointer, _ status: Int32, _ lines: [String], _ body: [UInt8],
            predicted: Int32 = ok
        ) throws(FuzzFailure) {
            let result = withCStrings(lines.map { b($0) }) { pointers in
                var array = pointers + [nil]
                return array.withUnsafeMutableBufferPointer { headers in
                    body.withUnsafeBufferPointer { bytes in
                        ae_http_request_reply(handle, status, headers.baseAddress, body.isEmpty ? nil : bytes.baseAddress, body.count)
                    }
                }
            }
            try CBoundaryFuzz.expect(
                "ae_http_request_reply(\(status))", result, documented: [ok, invalidArg, invalidHandle], predicted: predicted)
            state.withLock { $0.answered.append(handle) }
        }

        func replyError(_ handle: OpaquePointer, _ failure: TransportError) throws(FuzzFailure) {
            let code: Int32 =
                switch failure {
                case .timedOut: Int32(AE_HTTP_E_TIMEOUT)
                case .tls: Int32(AE_HTTP_E_TLS)
                default: Int32(AE_HTTP_E_FAILED)
                }
            let status = ae_http_request_reply_error(handle, code, "fuzz")
            try CBoundaryFuzz.expect("ae_http_request_reply_error", status, documented: [ok], predicted: ok)
            state.withLock { $0.answered.append(handle) }
        }

        /// An ae_http_request_reply the SDK must refuse with AE_E_INVALID_ARG, leaving the request pending.
        func invalidReply(_ handle: OpaquePointer, _ parameter: Int) throws(FuzzFailure) {
            let statuses: [Int32] = [0, 99, 600, -1, Int32.min, Int32.max, 1000]
            var status: Int32 = 200
            var lines: [[UInt8]?] = []
            var body: UnsafePointer<UInt8>? = UnsafePointer(Host.bigBuffer)
            var length = 2
            switch parameter % 8 {
            case 0: status = statuses[(parameter / 8) % statuses.count]
            case 1:
                body = nil
                length = [1, Host.maxBody + 1, -1, Int.min][(parameter / 8) % 4]
            case 2: lines = [b("NoColonHere")]
            case 3: lines = [b(": value")]
            case 4: lines = [b("X-Bad: ") + [0xC3, 0x28]]
            case 5: lines = [b("X-Long: ") + [UInt8](repeating: 0x61, count: Int(AE_MAX_STRING_LENGTH))]
            case 6: lines = [[UInt8]](repeating: b("X-Many: 1"), count: 1_001)
            default: lines = [b(" \t: v")]
            }
            let result = withCStrings(lines) { pointers in
                var array = pointers + [nil]
                return array.withUnsafeMutableBufferPointer { ae_http_request_reply(handle, status, $0.baseAddress, body, length) }
            }
            try CBoundaryFuzz.expect(
                "ae_http_request_reply(invalid \(parameter % 8): status \(status), \(lines.count) lines, length \(length))",
                result, documented: [ok, invalidArg, invalidHandle], predicted: invalidArg)
        }

        /// ae_http_request_reply_error with codes and messages at their limits.
        func errorReply(_ handle: OpaquePointer, _ parameter: Int) throws(FuzzFailure) {
            // AE_HTTP_E_CANNOT_CONNECT is left out: the SDK retries it after a real 250 ms sleep.
            let codes: [Int32] = [Int32(AE_HTTP_E_TIMEOUT), Int32(AE_HTTP_E_TLS), Int32(AE_HTTP_E_FAILED), 0, 5, -1, Int32.max, Int32.min]
            let code = codes[parameter % codes.count]
            let message = strings[(parameter / codes.count) % 8 + 11]  // "", " ", TAB, CR/LF, ... (some invalid)
            let valid = (2...4).contains(code)
            let status = withCStrings([message]) { ae_http_request_reply_error(handle, code, $0[0]) }
            let messageValid = message == nil || text(message) != nil
            try CBoundaryFuzz.expect(
                "ae_http_request_reply_error(\(code))", status, documented: [ok, invalidArg],
                predicted: valid && messageValid ? ok : invalidArg)
            if status == ok {
                state.withLock { $0.answered.append(handle) }
            } else {
                try replyError(handle, .failed("fuzz"))
            }
        }

        // MARK: Partner

        func partnerReply(_ request: OpaquePointer, metadata: Bool) throws(FuzzFailure) {
            let documented: Set<Int32> = [ok, invalidArg, invalidHandle]
            if !metadata {
                let pairs: [(Int32, Int32)] = [
                    (3, 1), (3, -1), (3, 0), (0, -1), (1, 1), (2, 0), (4, 1), (-1, 1), (Int32.min, 0),
                    (Int32.max, 1), (3, 2), (3, -2), (3, Int32.min), (3, Int32.max),
                ]
                let (access, signedIn) = pairs[Int(partnerQuirks[0]) % pairs.count]
                let valid = (0...3).contains(access) && (-1...1).contains(signedIn)
                if partnerQuirks[1] & 1 != 0 {
                    let codes: [Int32] = [1, 2, 3, 4, 5, 6, 7, 8, 0, -1, Int32.max]
                    let code = codes[Int(partnerQuirks[1] >> 1) % codes.count]
                    let status = ae_partner_request_reply_error(request, code, "detail\r\nX: y")
                    try CBoundaryFuzz.expect(
                        "ae_partner_request_reply_error(\(code))", status, documented: documented,
                        predicted: (1...7).contains(code) ? ok : invalidArg)
                    if status == ok { return }
                }
                let status = ae_partner_request_reply_access_status(request, access, signedIn)
                try CBoundaryFuzz.expect(
                    "ae_partner_request_reply_access_status(\(access), \(signedIn))", status, documented: documented,
                    predicted: valid ? ok : invalidArg)
                if status != ok {
                    try CBoundaryFuzz.expect(
                        "ae_partner_request_reply_access_status(3, 1)", ae_partner_request_reply_access_status(request, 3, 1),
                        documented: documented, predicted: ok)
                }
                return
            }
            let providers = ["\"Dish\"", "\"Other\"", "null", "\"\"", "7", "\"Dish\\r\\nX: y\"", "[\"Dish\"]"]
            let saml = ["\"<samlp:Response>\\n\\t<a/>\\n</samlp:Response>\"", "null", "\"\"", "false"]
            let expiration = FuzzNumbers.json(partnerQuirks[3], nominal: now + 86_400_000, now: now).text
            let json =
                "{\"accountProviderIdentifier\":\(providers[Int(partnerQuirks[2]) % providers.count]),"
                + "\"authenticationExpirationDate\":\(expiration),"
                + "\"samlAttributeQueryResponse\":\(saml[Int(partnerQuirks[2] >> 3) % saml.count])}"
            let status = ae_partner_request_reply_metadata(request, json)
            try CBoundaryFuzz.expect(
                "ae_partner_request_reply_metadata(\(json.prefix(160)))", status, documented: documented,
                predicted: HostJSONFuzz.partnerMetadataAccepted(JSONValue.parse(json)) ? ok : invalidArg)
            if status != ok {
                try CBoundaryFuzz.expect(
                    "ae_partner_request_reply_error(7)", ae_partner_request_reply_error(request, 7, nil), documented: documented,
                    predicted: ok)
            }
        }

        // MARK: Handles

        /// AE_FUZZ_TRACE: what the input did.
        func trace() {
            guard FuzzTrace.enabled else { return }
            FuzzTrace.print("c-boundary: requests: " + state.withLock { $0.trace }.joined(separator: ", "))
            FuzzTrace.print("  callbacks: " + log.all.map(\.description).joined(separator: ", "))
        }

        /// Replies to requests that do not exist: a made-up handle, NULL. The handle is checked
        /// before the arguments (the header's rule), so bad arguments change nothing.
        func bogusReplies(_ selector: UInt8, _ message: [UInt8]?) throws(FuzzFailure) {
            // A handle's low 4 bits name its table (HandleTable: 1 client, 2 partner, 3 HTTP request): these
            // never were one (kind 8; kind 15 with a slot and generation never issued).
            let fakes: [OpaquePointer?] = [
                nil, OpaquePointer(bitPattern: 0x20_0008), OpaquePointer(bitPattern: 0x10_0008),
                OpaquePointer(bitPattern: 0x1008), OpaquePointer(bitPattern: UInt.max),
            ]
            let fake = fakes[Int(selector) % fakes.count]
            let badStatus: Int32 = selector & 8 != 0 ? 0 : 200
            let badInt: Int32 = selector & 8 != 0 ? 99 : 3
            try withCStrings([message, b("{}")]) { (pointers: [UnsafePointer<CChar>?]) throws(FuzzFailure) in
                try CBoundaryFuzz.expect(
                    "ae_http_request_reply(fake handle)", ae_http_request_reply(fake, badStatus, nil, nil, 0),
                    documented: [invalidHandle, invalidArg], predicted: invalidHandle)
                try CBoundaryFuzz.expect(
                    "ae_http_request_reply_error(fake handle)", ae_http_request_reply_error(fake, selector & 8 != 0 ? 0 : 2, pointers[0]),
                    documented: [invalidHandle, invalidArg], predicted: invalidHandle)
                // F8: the partner replies check their arguments before the request handle.
                try CBoundaryFuzz.expect(
                    "ae_partner_request_reply_access_status(fake handle, \(badInt), 1)",
                    ae_partner_request_reply_access_status(fake, badInt, 1),
                    documented: [invalidHandle, invalidArg], predicted: invalidHandle, finding: "F8")
                try CBoundaryFuzz.expect(
                    "ae_partner_request_reply_metadata(fake handle, \(selector & 8 != 0 ? "bad JSON" : "{}"))",
                    ae_partner_request_reply_metadata(fake, selector & 8 != 0 ? pointers[0] : pointers[1]),
                    documented: [invalidHandle, invalidArg], predicted: invalidHandle, finding: "F8")
                try CBoundaryFuzz.expect(
                    "ae_partner_request_reply_error(fake handle, \(selector & 8 != 0 ? 8 : 2))",
                    ae_partner_request_reply_error(fake, selector & 8 != 0 ? 8 : 2, pointers[0]),
                    documented: [invalidHandle, invalidArg], predicted: invalidHandle, finding: "F8")
            }
            // An answered request.
            if let answered = state.withLock({ $0.answered.last }) {
                try CBoundaryFuzz.expect(
                    "ae_http_request_reply(answered request)", ae_http_request_reply(answered, 200, nil, nil, 0),
                    documented: [invalidHandle], predicted: invalidHandle)
            }
        }

        /// After ae_client_destroy: the handle and its requests are gone.
        func afterDestroy(_ client: OpaquePointer) throws(FuzzFailure) {
            try CBoundaryFuzz.expect(
                "ae_check_authentication(destroyed)", ae_check_authentication(client),
                documented: [invalidHandle], predicted: invalidHandle)
            try CBoundaryFuzz.expect(
                "ae_set_options(destroyed, invalid)", ae_set_options(client, "not json"),
                documented: [invalidHandle, invalidArg], predicted: invalidHandle)
            let pending = state.withLock { state -> [Pending] in
                defer { state.requests = [] }; return state.requests
            }
            for request in pending {
                try CBoundaryFuzz.expect(
                    "ae_http_request_reply(request of a destroyed client)", ae_http_request_reply(request.handle, 200, nil, nil, 0),
                    documented: [invalidHandle], predicted: invalidHandle)
            }
            if let answered = state.withLock({ $0.answered.first }) {
                try CBoundaryFuzz.expect(
                    "ae_http_request_reply(answered, after destroy)", ae_http_request_reply(answered, 200, nil, nil, 0),
                    documented: [invalidHandle], predicted: invalidHandle)
            }
            try identityAfterDestroy()
        }
    }

    /// A reply that makes the SDK trap for an open finding: nil when the reply may go out; else
    /// the failure to report (nil inside when the finding is skipped) and the harness answers normally.
    static func knownTrap(length: UInt) -> FuzzFailure?? {
        // F5: ae_http_request_reply reads body_length as a Swift Int: >= 2^63 is negative, passes the
        // 4 MiB check and becomes a buffer of negative count.
        guard OpenFindings.ids.contains("F5"), Int(bitPattern: length) < 0 else { return nil }
        return .some(
            OpenFindings.skip
                ? nil
                : FuzzFailure(
                    "[F5] ae_http_request_reply with body_length \(length) (>= 2^63) "
                        + "crashes instead of refusing the body as too large"))
    }
}
