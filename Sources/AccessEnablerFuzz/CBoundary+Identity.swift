// SPDX-License-Identifier: Apache-2.0
// fuzzCBoundary's single sign-on part: ae_set_identity_token with hostile tokens, the
// host's ae_identity_provider answered now, later or never (ae_identity_request_reply from one or
// several threads; stale, foreign, NULL and destroyed-client handles), and the SSO headers of every
// request the transport gets.
import Dispatch
import Glibc
import CAccessEnabler
import AccessEnabler

extension CBoundaryFuzz {
    /// The host's identity provider: what it answers and the requests it has seen.
    struct IdentityState {
        enum Reply { case now, serve, hold }
        /// AE_IDENTITY_REASON_NEEDED (setRequestor waits for it): at once, or from the harness's thread.
        var needed = Reply.now
        /// EXPIRING and REFUSED (asked in the background): at once, from the harness's thread, or held.
        var later = Reply.now
        /// The token the provider answers with (nil: none).
        var token: [UInt8]?
        /// Requests to answer from `serve`; requests held (answered by a call of the input, or
        /// pending when the client is destroyed); requests answered; `cancel_request`s seen.
        var queued: [OpaquePointer] = []
        var held: [OpaquePointer] = []
        var answered: [OpaquePointer] = []
        var cancelled: Set<UInt> = []
        /// Requests a reply found over before any cancel_request was seen (checked after destroy).
        var overBeforeCancel: [OpaquePointer] = []
    }

    /// Tokens a host may hand over: valid ones of both kinds and shapes, and every way one can be
    /// broken (alg none, an alg with a newline, bad base64url, CR/LF, non-ASCII, NUL, 16 KiB + 1,
    /// `exp` past, far, NaN, huge, negative, a string; `iat` ahead; `aud` variants; part counts).
    /// Index 0 is NULL; `now` in ms.
    static func identityTokens(now: Int64) -> [[UInt8]?] {
        let s = now / 1_000
        let header = #"{"alg":"RS256","typ":"JWT"}"#
        func service(_ claims: String = "") -> String {
            #"{"iss":"https://id.operator.example","sub":"subscriber-42","aud":"Adobe","iat":\#(s)"#
                + (claims.isEmpty ? #","exp":\#(s + 3_600)"# : claims) + "}"
        }
        func token(_ claims: String, header: String = header) -> [UInt8] { b(FuzzTokens.jws(header, claims)) }
        let valid = FuzzTokens.jws(header, service())
        let long = #"RS256\nX-Injected: 1\r\u0085"# + String(repeating: "x", count: 300)
        // Adobe's documented example (EL "Header - AD-Service-Token"): aud "adobe", long expired.
        let adobeExample =
            "eyJhbGciOiJSUzI1NiIsImtpZCI6InFhcEVhWTBoWU52cGh5dHdJSTNTYWVfY0FLeUxTN0daT3F0VF9hNGFqZW8ifQ."
            + "eyJzdWIiOiJKYW5lIiwibmFtZSI6IkphbmUgU21pdGgiLCJpYXQiOjE1MTYyMzkwMjIsImlzcyI6ImFkb2JlIiwiZXhwIjoxNzIwMTUy"
            + "ODIwLCJhdWQiOiJhZG9iZSIsImp0aSI6IjNiMmZiMDQwLTMwYTktNDNkNy1iNjQ3LWQwMGFjNDk1YmFiIn0." + FuzzTokens.signature
        var huge = service(#","exp":\#(s + 3_600),"pad":""#)
        huge += String(repeating: "p", count: 12_400) + "\"}"
        return [
            nil, b(valid), token(#"{"sub":"household-1","exp":\#(s + 3_600)}"#),
            b(FuzzTokens.jwe(#"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"platform-1"}"#)),
            Array(token(service(), header: #"{"alg":"none"}"#).dropLast(FuzzTokens.signature.utf8.count)),
            token(service(), header: #"{"alg":"NONE"}"#), token(service(), header: #"{"alg":"\#(long)"}"#),
            b("e30." + valid.split(separator: ".")[1] + "." + FuzzTokens.signature), b(FuzzTokens.insert("+", into: valid)),
            b(valid + "=="), b(FuzzTokens.insert("\r\nX-Injected: 1", into: valid)), b(FuzzTokens.insert("\u{e9}", into: valid)),
            b(String(valid.prefix(20))) + [0] + b(String(valid.dropFirst(20))), token(huge),
            token(service(#","exp":\#(s + 3_600),"pad":"\#(String(repeating: "p", count: 11_800))""#)),
            token(service(#","exp":\#(s - 3_600)"#)), token(service(#","exp":\#(s + 400 * 86_400)"#)),
            token(service(#","exp":NaN"#)), token(service(#","exp":1e300"#)), token(service(#","exp":-1"#)),
            token(service(#","exp":9223372036854775807"#)), token(service(#","exp":-9223372036854775808"#)),
            token(service(#","exp":"\#(s + 3_600)""#)), token(service(#","exp":\#(s + 3_600),"iat":\#(s + 3_600)"#)),
            b(FuzzTokens.jws(header, service().replacing(#""Adobe""#, with: #""adobe""#))),
            b(FuzzTokens.jws(header, service().replacing(#","aud":"Adobe""#, with: ""))),
            b(FuzzTokens.jws(header, service().replacing("subscriber-42", with: String(repeating: "s", count: 2_000)))),
            b(valid + "." + FuzzTokens.signature), b(valid.split(separator: ".").prefix(2).joined(separator: ".")), b(""),
            token(service(#","exp":\#(s + 30)"#)), b(adobeExample), token(#"{"sub":"h","exp":\#(s + 600)}"#, header: #"{"alg":"ES256"}"#),
            token(service(), header: #"{"alg":"HS256"}"#), b("."), b(".."), b("..."), token("[]"),
        ]
    }

    /// A token argument: a byte < 0x80 picks `Host.identityTokens` (0: NULL), else that many raw bytes.
    static func identityArgument(_ reader: inout Reader, _ host: Host) -> [UInt8]? {
        let selector = reader.byte()
        if selector & 0x80 == 0 { return host.identityTokens[Int(selector) % host.identityTokens.count] }
        let count = min(Int(selector & 0x7F), reader.bytes.count)
        defer { reader.bytes = reader.bytes.dropFirst(count) }
        return Array(reader.bytes.prefix(count))
    }

    /// No control character, short, and no 33-character run of the token's parts quoted.
    static func identityTextProblem(_ text: String, token: [UInt8]?) -> String? {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" }) {
            return "has a control character: \(text.prefix(200).debugDescription)"
        }
        if text.count > 400 { return "is \(text.count) characters long" }
        let parts = String(decoding: token ?? [], as: UTF8.self).split(separator: ".").filter { $0.count >= 33 }
        if parts.contains(where: { text.contains($0) }) { return "quotes the token: \(text.prefix(200).debugDescription)" }
        return nil
    }
}

// MARK: The calls (a call byte 0xF0–0xFF: earlier corpora never use one)

extension CBoundaryFuzz.Calls {
    /// `op` (the call byte's low 4 bits): 6 the provider's policy and token, 7 a held request
    /// answered from 1–4 threads at once, 8 replies to handles that are not pending identity
    /// requests, otherwise ae_set_identity_token(kind, token).
    mutating func identityCall(_ op: UInt8, _ reader: inout CBoundaryFuzz.Reader) throws(FuzzFailure) {
        typealias Fuzz = CBoundaryFuzz
        switch op {
        case 6:
            let policy = reader.byte()
            let token = Fuzz.identityArgument(&reader, host)
            host.identity.withLock { state in
                state.needed = policy & 1 == 0 ? .now : .serve
                state.later = [.now, .serve, .hold][Int(policy >> 1) % 3]
                state.token = token
            }
        case 7:
            let threads = 1 + Int(reader.byte() % 4)
            let token = Fuzz.identityArgument(&reader, host)
            try host.replyHeld(threads: threads, token: token)
        case 8:
            try host.identityBogusReplies(reader.byte(), client: client)
        default:
            let kinds: [Int32] = [1, 2, 0, 3, -1, .max, .min]
            let kind = kinds[Int(reader.byte()) % kinds.count]
            let token = Fuzz.identityArgument(&reader, host)
            let status = Fuzz.withCStrings([token]) { ae_set_identity_token(client, kind, $0[0]) }
            let predicted: Int32
            if let identityKind = IdentityTokenKind(rawValue: kind) {
                if token == nil {
                    predicted = Fuzz.ok
                } else if let text = Fuzz.text(token) {
                    let parsed = try? IdentityToken.parse(text, kind: identityKind, nowMillis: SystemClock().nowMillis())
                    predicted = parsed != nil ? Fuzz.ok : Fuzz.invalidArg
                } else {
                    predicted = Fuzz.invalidArg
                }
            } else {
                predicted = Fuzz.invalidArg
            }
            if status != Fuzz.ok, let message = ae_last_error_message() {
                defer { ae_string_free(message) }
                if let problem = Fuzz.identityTextProblem(String(cString: message), token: token) {
                    throw FuzzFailure("ae_set_identity_token's error message \(problem)")
                }
            }
            try Fuzz.expect(
                "ae_set_identity_token(\(kind), \(token.map { "\($0.count) bytes" } ?? "NULL"))", status,
                documented: [Fuzz.ok, Fuzz.invalidArg, Fuzz.invalidHandle], predicted: predicted)
        }
    }
}

// MARK: The host's provider

extension CBoundaryFuzz.Host {
    typealias Fuzz = CBoundaryFuzz

    func installIdentityProvider(_ provider: inout ae_identity_provider) {
        provider.user_data = user
        provider.timeout_ms = 600_000  // no request times out within a run: held ones stay pending
        provider.platform_identity = 1
        provider.service_token = 1
        provider.request_token = { kind, reason, request, user in
            let host = Fuzz.Host.from(user)
            if host.enter(.identity, "request_token") { return }  // also: never after ae_client_destroy returned
            host.reenter("request_token")
            host.identityRequested(kind, reason, request)
        }
        provider.cancel_request = { request, user in
            let host = Fuzz.Host.from(user)
            if host.destroyed.withLock({ $0 }) { host.problem("[F9] cancel_request ran after ae_client_destroy returned") }
            let number = UInt(bitPattern: request)
            let answered = host.identity.withLock { state -> Bool in
                state.cancelled.insert(number)
                return state.answered.contains { UInt(bitPattern: $0) == number }
            }
            if request == nil { host.problem("cancel_request: NULL request") }
            if answered { host.problem("cancel_request for a request the host had answered") }
        }
    }

    /// request_token: checked, then answered at once, queued for `serve`, or held, as the policy says.
    func identityRequested(_ kind: Int32, _ reason: Int32, _ request: OpaquePointer?) {
        guard let request else { return problem("request_token: NULL request") }
        if !(1...2).contains(kind) || !(0...2).contains(reason) { problem("request_token: kind \(kind), reason \(reason)") }
        let (policy, token) = identity.withLock { state -> (CBoundaryFuzz.IdentityState.Reply, [UInt8]?) in
            var policy = reason == Int32(AE_IDENTITY_REASON_NEEDED) ? state.needed : state.later
            if policy == .hold && reason == Int32(AE_IDENTITY_REASON_NEEDED) { policy = .serve }  // setRequestor waits
            switch policy {
            case .now: break
            case .serve: state.queued.append(request)
            case .hold: state.held.append(request)
            }
            return (policy, state.token)
        }
        if policy == .now {
            answerIdentity(request, token, place: "inside request_token")
        } else {
            log.poke()
        }
    }

    /// ae_identity_request_reply on a pending request: AE_OK, or AE_E_INVALID_ARG for a token that is
    /// not UTF-8 (the request stays pending: answered again with none). Problems are recorded (this
    /// may run inside a callback).
    func answerIdentity(_ request: OpaquePointer, _ token: [UInt8]?, place: String) {
        let status = Fuzz.withCStrings([token]) { ae_identity_request_reply(request, $0[0]) }
        let readable = token == nil || Fuzz.text(token) != nil
        if status != Fuzz.ok { _ = ae_last_error_message().map { ae_string_free($0) } }
        switch status {
        case Fuzz.ok where readable:
            identity.withLock { $0.answered.append(request) }
        case Fuzz.invalidArg where !readable:
            answerIdentity(request, nil, place: place)
        case Fuzz.invalidHandle:
            // Over before the reply: only a cancellation may end a request the host has not answered.
            identity.withLock { $0.overBeforeCancel.append(request) }
        default:
            problem("ae_identity_request_reply \(place) returned \(status) for a \(readable ? "readable" : "non-UTF-8") token")
        }
    }

    /// From `serve` (the harness's thread): the queued requests, answered with the provider's token.
    func serveIdentity() {
        let (queued, token) = identity.withLock { state -> ([OpaquePointer], [UInt8]?) in
            defer { state.queued = [] }
            return (state.queued, state.token)
        }
        for request in queued { answerIdentity(request, token, place: "from the harness") }
    }

    /// The oldest held request answered by `threads` threads at once: one AE_OK, the others
    /// AE_E_INVALID_HANDLE (a token that is not UTF-8: AE_E_INVALID_ARG for all, then answered with none).
    func replyHeld(threads: Int, token: [UInt8]?) throws(FuzzFailure) {
        guard let request = identity.withLock({ $0.held.isEmpty ? nil : $0.held.removeFirst() }) else { return }
        let readable = token == nil || Fuzz.text(token) != nil
        let statuses = Locked<[Int32]>([])
        let handle = UncheckedPointer(handle: request)
        Fuzz.withCStrings([token]) { pointers in
            let pointer = UncheckedPointer(pointer: pointers[0])
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                let status = ae_identity_request_reply(handle.handle, pointer.pointer)
                if status != Fuzz.ok { _ = ae_last_error_message().map { ae_string_free($0) } }
                statuses.withLock { $0.append(status) }
            }
        }
        let seen = statuses.withLock { $0 }
        if !readable {
            try AccessEnablerFuzz.check(
                seen.allSatisfy { $0 == Fuzz.invalidArg }, "ae_identity_request_reply(non-UTF-8) from \(threads) threads: \(seen)")
            answerIdentity(request, nil, place: "after a non-UTF-8 reply")
            return
        }
        let oks = seen.filter { $0 == Fuzz.ok }.count
        try AccessEnablerFuzz.check(
            oks <= 1 && seen.allSatisfy { $0 == Fuzz.ok || $0 == Fuzz.invalidHandle },
            "ae_identity_request_reply from \(threads) threads at once: \(seen) (one AE_OK at most, the others AE_E_INVALID_HANDLE)")
        identity.withLock { state in
            if oks == 1 { state.answered.append(request) } else { state.overBeforeCancel.append(request) }
        }
    }

    /// Replies that name no pending identity request: NULL, made-up pointers, the client, HTTP
    /// requests (pending or answered), an answered identity request; and a held identity request
    /// given to the HTTP and partner replies. All AE_E_INVALID_HANDLE, and nothing is answered.
    func identityBogusReplies(_ selector: UInt8, client: OpaquePointer) throws(FuzzFailure) {
        let http = state.withLock { ($0.requests.first?.handle, $0.answered.last) }
        var handles: [(String, OpaquePointer?)] = [
            ("NULL", nil), ("a made-up pointer", OpaquePointer(bitPattern: 0x20_0008)),
            ("UInt.max", OpaquePointer(bitPattern: UInt.max)), ("the client", client),
        ]
        if let pending = http.0 { handles.append(("a pending HTTP request", pending)) }
        if let answered = http.1 { handles.append(("an answered HTTP request", answered)) }
        if let answered = identity.withLock({ $0.answered.last }) { handles.append(("an answered identity request", answered)) }
        let token = selector & 1 == 0 ? nil : identityTokens[1]
        for (name, handle) in handles {
            let status = Fuzz.withCStrings([token]) { ae_identity_request_reply(handle, $0[0]) }
            try Fuzz.expect("ae_identity_request_reply(\(name))", status, documented: [Fuzz.invalidHandle], predicted: Fuzz.invalidHandle)
        }
        if let held = identity.withLock({ $0.held.first }) {
            try Fuzz.expect(
                "ae_http_request_reply(an identity request)", ae_http_request_reply(held, 200, nil, nil, 0),
                documented: [Fuzz.invalidHandle], predicted: Fuzz.invalidHandle)
            try Fuzz.expect(
                "ae_partner_request_reply_error(an identity request)", ae_partner_request_reply_error(held, 7, nil),
                documented: [Fuzz.invalidHandle], predicted: Fuzz.invalidHandle)
        }
    }

    /// After ae_client_destroy: every request still pending was cancelled before it returned
    /// (cancel_request), replies to it from two threads are AE_E_INVALID_HANDLE; a request found
    /// over before the host answered it was cancelled. The waits those requests ended wind down
    /// after destroy: nothing of theirs may reach the host (the log sink: F9), which the next 30 ms
    /// would show.
    func identityAfterDestroy() throws(FuzzFailure) {
        let pending = identity.withLock { $0.held + $0.queued }
        let over = identity.withLock { $0.overBeforeCancel }
        let missing = identity.withLock { state in (pending + over).filter { !state.cancelled.contains(UInt(bitPattern: $0)) } }
        try AccessEnablerFuzz.check(
            missing.isEmpty, "\(missing.count) identity request(s) ended without cancel_request before ae_client_destroy returned")
        if !pending.isEmpty { usleep(30_000) }
        for request in pending {
            let statuses = Locked<[Int32]>([])
            let handle = UncheckedPointer(handle: request)
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let status = ae_identity_request_reply(handle.handle, nil)
                if status != Fuzz.ok { _ = ae_last_error_message().map { ae_string_free($0) } }
                statuses.withLock { $0.append(status) }
            }
            try AccessEnablerFuzz.check(
                statuses.withLock { $0 }.allSatisfy { $0 == Fuzz.invalidHandle },
                "ae_identity_request_reply after destroy: \(statuses.withLock { $0 })")
        }
    }

    /// The SSO headers of a request: base64url and dots, 1 byte to 16 KiB; never on DCR (`/o/client`),
    /// never the service token on REST API V1, never Roku's header (the SDK does not send it).
    func identityHeaderProblems(_ lines: [(name: String, value: String)], path: String) -> [String] {
        var problems: [String] = []
        for (name, value) in lines {
            let lower = name.lowercased()
            if lower == "x-roku-reserved-roku-connect-token" { problems.append("send: \(name) sent") }
            guard lower == "adobe-subject-token" || lower == "ad-service-token" else { continue }
            let bytes = Array(value.utf8)
            if bytes.isEmpty || bytes.count > 16 * 1024 || !bytes.allSatisfy({ FuzzTokens.isBase64URL($0) || $0 == UInt8(ascii: ".") }) {
                problems.append("send: \(name) of \(bytes.count) bytes that is not a compact token")
            }
            if path.hasPrefix("/o/client") { problems.append("send: \(name) on the DCR call \(path)") }
            if lower == "ad-service-token" && flags & 1 != 0 { problems.append("send: AD-Service-Token on REST API V1") }
        }
        return problems
    }

    /// An SSO status (SSO400, SSO200): its message and details quote no token and hold no control character.
    func checkSSOStatus(_ status: JSONValue?) {
        guard let status, status["errorId"]?.stringValue?.hasPrefix("SSO") == true else { return }
        for field in ["message", "details"] {
            guard let text = status[field]?.stringValue else { continue }
            if let problem = Fuzz.identityTextProblem(text, token: nil) { self.problem("status \(field) \(problem)") }
        }
    }
}

/// A C string or a handle shared read-only by the threads of `concurrentPerform`.
private struct UncheckedPointer: @unchecked Sendable {
    var pointer: UnsafePointer<CChar>? = nil
    var handle: OpaquePointer? = nil
}
