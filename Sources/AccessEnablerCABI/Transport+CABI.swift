// SPDX-License-Identifier: Apache-2.0
// ae_http_transport: the host's HTTP stack behind the SDK's transport protocol, and the reply
// functions that answer its requests.
public import CAccessEnabler
import AccessEnabler
import Glibc

/// One exchange waiting for the host's reply.
private final class PendingExchange: @unchecked Sendable {
    let transport: CTransport
    private let deliver: Locked<((Result<HTTPResponse, TransportError>) -> Void)?>

    init(transport: CTransport, deliver: @escaping (Result<HTTPResponse, TransportError>) -> Void) {
        self.transport = transport
        self.deliver = Locked(deliver)
    }

    /// Delivers once; false when already finished.
    @discardableResult
    func finish(_ result: Result<HTTPResponse, TransportError>) -> Bool {
        guard let deliver = deliver.withLock({ deliver -> ((Result<HTTPResponse, TransportError>) -> Void)? in
            defer { deliver = nil }
            return deliver
        }) else { return false }
        deliver(result)
        return true
    }
}

/// Exchanges by number (never an address): a late, repeated or made-up reply is a failed lookup.
private enum PendingExchanges {
    private static let state = Locked<(next: UInt, exchanges: [UInt: PendingExchange])>((0x20_0000, [:]))

    static func add(_ exchange: PendingExchange) -> UInt {
        state.withLock { state in
            let handle = state.next
            state.next += 0x10
            state.exchanges[handle] = exchange
            return handle
        }
    }

    static func take(_ handle: UInt) -> PendingExchange? {
        state.withLock { $0.exchanges.removeValue(forKey: handle) }
    }

    /// Throws as `take` would, without taking: a bad handle is reported before a bad argument.
    static func check(_ handle: OpaquePointer?) throws(AccessEnablerError) {
        guard let handle else { throw .invalidHandle("request is NULL") }
        guard state.withLock({ $0.exchanges[UInt(bitPattern: handle)] != nil }) else {
            throw .invalidHandle("unknown, answered, cancelled or timed-out HTTP request")
        }
    }

    static func take(_ handle: OpaquePointer?) throws(AccessEnablerError) -> PendingExchange {
        guard let handle else { throw .invalidHandle("request is NULL") }
        guard let exchange = take(UInt(bitPattern: handle)) else {
            throw .invalidHandle("unknown, answered, cancelled or timed-out HTTP request")
        }
        return exchange
    }

    /// Every exchange of `transport` (it is shutting down).
    static func takeAll(of transport: CTransport) -> [PendingExchange] {
        state.withLock { state in
            let keys = state.exchanges.filter { $0.value.transport === transport }.map(\.key)
            return keys.compactMap { state.exchanges.removeValue(forKey: $0) }
        }
    }
}

/// The host's ae_http_transport as an HTTPTransport.
final class CTransport: HTTPTransport, @unchecked Sendable {
    private let table: ae_http_transport
    let maxBodyBytes: Int
    private let timeoutMillis: Int

    init(_ table: ae_http_transport, maxBodyBytes: Int, timeoutMillis: Int) throws(AccessEnablerError) {
        guard table.version == UInt32(AE_HTTP_TRANSPORT_VERSION) else {
            throw .unsupportedVersion("ae_http_transport version \(table.version) is not supported")
        }
        guard table.send != nil else { throw .invalidArgument("transport: send is required") }
        self.table = table
        self.maxBodyBytes = maxBodyBytes
        self.timeoutMillis = timeoutMillis
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let handle = Locked<UInt?>(nil)
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = Locked<Task<Void, Never>?>(nil)
                let exchange = PendingExchange(transport: self) { result in
                    timer.withLock { $0?.cancel() }
                    continuation.resume(returning: result)
                }
                let number = PendingExchanges.add(exchange)
                handle.withLock { $0 = number }
                // The host owns the timing, but a reply that never comes must not hang the SDK.
                let budget = UInt64(timeoutMillis + 1_000) * 1_000_000
                timer.withLock {
                    $0 = Task { [weak self] in
                        try? await Task.sleep(nanoseconds: budget)
                        guard !Task.isCancelled, let exchange = PendingExchanges.take(number) else { return }
                        self?.cancelInHost(number)
                        exchange.finish(.failure(.timedOut))
                    }
                }
                if Task.isCancelled {
                    if let exchange = PendingExchanges.take(number) { exchange.finish(.failure(.cancelled)) }
                    return
                }
                call(request, number)
            }
        } onCancel: {
            guard let number = handle.withLock({ $0 }), let exchange = PendingExchanges.take(number) else { return }
            cancelInHost(number)
            exchange.finish(.failure(.cancelled))
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
                        table.send?(method, url, headers.baseAddress, bytes.baseAddress, bytes.count, Int32(timeoutMillis),
                                    OpaquePointer(bitPattern: number), table.user_data)
                    }
                }
            }
        }
    }

    private func cancelInHost(_ number: UInt) {
        table.cancel?(OpaquePointer(bitPattern: number), table.user_data)
    }

    func shutdown() {
        for exchange in PendingExchanges.takeAll(of: self) { exchange.finish(.failure(.cancelled)) }
    }
}

@c @implementation
public func ae_http_transport_init(_ transport: UnsafeMutablePointer<ae_http_transport>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let transport else { throw .invalidArgument("transport is NULL") }
        transport.pointee = ae_http_transport()
        transport.pointee.version = UInt32(AE_HTTP_TRANSPORT_VERSION)
    }
}

@c @implementation
public func ae_http_reply(_ request: OpaquePointer?, _ status: Int32, _ headers: UnsafePointer<UnsafePointer<CChar>?>?,
                          _ body: UnsafePointer<UInt8>?, _ body_length: Int) -> Int32
{
    AccessEnablerCABI.status { () throws(AccessEnablerError) in
        try PendingExchanges.check(request)
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
        let exchange = try PendingExchanges.take(request)
        // size_t arrives as Int: a length of 2^63 or more (e.g. (size_t)-1) is negative here. It is
        // too large either way, and nothing is read from `body`.
        guard body_length >= 0, body_length <= exchange.transport.maxBodyBytes else {
            exchange.finish(.failure(.bodyTooLarge(limit: exchange.transport.maxBodyBytes)))
            return
        }
        let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: body_length)) } ?? []
        exchange.finish(.success(HTTPResponse(status: Int(status), headers: lines, body: bytes)))
    }
}

@c @implementation
public func ae_http_reply_error(_ request: OpaquePointer?, _ error: Int32, _ message: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        try PendingExchanges.check(request)
        let text = try CInput.optionalString(message, "message") ?? "host transport error"
        let failure: TransportError
        switch error {
        case Int32(AE_HTTP_E_CANNOT_CONNECT): failure = .cannotConnect(text)
        case Int32(AE_HTTP_E_TIMEOUT): failure = .timedOut
        case Int32(AE_HTTP_E_TLS): failure = .tls(text)
        case Int32(AE_HTTP_E_FAILED): failure = .failed(text)
        default: throw .invalidArgument("error \(error) is not an AE_HTTP_E_* value")
        }
        try PendingExchanges.take(request).finish(.failure(failure))
    }
}
