// SPDX-License-Identifier: Apache-2.0
// fuzzFlowAnswers: Adobe's answers built in their documented shapes, with every number at its
// limits, run through the real flows: an AccessEnabler (the Swift API, as a host uses it) whose
// transport answers each request from the fuzz-built answers, driven by a sequence of calls the
// input chooses, with both REST API generations.
import Glibc
import AccessEnabler

/// Input (bytes past the end read as 0, which is the nominal documented answer):
///
/// | bytes | what |
/// |---|---|
/// | 0 | flags: bit 0 REST API V1, 1 browser login mode, 2 a partner framework (platform SSO), 3–4 preauthorize limit (5, 1, 2, 3), 5 domain_name, 6 activation URL |
/// | 1–6 | the partner's answers: access status, signed in, provider, expiration date (number selector), metadata reply, spare |
/// | 7–42 | up to 12 calls, 3 bytes each: call, argument, login plan (`LoginPlan`); calls stop where the input ends |
/// | 43– | 8 bytes per endpoint, in `FlowEndpoint` order (`AnswerSpec`): status/error kind, shape variant, 4 number selectors, Retry-After/Date, polls and id variants |
///
/// A setRequestor("REF30") always comes first. Calls: 0 setRequestor, 1 checkAuthentication,
/// 2 and 11 getAuthentication, 3 setSelectedProvider, 4 and 12 getAuthorization,
/// 5 checkAuthorization, 6 checkPreauthorizedResources, 7 preauthorize, 8 getMetadata (opcode
/// 0–3), 9 logout, 10 getSelectedProvider.
///
/// Checks: nothing crashes or traps (arithmetic overflow on an answer's number is a crash); every
/// accepted call ends with its own callback (within 10 s: nothing sleeps for real) and the
/// provider dialog and second-screen polling end when the host answers or cancels; a call is only
/// refused for a missing requestor, after a setRequestor that failed; every request the SDK hands
/// its transport goes to an endpoint of Adobe's, with no raw `.`/`..` path segment, a printable
/// ASCII URL, and header lines without control characters.
public func fuzzFlowAnswers(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    try FlowAnswersFuzz.serial.withLock { (_: inout Int) throws(FuzzFailure) in try FlowAnswersFuzz.run(Array(data)) }
}

enum FlowAnswersFuzz {
    static let serial = Locked(0)
    static let base = "https://fuzz.invalid"
    static let stepsOffset = 7, stepCount = 12, stepSize = 3
    static let specsOffset = stepsOffset + stepCount * stepSize

    struct Step {
        var call: UInt8
        var argument: UInt8
        var plan: UInt8
    }

    struct Input {
        var flags: UInt8 = 0
        var partner: [UInt8] = []
        var steps: [Step] = []
        var specs: [AnswerSpec] = []

        init(_ bytes: [UInt8]) {
            func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }
            flags = at(0)
            partner = (1...6).map(at)
            for index in 0..<stepCount {
                let start = stepsOffset + index * stepSize
                guard start < bytes.count else { break }
                steps.append(Step(call: at(start), argument: at(start + 1), plan: at(start + 2)))
            }
            specs = FlowEndpoint.allCases.map { endpoint in
                let start = specsOffset + endpoint.rawValue * 8
                return start < bytes.count ? AnswerSpec(bytes[start..<min(start + 8, bytes.count)]) : AnswerSpec()
            }
        }
    }

    static let resources = [
        "REF30", "LIVE", "resource1", "resource2", " spaced ", "a,b", "caf\u{e9}", "R", "PREMIUM",
        String(repeating: "r", count: 200),
    ]

    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        let input = Input(bytes)
        let now = SystemClock().nowMillis()
        let log = EventLog()
        let transport = FlowTransport(specs: input.specs, now: now, log: log, base: base)
        var settings = Settings(softwareStatement: "fuzz.software.statement")
        settings.baseURL = base
        settings.apiGeneration = input.flags & 1 != 0 ? .v1 : .v2
        settings.loginMode = input.flags & 2 != 0 ? .browser : .secondScreen
        if input.flags & 4 != 0 { settings.partner = FlowPartner(input.partner, now: now) }
        settings.preauthorizeLimit = [5, 1, 2, 3][Int(input.flags >> 3) & 3]
        if input.flags & 0x20 != 0 { settings.domainName = "adobe.com" }
        if input.flags & 0x40 != 0 { settings.activationURL = "https://activate.example/tv" }
        settings.deviceID = "fuzz-device"
        settings.deviceInfo = ["model": "Fuzz", "version": "1", "osName": "Linux", "osVersion": "6", "connectionType": "LAN"]
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        let enabler: AccessEnabler
        do {
            enabler = try AccessEnabler(settings: settings, transport: transport, clock: SystemClock())
        } catch {
            throw FuzzFailure("AccessEnabler(settings:) refused the harness's settings: \(error)")
        }
        let recorder = FlowRecorder(log: log)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        defer { enabler.shutdown() }

        let driver = FlowDriver(log: log)
        driver.polls = { transport.polls }
        driver.stopped = { transport.stopped }
        driver.select = { id in (try? enabler.setSelectedProvider(id)) != nil }
        driver.wake = { (try? enabler.handleExternalURL("adobepass://android.app?done=1")) != nil }

        var requestorReady = false
        let trace = {
            guard FuzzTrace.enabled else { return }
            FuzzTrace.print("flow-answers: \(settings.apiGeneration), \(input.steps.count + 1) calls")
            FuzzTrace.print("  requests: " + transport.state.withLock { $0.trace }.joined(separator: ", "))
            FuzzTrace.print("  callbacks: " + log.all.map(\.description).joined(separator: ", "))
        }
        do {
            for step in [Step(call: 0, argument: 0, plan: 0)] + input.steps {
                FuzzTrace.print("call \(step.call % 13) (argument \(step.argument), plan \(step.plan))", if: FuzzTrace.enabled)
                let goOn = try perform(step, enabler, driver, log: log, requestorReady: &requestorReady)
                if !goOn { break }
                try transport.check()
            }
        } catch {
            enabler.shutdown()
            trace()
            throw error
        }
        enabler.shutdown()
        trace()
        try transport.check()
        try transport.openFinding()
    }

    /// One call and its outcome; false when the input stops (the transport cancelled a wait).
    static func perform(
        _ step: Step, _ enabler: AccessEnabler, _ driver: FlowDriver, log: EventLog,
        requestorReady: inout Bool
    ) throws(FuzzFailure) -> Bool {
        let plan = LoginPlan(byte: step.plan)
        let argument = step.argument
        let resource = resources[Int(argument >> 4) % resources.count]
        let expected: ExpectedOutcome
        let name: String
        do throws(AccessEnablerError) {
            switch step.call % 13 {
            case 0:
                name = "setRequestor"
                try enabler.setRequestor(argument % 4 == 3 ? "REF31" : "REF30")
                expected = .requestorComplete
            case 1:
                name = "checkAuthentication"
                try enabler.checkAuthentication()
                expected = .authenticationStatus
            case 2, 11:
                name = "getAuthentication"
                // (JSONValue is ExpressibleByNilLiteral: a bare nil here would be JSON null.)
                var data: JSONValue?, filter: JSONValue?
                if argument & 2 != 0 { data = ["email": "viewer@example.com"] }
                if argument & 4 != 0 { filter = ["TV_PROVIDERS": ["Dish", "Cablevision"], "FEATURED_TV_PROVIDERS": ["Dish"]] }
                try enabler.getAuthentication(forceAuthn: argument & 1 != 0, withData: data, andFilter: filter)
                expected = .authenticationStatus
            case 3:
                name = "setSelectedProvider"
                let choices: [String?] = FlowAnswers.mvpds + ["not-configured", nil]
                try enabler.setSelectedProvider(choices[Int(argument) % choices.count])
                expected = .authenticationStatus
            case 4, 12:
                name = "getAuthorization"
                try enabler.getAuthorization(resource)
                expected = .authorization(resource: resource)
            case 5:
                name = "checkAuthorization"
                try enabler.checkAuthorization(resource)
                expected = .authorization(resource: resource)
            case 6:
                name = "checkPreauthorizedResources"
                try enabler.checkPreauthorizedResources(list(argument), cache: argument & 1 == 0)
                expected = .preauthorized
            case 7:
                name = "preauthorize"
                let request = PreauthorizeRequest(resources: list(argument), disabledFeatures: argument & 1 != 0 ? [.localCache] : [])
                try enabler.preauthorize(request) { _ in log.append(.preauthorizeResponse) }
                expected = .preauthorizeResponse
            case 8:
                name = "getMetadata"
                let opCode = Int32(argument & 3)
                let key = MetadataKey(
                    opCode: opCode, resourceID: opCode == 1 ? resource : nil,
                    userMetadataName: opCode == 3 ? ["userID", "zip", "tokenSource", "count", "none"][Int(argument >> 2) % 5] : nil)
                try enabler.getMetadata(key)
                expected = .metadata(arguments: key.arguments)
            case 9:
                name = "logout"
                try enabler.logout()
                expected = .authenticationStatus
            default:
                name = "getSelectedProvider"
                try enabler.getSelectedProvider()
                expected = .selected
            }
        } catch {
            // The harness passes valid arguments: the only refusal is a missing requestor.
            try check(
                error.code == AccessEnablerError.noRequestor().code && !requestorReady,
                "call \(step.call % 13) refused: \(error) (requestor ready: \(requestorReady))")
            return true
        }
        guard let outcome = try driver.await(expected, plan: plan, call: name) else { return false }
        if case .requestorComplete(let status) = outcome { requestorReady = status == 1 }
        return true
    }

    /// 1–6 resources (repeats included: the SDK asks for each once).
    static func list(_ argument: UInt8) -> [String] {
        let count = Int(argument >> 5) + 1
        return (0..<min(count, 6)).map { resources[(Int(argument >> 1) + $0 * 3) % resources.count] }
    }
}

/// The delegate: every callback into the event log.
final class FlowRecorder: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    let log: EventLog
    init(log: EventLog) { self.log = log }

    func setRequestorComplete(_ status: Int32) { log.append(.requestorComplete(status)) }
    func setAuthenticationStatus(_ status: Int32, errorCode: String) { log.append(.authenticationStatus(status, errorCode)) }
    func setToken(_ token: String, forResource resource: String) { log.append(.token(resource: resource)) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        log.append(.tokenFailed(resource: resource, code: errorCode))
    }
    func selectedProvider(_ mvpd: MVPD?) { log.append(.selected(mvpd?.id)) }
    func displayProviderDialog(_ mvpds: [MVPD]) { log.append(.dialog(mvpds.map(\.id))) }
    func navigate(toUrl url: String) { log.append(.navigate(url)) }
    func sendTrackingData(_ data: [String], forEventType event: Int32) { log.append(.other("tracking")) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        log.append(.metadata(key: key, arguments: arguments))
    }
    func preauthorizedResources(_ resources: [String]) { log.append(.preauthorized(resources)) }
    func presentTvProviderDialog(_ dialog: JSONValue) { log.append(.other("presentTvProviderDialog")) }
    func dismissTvProviderDialog(_ dialog: JSONValue) { log.append(.other("dismissTvProviderDialog")) }
    func status(_ status: AdvancedStatus) { log.append(.status(status.errorID, message: status.message)) }
}

/// The platform's TV-provider SSO, answering at once from the input's partner bytes.
final class FlowPartner: PartnerFramework, @unchecked Sendable {
    let spec: [UInt8]
    let now: Int64
    init(_ spec: [UInt8], now: Int64) {
        self.spec = spec
        self.now = now
    }

    var timeoutMillis: Int? { 2_000 }

    func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>) {
        let status = spec[0] % 5
        guard status < 4, let access = PartnerAccessStatus(rawValue: Int32(status)) else {
            reply.fail(PartnerError(.serviceUnavailable, detail: "fuzz"))
            return
        }
        reply.succeed(PartnerAccess(access, signIn: [PartnerSignIn.signedIn, .signedOut, .unknown][Int(spec[1]) % 3]))
    }

    func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {
        let kind = Int(spec[4]) % 9
        if kind >= 2 {
            let code = PartnerError.Code(rawValue: Int32(kind - 1)) ?? .failed
            reply.fail(PartnerError(code, detail: code == .unsupportedProvider ? "Dish" : "fuzz"))
            return
        }
        let providers: [String?] = ["Dish", "Dish", "Other", nil, "Spectrum", ""]
        reply.succeed(
            PartnerMetadata(
                accountProviderIdentifier: providers[Int(spec[2]) % providers.count],
                authenticationExpirationDate: FuzzNumbers.int64(spec[3], nominal: now + 86_400_000, now: now),
                samlAttributeQueryResponse: kind == 0 ? "<samlp:Response>\n\t<saml:Assertion ID=\"_a1\"/>\n</samlp:Response>" : nil))
    }
}

/// Answers each request from the input's answer specs (routing by method and path), checks it,
/// and counts what the driver needs.
final class FlowTransport: HTTPTransport, @unchecked Sendable {
    struct State {
        var calls: [Int: Int] = [:]
        var polls = 0
        var authnCallsAtCode: Int?
        var mvpd = "Cablevision"
        var problems: [RequestChecks.Problem] = []
        var stopped = false
        var finding: FuzzFailure?
        var trace: [String] = []
    }

    let specs: [AnswerSpec]
    let now: Int64
    let log: EventLog
    let base: String
    let state = Locked(State())

    init(specs: [AnswerSpec], now: Int64, log: EventLog, base: String) {
        self.specs = specs
        self.now = now
        self.log = log
        self.base = base
    }

    var polls: Int { state.withLock { $0.polls } }
    var stopped: Bool { state.withLock { $0.stopped } }

    func shutdown() {}

    /// The problems the requests so far had.
    func check() throws(FuzzFailure) {
        let problems = state.withLock { $0.problems }
        if let first = problems.lazy.compactMap(\.failure).first { throw FuzzFailure("request: \(first.description)") }
    }

    /// An open finding the transport predicted and avoided (see `FlowTransport.send`).
    func openFinding() throws(FuzzFailure) {
        if let finding = state.withLock({ $0.finding }) { throw finding }
    }

    /// Answers that make the SDK trap for an open finding (Fuzz/FINDINGS.md), predicted so that
    /// `swift test` reports the reproducer as a known issue instead of crashing, and a fuzz run
    /// (AE_FUZZ_SKIP_OPEN_FINDINGS) goes on past it. `failure` is nil when the finding is skipped.
    /// Once the finding is fixed (its id out of OpenFindings.ids) the answer goes out as built.
    static func knownTrap(_ endpoint: FlowEndpoint, _ spec: AnswerSpec, now: Int64) -> (failure: FuzzFailure?, avoided: AnswerSpec)? {
        // F4: AccessTokenProvider.requestToken computes now - elapsed + expires_in * 1000.
        if endpoint == .token, OpenFindings.ids.contains("F4"), spec.kind < 160 || (spec.errorOnce), spec.variant & 1 == 0,
            let seconds = FuzzNumbers.int64(spec.numbers[0], nominal: 21_600, now: now)
        {
            let millis = seconds.multipliedReportingOverflow(by: 1000)
            if millis.overflow || millis.partialValue > Int64.max - 300_000_000_000_000 {
                var avoided = spec
                avoided.numbers[0] = 0
                return (
                    OpenFindings.skip
                        ? nil
                        : FuzzFailure(
                            "[F4] a DCR token answer with expires_in \(seconds) traps "
                                + "(arithmetic overflow in AccessTokenProvider.requestToken)"), avoided
                )
            }
        }
        return nil
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        defer { log.poke() }
        let problems = RequestChecks.problems(method: request.method, url: request.url, headers: request.headers, base: base)
        let path = String(request.url.dropFirst(base.count).prefix { $0 != "?" && $0 != "#" })
        guard let endpoint = FlowEndpoint.route(method: request.method, path: path) else {
            state.withLock {
                $0.problems +=
                    problems + [
                        RequestChecks.Problem(
                            text: "the SDK called \(request.method) \(path.prefix(200).debugDescription), not an endpoint of Adobe's")
                    ]
            }
            return HTTPResponse(status: 404)
        }
        let named = RequestFields.mvpd(endpoint, path: path, url: request.url, body: request.body)
        let resources = RequestFields.resources(endpoint, url: request.url, body: request.body)
        let context = state.withLock { state -> AnswerContext in
            state.problems += problems
            if let named { state.mvpd = named }
            let call = state.calls[endpoint.rawValue, default: 0]
            state.calls[endpoint.rawValue] = call + 1
            let sinceCode = state.authnCallsAtCode.map { call - $0 }
            if endpoint == .profileByCode || (endpoint == .v1AuthenticationToken && sinceCode != nil) { state.polls += 1 }
            return AnswerContext(
                now: now, endpoint: endpoint, call: call, pollsSinceCode: sinceCode, mvpd: state.mvpd,
                resources: resources)
        }
        var spec = specs[endpoint.rawValue]
        if let finding = Self.knownTrap(endpoint, spec, now: now) {
            // An open finding that would trap: report it (swift test) and answer without it.
            if let failure = finding.failure { state.withLock { $0.finding = $0.finding ?? failure } }
            spec = finding.avoided
        }
        let answer = FlowAnswers.answer(spec, context)
        if endpoint == .v1RegistrationCode, answer.response.map({ (200..<300).contains($0.status) }) == true {
            state.withLock { $0.authnCallsAtCode = $0.calls[FlowEndpoint.v1AuthenticationToken.rawValue, default: 0] }
        }
        if answer.waits {
            // The SDK would now sleep for real (Retry-After, retry backoff): cancelling the task
            // ends every such wait at once. A cancelled flow may end without its callback, so
            // the input stops after this request.
            state.withLock { $0.stopped = true }
            withUnsafeCurrentTask { $0?.cancel() }
        }
        if FuzzTrace.enabled {
            let outcome = answer.failure.map { "\($0)" } ?? "\(answer.response?.status ?? 0)"
            let url = request.url.dropFirst(base.count).prefix(80)
            state.withLock { $0.trace.append("\(endpoint)#\(context.call) \(url) → \(outcome)\(answer.waits ? " (cancelled)" : "")") }
        }
        if let failure = answer.failure { throw failure }
        return answer.response ?? HTTPResponse(status: 500)
    }
}

/// What a request names: its MVPD (path, form body or query) and its resources.
enum RequestFields {
    static func mvpd(_ endpoint: FlowEndpoint, path: String, url: String, body: [UInt8]?) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch endpoint {
        case .profileByMVPD, .authorize, .preauthorize, .logout, .v1ProfileRequest:
            return segments.last.flatMap(percentDecode)
        case .createSession, .resumeSession, .v1RegistrationCode:
            return form(String(decoding: body ?? [], as: UTF8.self))["mvpd"]
        default:
            return nil
        }
    }

    static func resources(_ endpoint: FlowEndpoint, url: String, body: [UInt8]?) -> [String] {
        switch endpoint {
        case .authorize, .preauthorize:
            let json = JSONValue.parse(String(decoding: body ?? [], as: UTF8.self))
            return json?["resources"]?.arrayValue?.compactMap(\.stringValue) ?? []
        case .v1Authorize, .v1MediaToken, .v1Preauthorize:
            let query = url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let value = form(query)["resource"] ?? ""
            return endpoint == .v1Preauthorize ? value.split(separator: ",").map(String.init) : [value]
        default:
            return []
        }
    }

    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if let name = percentDecode(String(parts[0])) { fields[name] = parts.count > 1 ? percentDecode(String(parts[1])) : "" }
        }
        return fields
    }

    static func percentDecode(_ text: String) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
