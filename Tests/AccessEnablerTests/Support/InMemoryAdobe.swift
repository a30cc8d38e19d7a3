// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation

/// A small in-memory Adobe Pass (DCR + the V2 endpoints the SDK uses) behind the SDK's transport
/// protocol: the flows run without sockets. The Python emulator is the full-fidelity one.
final class InMemoryAdobe: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var clients: [String: String] = [:]
    private var tokens: Set<String> = []
    private var profiles: [String: [String: Any]] = [:]  // mvpd -> profile (one device in these tests)
    private var sessions: [String: String] = [:]  // code -> mvpd
    private var completed: Set<String> = []
    private(set) var requests: [HTTPRequest] = []
    var denied: Set<String> = ["PREMIUM"]
    var preauthorizeLimit = 5
    var profileNotAfter: Int64 = 4_102_444_800_000  // 2100
    /// Complete every login as soon as its code is polled.
    var autoLogin = true
    /// Answers this handler returns win over the normal ones (fault injection).
    var override: ((HTTPRequest) -> HTTPResponse?)?

    func shutdown() {}

    /// The service URLs the SDK asked to open a connection to ahead of a request (the warm start).
    var preconnects: [String] { lock.withLock { opened } }
    private var opened: [String] = []
    func preconnect(to url: String) { lock.withLock { opened.append(url) } }

    var requestCount: Int { lock.lock(); defer { lock.unlock() }; return requests.count }
    func requests(matching path: String) -> [HTTPRequest] {
        lock.lock(); defer { lock.unlock() }
        return requests.filter { $0.url.contains(path) }
    }
    func expireTokens() { lock.lock(); tokens.removeAll(); lock.unlock() }
    func forgetClients() { lock.lock(); clients.removeAll(); tokens.removeAll(); lock.unlock() }
    func removeProfiles() { lock.lock(); profiles.removeAll(); lock.unlock() }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let override = lock.withLock {
            requests.append(request)
            return self.override
        }
        if let answer = override?(request) { return answer }
        return lock.withLock { handle(request) }
    }

    private func json(_ status: Int, _ body: Any) -> HTTPResponse {
        let data = try! JSONSerialization.data(withJSONObject: body)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json;charset=UTF-8")], body: Array(data))
    }

    static func error(_ status: Int, _ code: String, action: String = "none") -> [String: Any] {
        ["status": status, "code": code, "action": action, "message": "emulated \(code)"]
    }

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.url.split(separator: "?")[0].split(separator: "/", omittingEmptySubsequences: true)
            .dropFirst(2).map(String.init)  // drop "http:" and host
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        if path == ["o", "client", "register"] {
            let id = UUID().uuidString
            clients[id] = UUID().uuidString
            return json(201, ["client_id": id, "client_secret": clients[id]!])
        }
        if path == ["o", "client", "token"] {
            let form = Encoding.queryParameters(of: "?" + body)
            guard let id = form["client_id"], clients[id] == form["client_secret"] else {
                return json(400, ["error": "invalid_client"])
            }
            let token = UUID().uuidString
            tokens.insert(token)
            return json(201, ["access_token": token, "expires_in": 3600, "token_type": "bearer"])
        }
        guard let bearer = request.header("Authorization"), tokens.contains(String(bearer.dropFirst(7))) else {
            return json(401, Self.error(401, "invalid_access_token_client_application", action: "application-registration"))
        }
        // Routed by the SDK's own catalogue (V2Operation): an operation the SDK calls and this
        // Adobe does not answer is a 405 here, and a test that calls it fails.
        guard let (operation, parameters) = V2Operation.match(method: request.method, path: "/" + path.joined(separator: "/")) else {
            return json(405, Self.error(405, "method_not_allowed"))
        }
        guard parameters["serviceProvider"] == "REF30" else {
            return json(400, Self.error(400, "invalid_parameter_service_provider"))
        }
        let mvpd = parameters["mvpd"] ?? ""
        switch operation {
        case .configuration:
            return json(
                200,
                [
                    "requestor": [
                        "id": "REF30", "name": "Reference", "domains": [["name": "adobe.com"]],
                        "mvpds": [
                            ["id": "Cablevision", "displayName": "Optimum", "logoUrl": "https://logo/c.png"],
                            ["id": "Dish", "displayName": "DISH"],
                        ],
                    ]
                ])
        case .profiles:
            return json(200, ["profiles": profiles])
        case .profileByMVPD:
            return json(200, ["profiles": profiles.filter { $0.key == mvpd }])
        case .profileByCode:
            let code = parameters["code"] ?? ""
            guard let mvpd = sessions[code] else { return json(400, Self.error(400, "invalid_parameter_code")) }
            if autoLogin && !completed.contains(code) { login(code: code, mvpd: mvpd) }
            return json(200, ["profiles": completed.contains(code) ? profiles.filter { $0.key == mvpd } : [:]])
        case .createSession:
            let form = Encoding.queryParameters(of: "?" + body)
            guard let mvpd = form["mvpd"] else { return json(400, Self.error(400, "invalid_parameter_mvpd")) }
            if profiles[mvpd] != nil {
                return json(
                    200,
                    [
                        "actionName": "authorize", "actionType": "direct", "reasonType": "authenticated",
                        "sessionId": "s", "serviceProvider": "REF30", "mvpd": mvpd,
                    ])
            }
            let code = String(UUID().uuidString.prefix(7)).uppercased()
            sessions[code] = mvpd
            return json(
                200,
                [
                    "actionName": "authenticate", "actionType": "interactive", "reasonType": "none",
                    "url": "/api/v2/authenticate/REF30/\(code)", "code": code, "sessionId": "s",
                    "serviceProvider": "REF30", "mvpd": mvpd, "notBefore": "0",
                    "notAfter": String(Int64(Date().timeIntervalSince1970 * 1000) + 600_000),
                ])
        case .authorize, .preauthorize:
            let kind = operation == .authorize ? "authorize" : "preauthorize"
            let resources =
                (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["resources"]
                as? [String] ?? []
            if resources.count > preauthorizeLimit {
                return json(403, Self.error(403, "too_many_resources", action: "configuration"))
            }
            return json(
                200,
                [
                    "decisions": resources.map { resource -> [String: Any] in
                        var decision: [String: Any] = ["resource": resource, "serviceProvider": "REF30", "mvpd": mvpd, "source": "mvpd"]
                        if profiles[mvpd] == nil {
                            decision["authorized"] = false
                            decision["error"] = Self.error(403, "authenticated_profile_missing", action: "authentication")
                        } else if denied.contains(resource) {
                            decision["authorized"] = false
                            decision["error"] = Self.error(403, "\(kind == "authorize" ? "" : "pre")authorization_denied_by_mvpd")
                        } else {
                            decision["authorized"] = true
                            if kind == "authorize" {
                                decision["token"] = ["notBefore": 1, "notAfter": 2, "serializedToken": "TOKEN-\(resource)"]
                                decision["notAfter"] = profileNotAfter
                            }
                        }
                        return decision
                    }
                ])
        case .logout:
            let existed = profiles.removeValue(forKey: mvpd) != nil
            var entry: [String: Any] = [
                "actionName": existed ? "logout" : "invalid",
                "actionType": existed ? "interactive" : "none", "mvpd": mvpd,
            ]
            if existed { entry["url"] = "https://mvpd.example/logout" }
            return json(200, ["logouts": [mvpd: entry]])
        case .resumeSession, .retrieveSession, .partnerSession, .partnerProfile:
            return json(405, Self.error(405, "method_not_allowed"))  // no test here needs them
        }
    }

    /// Opens a session for `code` (tests that script the session answers themselves).
    func openSession(code: String, mvpd: String) { lock.withLock { sessions[code] = mvpd } }

    /// Completes the login of `code` (the viewer on the second screen).
    func login(code: String, mvpd: String) {
        completed.insert(code)
        profiles[mvpd] = [
            "notBefore": 0, "notAfter": profileNotAfter, "issuer": mvpd, "type": "regular",
            "attributes": [
                "userID": ["value": "user-1", "state": "plain"],
                "zip": ["value": ["10001"], "state": "plain"],
                "householdID": ["value": "c2VjcmV0", "state": "enc"],
            ],
        ]
    }
}

extension Settings {
    /// Settings for tests: in-memory store, no pacing, fast polling.
    static func test(storagePath: String? = nil) -> Settings {
        var settings = Settings(softwareStatement: "header.payload.signature")
        settings.baseURL = "http://127.0.0.1:9"
        settings.storagePath = storagePath
        settings.deviceID = "device-1"
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        return settings
    }
}
