// SPDX-License-Identifier: Apache-2.0
import CCurl
import Glibc

/// The doctor's one request (a blocking libcurl easy transfer, with the library's TLS settings)
/// and what it tells about each step.
final class DoctorExchange {
    /// libcurl's clocks from the start of the transfer (ms; 0: not reached).
    struct Timings {
        var resolved: Int64 = 0
        var connected: Int64 = 0
        var handshaken: Int64 = 0
        var firstByte: Int64 = 0
        var total: Int64 = 0

        /// The time of step `index` (dns, tcp, tls, adobe): from the end of the steps before it to
        /// its own end, or to the transfer's end when it did not finish.
        func step(_ index: Int) -> Int64 {
            let marks = [resolved, connected, handshaken, firstByte]
            let start = marks[..<index].max() ?? 0
            let end = marks[index] > 0 ? marks[index] : total
            return max(0, end - start)
        }
    }

    private(set) var code: CURLcode = CURLE_OK
    private(set) var message = ""
    private(set) var status = 0
    private(set) var timings = Timings()
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var verifyResult = 0
    private var certificateExpiry: Int64?
    private var primaryIP = ""
    private var primaryPort = 0
    private var answeredAt: Int64 = 0
    private let host: String
    private static let maxBody = 65536

    init(url: String, doctor: Doctor) {
        let authority = url.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        // The host without the port ("[::1]:443" → "[::1]").
        host = String(
            authority.lastIndex(of: ":").map { authority[..<$0] }.flatMap { $0.hasSuffix("]") || !$0.contains(":") ? $0 : nil } ?? authority
        )
        guard let easy = curl_easy_init() else {
            code = CURLE_OUT_OF_MEMORY
            message = "curl_easy_init failed"
            return
        }
        defer { curl_easy_cleanup(easy) }
        let caBundle = CurlTransport.caBundle(doctor.tls)
        defer { caBundle?.deallocate() }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        _ = ccurl_setopt_string(easy, CURLOPT_URL, url)
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        CurlTransport.applyTLS(easy, doctor.tls, caBundle: caBundle)
        _ = ccurl_setopt_long(easy, CURLOPT_CERTINFO, 1)
        _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, doctor.connectTimeoutMillis)
        _ = ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, doctor.requestTimeoutMillis)
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, "accessenabler-diag/\(Version.string)")
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_setopt_data_fn(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let exchange = Unmanaged<DoctorExchange>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if let data, exchange.body.count < DoctorExchange.maxBody {
                exchange.body += UnsafeRawBufferPointer(start: data, count: min(length, DoctorExchange.maxBody - exchange.body.count))
            }
            return length
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_data_fn(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let exchange = Unmanaged<DoctorExchange>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                exchange.headers.removeAll()
                exchange.answeredAt = SystemClock().nowMillis()
            } else if let header = parseHeaderLine(line[...]) {
                exchange.headers.append((header.name.lowercased(), header.value))
            }
            return length
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        code = curl_easy_perform(easy)
        let detail = String(cString: errorBuffer)
        message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        func seconds(_ info: CURLINFO) -> Int64 {
            var value = 0.0
            _ = ccurl_getinfo_double(easy, info, &value)
            return Int64(value * 1000)
        }
        timings = Timings(
            resolved: seconds(CURLINFO_NAMELOOKUP_TIME), connected: seconds(CURLINFO_CONNECT_TIME),
            handshaken: seconds(CURLINFO_APPCONNECT_TIME), firstByte: seconds(CURLINFO_STARTTRANSFER_TIME),
            total: seconds(CURLINFO_TOTAL_TIME))
        var number = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &number)
        status = number
        _ = ccurl_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
        _ = ccurl_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &primaryPort)
        var pointer: UnsafeMutableRawPointer?
        if ccurl_getinfo_pointer(easy, CURLINFO_PRIMARY_IP, &pointer) == CURLE_OK, let pointer {
            primaryIP = String(cString: pointer.assumingMemoryBound(to: CChar.self))
        }
        certificateExpiry = Self.expiry(easy)
    }

    /// The server certificate's "Expire date" from libcurl's certificate details (OpenSSL's form,
    /// "Nov 29 12:00:00 2027 GMT"), in ms.
    private static func expiry(_ easy: UnsafeMutableRawPointer) -> Int64? {
        var pointer: UnsafeMutableRawPointer?
        guard ccurl_getinfo_pointer(easy, CURLINFO_CERTINFO, &pointer) == CURLE_OK, let pointer else { return nil }
        let info = pointer.assumingMemoryBound(to: curl_certinfo.self).pointee
        guard info.num_of_certs > 0, let first = info.certinfo?[0] else { return nil }
        var node: UnsafeMutablePointer<curl_slist>? = first
        while let current = node {
            if let data = current.pointee.data {
                let line = String(cString: data)
                if line.hasPrefix("Expire date:") { return parseCertificateDate(String(line.dropFirst("Expire date:".count))) }
            }
            node = current.pointee.next
        }
        return nil
    }

    /// "Nov 29 12:00:00 2027 GMT" → ms.
    static func parseCertificateDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 5, parts[4] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(parts[0])) else { return nil }
        let time = parts[2].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month + 1, day: day)
        return (days * 86_400 + Int64(time[0] * 3600 + time[1] * 60 + time[2])) * 1000
    }

    private var tlsCause: TLSFailure.Cause { CurlTransport.tlsCause(code, verifyResult: verifyResult, message: message) }

    /// The TLS failure is about the certificate's dates (expired, not yet valid).
    var isCertificateDate: Bool { tlsCause == .certificateExpired || tlsCause == .certificateNotYetValid }

    func failureText(step: String) -> String {
        switch step {
        case "dns": "cannot resolve \(host): \(message) (check the network and /etc/resolv.conf, or the proxy's name)"
        case "tcp": "cannot connect to \(host): \(message) (a firewall, the port, or the proxy)"
        case "tls": "\(tlsCause.rawValue): \(message); \(tlsCause.fix)"
        default: "the request failed after the connection: \(message)"
        }
    }

    func successText(step: String) -> String {
        switch step {
        case "dns": "\(host) resolved (\(primaryIP.isEmpty ? "through the proxy" : primaryIP))"
        case "tcp": "connected to \(primaryIP):\(primaryPort)"
        default: "handshake and verification passed (certificate chain, host name, pins, minimum version)"
        }
    }

    func certificateStep() -> Doctor.Step {
        guard let expiry = certificateExpiry else {
            return Doctor.Step(name: "certificate", state: .warning, millis: nil, detail: "libcurl gave no certificate details")
        }
        let days = (expiry - SystemClock().nowMillis()) / 86_400_000
        let text = "the server's certificate expires \(Timestamp.iso(expiry)) (in \(days) days)"
        return Doctor.Step(name: "certificate", state: days < Doctor.certificateWarningDays ? .warning : .ok, millis: nil, detail: text)
    }

    func clockStep() -> Doctor.Step {
        guard let date = headers.first(where: { $0.name == "date" })?.value, let seconds = HTTPDate.parse(date) else {
            return Doctor.Step(name: "clock", state: .warning, millis: nil, detail: "the answer has no readable Date header")
        }
        let skew = seconds * 1000 + 500 - answeredAt
        let text = "Adobe's clock is \(Timestamp.signedSeconds(skew)) from the box's"
        guard abs(skew) > Doctor.skewWarningMillis else { return Doctor.Step(name: "clock", state: .ok, millis: nil, detail: text) }
        return Doctor.Step(
            name: "clock", state: .warning, millis: nil,
            detail: text + ": set the box's clock (NTP); certificates are judged on it (the library judges tokens on Adobe's clock)")
    }

    func answerStep(millis: Int64) -> Doctor.Step {
        let type = headers.first(where: { $0.name == "content-type" })?.value ?? "no content type"
        let object = JSON.parse(String(decoding: body, as: UTF8.self))?.objectValue
        if status >= 500 {
            return Doctor.Step(
                name: "adobe", state: .failed, millis: millis,
                detail: "HTTP \(status): Adobe Pass is failing; try again later (docs/OUTAGE.md)")
        }
        guard let object, (200..<500).contains(status) else {
            return Doctor.Step(
                name: "adobe", state: .failed, millis: millis,
                detail: "HTTP \(status) (\(type)) is not Adobe Pass's answer: a captive portal, a proxy's page, or the wrong base URL")
        }
        let code = object["code"]?.stringValue ?? object["error"]?.stringValue
        return Doctor.Step(
            name: "adobe", state: .ok, millis: millis,
            detail: "HTTP \(status)\(code.map { " \($0)" } ?? ""): Adobe Pass answered (a refusal without an access token is expected)")
    }
}
