// SPDX-License-Identifier: Apache-2.0
// ae_http_transport: the host's HTTP stack behind the SDK's transport protocol, and the reply
// functions that answer its requests.
public import CAccessEnabler
import AccessEnabler
import Glibc

/// One exchange waiting for the host's reply (`ae_http_request *`, a handle of
/// `Handles.httpRequests` while its slot is pending).
final class PendingExchange: Sendable {
    let transport: CTransport
    let slot: AnswerOnce<Result<HTTPResponse, TransportError>>

    init(transport: CTransport, slot: AnswerOnce<Result<HTTPResponse, TransportError>>) {
        self.transport = transport
        self.slot = slot
    }

    /// The exchange of `handle`, which must be pending (else AE_E_INVALID_HANDLE).
    static func of(_ handle: OpaquePointer?) throws(AccessEnablerError) -> PendingExchange {
        try Handles.httpRequests.value(handle)
    }

    /// Answers the exchange; AE_E_INVALID_HANDLE when it ended between the lookup and the answer
    /// (timed out or cancelled meanwhile, or another thread answered).
    func answer(_ result: Result<HTTPResponse, TransportError>) throws(AccessEnablerError) {
        guard slot.answer(result) else {
            throw .invalidHandle("the HTTP request is over (answered, cancelled or timed out)")
        }
    }
}

/// The host's ae_http_transport as an HTTPTransport.
///
/// Closed by `shutdown` (ae_client_destroy, HostCalls): from then on `send` fails at once without
/// calling the host, the exchanges in flight are cancelled (the host's `cancel`, before shutdown
/// returns), and a `send` or `cancel` running on another thread is waited for. So once destroy has
/// returned, the host's functions are never called again for this client (issue 28: the shared
/// access-token fetch sent DCR's token request after destroy).
final class CTransport: HTTPTransport, @unchecked Sendable {
    private let table: ae_http_transport
    let maxBodyBytes: Int
    private let timeoutMillis: Int
    /// How much longer than its own `timeout_ms` the host gets before the SDK gives up on a reply.
    private static let graceMillis: Int64 = 1_000
    /// Closed at destroy (`shutdown`): no host function is called after it.
    private let host = HostCalls()

    init(_ table: ae_http_transport, maxBodyBytes: Int, timeoutMillis: Int) throws(AccessEnablerError) {
        guard table.send != nil else { throw .invalidArgument("transport: send is required") }
        self.table = table
        self.maxBodyBytes = maxBodyBytes
        self.timeoutMillis = timeoutMillis
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        // The host owns the timing, but a reply that never comes must not hang the SDK.
        let result = await AnswerOnce.wait(
            timeoutMillis: Int64(timeoutMillis) + Self.graceMillis,
            timedOut: { .failure(.timedOut) }, cancelled: { .failure(.cancelled) }
        ) { slot in
            guard let handle = Handles.httpRequests.insert(PendingExchange(transport: self, slot: slot)) else {
                slot.answer(.failure(.failed("too many HTTP requests pending")))
                return
            }
            let number = UInt(bitPattern: handle)
            slot.whenFinished { _ = Handles.httpRequests.remove(OpaquePointer(bitPattern: number)) }
            let sent = host.run {
                // Timed out or cancelled: the host may stop working on it (a late reply is refused).
                // Only for a request the host sees.
                slot.onCancel { [weak self] in self?.cancelInHost(number) }
                call(request, number)
            }
            // Closed before the host saw it: the exchange ends here, unheard of by the host.
            if !sent { slot.answer(.failure(.cancelled)) }
        }
        return try result.get()
    }

    /// Calls the host's `send` with C strings that live for the duration of the call.
    private func call(_ request: HTTPRequest, _ number: UInt) {
        let lines = request.headers.map { strdup("\($0.name): \($0.value)") }
        defer { lines.forEach { free($0) } }
        var array: [UnsafePointer<CChar>?] = lines.map { UnsafePointer($0) } + [nil]
        let body = request.body ?? []
        array.withUnsafeMutableBufferPointer { headers in
            body.withUnsafeBufferPointer { bytes in
                request.method.withCString { method in
                    request.url.withCString { url in
                        table.send?(
                            method, url, headers.baseAddress, bytes.baseAddress, bytes.count, Int32(timeoutMillis),
                            OpaquePointer(bitPattern: number), table.user_data)
                    }
                }
            }
        }
    }

    private func cancelInHost(_ number: UInt) {
        guard let cancel = table.cancel else { return }
        host.run(cancelling: true) { cancel(OpaquePointer(bitPattern: number), table.user_data) }
    }

    /// Closes the transport (the client is being destroyed): later sends fail without reaching the
    /// host; every exchange still waiting ends as `.cancelled` and the host gets `cancel` for it, on
    /// this thread; a host function running on another thread is waited for. From inside the host's
    /// own `send` or `cancel` (a host that destroys its client there) that call is not waited for.
    func shutdown() {
        host.close {
            // A send that passed the gate on another thread has reached the host (waited for), and
            // registered its cancel: every exchange still waiting ends here, its cancel on this thread.
            for exchange in Handles.httpRequests.removeAll(where: { $0.transport === self }) {
                exchange.slot.abandon(.failure(.cancelled))
            }
        }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_http_transport_init")
#endif
public func ae_http_transport_init(_ transport: UnsafeMutablePointer<ae_http_transport>?, _ version: UInt32) -> Int32 {
    status { () throws(AccessEnablerError) in try Layouts.transport.initialize(transport, version: version) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_http_request_reply")
#endif
public func ae_http_request_reply(
    _ request: OpaquePointer?, _ status: Int32, _ headers: UnsafePointer<UnsafePointer<CChar>?>?,
    _ body: UnsafePointer<UInt8>?, _ body_length: Int
) -> Int32 {
    AccessEnablerCABI.status { () throws(AccessEnablerError) in
        let exchange = try PendingExchange.of(request)
        guard (100...599).contains(status) else { throw .invalidArgument("status \(status) is not an HTTP status") }
        guard body != nil || body_length == 0 else { throw .invalidArgument("body is NULL but body_length is not 0") }
        var lines: [(name: String, value: String)] = []
        var index = 0
        while let headers, let line = headers[index] {
            guard index < 1_000 else { throw .invalidArgument("headers: more than 1000 lines (missing NULL end?)") }
            let text = try CInput.string(line, "headers[\(index)]")
            guard let header = parseHeaderLine(text[...]) else {
                throw .invalidArgument("headers[\(index)] is not \"Name: value\"")
            }
            lines.append(header)
            index += 1
        }
        // size_t arrives as Int: a length of 2^63 or more (e.g. (size_t)-1) is negative here. It is
        // too large either way, and nothing is read from `body`.
        guard body_length >= 0, body_length <= exchange.transport.maxBodyBytes else {
            try exchange.answer(.failure(.bodyTooLarge(limit: exchange.transport.maxBodyBytes)))
            return
        }
        let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: body_length)) } ?? []
        try exchange.answer(.success(HTTPResponse(status: Int(status), headers: lines, body: bytes)))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_http_request_reply_error")
#endif
public func ae_http_request_reply_error(_ request: OpaquePointer?, _ error: Int32, _ message: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        let exchange = try PendingExchange.of(request)
        let text = try CInput.optionalString(message, "message") ?? "host transport error"
        let failure: TransportError
        switch error {
        case Int32(AE_HTTP_E_CANNOT_CONNECT): failure = .cannotConnect(text)
        case Int32(AE_HTTP_E_TIMEOUT): failure = .timedOut
        case Int32(AE_HTTP_E_TLS): failure = .tls(TLSFailure(.handshakeFailed, text))
        case Int32(AE_HTTP_E_FAILED): failure = .failed(text)
        default: throw .invalidArgument("error \(error) is not an AE_HTTP_E_* value")
        }
        try exchange.answer(.failure(failure))
    }
}
