// SPDX-License-Identifier: Apache-2.0
import CCurl
import Glibc

/// HTTP over libcurl's multi interface: one network thread per client drives every exchange,
/// so concurrent requests (configuration ∥ profiles, preauthorization chunks) share connections
/// and need no thread each. TLS verification is libcurl's default and is never turned off.
package final class CurlTransport: HTTPTransport, @unchecked Sendable {
    package struct Options: Sendable {
        package var connectTimeoutMs: Int = Defaults.connectTimeoutMillis
        package var totalTimeoutMs: Int = Defaults.requestTimeoutMillis
        /// Bodies larger than this end the exchange with `.bodyTooLarge` (hostile or broken servers).
        package var maxBodyBytes: Int = Defaults.maxBodyBytes
        package var userAgent: String = "AccessEnabler-Linux"
        /// Whom to trust, the oldest TLS version, pins, the proxy (validated by the facade).
        package var tls = TLSOptions()
        package init() {}
    }

    private final class Exchange {
        let id: Int
        let request: HTTPRequest
        let completion: (Result<HTTPResponse, TransportError>) -> Void
        var easy: UnsafeMutableRawPointer?
        var headerList: UnsafeMutablePointer<curl_slist>?
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var overLimit = false
        /// A warm-up (`preconnect(to:)`, `openSpareWhenResolved()`): nil for the SDK's own requests.
        var warmUp: WarmUp?
        let maxBodyBytes: Int
        /// libcurl's message for a failure (CURLOPT_ERRORBUFFER): more than curl_easy_strerror says.
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

        init(
            id: Int, request: HTTPRequest, maxBodyBytes: Int,
            completion: @escaping (Result<HTTPResponse, TransportError>) -> Void
        ) {
            self.id = id
            self.request = request
            self.maxBodyBytes = maxBodyBytes
            self.completion = completion
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit { errorBuffer.deallocate() }
    }

    /// What a warm-up leaves behind (ccurl.h, `ccurl_setopt_warm_up`): a connection in the pool for
    /// the next request (`keep`), or a second one beside the first request's, for the request that
    /// goes with it over HTTP/1.1 (`spare`: closed at once over HTTP/2, where one connection is enough).
    enum WarmUp { case keep, spare }

    private struct Pending {
        var adds: [Exchange] = []
        var cancels: [Int] = []
        var nextID = 1
        var shutDown = false
    }

    private let options: Options
    /// The CA certificates to trust when ca_file is set (with the system's bundle unless ca_mode is
    /// AE_CA_ONLY), handed to libcurl as a blob it reads in place; nil: libcurl's defaults.
    private let caBundle: UnsafeMutableRawBufferPointer?
    private let multi: UnsafeMutableRawPointer
    /// TLS session IDs shared by every exchange of this client (used by the network thread only, so
    /// no lock functions).
    private let share: UnsafeMutableRawPointer?
    private let pending = Locked(Pending())
    private var active: [Int: Exchange] = [:]  // network thread only
    /// Easy handles of finished exchanges, reset for the next (network thread only): a handle
    /// keeps its buffers, so a request on a warm connection allocates and sets up less.
    private var spareHandles: [UnsafeMutableRawPointer] = []
    private static let maxSpareHandles = 8
    /// Exchanges waiting for a place among the `maxInFlight` (network thread only).
    private var waiting: [Exchange] = []
    /// At most this many exchanges in libcurl at once: HTTP/2 servers commonly allow 100 concurrent
    /// streams per connection (RFC 9113 recommends no fewer), and a transfer beyond a connection's
    /// limit makes libcurl open another connection (TCP, TLS) instead of waiting for a stream. So a
    /// preauthorization of 200 requests goes as two waves of streams on one connection; over
    /// HTTP/1.1 libcurl still spreads them over its connections (CURLMOPT_MAX_HOST_CONNECTIONS).
    static let maxInFlight = 100
    /// Whether an exchange was started already (network thread only): the first of the SDK's own
    /// requests opens a spare connection (`openSpareWhenResolved()`) once its host name is resolved.
    private var startedAny = false
    private var spareAfter: Exchange?
    private var thread = pthread_t()
    private var started = false
    /// The jobs of the client's engine and its tasks, run by this transport's network thread
    /// between transfers (ClientExecutor); nil: the thread runs transfers only.
    private let jobs: JobMailbox?
    /// Connections, TLS handshakes and failures, DNS lookups (docs/METRICS.md).
    private let metrics: Metrics?
    /// Host name resolutions libcurl started (ccurl_setopt_resolve_counter; network thread only),
    /// and how many of them are in `metrics` already.
    private let resolves = UnsafeMutablePointer<CUnsignedLongLong>.allocate(capacity: 1)
    private var resolvesCounted: CUnsignedLongLong = 0

    /// `executor`: the network thread also runs that executor's jobs (the client's engine), and goes
    /// on running them after `shutdown()` until the executor is released.
    package init(options: Options, executor: ClientExecutor? = nil, metrics: Metrics? = nil) {
        self.options = options
        self.metrics = metrics
        resolves.initialize(to: 0)
        self.jobs = executor?.mailbox
        _ = ccurl_global_init_once()
        caBundle = Self.caBundle(options.tls)
        share = curl_share_init()
        if let share { _ = ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) }
        multi = curl_multi_init()!
        // At most 8 connections to one host (more requests queue inside libcurl; HTTP/2 multiplexes).
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 8)
        let box = Unmanaged.passRetained(ThreadBox(self, jobs: jobs))
        jobs?.drive { [self] in curl_multi_wakeup(multi) }  // until the loop ends (stopDriving)
        started =
            pthread_create(
                &thread, nil,
                { raw in
                    let box = Unmanaged<ThreadBox>.fromOpaque(raw!).takeRetainedValue()
                    box.transport?.run()
                    // The transport is shut down: the tasks winding down still need the executor.
                    box.jobs?.runUntilClosed()
                    return nil
                }, box.toOpaque()) == 0
        if !started {
            box.release()
            jobs?.stopDriving()
            jobs?.startThread()  // the engine still needs a thread (its requests fail: no transport)
        } else if jobs != nil {
            pthread_detach(thread)  // shutdown() waits for the transfers' end, not for the thread
        }
    }

    private final class ThreadBox {
        weak var transport: CurlTransport?
        let jobs: JobMailbox?
        init(_ transport: CurlTransport, jobs: JobMailbox?) {
            self.transport = transport
            self.jobs = jobs
        }
    }

    deinit {
        // At process exit (the exit gate closed, ccurl.h) libcurl's handles go with the process:
        // OpenSSL, which frees their connections' state, may be cleaning up.
        guard ccurl_work_begin() != 0 else {
            for easy in spareHandles + active.values.compactMap(\.easy) { ccurl_leave_to_exit(easy) }
            ccurl_leave_to_exit(multi)
            ccurl_leave_to_exit(share)
            ccurl_leave_to_exit(caBundle?.baseAddress)
            ccurl_leave_to_exit(resolves)
            return
        }
        defer { ccurl_work_end() }
        for easy in spareHandles { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }  // after the last handle that used it
        caBundle?.deallocate()
        resolves.deallocate()  // after the last handle that counted into it
    }

    /// The bundle for CURLOPT_CAINFO_BLOB: ca_file, after the system's bundle unless only the given
    /// CAs are trusted. nil without ca_file (libcurl then reads its default bundle, or none).
    static func caBundle(_ tls: TLSOptions) -> UnsafeMutableRawBufferPointer? {
        guard let caFile = tls.caFile, let operator_ = SystemFile.read(caFile) else { return nil }
        var bundle: [UInt8] = []
        if tls.trustSystemStore, let path = Self.systemBundlePath, let system = SystemFile.read(path) {
            bundle = system + [UInt8(ascii: "\n")]
        }
        bundle += operator_
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bundle.count, alignment: 1)
        bundle.withUnsafeBytes { buffer.copyMemory(from: $0) }
        return buffer
    }

    /// libcurl's own default CA bundle (Debian: /etc/ssl/certs/ca-certificates.crt).
    private static let systemBundlePath: String? = {
        ccurl_default_cainfo().map { String(cString: $0) }
    }()

    package func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let id = pending.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let exchange = Exchange(id: id, request: request, maxBodyBytes: options.maxBodyBytes) {
                    continuation.resume(returning: $0)
                }
                let accepted = pending.withLock { state -> Bool in
                    guard !state.shutDown, started else { return false }
                    state.adds.append(exchange)
                    return true
                }
                if accepted { curl_multi_wakeup(multi) } else { exchange.completion(.failure(.cancelled)) }
            }
        } onCancel: {
            pending.withLock { $0.cancels.append(id) }
            curl_multi_wakeup(multi)
        }
        return try result.get()
    }

    /// A warm-up of the connection to `url`'s origin (ccurl.c): TCP, TLS and, over HTTP/2, the
    /// settings, then a stop before any request, so the connection stays in libcurl's pool; over
    /// HTTP/1.1, whose connection libcurl keeps only after a finished exchange, a `HEAD /` of the origin
    /// (no API path: nothing Adobe's throttle counts, docs/DECISIONS.md "Warm connections"), which also
    /// lets the TLS session ticket arrive. Without TLS, a stop: the connection closes.
    package func preconnect(to url: String) {
        guard let request = Self.warmUpRequest(url) else { return }
        let exchange = pending.withLock { state -> Exchange? in
            guard !state.shutDown, started else { return nil }
            defer { state.nextID += 1 }
            let exchange = Exchange(id: state.nextID, request: request, maxBodyBytes: 0, completion: { _ in })
            exchange.warmUp = .keep
            state.adds.append(exchange)
            return exchange
        }
        if exchange != nil { curl_multi_wakeup(multi) }
    }

    /// `HEAD <origin>/` for `url`, or nil when `url` has no origin (a warm-up is then pointless).
    static func warmUpRequest(_ url: String) -> HTTPRequest? {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: Array("://".utf8))
        else { return nil }
        let hostStart = colon + 3
        let hostEnd = bytes[hostStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        let end = hostEnd ?? bytes.endIndex
        guard end > hostStart else { return nil }
        return HTTPRequest(method: "HEAD", url: String(decoding: bytes[..<end], as: UTF8.self) + "/")
    }

    package func shutdown() {
        let wasRunning = pending.withLock { state -> Bool in
            defer { state.shutDown = true }
            return !state.shutDown
        }
        guard wasRunning, started else { return }
        curl_multi_wakeup(multi)
        if let jobs {
            // Not on the network thread itself (a log sink or a partner callback destroying the
            // client): that thread ends its transfers after the current job.
            if !jobs.isRunnerThread { jobs.waitUntilUndriven() }
        } else {
            pthread_join(thread, nil)
        }
    }

    // MARK: - Network thread

    private func run() {
        var running: Int32 = 0
        jobs?.becomeRunner()
        defer { jobs?.stopDriving() }
        // Each turn is work for the exit gate (ccurl.h): at process exit the loop ends between two
        // turns, and the thread touches libcurl no more. The poll is outside: it only waits.
        while ccurl_work_begin() != 0 {
            let next = turn(&running)
            ccurl_work_end()
            switch next {
            case .stop: return
            case .again: continue  // perform the new transfers before polling
            case .poll: curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
    }

    private enum Next { case poll, again, stop }

    /// One turn of the network loop: the calls' new exchanges and cancels, libcurl's transfers, the
    /// finished ones, the engine's jobs. `.stop`: the transport is shut down.
    private func turn(_ running: inout Int32) -> Next {
        let (adds, cancels, shutDown) = pending.withLock { state in
            defer {
                state.adds.removeAll()
                state.cancels.removeAll()
            }
            return (state.adds, state.cancels, state.shutDown)
        }
        if shutDown {
            for exchange in waiting + adds { exchange.completion(.failure(.cancelled)) }
            waiting.removeAll()
            for id in Array(active.keys) { finish(id, .failure(.cancelled)) }
            jobs?.runPending()
            return .stop
        }
        waiting += adds
        for id in cancels {
            if active[id] != nil {
                finish(id, .failure(.cancelled))
            } else if let index = waiting.firstIndex(where: { $0.id == id }) {
                waiting.remove(at: index).completion(.failure(.cancelled))
            }
        }
        startWaiting()
        curl_multi_perform(multi, &running)
        let spareStarted = openSpareWhenResolved()
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE,
                let exchange = active.values.first(where: { $0.easy == message.pointee.easy_handle })
            else { continue }
            finish(exchange.id, outcome(of: exchange, code: message.pointee.data.result))
        }
        // The engine's steps: calls, and the answers just finished (their requests start above
        // on the next turn, without waiting in poll: a new request wakes it).
        jobs?.runPending()
        if !waiting.isEmpty, active.count < Self.maxInFlight {
            startWaiting()
            return .again
        }
        return spareStarted ? .again : .poll
    }

    /// Hands waiting exchanges to libcurl, oldest first, while fewer than `maxInFlight` are in it.
    private func startWaiting() {
        let room = max(0, Self.maxInFlight - active.count)
        guard room > 0, !waiting.isEmpty else { return }
        let starting = waiting.prefix(room)
        waiting.removeFirst(starting.count)
        for exchange in starting { start(exchange) }
    }

    private func start(_ exchange: Exchange) {
        guard let easy = spareHandles.popLast() ?? curl_easy_init() else {
            exchange.completion(.failure(.failed("curl_easy_init failed")))
            return
        }
        exchange.easy = easy
        let request = exchange.request
        _ = ccurl_setopt_string(easy, CURLOPT_URL, request.url)
        // The path as written: libcurl 8 removes dot segments (`%2E%2E` too); the SDK percent-encodes every segment.
        _ = ccurl_setopt_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        // TLS verification is always on (libcurl's defaults, stated so no build can change them).
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        applyTLS(easy)
        _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, exchange.errorBuffer)
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMs)
        _ = ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, options.totalTimeoutMs)
        _ = ccurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, options.userAgent)
        // Requests that start together before a connection exists (configuration ∥ profiles, the
        // batches of a preauthorization) wait for the first one and share it as HTTP/2 streams,
        // instead of each paying its own TCP and TLS handshakes (HTTP/1.1 then opens more). Not a
        // spare: its connection is for the request after the current one.
        _ = ccurl_setopt_long(easy, CURLOPT_PIPEWAIT, exchange.warmUp == .spare ? 0 : 1)
        // TLS sessions are resumed across this client's connections (the multi handle already
        // shares connections and DNS answers).
        _ = ccurl_setopt_pointer(easy, CURLOPT_SHARE, share)
        // One resolution per host per minute for all of this client's requests (the multi handle's
        // DNS cache; getaddrinfo gives no TTL: docs/DECISIONS.md "DNS").
        _ = ccurl_setopt_long(easy, CURLOPT_DNS_CACHE_TIMEOUT, 60)
        if let warmUp = exchange.warmUp { _ = ccurl_setopt_warm_up(easy, warmUp == .spare ? 1 : 0) }
        if metrics != nil { _ = ccurl_setopt_resolve_counter(easy, resolves) }
        switch request.method {
        case "GET", "HEAD": break  // HEAD: CURLOPT_NOBODY, set by the warm-up
        case "POST":
            _ = ccurl_setopt_long(easy, CURLOPT_POST, 1)
            var body = request.body ?? []
            _ = ccurl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
            body.append(0)  // never an empty buffer; the size above excludes this byte
            body.withUnsafeMutableBytes { raw in
                _ = ccurl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, raw.baseAddress)
            }
        default:
            _ = ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for header in request.headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        exchange.headerList = list
        _ = ccurl_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        _ = ccurl_setopt_data_fn(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if exchange.body.count + length > exchange.maxBodyBytes {
                exchange.overLimit = true
                return 0
            }
            if let data { exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_data_fn(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                exchange.headers.removeAll()  // a new response (after 1xx): start over
            } else if let header = parseHeaderLine(line[...]) {
                exchange.headers.append(header)
            }
            return length
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        active[exchange.id] = exchange
        curl_multi_add_handle(multi, easy)
        if !startedAny {
            startedAny = true
            if exchange.warmUp == nil, request.url.hasPrefix("https://") { spareAfter = exchange }
        }
    }

    /// The first of a client's requests over TLS comes with a spare connection to its origin: a cold
    /// start sends the configuration and the profiles together two round trips after its first request
    /// (registration, token), and over HTTP/1.1 the second of them needs a connection of its own.
    /// Opened only when that request is due, its TCP and TLS handshakes would add two round trips;
    /// opened beside the first, it is ready (a finished `HEAD /`) by then. It starts once the first
    /// request's host name is resolved (one DNS lookup for both: libcurl's cache), and never makes the
    /// first one wait (that one starts before it; a spare does not use CURLOPT_PIPEWAIT). Over HTTP/2 it
    /// closes once TLS says "h2", before any request: one handshake more, once per client.
    /// Returns whether it started the spare now.
    private func openSpareWhenResolved() -> Bool {
        guard let first = spareAfter, let easy = first.easy else { return false }
        var resolved = 0.0
        _ = ccurl_getinfo_double(easy, CURLINFO_NAMELOOKUP_TIME, &resolved)
        guard resolved > 0 else { return false }
        spareAfter = nil
        guard let request = Self.warmUpRequest(first.request.url) else { return false }
        let id = pending.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let spare = Exchange(id: id, request: request, maxBodyBytes: 0, completion: { _ in })
        spare.warmUp = .spare
        start(spare)
        return true
    }

    private func applyTLS(_ easy: UnsafeMutableRawPointer) { Self.applyTLS(easy, options.tls, caBundle: caBundle) }

    /// Whom to trust, the oldest version, the pins and the way out (TLSOptions); `caBundle` is
    /// `caBundle(tls)`, which must outlive the handle (libcurl reads it in place).
    static func applyTLS(_ easy: UnsafeMutableRawPointer, _ tls: TLSOptions, caBundle: UnsafeMutableRawBufferPointer?) {
        if let caBundle {
            _ = ccurl_setopt_blob(easy, CURLOPT_CAINFO_BLOB, caBundle.baseAddress, caBundle.count)
        } else if !tls.trustSystemStore {
            _ = ccurl_setopt_string(easy, CURLOPT_CAINFO, nil)  // not libcurl's default bundle
        }
        if let caPath = tls.caPath {
            _ = ccurl_setopt_string(easy, CURLOPT_CAPATH, caPath)
        } else if !tls.trustSystemStore {
            _ = ccurl_setopt_string(easy, CURLOPT_CAPATH, nil)
        }
        // Int(...): libcurl 7.88 declares the versions in an enum, 8.x #defines them (imported as Int32).
        let minimum = tls.minimumVersion == .v1_3 ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2
        _ = ccurl_setopt_long(easy, CURLOPT_SSLVERSION, Int(minimum))
        if !tls.pinnedPublicKeys.isEmpty {
            _ = ccurl_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"))
        }
        // An explicit proxy; else "" turns off libcurl's reading of the environment (https_proxy, ...)
        // unless the host asked for it.
        if let proxy = tls.proxy {
            _ = ccurl_setopt_string(easy, CURLOPT_PROXY, proxy)
        } else if !tls.proxyFromEnvironment {
            _ = ccurl_setopt_string(easy, CURLOPT_PROXY, "")
        }
    }

    /// Why verification or the handshake failed: OpenSSL's verify result names the certificate
    /// problems; libcurl's own host name check and the rest are told by the code and its message.
    static func tlsCause(_ code: CURLcode, verifyResult: Int, message: String) -> TLSFailure.Cause {
        switch code {
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: return .pinnedKeyMismatch
        case CURLE_SSL_CACERT_BADFILE: return .caFileUnusable
        default: break
        }
        switch verifyResult {  // X509_V_ERR_*
        case 9: return .certificateNotYetValid
        case 10: return .certificateExpired
        case 18, 19: return .certificateSelfSigned
        case 2, 20, 21: return .certificateUntrusted
        case 62, 64: return .hostNameMismatch
        default: break
        }
        let text = message.lowercased()
        if code == CURLE_PEER_FAILED_VERIFICATION {
            return text.contains(text: "name") ? .hostNameMismatch : .certificateUntrusted
        }
        if text.contains(text: "unsupported protocol") || text.contains(text: "protocol version")
            || text.contains(text: "no protocols available")
        {
            return .protocolVersion
        }
        return .handshakeFailed
    }

    private func outcome(of exchange: Exchange, code: CURLcode) -> Result<HTTPResponse, TransportError> {
        let result = result(of: exchange, code: code)
        if let metrics { count(exchange, result, metrics) }
        return result
    }

    /// The connection, handshake and resolutions of a finished exchange, in the metrics.
    private func count(_ exchange: Exchange, _ result: Result<HTTPResponse, TransportError>, _ metrics: Metrics) {
        if resolves.pointee > resolvesCounted {
            metrics.add(MetricCatalog.dnsLookups, [], UInt64(resolves.pointee - resolvesCounted))
            resolvesCounted = resolves.pointee
        }
        guard let easy = exchange.easy else { return }
        let host = exchange.request.host
        var connects = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 {
            metrics.add(MetricCatalog.connections, [host, "opened"], UInt64(connects))
            var handshake = 0.0
            _ = ccurl_getinfo_double(easy, CURLINFO_APPCONNECT_TIME, &handshake)
            if handshake > 0 { metrics.add(MetricCatalog.tlsHandshakes, [host]) }
        } else if case .success = result {
            metrics.add(MetricCatalog.connections, [host, "reused"])
        }
        if case .failure(.tls(let failure)) = result { metrics.add(MetricCatalog.tlsFailures, [host, failure.cause.rawValue]) }
    }

    private func result(of exchange: Exchange, code: CURLcode) -> Result<HTTPResponse, TransportError> {
        if code == CURLE_OK {
            var status = 0
            if let easy = exchange.easy { _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
            return .success(HTTPResponse(status: status, headers: exchange.headers, body: exchange.body))
        }
        if exchange.overLimit { return .failure(.bodyTooLarge(limit: exchange.maxBodyBytes)) }
        let detail = String(cString: exchange.errorBuffer)
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .failure(.cannotConnect(text))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            var verifyResult = 0
            if let easy = exchange.easy { _ = ccurl_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult) }
            return .failure(.tls(TLSFailure(Self.tlsCause(code, verifyResult: verifyResult, message: text), text)))
        default:
            return .failure(.failed(text))
        }
    }

    private func finish(_ id: Int, _ result: Result<HTTPResponse, TransportError>) {
        guard let exchange = active.removeValue(forKey: id) else { return }
        if spareAfter === exchange { spareAfter = nil }  // done (or failed) before it was resolved
        if let easy = exchange.easy {
            curl_multi_remove_handle(multi, easy)
            if spareHandles.count < Self.maxSpareHandles {
                curl_easy_reset(easy)  // every option back to its default; connections stay in the multi's pool
                spareHandles.append(easy)
            } else {
                curl_easy_cleanup(easy)
            }
        }
        curl_slist_free_all(exchange.headerList)
        exchange.completion(result)
    }
}
