// SPDX-License-Identifier: Apache-2.0

/// One HTTP request as the backends build it (a host transport sends it as it is). Header names keep
/// Adobe's spelling.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// "POST sp.auth.adobe.com/api/v2/REF30/sessions" for the log: the method, host and path, without
    /// the scheme and the query (never a header or the body: they may carry secrets).
    package var logLabel: String {
        var rest = url[...]
        if let scheme = rest.range(ofText: "://") { rest = rest[scheme.upperBound...] }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        return "\(method) \(rest)"
    }

    /// The URL's host name, without user info or port (OpenTelemetry's `server.address`).
    package var host: String {
        var rest = url[...]
        if let scheme = rest.range(ofText: "://") { rest = rest[scheme.upperBound...] }
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.first == "[", let close = rest.firstIndex(of: "]") { return String(rest[...close]) }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return String(rest)
    }

    /// Why the request cannot be framed safely, nil when it can: a header name that is not an
    /// RFC 9110 token, a header value with a control character (HTAB aside), a URL with a space or
    /// a control character. Names the header, never the value (it may be a secret).
    package var framingProblem: String? {
        if url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return "the URL contains a space or a control character" }
        for (name, value) in headers {
            if name.isEmpty || !name.utf8.allSatisfy(Self.isTokenCharacter) { return "a header name is not a token" }
            if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return "header \(name) contains a control character"
            }
        }
        return nil
    }

    /// tchar of RFC 9110 §5.6.2.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }

    /// The media type without parameters, lower-cased ("application/json").
    public var mediaType: String? {
        header("Content-Type")?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
    }
}

/// Why an exchange produced no HTTP response.
public enum TransportError: Error, Sendable, Equatable {
    /// Name resolution or TCP connect failed: the request was not sent.
    case cannotConnect(String)
    /// The connect or total timeout passed.
    case timedOut
    /// TLS handshake or certificate verification failed, and why (`TLSFailure.cause`).
    case tls(TLSFailure)
    /// The body exceeded the size the client accepts.
    case bodyTooLarge(limit: Int)
    /// The connection broke after the request was sent (reset, truncated body, ...).
    case failed(String)
    /// The request was cancelled (client destroyed, flow cancelled).
    case cancelled

    /// The metrics' `error.type` (docs/METRICS.md): `cannot_connect`, `timeout`, the TLS cause,
    /// `body_too_large`, `failed`, `cancelled`.
    package var metricType: String {
        switch self {
        case .cannotConnect: "cannot_connect"
        case .timedOut: "timeout"
        case .tls(let failure): failure.cause.rawValue
        case .bodyTooLarge: "body_too_large"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// Sends the SDK's requests: libcurl by default; a host's own HTTP stack through `Settings.transport`
/// (C hosts: `ae_config.transport`); in-memory ones in tests. The host verifies TLS certificates; the
/// SDK gives it https URLs only (plain http to loopback addresses only).
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
    /// Stops every exchange in flight (they end with `.cancelled`) and refuses new ones.
    func shutdown()
    /// Opens (TCP, TLS) a connection to `url`'s host in the background, sending no API request, so
    /// that the next request there need not pay the handshakes (libcurl's transport: over HTTP/1.1
    /// a `HEAD /` keeps it open, docs/DECISIONS.md "Warm connections"). A hint: the default does nothing.
    func preconnect(to url: String)
}

extension HTTPTransport {
    public func preconnect(to url: String) {}
}

/// One `Name: value` header line (a line end allowed), name and value trimmed of spaces, tabs,
/// CR and LF; nil when there is no colon or the name is empty. Both transports (libcurl's header
/// callback and the host's `ae_http_request_reply`) read header lines through this.
package func parseHeaderLine(_ line: Substring) -> (name: String, value: String)? {
    guard let colon = line.firstIndex(of: ":") else { return nil }
    let name = line[..<colon].trimmingSpaces()
    guard !name.isEmpty else { return nil }
    return (String(name), String(line[line.index(after: colon)...].trimmingSpaces()))
}

extension Substring {
    /// Without surrounding spaces, tabs, CR and LF. Works on Unicode scalars: "\r\n" is one
    /// Character in Swift, so a Character comparison would keep a header line's CRLF.
    func trimmingSpaces() -> Substring {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }),
            let last = scalars.lastIndex(where: { !blank($0) })
        else { return self[endIndex...] }
        return Substring(scalars[first...last])
    }
}
