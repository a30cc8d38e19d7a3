// SPDX-License-Identifier: Apache-2.0
// fuzzServerAnswer: Adobe's answers (REST API V2, V1 and DCR bodies, enhanced and legacy errors)
// through the SDK's own request path: V2Client / V1Client → RequestExecutor.send → decoding,
// with an in-memory transport that hands back the fuzzed answer.
import AccessEnabler
import AccessEnablerTesting

/// Input: byte 0 picks the operation (0–11 V2 endpoints, 12–14 DCR and item shapes, 15 the token
/// store's JSON, 16–26 V1 endpoints), byte 1 the HTTP status, byte 2 the Content-Type; the rest
/// is the body.
///
/// Checks: nothing crashes; a decoded success only comes from a 2xx JSON answer; an error answer
/// becomes the ServiceError `RequestExecutor.failure(from:)` names (same HTTP status); what the
/// SDK stores from an answer (configuration, profiles) reads back from the token store unchanged.
public func fuzzServerAnswer(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    // One input at a time: the inputs share the transport's answer and the store's rows.
    try ServerAnswerFuzz.serial.withLock { (_: inout Int) throws(FuzzFailure) in try serverAnswer(data) }
}

private func serverAnswer(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    var input = FuzzInput(data)
    let operation = Int(input.byte() % 32)
    let status = input.pick(ServerAnswerFuzz.statuses)
    let contentType = input.pick(ServerAnswerFuzz.contentTypes)
    let response = HTTPResponse(
        status: status, headers: contentType.map { [("Content-Type", $0)] } ?? [],
        body: input.rest())
    try ServerAnswerFuzz.checkFailure(response)
    switch operation {
    case 0...11: try ServerAnswerFuzz.backendCall(operation, response)
    case 16...26: try ServerAnswerFuzz.v1Call(V1Operation.allCases[operation - 16], response)
    case 12:
        try ServerAnswerFuzz.decode(ClientCredentials.self, response, "register")
    case 13:
        try ServerAnswerFuzz.decode(AccessTokenResponse.self, response, "token")
    case 14:
        // Item-level shapes, as they appear inside answers.
        try ServerAnswerFuzz.decode([Decision].self, response, "decision items")
        try ServerAnswerFuzz.decode(EnhancedError.self, response, "enhanced error")
        try ServerAnswerFuzz.decode([MVPD].self, response, "mvpds")
        try ServerAnswerFuzz.decode([String: LogoutAction].self, response, "logout items")
        try ServerAnswerFuzz.decode([String: ProfileAttribute].self, response, "attributes")
        try ServerAnswerFuzz.decode(SessionAnswer.self, response, "session")
        try ServerAnswerFuzz.decode(SessionStatusAnswer.self, response, "session status")
    default:
        // The token store's own JSON (a store shared by the app's processes is read back).
        if let profile = try? JSON.decode(Profile.self, from: response.body) { try ServerAnswerFuzz.storeRoundTrip([profile]) }
        if let configuration = try? JSON.decode(RequestorConfiguration.self, from: response.body) {
            try ServerAnswerFuzz.storeRoundTrip(configuration)
        }
    }
}

enum ServerAnswerFuzz {
    static let statuses = [200, 201, 200, 204, 400, 401, 403, 404, 410, 412, 429, 500, 503, 302, 0, 599]
    static let contentTypes: [String?] = [
        "application/json;charset=UTF-8", "application/json", "application/problem+json", "text/html",
        "application/xml", nil, "", "Application/JSON ; charset=utf-8", " application/vnd.adobe+json\t", "json",
    ]

    static let serial = Locked(0)
    static let requestor = "REF30"
    static let deviceID = "fuzz-device"

    /// One transport, store and backend for the whole run (the access token is fetched once).
    static let world = World()

    final class World: Sendable {
        let transport = AnswerTransport()
        let store: TokenStore
        let scope = StoreScope(softwareStatement: "fuzz.software.statement", api: "v2")
        let backend: V2Client
        let v1: V1Client

        init() {
            store = try! TokenStore(path: nil)
            backend = Self.backend(transport, store, scope)
            v1 = V1Client(
                executor: backend.executor, tokens: backend.tokens, baseURL: AnswerTransport.baseURL,
                context: backend.context)
        }

        /// A backend with its own executor: after a 429 an executor paces requests one per second
        /// for ten seconds, which must not slow the next inputs down.
        static func backend(_ transport: AnswerTransport, _ store: TokenStore, _ scope: StoreScope) -> V2Client {
            let executor = RequestExecutor(transport: transport, requestsPerSecond: 0, logger: .silent)
            let context: @Sendable () -> DeviceContext = { DeviceContext(deviceID: deviceID, deviceInfo: "e30=") }
            let tokens = AccessTokenProvider(
                executor: executor, store: store, scope: scope, baseURL: AnswerTransport.baseURL,
                softwareStatement: "fuzz.software.statement", redirectURL: "adobepass://android.app", context: context,
                clock: SystemClock(), logger: .silent)
            return V2Client(
                executor: executor, tokens: tokens, baseURL: AnswerTransport.baseURL, requestorID: requestor, context: context)
        }
    }

    /// DCR answers valid credentials and tokens; every other request gets the fuzzed answer.
    /// Handing it back cancels the calling task: every wait the executor would then start (429
    /// Retry-After, an enhanced error's `retry` action, pacing) ends at once instead of sleeping.
    final class AnswerTransport: HTTPTransport, Sendable {
        static let baseURL = "http://fuzz.invalid"
        let answer = Locked(HTTPResponse(status: 500))

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            let json = [("Content-Type", "application/json;charset=UTF-8")]
            if request.url.hasSuffix("/o/client/register") {
                return HTTPResponse(status: 201, headers: json, body: Array(#"{"client_id":"c","client_secret":"s"}"#.utf8))
            }
            if request.url.hasSuffix("/o/client/token") {
                return HTTPResponse(status: 201, headers: json, body: Array(#"{"access_token":"t","expires_in":86400}"#.utf8))
            }
            withUnsafeCurrentTask { $0?.cancel() }
            return answer.withLock { $0 }
        }

        func shutdown() {}
    }

    /// The error side of every answer: Adobe's enhanced error, DCR's error, or the bare status.
    static func checkFailure(_ response: HTTPResponse) throws(FuzzFailure) {
        let failure = RequestExecutor.failure(from: response)
        switch failure {
        case .throttled: try check(response.status == 429, "throttled from HTTP \(response.status)")
        case .enhanced(let error, let status):
            try check(status == response.status, "enhanced error with HTTP \(status), answer \(response.status)")
            try check(response.status != 429, "429 became an enhanced error")
            _ = error.message?.count
        case .registration(let code, let status):
            try check(status == response.status && response.status != 429, "DCR error \(code) with HTTP \(status)")
        case .http(let status):
            try check(status == response.status && response.status != 429, "http(\(status)) for \(response.status)")
        case .transport, .malformed, .unavailable:
            throw FuzzFailure("failure(from:) produced \(failure)")
        }
        try check(failure.httpStatus == response.status, "httpStatus \(failure.httpStatus) for HTTP \(response.status)")
        try checkStatuses(failure)
    }

    /// Every advanced status the flows make of a service error (strings from the answer end up in
    /// messages and enhanced errors shown to the host).
    static func checkStatuses(_ error: ServiceError) throws(FuzzFailure) {
        let enhanced = error.enhancedError
        for stage in [CallFailure.Stage.registration, .accessToken, .call] {
            let failure = CallFailure(stage, error)
            for status in [
                StatusCatalog.requestorFailure(failure), StatusCatalog.loginFailure(failure, creatingSession: true),
                StatusCatalog.loginFailure(failure, creatingSession: false),
                StatusCatalog.authorizationFailure(failure),
            ] {
                try check(!status.errorID.isEmpty, "advanced status without an errorId for \(error)")
            }
        }
        _ = StatusCatalog.needsAuthentication(enhanced)
        _ = StatusCatalog.authorizationDenial(enhanced)
        _ = StatusCatalog.preauthorizationFailure(enhanced)
    }

    /// RequestExecutor.decode on its own: success only for a 2xx JSON answer; errors are the
    /// answer's failure (non-2xx) or `.malformed` (2xx).
    @discardableResult
    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, _ operation: String)
        throws(FuzzFailure) -> T?
    {
        let result: Result<T, ServiceError>
        do throws(ServiceError) {
            result = .success(try RequestExecutor.decode(type, from: response, operation: operation))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let value):
            try check((200..<300).contains(response.status), "\(operation): decoded an HTTP \(response.status) answer")
            let mediaType = response.mediaType ?? ""
            try check(
                mediaType == "application/json" || mediaType.hasSuffix("+json"),
                "\(operation): decoded a \(mediaType) answer")
            return value
        case .failure(let error):
            if (200..<300).contains(response.status) {
                guard case .malformed = error else { throw FuzzFailure("\(operation): 2xx answer failed with \(error)") }
            } else {
                try check(
                    error.sameKind(as: RequestExecutor.failure(from: response)),
                    "\(operation): HTTP \(response.status) failed with \(error), not its failure(from:)")
            }
            try checkStatuses(error)
            return nil
        }
    }

    /// One V2 endpoint through V2Client (the request path the flows use).
    static func backendCall(_ operation: Int, _ response: HTTPResponse) throws(FuzzFailure) {
        let world = world
        world.transport.answer.withLock { $0 = response }
        let backend = response.status == 429 ? World.backend(world.transport, world.store, world.scope) : world.backend
        let outcome: Result<BackendResult, CallFailure> = runBlocking {
            do throws(CallFailure) {
                return .success(try await call(backend, operation))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            try check((200..<300).contains(response.status), "operation \(operation): success from HTTP \(response.status)")
            switch result {
            case .configuration(let configuration): try storeRoundTrip(configuration)
            case .profiles(let profiles):
                try check(Set(profiles.map(\.mvpd)).count == profiles.count, "two profiles of one MVPD")
                try storeRoundTrip(profiles)
                for profile in profiles {
                    _ = (profile.tokenSource, profile.userID, profile.isValid(at: 0))
                }
            case .session(let session):
                if let url = session.url { _ = backend.absolute(url) }
                if let request = session.authenticationRequest?.request { _ = SimulatedSAML.requestID(ofBase64: request) }
            case .decisions(let decisions):
                for decision in decisions {
                    if let error = decision.error {
                        _ = StatusCatalog.authorizationDenial(error)
                        _ = StatusCatalog.preauthorizationFailure(error)
                    }
                }
            case .other: break
            }
        case .failure(let failure):
            if !(200..<300).contains(response.status) && !failure.isCancellation {
                try check(failure.stage == .call, "operation \(operation): DCR failed with the fuzzed answer")
            }
            try checkStatuses(failure.error)
        }
    }

    /// One V1 endpoint through V1Client: its error answers become what V1Errors names (same
    /// HTTP status), a success only comes from a 2xx answer, and what is kept reads back.
    static func v1Call(_ operation: V1Operation, _ response: HTTPResponse) throws(FuzzFailure) {
        let failure = V1Errors.failure(from: response, operation: operation)
        if !(200..<300).contains(response.status) {
            try check(failure.httpStatus == response.status, "V1 \(operation): httpStatus \(failure.httpStatus) for \(response.status)")
            try checkStatuses(failure)
        }
        let world = world
        world.transport.answer.withLock { $0 = response }
        let backend =
            response.status == 429
            ? {
                let fresh = World.backend(world.transport, world.store, world.scope)
                return V1Client(executor: fresh.executor, tokens: fresh.tokens, baseURL: fresh.baseURL, context: fresh.context)
            }()
            : world.v1
        let profile = Profile(
            mvpd: "Cablevision", notBefore: 0, notAfter: 1, issuer: "Cablevision", type: "regular",
            attributes: [:])
        let outcome: Result<BackendResult, CallFailure> = runBlocking {
            do throws(CallFailure) {
                return .success(try await v1Result(backend, operation, profile))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            // tokens/authn and usermetadata answer "none" (nil) for their not-found statuses.
            let none: Set<Int> = operation == .authenticationToken ? [404, 410] : operation == .userMetadata ? [404, 412] : []
            let isNone: Bool =
                switch result {
                case .profiles(let profiles): profiles.isEmpty
                case .other: true
                default: false
                }
            try check(
                (200..<300).contains(response.status) || (none.contains(response.status) && isNone),
                "V1 \(operation): success from HTTP \(response.status)")
            switch result {
            case .configuration(let configuration): try storeRoundTrip(configuration)
            case .profiles(let profiles): try storeRoundTrip(profiles)
            case .decisions(let decisions):
                for decision in decisions { if let error = decision.error { _ = StatusCatalog.authorizationDenial(error) } }
            case .session, .other: break
            }
        case .failure(let failure):
            if !(200..<300).contains(response.status) && !failure.isCancellation {
                try check(failure.stage == .call, "V1 \(operation): DCR failed with the fuzzed answer")
            }
            try checkStatuses(failure.error)
        }
    }

    static func v1Result(_ backend: V1Client, _ operation: V1Operation, _ profile: Profile) async throws(CallFailure)
        -> BackendResult
    {
        let requestor = requestor
        switch operation {
        case .configuration: return .configuration(try await backend.configuration(requestor))
        case .authenticationToken:
            return .profiles(try await backend.authenticationToken(requestor).map { [$0.profile] } ?? [])
        case .registrationCode:
            let record = try await backend.registrationCode(requestor, mvpd: "Cablevision")
            _ = backend.authenticationURL(
                requestor, code: record.code, mvpd: record.mvpd ?? "", domainName: "adobe.com",
                redirectURL: "adobepass://android.app")
            return .other
        case .authorize:
            _ = try await backend.authorize(requestor, resource: "LIVE", identity: nil).expires
            return .other
        case .mediaToken:
            return .decisions([
                try await backend.decision(
                    requestor, profile: profile, resource: "LIVE",
                    authorizedUntil: Int64.max)
            ])
        case .preauthorize: return .decisions(try await backend.preauthorize(requestor, resources: ["a", "b"]))
        case .userMetadata:
            if let metadata = try await backend.userMetadata(requestor) {
                var complete = profile
                complete.attributes = metadata.attributes
                return .profiles([complete])
            }
            return .other
        case .freePreview:
            try await backend.freePreview(
                requestor, mvpd: "TempPass_TEST40", domainName: "adobe.com",
                identity: #"{"email":"a@b.c"}"#)
            return .other
        case .logout:
            try await backend.logout(requestor)
            return .other
        case .profileRequest:
            _ = SimulatedSAML.requestID(ofBase64: try await backend.profileRequest(requestor, mvpd: "Cablevision"))
            return .other
        case .tokenExchange:
            try await backend.tokenExchange(requestor, mvpd: "Cablevision", samlResponse: "PHg%2B")
            return .other
        }
    }

    enum BackendResult: Sendable {
        case configuration(RequestorConfiguration)
        case profiles([Profile])
        case session(SessionAnswer)
        case decisions([Decision])
        case other
    }

    /// `operation`: V2Operation's index (the catalogue's order is the corpora's numbering: append only).
    static func call(_ backend: V2Client, _ operation: Int) async throws(CallFailure) -> BackendResult {
        switch V2Operation.allCases[operation] {
        case .configuration: return .configuration(try await backend.configuration())
        case .profiles: return .profiles(try await backend.profiles(partnerStatus: "e30="))
        case .profileByMVPD: return .profiles(try await backend.profile(mvpd: "Cablevision").map { [$0] } ?? [])
        case .profileByCode: return .profiles(try await backend.profile(code: "8ER640M").map { [$0] } ?? [])
        case .createSession:
            return .session(
                try await backend.createSession(mvpd: "Cablevision", domainName: "adobe.com", redirectURL: "https://adobe.com"))
        case .resumeSession: return .session(try await backend.resumeSession(code: "8ER640M", parameters: [("mvpd", "Cablevision")]))
        case .retrieveSession:
            let status = try await backend.sessionStatus(code: "8ER640M")
            _ = (status.existingParameters.count, status.missingParameters.count, status.notAfter)
            return .other
        case .authorize: return .decisions(try await backend.authorize(mvpd: "Cablevision", resources: ["REF30"]))
        case .preauthorize: return .decisions(try await backend.preauthorize(mvpd: "Cablevision", resources: ["a", "b"]))
        case .partnerSession:
            return .session(
                try await backend.partnerSession(
                    partner: "Apple", domainName: "adobe.com", redirectURL: "https://adobe.com", partnerStatus: "e30="))
        case .partnerProfile:
            return .profiles(
                try await backend.partnerProfile(partner: "Apple", mvpd: "Cablevision", samlResponse: "PHg%2B", partnerStatus: "e30=")
                    .map { [$0] } ?? [])
        case .logout:
            let logouts = try await backend.logout(mvpd: "Cablevision", redirectURL: "https://adobe.com")
            _ = logouts.values.map { ($0.actionName, $0.url, $0.mvpd) }
            return .other
        }
    }

    /// The configuration the SDK keeps must read back from the store as it was saved.
    static func storeRoundTrip(_ configuration: RequestorConfiguration) throws(FuzzFailure) {
        let world = world
        do {
            try world.store.saveConfiguration(world.scope, configuration, fetchedAt: 1)
            let loaded = try world.store.configuration(world.scope, requestor: configuration.requestorID)
            try check(loaded != nil, "a saved configuration does not read back")
            try check(loaded?.0 == configuration, "the configuration read back differs from the one saved")
        } catch let error as StoreError {
            throw FuzzFailure("token store: \(error)")
        } catch let error as FuzzFailure {
            throw error
        } catch {
            throw FuzzFailure("\(error)")
        }
    }

    /// The profiles the SDK keeps must read back from the store as they were saved.
    static func storeRoundTrip(_ profiles: [Profile]) throws(FuzzFailure) {
        let world = world
        let loaded: [Profile]
        do {
            try world.store.replaceProfiles(world.scope, requestor: requestor, deviceID: deviceID, with: profiles, syncedAt: 1)
            loaded = try world.store.profiles(world.scope, requestor: requestor, deviceID: deviceID).profiles
        } catch {
            throw FuzzFailure("token store: \(error)")
        }
        // F2: the store binds MVPD ids as C strings, so ids that differ only after a NUL collide.
        if loaded.count != profiles.count, profiles.contains(where: { $0.mvpd.utf8.contains(0) }) {
            try check(false, finding: "F2", "saved \(profiles.count) profiles, \(loaded.count) read back (NUL in an MVPD id)")
            return
        }
        try check(loaded.count == profiles.count, "saved \(profiles.count) profiles, \(loaded.count) read back")
        let byMVPD = Dictionary(loaded.map { ($0.mvpd, $0) }, uniquingKeysWith: { first, _ in first })
        for profile in profiles {
            guard let back = byMVPD[profile.mvpd] else { throw FuzzFailure("a saved profile does not read back") }
            try check(
                back.notBefore == profile.notBefore && back.notAfter == profile.notAfter
                    && back.issuer == profile.issuer && back.type == profile.type
                    && back.attributes.keys.sorted() == profile.attributes.keys.sorted(),
                "a profile read back differs from the one saved")
            for (name, attribute) in profile.attributes {
                try check(
                    back.attributes[name]?.state == attribute.state
                        && sameJSON(back.attributes[name]!.value, attribute.value),
                    "profile attribute \(name) reads back as another value")
            }
        }
    }
}

/// JSON equality where 1 and 1.0 are the same number (JSON text does not tell them apart).
func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.int(let x), .double(let y)), (.double(let y), .int(let x)): Double(x) == y
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy(sameJSON)
    case (.object(let x), .object(let y)):
        x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
    default: a == b
    }
}

extension ServiceError {
    func sameKind(as other: ServiceError) -> Bool {
        switch (self, other) {
        case (.throttled, .throttled): true
        case (.enhanced(let a, let s), .enhanced(let b, let t)): a == b && s == t
        case (.registration(let a, let s), .registration(let b, let t)): a == b && s == t
        case (.http(let s), .http(let t)): s == t
        default: false
        }
    }
}
