// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import FoundationNetworking
import Testing

/// A Swift host's own HTTP stack (`Settings.transport`, the public `HTTPTransport` protocol):
/// Foundation's URLSession, as in docs/PLUGGING.md, carrying the whole flow to the emulator.
final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession
    let sent = Locked(0)

    init(timeoutSeconds: Double = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        session = URLSession(configuration: configuration)
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        guard let url = URL(string: request.url) else { throw .failed("not a URL: \(request.url)") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body.map { Data($0) }
        sent.withLock { $0 += 1 }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            switch error.code {
            case .cancelled: throw .cancelled
            case .timedOut: throw .timedOut
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed: throw .cannotConnect("\(error.code)")
            case .serverCertificateUntrusted, .secureConnectionFailed: throw .tls("\(error.code)")
            default: throw .failed("\(error.code)")
            }
        } catch {
            throw Task.isCancelled ? .cancelled : .failed("\(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw .failed("not an HTTP response") }
        let headers = http.allHeaderFields.compactMap { name, value -> (name: String, value: String)? in
            guard let name = name as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    func shutdown() { session.invalidateAndCancel() }
}

@Suite(.serialized, .sharedEmulator) struct HostTransportTests {
    @Test func theWholeFlowOverAHostTransport() async throws {
        let emulator = try EmulatorProcess.shared
        let transport = URLSessionTransport()
        var settings = Settings(softwareStatement: "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6Imhvc3QifQ.c2ln")
        settings.baseURL = emulator.url
        settings.deviceID = "swift-host-transport"
        settings.requestsPerSecond = 0
        settings.pollIntervalMillis = 1_000
        settings.transport = transport
        let enabler = try AccessEnabler(settings: settings)
        defer { enabler.shutdown() }

        try await enabler.async.setRequestor("REF30")
        #expect(transport.sent.withLock { $0 } == 4)  // register, token, configuration, profiles
        try await enabler.async.getAuthentication(
            selectProvider: { _ in "Spectrum" },
            showCode: { code in
                _ = try? await emulator.control("POST", "login", ["code": code.code])
            })
        let token = try await enabler.async.getAuthorization("LIVE")
        #expect(Data(base64Encoded: token) != nil)
        try await enabler.async.logout()
        #expect(transport.sent.withLock { $0 } >= 8)
        #expect(try await emulator.operations().count == transport.sent.withLock { $0 })
    }
}
