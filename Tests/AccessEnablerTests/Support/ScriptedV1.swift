// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation

/// REST API V1 behind the SDK's transport protocol, answering what the test scripted: DCR
/// (register, token) is always answered; every other request gets the next answer queued for its
/// method and path (a 599 when none is), and is recorded. `V1Backend` runs on it unchanged, with
/// no socket and no clock.
final class ScriptedV1: HTTPTransport, @unchecked Sendable {
    static let baseURL = "http://adobe.test"
    static let accessToken = "access-token-1"

    private let lock = NSLock()
    private var answers: [String: [HTTPResponse]] = [:]
    private var sent: [HTTPRequest] = []

    func shutdown() {}

    /// Queues `responses` for `method` `path` (the path without the query), answered in order.
    func answer(_ method: String, _ path: String, _ responses: HTTPResponse...) {
        lock.withLock { answers["\(method) \(path)", default: []] += responses }
    }

    /// The V1 requests made so far (DCR's left out), as "METHOD path?query".
    var requests: [String] { lock.withLock { sent.map(Self.line) } }
    /// The V1 requests made so far.
    var sentRequests: [HTTPRequest] { lock.withLock { sent } }

    static func line(_ request: HTTPRequest) -> String {
        "\(request.method) \(request.url.dropFirst(baseURL.count))"
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let path = String(request.url.dropFirst(Self.baseURL.count).prefix { $0 != "?" })
        if path == "/o/client/register" {
            return Self.json(201, #"{"client_id":"client-1","client_secret":"secret-1"}"#)
        }
        if path == "/o/client/token" {
            return Self.json(201, #"{"access_token":"\#(Self.accessToken)","expires_in":3600,"token_type":"bearer"}"#)
        }
        return lock.withLock {
            sent.append(request)
            let key = "\(request.method) \(path)"
            guard var queue = answers[key], !queue.isEmpty else {
                return Self.json(599, #"{"status":599,"message":"nothing scripted for \#(key)"}"#)
            }
            let next = queue.removeFirst()
            answers[key] = queue
            return next
        }
    }

    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json;charset=UTF-8")], body: Array(body.utf8))
    }

    static func noContent() -> HTTPResponse { HTTPResponse(status: 204, headers: [], body: []) }

    /// A legacy V1 error answer (`{"status","message","details"}`).
    static func error(_ status: Int, _ message: String, details: String? = nil) -> HTTPResponse {
        let detail = details.map { #","details":"\#($0)""# } ?? ""
        return json(status, #"{"status":\#(status),"message":"\#(message)"\#(detail)}"#)
    }

    /// tokens/authn's answer (TAUTHN: `expires` is a string of ms).
    static func authenticationToken(mvpd: String, userID: String = "user-1", expires: Int64) -> HTTPResponse {
        json(200, #"{"requestor":"REF30","mvpd":"\#(mvpd)","userId":"\#(userID)","expires":"\#(expires)"}"#)
    }

    /// A V1Backend for requestor REF30 on device "device-1", over this transport.
    func service(storedNotAfter: @escaping @Sendable (String) -> Int64? = { _ in nil }) throws -> V1Backend {
        let executor = RequestExecutor(transport: self, requestsPerSecond: 0, logger: .silent)
        let context: @Sendable () -> DeviceContext = { DeviceContext(deviceID: "device-1", deviceInfo: "e30=") }
        let tokens = AccessTokenProvider(
            executor: executor, store: try TokenStore(path: nil),
            scope: StoreScope(softwareStatement: "header.payload.signature", api: "v1"), baseURL: Self.baseURL,
            softwareStatement: "header.payload.signature", redirectURL: "adobepass://android.app", context: context,
            clock: SystemClock(), logger: .silent)
        let wire = V1Client(executor: executor, tokens: tokens, baseURL: Self.baseURL, context: context)
        return V1Backend(
            requestorID: "REF30", wire: wire, domainName: "adobe.com", redirectURL: "adobepass://android.app",
            storedNotAfter: storedNotAfter)
    }
}
