// SPDX-License-Identifier: Apache-2.0
// Shared by the flow-answers and c-boundary targets: Adobe's endpoints (REST API V2, DCR, V1) as
// the SDK calls them, answers built in Adobe's documented shapes from a few fuzz bytes per
// endpoint (every number-typed field drawn from a pool of extremes), and the checks every request
// the SDK hands a transport must pass.
//
// Shapes: Adobe's documented exchanges (Emulator/examples/v2-doc-examples.json, the same as
// reference/examples), the OpenAPI files of reference/openapi (DCR, REST API V2) and the V1
// samples of reference/rest-api-v1.md §5.
import AccessEnabler

// MARK: JSON text

/// JSON text built by hand: numbers go out exactly as written (`9.3e15`, `1e300`,
/// `9223372036854775808`), which no encoder would produce.
indirect enum JText {
    case raw(String)
    case str(String)
    case obj([(String, JText)])
    case arr([JText])

    var text: String {
        switch self {
        case .raw(let text): text
        case .str(let value): JText.quote(value)
        case .obj(let fields): "{" + fields.map { JText.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case .arr(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        }
    }

    /// A JSON string literal; control characters escaped (so a JSON reader gets them back as they were).
    static func quote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

// MARK: Numbers at their limits

/// The values every number-typed field of an answer is drawn from: selector 0 is the field's
/// nominal value, the others are extremes, written as JSON numbers, as strings of digits (Adobe
/// sends timestamps both ways), and as other JSON types.
enum FuzzNumbers {
    enum Choice {
        case text(String)
        /// Now (ms) plus an offset, as a number.
        case relative(Int64)
        /// Now (ms) plus an offset, as a string of digits.
        case relativeString(Int64)
    }

    static let pool: [Choice] = [
        .text("0"), .text("-1"), .text("1"),
        .text("-9223372036854775808"), .text("-9223372036854775807"), .text("9223372036854775807"),
        .text("9223372036854775806"), .text("2147483647"), .text("2147483648"), .text("-2147483648"),
        .text("-2147483649"), .text("4294967295"), .text("4294967296"),
        .text("9007199254740992"), .text("9007199254740993"), .text("-9007199254740993"),
        // Milliseconds that overflow once multiplied by 1000 or added to now.
        .text("9223372036854775"), .text("9223372036854776"), .text("-9223372036854775"), .text("-9223372036854776"),
        .text("9223372036854775.807"), .text("9223372036854775807000"),
        .text("9.3e15"), .text("-9.3e15"), .text("9300000000000000"), .text("1e300"), .text("-1e300"),
        .text("1.7976931348623157e308"), .text("1e-9"), .text("1e-300"), .text("1.5"), .text("-0"), .text("0.0"),
        .text("-0.0"), .text("1e19"), .text("1E3"), .text("9.2e18"), .text("9.3e18"), .text("-9.3e18"),
        .text("9.223372036854775807e18"), .text("18446744073709551615"), .text("18446744073709551616"),
        .text("99999999999999999999"), .text("123456789012345678901234567890"),
        .text("\"9223372036854775807\""), .text("\"9223372036854775808\""), .text("\"-9223372036854775808\""),
        .text("\"-9223372036854775809\""), .text("\"99999999999999999999\""), .text("\"1e19\""),
        .text("\"9.3e15\""), .text("\"9300000000000000\""), .text("\"1.5\""), .text("\"-1\""), .text("\"0\""),
        .text("\"\""), .text("\" 42\""), .text("\"+42\""), .text("\"0x10\""), .text("\"abc\""),
        .text("null"), .text("true"), .text("[]"), .text("{}"), .text("[1]"),
        .text("4102444800000"), .text("253402300799999"), .text("253402300800000"), .text("-62135596800000"),
        .text("1700000000000"), .text("1700000000"), .text("86400"), .text("3600"), .text("60"),
        .relative(-1), .relative(0), .relative(1), .relative(60_000), .relative(-86_400_000), .relative(1_800_000),
        .relativeString(60_000), .relativeString(-1),
    ]

    /// JSON text of a number field: `nominal` for selector 0, else a pool value.
    static func json(_ selector: UInt8, nominal: Int64, now: Int64, asString: Bool = false) -> JText {
        guard selector != 0 else { return asString ? .str(String(nominal)) : .raw(String(nominal)) }
        switch pool[(Int(selector) - 1) % pool.count] {
        case .text(let text): return .raw(text)
        case .relative(let offset): return .raw(String(now &+ offset))
        case .relativeString(let offset): return .str(String(now &+ offset))
        }
    }

    /// The value a reader that accepts numbers and strings of digits (JSONValue.int64Value) gets.
    static func int64(_ selector: UInt8, nominal: Int64, now: Int64) -> Int64? {
        let text = json(selector, nominal: nominal, now: now).text
        return JSONValue.parse(text)?.int64Value
    }
}

/// Retry-After and Date values (RFC 9110): huge, negative, 2^63, not numbers; far past and future.
enum FuzzHeaders {
    static let retryAfter = [
        "0", "-1", "1", "60", "61", "9223372036854775807", "9223372036854775808", "18446744073709551616",
        "-9223372036854775808", "1e19", " 5 ", "", "abc", "Wed, 21 Oct 2015 07:28:00 GMT", "2147483648",
    ]
    static let date = [
        "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 06 Nov 1994 08:49:37 GMT",
        "Mon, 01 Jan 2200 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT", "Sat, 29 Feb 2000 12:00:00 GMT",
        "Tue, 30 Jun 2015 23:59:60 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sat, 01 Jan 2000 00:00:00 GMT",
        "Thu, 01 Jan 1970 00:00:01 GMT", "", "Fri, 01 Jan 0001 00:00:00 GMT",
    ]

    /// Retry-After from the low nibble, Date from the high one (0: none).
    static func lines(_ selector: UInt8) -> [(name: String, value: String)] {
        var lines: [(name: String, value: String)] = []
        if selector & 0x0F != 0 { lines.append(("Retry-After", retryAfter[Int(selector & 0x0F) - 1])) }
        if selector >> 4 != 0 { lines.append(("Date", date[Int(selector >> 4) - 1])) }
        return lines
    }
}

// MARK: Endpoints

/// Every endpoint the SDK calls. The case order is the corpora's numbering (FlowAnswers reads
/// eight bytes per endpoint in this order; `Fuzz/make-seeds.py`'s FLOW_ENDPOINTS is the same list
/// by name, checked by FuzzCorpusTests): append only. Which request is which endpoint comes from
/// the catalogues (V2Operation, V1Operation): a new operation without its case here does not compile.
enum FlowEndpoint: Int, CaseIterable {
    case register, token
    case configuration, profiles, profileByMVPD, profileByCode, createSession, resumeSession, retrieveSession
    case authorize, preauthorize, partnerSession, partnerProfile, logout
    case v1Configuration, v1RegistrationCode, v1AuthenticationToken, v1Authorize, v1MediaToken, v1Preauthorize
    case v1UserMetadata, v1Logout, v1FreePreview, v1ProfileRequest, v1TokenExchange

    init(_ operation: V2Operation) {
        self =
            switch operation {
            case .configuration: .configuration
            case .profiles: .profiles
            case .profileByMVPD: .profileByMVPD
            case .profileByCode: .profileByCode
            case .createSession: .createSession
            case .resumeSession: .resumeSession
            case .retrieveSession: .retrieveSession
            case .authorize: .authorize
            case .preauthorize: .preauthorize
            case .partnerSession: .partnerSession
            case .partnerProfile: .partnerProfile
            case .logout: .logout
            }
    }

    init(_ operation: V1Operation) {
        self =
            switch operation {
            case .configuration: .v1Configuration
            case .registrationCode: .v1RegistrationCode
            case .authenticationToken: .v1AuthenticationToken
            case .freePreview: .v1FreePreview
            case .authorize: .v1Authorize
            case .mediaToken: .v1MediaToken
            case .preauthorize: .v1Preauthorize
            case .userMetadata: .v1UserMetadata
            case .logout: .v1Logout
            case .profileRequest: .v1ProfileRequest
            case .tokenExchange: .v1TokenExchange
            }
    }

    /// The endpoint of a request (path after the service URL); nil for one the SDK should not call.
    static func route(method: String, path: String) -> FlowEndpoint? {
        switch (method, path) {
        case ("POST", "/o/client/register"): return .register
        case ("POST", "/o/client/token"): return .token
        default: break
        }
        if let (operation, _) = V2Operation.match(method: method, path: path) { return FlowEndpoint(operation) }
        if let (operation, _) = V1Operation.match(method: method, path: path) { return FlowEndpoint(operation) }
        return nil
    }

    /// Second-screen polling: V2 profiles/code, V1 tokens/authn.
    var isPoll: Bool { self == .profileByCode || self == .v1AuthenticationToken }
}

/// The eight bytes that shape one endpoint's answers.
struct AnswerSpec {
    /// < 160: the documented success; else an error answer of `FlowAnswers.errors`.
    var kind: UInt8 = 0
    /// Which documented shape (session action, decision pattern, profile type, ...).
    var variant: UInt8 = 0
    /// Selectors of the answer's number fields, in the order each builder documents.
    var numbers: [UInt8] = [0, 0, 0, 0]
    /// Retry-After (low nibble) and Date (high nibble) header lines.
    var headers: UInt8 = 0
    /// Bits 0–1: polls answered "not yet" first; bits 2–4: an id variant (`FlowAnswers.ids`);
    /// bit 5: profiles answers none (preauthorize: resources echoed with a trailing space); bit 6
    /// (preauthorize): a resource left out; bit 7: the error answer only for the first call.
    var extra: UInt8 = 0

    init() {}

    init(_ bytes: ArraySlice<UInt8>) {
        let b = Array(bytes) + [UInt8](repeating: 0, count: max(0, 8 - bytes.count))
        kind = b[0]
        variant = b[1]
        numbers = Array(b[2...5])
        headers = b[6]
        extra = b[7]
    }

    var pendingPolls: Int { Int(extra & 3) }
    var idVariant: Int { Int((extra >> 2) & 7) }
    var errorOnce: Bool { extra & 0x80 != 0 }
}

/// What a transport does with a request: an HTTP answer or a transport failure. `waits`: the SDK
/// would sleep for real after it (429, an enhanced error whose action is retry, a connect failure
/// it retries, an authorize decision to retry): the harness cancels the waiting task instead.
struct FlowAnswer {
    var response: HTTPResponse?
    var failure: TransportError?
    var waits = false
}

/// What an answer depends on besides its spec.
struct AnswerContext {
    var now: Int64
    var endpoint: FlowEndpoint
    /// 0 for the first call of this endpoint.
    var call: Int
    /// V1 tokens/authn: calls since the last registration code was handed out (nil: none was).
    var pollsSinceCode: Int?
    /// The MVPD the request names (path, form or query), else the last one seen.
    var mvpd: String
    /// The resources a decisions request asks for.
    var resources: [String]
}

/// Answers in Adobe's documented shapes.
enum FlowAnswers {
    /// Ids an answer may carry instead of the usual ones (MVPD ids, codes): dot segments,
    /// encoded dots, slashes, empty, blanks, non-ASCII, very long.
    static let ids = ["", ".", "..", "%2e%2E", "a/../b", " Cablevision ", "Spectrum\u{e9}", String(repeating: "x", count: 300)]
    static let mvpds = ["Cablevision", "TempPass_TEST40", "Dish", "Spectrum"]
    static let samlRequest = "PHNhbWxwOkF0dHJpYnV0ZVF1ZXJ5IElEPSJfcmVxNDIiLz4="  // <samlp:AttributeQuery ID="_req42"/>

    enum Body {
        case enhanced, dcr(String), legacy(String), legacyXML, html, empty, emptyObject, none
        case transport(TransportError)
    }

    /// Error answers (HTTP status and body kind).
    static let errors: [(status: Int, body: Body)] = [
        (400, .enhanced), (401, .enhanced), (403, .enhanced), (403, .enhanced), (404, .enhanced), (410, .enhanced),
        (412, .enhanced), (500, .enhanced), (503, .enhanced), (429, .html), (429, .enhanced), (500, .html), (503, .empty),
        (400, .dcr("invalid_request")), (401, .dcr("access_denied")), (403, .dcr("invalid_client")),
        (400, .dcr("invalid_client")), (404, .legacy("Not Found")), (410, .legacyXML),
        (412, .legacy("User not authenticated")), (403, .legacy("Authentication token expired")),
        (403, .legacy("User not authorized")), (200, .html), (200, .empty), (200, .emptyObject), (204, .none),
        (302, .none), (201, .emptyObject),
        (0, .transport(.timedOut)), (0, .transport(.failed("reset"))), (0, .transport(.tls("certificate"))),
        (0, .transport(.bodyTooLarge(limit: 4 << 20))), (0, .transport(.cannotConnect("refused"))),
    ]

    static let enhancedCodes = [
        "authorization_denied_by_mvpd", "authenticated_profile_missing", "authenticated_profile_expired",
        "temporary_access_duration_limit_exceeded", "temporary_access_resources_limit_exceeded",
        "invalid_authentication_session", "invalid_parameter_code", "too_many_resources",
        "preauthorization_denied_by_mvpd", "authentication_session_expired", "invalid_access_token_client_application",
        "invalid_parameter_service_provider", "authorization_denied_by_degradation_rule", "authorization_not_found",
        "internal_error", "network_connection_timeout", "invalid_header_identity_for_temporary_access",
        "invalid_configuration_temporary_access", "unknown_code",
    ]
    static let actions = [
        "none", "authentication", "authorization", "configuration", "application-registration",
        "retry", "retry-after", "degradation",
    ]
    /// Item-level actions: no retry in preauthorization decisions (the engine would sleep between
    /// its retries, outside the task the transport can cancel).
    static let itemActions = ["none", "authentication", "none", "configuration", "none", "none", "none", "degradation"]

    static func answer(_ spec: AnswerSpec, _ context: AnswerContext) -> FlowAnswer {
        let errorApplies = spec.kind >= 160 && (!spec.errorOnce || context.call == 0)
        var answer: FlowAnswer
        if errorApplies {
            answer = error(spec, context)
        } else {
            answer = success(spec, context)
        }
        if var response = answer.response {
            response.headers += FuzzHeaders.lines(spec.headers)
            answer.response = response
            if response.status == 429 { answer.waits = true }
            // DCR's token call is retried after a 5xx (RequestExecutor.Retry.idempotent), after a backoff.
            if context.endpoint == .token, response.status >= 500 { answer.waits = true }
        }
        switch (context.endpoint, answer.failure) {
        case (.token, .timedOut?), (.token, .failed?): answer.waits = true  // a reset or a timeout is retried too
        default: break
        }
        return answer
    }

    static func json(_ status: Int, _ body: JText, v1: Bool = false) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", v1 ? "application/json" : "application/json;charset=UTF-8")],
            body: Array(body.text.utf8))
    }

    static func enhancedError(_ spec: AnswerSpec, status: Int, now: Int64, item: Bool = false) -> (JText, action: String) {
        let code = enhancedCodes[Int(spec.variant) % enhancedCodes.count]
        let action = (item ? itemActions : actions)[Int(spec.variant / UInt8(enhancedCodes.count)) % actions.count]
        let body = JText.obj([
            ("status", FuzzNumbers.json(spec.numbers[3], nominal: Int64(status), now: now)), ("code", .str(code)),
            ("message", .str("fuzz \(code)")), ("details", .str("details")),
            (
                "helpUrl",
                .str("https://experienceleague.adobe.com/docs/pass/authentication/auth-features/error-reportn/enhanced-error-codes.html")
            ),
            ("action", .str(action)), ("trace", .str("12f6fef9-d2e0-422b-a9d7-60d799abe353")),
        ])
        return (body, action)
    }

    static func error(_ spec: AnswerSpec, _ context: AnswerContext) -> FlowAnswer {
        let (status, body) = errors[Int(spec.kind - 160) % errors.count]
        let v1 = context.endpoint.rawValue >= FlowEndpoint.v1Configuration.rawValue
        switch body {
        case .enhanced:
            let (text, action) = enhancedError(spec, status: status, now: context.now)
            return FlowAnswer(response: json(status, text, v1: v1), waits: action == "retry" || action == "retry-after")
        case .dcr(let code):
            return FlowAnswer(response: json(status, .obj([("error", .str(code)), ("error_description", .str("fuzz"))])))
        case .legacy(let message):
            return FlowAnswer(
                response: json(
                    status,
                    .obj([
                        ("status", FuzzNumbers.json(spec.numbers[3], nominal: Int64(status), now: context.now)),
                        ("message", .str(message)), ("details", .raw("null")),
                    ]), v1: true))
        case .legacyXML:
            return FlowAnswer(
                response: HTTPResponse(
                    status: status, headers: [("Content-Type", "application/xml")],
                    body: Array("<?xml version=\"1.0\"?><error><status>\(status)</status><message>Gone</message></error>".utf8)))
        case .html:
            return FlowAnswer(
                response: HTTPResponse(
                    status: status, headers: [("Content-Type", "text/html")],
                    body: Array("<html><body>busy</body></html>".utf8)))
        case .empty:
            return FlowAnswer(response: HTTPResponse(status: status, headers: [("Content-Type", "application/json")]))
        case .emptyObject:
            return FlowAnswer(response: json(status, .obj([])))
        case .none:
            return FlowAnswer(
                response: HTTPResponse(
                    status: status,
                    headers: status == 302
                        ? [("Location", "https://fuzz.invalid/elsewhere")] : []))
        case .transport(let failure):
            if case .cannotConnect = failure { return FlowAnswer(failure: failure, waits: true) }
            return FlowAnswer(failure: failure)
        }
    }

    /// An id of the answer: the usual one, or the spec's variant.
    static func id(_ spec: AnswerSpec, _ usual: String) -> String {
        spec.idVariant == 0 ? usual : ids[spec.idVariant]
    }

    static func profile(_ spec: AnswerSpec, _ now: Int64, issuer: String, type: String, notAfterSelector: UInt8) -> JText {
        var attributes: [(String, JText)] = [
            (
                "userID",
                .obj([
                    (
                        "value",
                        spec.variant & 0x40 != 0
                            ? FuzzNumbers.json(spec.numbers[2], nominal: 42, now: now) : .str("BASE64_value_userId")
                    ), ("state", .str("plain")),
                ])
            ),
            ("householdID", .obj([("value", .str("BASE64_value_householdId")), ("state", .str("plain"))])),
            (
                "zip",
                .obj([
                    ("value", .arr([.str("10001"), FuzzNumbers.json(spec.numbers[2], nominal: 10002, now: now)])),
                    ("state", .str("enc")),
                ])
            ),
        ]
        if spec.variant & 0x80 != 0 { attributes.append(("maxRating", .obj([("value", .obj([("MPAA", .str("PG-13"))]))]))) }
        return .obj([
            ("notBefore", FuzzNumbers.json(spec.numbers[0], nominal: now - 1_000, now: now)),
            ("notAfter", FuzzNumbers.json(notAfterSelector, nominal: now + 86_400_000, now: now)),
            ("issuer", .str(issuer)), ("type", .str(type)), ("attributes", .obj(attributes)),
        ])
    }

    /// `{"profiles": {...}}`: numbers notBefore, notAfter, an attribute value, the second profile's notAfter.
    static func profiles(_ spec: AnswerSpec, _ context: AnswerContext, partner: Bool = false) -> JText {
        let types = ["regular", "regular", "temporary", "degraded", "appleSSO", "", "regular", "unknown"]
        var type = types[Int(spec.variant >> 2) & 7]
        if partner && spec.variant & 0x1C == 0 { type = "appleSSO" }
        let issuer = type == "temporary" || type == "degraded" ? "Adobe" : type == "appleSSO" ? "Apple" : context.mvpd
        let key: String
        switch spec.variant & 3 {
        case 0: key = context.mvpd
        case 1: key = context.mvpd == "Dish" ? "Cablevision" : "Dish"
        case 2: key = id(spec, "Spectrum")
        default: key = context.mvpd
        }
        var entries: [(String, JText)] = [(key, profile(spec, context.now, issuer: issuer, type: type, notAfterSelector: spec.numbers[1]))]
        if spec.variant & 3 == 3 {
            entries.append(("Spectrum", profile(spec, context.now, issuer: "Spectrum", type: "regular", notAfterSelector: spec.numbers[3])))
        }
        return .obj([("profiles", .obj(entries))])
    }

    static func configuration(_ spec: AnswerSpec, _ context: AnswerContext, v1: Bool) -> JText {
        var mvpds: [JText] = [
            .obj([
                ("id", .str("Cablevision")), ("displayName", .str("Optimum")), ("logoUrl", .str("https://logo/c.png")),
                ("authPerAggregator", .raw("false")),
            ]),
            .obj([
                ("id", .str("TempPass_TEST40")), ("displayName", .str("Adobe Temp Pass Test 3 min")),
                ("isTempPass", .raw("true")), ("authPerAggregator", .raw("true")),
            ]),
            .obj([
                ("id", .str("Dish")), ("displayName", .str("DISH")), ("enablePlatformServices", .raw("true")),
                ("displayInPlatformPicker", .raw("true")), ("platformMappingId", .str("Dish")),
                ("boardingStatus", .str(spec.variant & 8 != 0 ? "PICKER" : "SUPPORTED")),
                ("requiredMetadataFields", .arr([.str("uid"), .str("NameID")])),
            ]),
        ]
        if spec.variant & 4 != 0 { mvpds = [] }
        if spec.idVariant != 0 || spec.variant & 16 != 0 {
            mvpds.append(
                .obj([
                    ("id", .str(id(spec, "Spectrum"))), ("displayName", .str("Spectrum")),
                    ("enablePlatformServices", .raw("true")), ("displayInPlatformPicker", .raw("true")),
                    ("platformMappingId", .str(id(spec, "Spectrum"))),
                ]))
        }
        let domains: JText =
            spec.variant & 2 != 0
            ? .arr([])
            : v1 ? .arr([.str("adobe.com")]) : .arr([.obj([("name", .str("adobe.com")), ("mvpdInitiated", .raw("false"))])])
        var requestor: [(String, JText)] = [
            ("id", .str("REF30")), ("name", .str("Reference site")), ("domains", domains),
            ("ttl", FuzzNumbers.json(spec.numbers[0], nominal: 300, now: context.now)),
        ]
        var top: [(String, JText)] = [("device", .str("unknown")), ("clientType", .str("html5")), ("os", .str("Unknown"))]
        if spec.variant & 1 != 0 { top.append(("mvpds", .arr(mvpds))) } else { requestor.append(("mvpds", .arr(mvpds))) }
        top.append(("requestor", .obj(requestor)))
        return .obj(top)
    }

    /// Sessions create/resume and partner sessions: numbers notBefore, notAfter.
    static func session(_ spec: AnswerSpec, _ context: AnswerContext, partner: Bool) -> JText {
        let actions =
            partner
            ? ["partner_profile", "partner_profile", "authorize", "authenticate", "resume", "unknown"]
            : ["authenticate", "authenticate", "authorize", "resume", "retry", "partner_profile", "authenticate", ""]
        let action = actions[Int(spec.variant) % actions.count]
        let code = id(spec, "8ER640M")
        var fields: [(String, JText)] = [
            ("actionName", .str(action)),
            ("actionType", .str(action == "authorize" ? "direct" : "interactive")),
            (
                "reasonType",
                .str(
                    partner
                        ? ["none", "pfs_fallback", "configuration_fallback", "missing_parameters_fallback"][Int(spec.variant >> 3) & 3]
                        : "none")
            ),
            (
                "url",
                .str(
                    spec.variant & 0x40 != 0
                        ? "https://sp.auth.adobe.com/api/v2/authenticate/REF30/\(code)"
                        : "/api/v2/authenticate/REF30/\(code)")
            ),
            ("sessionId", .str("1b614390-6610-4d14-9421-6565f6e75958")), ("serviceProvider", .str("REF30")),
            ("notBefore", FuzzNumbers.json(spec.numbers[0], nominal: context.now, now: context.now, asString: true)),
            ("notAfter", FuzzNumbers.json(spec.numbers[1], nominal: context.now + 1_800_000, now: context.now, asString: true)),
        ]
        if spec.variant & 0x80 == 0 { fields.append(("code", .str(code))) }
        if spec.variant & 0x20 == 0 { fields.append(("mvpd", .str(context.mvpd))) }
        if action == "resume" || action == "retry" {
            let missing = [["mvpd"], ["domainName", "redirectUrl"], [], ["unknownParameter"]][Int(spec.variant >> 3) & 3]
            fields.append(("missingParameters", .arr(missing.map { .str($0) })))
        }
        if action == "partner_profile" {
            fields.append(
                (
                    "authenticationRequest",
                    .obj([
                        ("type", .str("saml")), ("request", .str(samlRequest)),
                        ("attributesNames", .arr([.str("uid"), .str("NameID")])),
                    ])
                ))
        }
        return .obj(fields)
    }

    /// decisions/authorize: numbers decision notBefore, notAfter, token notBefore, token notAfter.
    static func authorizeDecisions(_ spec: AnswerSpec, _ context: AnswerContext) -> (JText, waits: Bool) {
        let resource = context.resources.first ?? "REF30"
        let now = context.now
        let pattern = spec.variant & 3
        var decision: [(String, JText)] = [
            ("resource", .str(spec.variant & 4 != 0 ? resource + " " : spec.variant & 8 != 0 ? "other" : resource)),
            ("serviceProvider", .str("REF30")), ("mvpd", .str(context.mvpd)),
            ("source", .str(["mvpd", "temppass", "degradation", "dummy"][Int(spec.variant >> 4) & 3])),
            ("authorized", .raw(pattern == 0 || pattern == 2 ? "true" : "false")),
            ("notBefore", FuzzNumbers.json(spec.numbers[0], nominal: now, now: now)),
            ("notAfter", FuzzNumbers.json(spec.numbers[1], nominal: now + 3_600_000, now: now)),
        ]
        var waits = false
        switch pattern {
        case 0:
            decision.append(
                (
                    "token",
                    .obj([
                        ("notBefore", FuzzNumbers.json(spec.numbers[2], nominal: now, now: now)),
                        ("notAfter", FuzzNumbers.json(spec.numbers[3], nominal: now + 600_000, now: now)),
                        ("serializedToken", .str("PHNpZ25hdHVyZUluZm8+")),
                    ])
                ))
        case 1:
            let (error, action) = enhancedError(spec, status: 403, now: now)
            decision.append(("error", error))
            waits = action == "retry"
        default: break
        }
        var decisions: [JText] = [.obj(decision)]
        if spec.variant & 0x40 != 0 {
            decisions.append(.obj([("resource", .str("extra")), ("authorized", .raw("false"))]))
            waits = false  // the retry loop only runs for a single decision
        }
        return (.obj([("decisions", .arr(decisions))]), waits)
    }

    /// decisions/preauthorize: one decision per resource asked (some denied, some left out);
    /// numbers notBefore, notAfter.
    static func preauthorizeDecisions(_ spec: AnswerSpec, _ context: AnswerContext) -> JText {
        let now = context.now
        var decisions: [JText] = []
        for (index, resource) in context.resources.enumerated() {
            let bit = (Int(spec.variant) >> (index % 4)) & 1
            if spec.extra & 0x40 != 0 && index == 1 { continue }  // left out
            var fields: [(String, JText)] = [
                ("resource", .str(spec.extra & 0x20 != 0 ? resource + " " : resource)), ("serviceProvider", .str("REF30")),
                ("mvpd", .str(context.mvpd)), ("source", .str("mvpd")), ("authorized", .raw(bit == 0 ? "true" : "false")),
                ("notBefore", FuzzNumbers.json(spec.numbers[0], nominal: now, now: now)),
                ("notAfter", FuzzNumbers.json(spec.numbers[1], nominal: now + 3_600_000, now: now)),
            ]
            if bit == 1 { fields.append(("error", enhancedError(spec, status: 403, now: now, item: true).0)) }
            decisions.append(.obj(fields))
        }
        return .obj([("decisions", .arr(decisions))])
    }

    static func success(_ spec: AnswerSpec, _ context: AnswerContext) -> FlowAnswer {
        let now = context.now
        let n = spec.numbers
        func ok(_ body: JText, _ status: Int = 200, v1: Bool = false) -> FlowAnswer { FlowAnswer(response: json(status, body, v1: v1)) }
        switch context.endpoint {
        case .register:
            var fields: [(String, JText)] = [
                ("client_id", .str("fuzz-client-\(context.call)")), ("client_secret", .str("fuzz-secret")),
                ("redirect_uris", .arr([.str("adobepass://android.app")])), ("grant_types", .arr([.str("client_credentials")])),
                ("scopes", .arr([.str("api:client:v2")])),
                ("client_id_issued_at", FuzzNumbers.json(n[0], nominal: now / 1000, now: now)),
            ]
            if spec.variant & 1 != 0 { fields.remove(at: 1) }
            return ok(.obj(fields), 201)
        case .token:
            // Numbers: expires_in (seconds), created_at (ms).
            var fields: [(String, JText)] = [
                ("id", .str("a932f8f0-210a-41a4-b2a8-377751f6b76f")), ("access_token", .str("fuzz-token-\(context.call)")),
                ("created_at", FuzzNumbers.json(n[1], nominal: now, now: now)), ("token_type", .str("bearer")),
            ]
            if spec.variant & 1 == 0 { fields.append(("expires_in", FuzzNumbers.json(n[0], nominal: 21_600, now: now))) }
            return ok(.obj(fields), 201)
        case .configuration:
            return ok(configuration(spec, context, v1: false))
        case .profiles:
            return ok(spec.extra & 0x20 != 0 ? .obj([("profiles", .obj([]))]) : profiles(spec, context))
        case .profileByMVPD:
            return ok(profiles(spec, context))
        case .profileByCode:
            return ok(context.call < spec.pendingPolls ? .obj([("profiles", .obj([]))]) : profiles(spec, context))
        case .partnerProfile:
            return ok(profiles(spec, context, partner: true), spec.variant & 0x20 != 0 ? 200 : 201)
        case .createSession, .resumeSession:
            return ok(session(spec, context, partner: false))
        case .partnerSession:
            return ok(session(spec, context, partner: true))
        case .retrieveSession:
            let missing = [["mvpd"], [], ["domainName", "redirectUrl"], ["mvpd", "unknown"]][Int(spec.variant) & 3]
            return ok(
                .obj([
                    ("missingParameters", .arr(missing.map { .str($0) })),
                    (
                        "existingParameters",
                        .obj([
                            ("redirectUrl", .str("https://adobe.com")), ("domainName", .str("adobe.com")),
                            ("serviceProvider", .str("REF30")),
                        ])
                    ),
                    ("notBefore", FuzzNumbers.json(n[0], nominal: now, now: now, asString: true)),
                    ("notAfter", FuzzNumbers.json(n[1], nominal: now + 1_800_000, now: now, asString: true)),
                ]))
        case .authorize:
            let (body, waits) = authorizeDecisions(spec, context)
            return FlowAnswer(response: json(200, body), waits: waits)
        case .preauthorize:
            return ok(preauthorizeDecisions(spec, context))
        case .logout:
            let names = ["logout", "logout", "partner_logout", "complete", "invalid"]
            let name = names[Int(spec.variant) % names.count]
            var entry: [(String, JText)] = [
                ("actionName", .str(name)), ("actionType", .str(name == "logout" ? "interactive" : "none")),
                ("mvpd", .str(context.mvpd)),
            ]
            if name == "logout" {
                entry.append(
                    (
                        "url",
                        .str(
                            spec.variant & 8 != 0
                                ? "/adobe-services/logout?mso_id=\(context.mvpd)"
                                : "https://sp.auth.adobe.com/adobe-services/logout?noflash=true&mso_id=Cablevision&requestor_id=REF30")
                    ))
            }
            return ok(.obj([("logouts", .obj([(context.mvpd, .obj(entry))]))]))
        case .v1Configuration:
            return ok(configuration(spec, context, v1: true), v1: true)
        case .v1RegistrationCode:
            // Numbers: generated, expires (ms).
            return ok(
                .obj([
                    ("id", .str("ef5a79e8")), ("code", .str(id(spec, "IYQD5JQ"))), ("requestor", .str("REF30")),
                    ("mvpd", .str(context.mvpd)), ("generated", FuzzNumbers.json(n[0], nominal: now, now: now)),
                    ("expires", FuzzNumbers.json(n[1], nominal: now + 1_800_000, now: now)),
                    ("info", .obj([("deviceId", .str("ZnV6ei1kZXZpY2U="))])),
                ]), 201, v1: true)
        case .v1AuthenticationToken:
            // Before any code: the sync answers none (404) or a token (variant bit 0); while
            // polling, "not yet" (404) for the spec's pending count.
            let none = context.pollsSinceCode.map { $0 < spec.pendingPolls } ?? (spec.variant & 1 == 0)
            if none { return FlowAnswer(response: json(404, .obj([("status", .raw("404")), ("message", .str("Not Found"))]), v1: true)) }
            // Numbers: expires (ms, a string in Adobe's sample), userId as a number.
            return ok(
                .obj([
                    ("requestor", .str("REF30")), ("mvpd", .str(spec.variant & 2 != 0 ? "Dish" : context.mvpd)),
                    ("userId", spec.variant & 4 != 0 ? FuzzNumbers.json(n[1], nominal: 7, now: now) : .str("sampleUserId")),
                    ("expires", FuzzNumbers.json(n[0], nominal: now + 86_400_000, now: now, asString: true)),
                ]), v1: true)
        case .v1Authorize:
            return ok(
                .obj([
                    ("mvpd", .str(context.mvpd)), ("resource", .str(context.resources.first ?? "")), ("requestor", .str("REF30")),
                    ("expires", FuzzNumbers.json(n[0], nominal: now + 3_600_000, now: now, asString: true)),
                ]), v1: true)
        case .v1MediaToken:
            return ok(
                .obj([
                    ("resource", .str(context.resources.first ?? "")), ("requestor", .str("REF30")),
                    ("expires", FuzzNumbers.json(n[0], nominal: now + 600_000, now: now, asString: true)),
                    ("serializedToken", .str("PHNpZ25hdH[...]")), ("userId", .str("sampleScrambledUserId")),
                    ("mvpdId", .str(context.mvpd)),
                ]), v1: true)
        case .v1Preauthorize:
            var items: [JText] = []
            for (index, resource) in context.resources.enumerated() {
                let bit = (Int(spec.variant) >> (index % 4)) & 1
                var fields: [(String, JText)] = [
                    ("id", .str(resource)),
                    ("authorized", bit == 0 ? (spec.variant & 0x10 != 0 ? .str("true") : .raw("true")) : .raw("false")),
                ]
                if bit == 1 { fields.append(("error", enhancedError(spec, status: 403, now: now, item: true).0)) }
                items.append(.obj(fields))
            }
            return ok(.obj([("resources", .arr(items))]), v1: true)
        case .v1UserMetadata:
            // Numbers: updated (seconds), a numeric metadata value.
            var data: [(String, JText)] = [
                ("zip", .arr([.str("12345"), .str("34567")])), ("maxRating", .obj([("MPAA", .str("PG-13"))])),
                ("householdID", .str("3456")), ("userID", .str("BgSdasfsdk23/dsaf3+saASesadgfsShggssd=")),
                ("channelID", .arr([.str("channel-1")])), ("count", FuzzNumbers.json(n[1], nominal: 3, now: now)),
            ]
            if spec.variant & 1 != 0 { data.append(("tokenSource", .str("Apple"))) }
            return ok(
                .obj([
                    ("updated", FuzzNumbers.json(n[0], nominal: now / 1000, now: now)),
                    ("encrypted", .arr([.str("householdID")])), ("data", .obj(data)),
                ]), v1: true)
        case .v1Logout, .v1FreePreview, .v1TokenExchange:
            return FlowAnswer(response: HTTPResponse(status: 204))
        case .v1ProfileRequest:
            let payloads: [[UInt8]] = [Array(samlRequest.utf8), [], [0xFF, 0xFE]]
            return FlowAnswer(
                response: HTTPResponse(
                    status: 200, headers: [("Content-Type", "application/octet-stream")],
                    body: payloads[Int(spec.variant) % payloads.count]))
        }
    }
}

// MARK: What a transport must never be handed

enum RequestChecks {
    /// Unicode control characters (Cc) other than the horizontal tab RFC 9110 allows in field values.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    /// RFC 9110 token characters (header names).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }

    /// A request the SDK should not have sent; `finding`: the open finding it reproduces.
    struct Problem {
        var finding: String?
        var text: String

        /// The failure to report: nil for an open finding a fuzz run skips.
        var failure: FuzzFailure? {
            guard let finding else { return FuzzFailure(text) }
            if OpenFindings.skip && OpenFindings.ids.contains(finding) { return nil }
            return FuzzFailure("[\(finding)] \(text)")
        }
    }

    /// The problems of a request: the URL must be the service URL's, in printable ASCII
    /// (everything else percent-encoded), with no `.` or `..` path segment (a client or server
    /// that normalizes the path sends the request to another endpoint: F6); header names are
    /// tokens and header lines hold no control character (CR and LF split the request: F7).
    static func problems(method: String, url: String, headers: [(name: String, value: String)], base: String) -> [Problem] {
        var problems: [Problem] = []
        if !["GET", "POST", "DELETE"].contains(method) { problems.append(Problem(text: "method \(method.debugDescription)")) }
        if !url.hasPrefix(base + "/") {
            problems.append(Problem(text: "URL outside the service URL: \(url.prefix(200).debugDescription)"))
        }
        if let bad = url.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            problems.append(Problem(text: "URL with a raw \(describe(bad)): \(url.prefix(200).debugDescription)"))
        }
        let path = url.dropFirst(base.count).prefix { $0 != "?" && $0 != "#" }
        if let segment = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().first(where: { $0 == "." || $0 == ".." })
        {
            problems.append(
                Problem(finding: "F6", text: "URL path with a raw \(segment.debugDescription) segment: \(url.prefix(200).debugDescription)")
            )
        }
        for (name, value) in headers {
            if !isToken(name) { problems.append(Problem(text: "header name \(name.debugDescription) is not a token")) }
            if let bad = (name + value).unicodeScalars.first(where: isControl) {
                problems.append(
                    Problem(
                        finding: "F7",
                        text: "header \(name) holds the control character \(describe(bad)): "
                            + "\(value.prefix(120).debugDescription)"))
            }
        }
        return problems
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

extension FuzzTargets {
    /// The flow-answers target's endpoint names in their numbering (`Fuzz/make-seeds.py` writes
    /// its seeds by this order: FuzzCorpusTests compares the two lists).
    package static var flowEndpointNames: [String] { FlowEndpoint.allCases.map { "\($0)" } }
}
