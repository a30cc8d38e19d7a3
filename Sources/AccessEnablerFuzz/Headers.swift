// SPDX-License-Identifier: Apache-2.0
// fuzzHeaders: response header values as the SDK reads them (Content-Type's media type, the
// Retry-After of a 429 or of an enhanced error whose action is retry), and the "Name: value"
// lines a host's HTTP stack hands to ae_http_request_reply.
import CAccessEnabler
import AccessEnabler

/// Input: byte 0 picks the HTTP status, byte 1 the body; the rest is a header block, one
/// "Name: value" line per NUL byte (so that values may hold CR and LF, as lines from the wire or
/// a host's HTTP stack do: "Retry-After: 5\r\n").
///
/// Checks: nothing crashes; `header(_:)` is the last line of that name (case-insensitive);
/// the media type is lower-case without parameters or surrounding blanks; the executor's 429 and
/// retry handling (Retry-After parsing) returns an answer only when it must not wait;
/// ae_http_request_reply accepts exactly the well-formed header lists.
public func fuzzHeaders(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    var input = FuzzInput(data)
    let status = input.pick(HeadersFuzz.statuses)
    let body = input.pick(HeadersFuzz.bodies)
    let rawLines = input.rest().split(separator: 0, omittingEmptySubsequences: false)
    var headers: [(name: String, value: String)] = []
    for line in rawLines {
        let text = String(decoding: line, as: UTF8.self)
        // parseHeaderLine (both transports): a non-empty name without ":", both sides trimmed.
        if let parsed = parseHeaderLine(text[...]) {
            let blank: (Unicode.Scalar) -> Bool = { " \t\r\n".unicodeScalars.contains($0) }
            try check(!parsed.name.isEmpty && !parsed.name.contains(":"), "header line \(text.debugDescription): bad name")
            for part in [parsed.name, parsed.value] where !part.isEmpty {
                try check(
                    !blank(part.unicodeScalars.first!) && !blank(part.unicodeScalars.last!),
                    "header line \(text.debugDescription): \(part.debugDescription) keeps blanks")
            }
        }
        guard let colon = text.firstIndex(of: ":") else { continue }
        headers.append((String(text[..<colon]), String(text[text.index(after: colon)...])))
    }
    let response = HTTPResponse(status: status, headers: headers, body: Array(body.utf8))

    // header(_:): the last line of that name, names compared case-insensitively.
    for name in ["Content-Type", "retry-after"] + headers.prefix(4).map(\.name) {
        let expected = headers.last { $0.name.lowercased() == name.lowercased() }?.value
        try check(response.header(name) == expected, "header(\(name)) is not the last \(name) line")
    }
    if let mediaType = response.mediaType {
        try check(!mediaType.contains(";"), "media type \(mediaType) keeps parameters")
        try check(mediaType == mediaType.lowercased(), "media type \(mediaType) is not lower-case")
        try check(
            mediaType.first.map { $0 != " " && $0 != "\t" } ?? true
                && mediaType.last.map { !" \t\r\n".contains($0) } ?? true,
            "media type \(mediaType) keeps surrounding blanks")
    }
    if (100...599).contains(status) {
        try ServerAnswerFuzz.checkFailure(response)
        try ServerAnswerFuzz.decode(SessionAnswer.self, response, "session")
        try HeadersFuzz.send(response)
    }
    try HeadersFuzz.hostReply(status: status, lines: rawLines)
}

enum HeadersFuzz {
    static let statuses = [429, 503, 500, 400, 401, 200, 429, 403, 99, 600]
    static let bodies = [
        #"{"status":503,"code":"temporarily_unavailable","action":"retry","message":"m"}"#,
        #"{"status":429,"code":"too_many_requests","action":"retry-after"}"#,
        #"{"status":400,"code":"invalid_parameter_service_provider","action":"none"}"#,
        #"{"error":"invalid_client"}"#,
        #"{"actionName":"authenticate","url":"/api/v2/authenticate/REF30/C","code":"C"}"#,
        "",
        "<html>busy</html>",
    ]

    /// Hands the answer back once (the task is cancelled, so any wait ends at once).
    final class OneAnswer: HTTPTransport, Sendable {
        let answer: Locked<HTTPResponse>
        init(_ answer: HTTPResponse) { self.answer = Locked(answer) }
        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            withUnsafeCurrentTask { $0?.cancel() }
            return answer.withLock { $0 }
        }
        func shutdown() {}
    }

    /// RequestExecutor.send: a 429 or a `retry` enhanced error makes it wait (Retry-After, parsed
    /// from the header); anything else is returned as is.
    static func send(_ response: HTTPResponse) throws(FuzzFailure) {
        let executor = RequestExecutor(transport: OneAnswer(response), requestsPerSecond: 0, logger: .silent)
        let request = HTTPRequest(method: "GET", url: "http://fuzz.invalid/api/v2/REF30/configuration")
        let outcome: Result<HTTPResponse, ServiceError> = runBlocking {
            do throws(ServiceError) {
                return .success(try await executor.send(request, operation: "fuzz"))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let answer):
            try check(answer.status == response.status && answer.body == response.body, "send changed the answer")
            try check(answer.status != 429, "send returned a 429 instead of waiting")
        case .failure(let error):
            try check(
                error.isCancellation || { if case .throttled = error { true } else { false } }(),
                "send failed with \(error)")
        }
    }

    /// ae_http_request_reply reads the host's header lines before it looks the request up: a NULL request
    /// is AE_E_INVALID_HANDLE exactly when status and lines are acceptable.
    static func hostReply(status: Int, lines: [ArraySlice<UInt8>]) throws(FuzzFailure) {
        let cLines = lines.map { line -> [CChar] in
            line.map { CChar(bitPattern: $0) } + [0]
        }
        let pointers = cLines.map { line -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: line.count)
            copy.initialize(from: line, count: line.count)
            return copy
        }
        defer { pointers.forEach { $0.deallocate() } }
        var array: [UnsafePointer<CChar>?] = pointers.map { UnsafePointer($0) } + [nil]
        let body: [UInt8] = Array("{}".utf8)
        let result = array.withUnsafeMutableBufferPointer { headers in
            body.withUnsafeBufferPointer { bytes in
                ae_http_request_reply(nil, Int32(status), headers.baseAddress, bytes.baseAddress, bytes.count)
            }
        }
        // The header: "A bad handle is reported before a bad argument" (the lines themselves are
        // checked through parseHeaderLine above).
        let expected = Int32(AE_E_INVALID_HANDLE)
        try check(
            result == expected, "ae_http_request_reply(NULL, \(status), \(lines.count) lines) returned \(result), expected \(expected)")
    }
}
