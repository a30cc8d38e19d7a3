// SPDX-License-Identifier: Apache-2.0
import CCurl
import Glibc

/// `accessenabler-diag doctor`: can this box reach Adobe Pass the way the library would? One
/// request through libcurl with the library's own TLS settings (`CurlTransport.applyTLS`: CA file
/// and path, pins, minimum TLS version, proxy), timed step by step with libcurl's own clocks
/// (CURLINFO_*_TIME_T), and the first failing step named:
/// configuration → dns → tcp → tls → certificate → clock → adobe.
/// The request is harmless: a requestor configuration asked for without an access token, which
/// Adobe refuses with an Enhanced Error Code (401 `invalid_access_token_client_application`); an
/// answer of that shape proves the service answers, and nothing changes anywhere.
package struct Doctor {
    package struct Step {
        package enum State: String { case ok, warning, failed, skipped }
        package var name: String
        package var state: State
        package var millis: Int64?
        package var detail: String
    }

    package var baseURL: String
    package var tls: TLSOptions
    package var connectTimeoutMillis: Int
    package var requestTimeoutMillis: Int
    package var apiGeneration: APIGeneration
    package var requestor: String
    /// Days of certificate validity under which the certificate step warns.
    package static let certificateWarningDays: Int64 = 14
    /// Clock skew (ms) over which the clock step warns: TLS judges certificates on the box's clock.
    package static let skewWarningMillis: Int64 = 60_000

    package init(
        baseURL: String, tls: TLSOptions, connectTimeoutMillis: Int, requestTimeoutMillis: Int, apiGeneration: APIGeneration,
        requestor: String
    ) {
        self.baseURL = baseURL
        self.tls = tls
        self.connectTimeoutMillis = connectTimeoutMillis
        self.requestTimeoutMillis = requestTimeoutMillis
        self.apiGeneration = apiGeneration
        self.requestor = requestor
    }

    /// The harmless request's URL.
    var probeURL: String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let id = Encoding.percentEncode(requestor)
        return apiGeneration == .v1 ? "\(base)/api/v1/config/\(id)" : "\(base)/api/v2/\(id)/configuration"
    }

    /// Runs the steps; the problem is the first failed step's (`.none` when none failed).
    package func run() -> (steps: [Step], problem: DiagnosticProblem) {
        var steps: [Step] = []
        if let problem = checkConfiguration() {
            steps.append(Step(name: "configuration", state: .failed, millis: nil, detail: problem))
            return (steps, .configuration)
        }
        steps.append(Step(name: "configuration", state: .ok, millis: nil, detail: "\(probeURL) with the TLS options given"))
        _ = ccurl_global_init_once()
        let exchange = DoctorExchange(url: probeURL, doctor: self)
        let timings = exchange.timings
        let failedAt = Self.failedStep(exchange.code, timings: timings, https: baseURL.hasPrefix("https://"))
        let order = ["dns", "tcp", "tls"]
        for (index, name) in order.enumerated() {
            let millis = timings.step(index)
            if name == "tls" && !baseURL.hasPrefix("https://") {
                steps.append(Step(name: name, state: .skipped, millis: nil, detail: "plain http (a loopback emulator)"))
                continue
            }
            if failedAt == name {
                steps.append(Step(name: name, state: .failed, millis: millis, detail: exchange.failureText(step: name)))
                let problem: DiagnosticProblem =
                    name == "dns" ? .dns : name == "tcp" ? .tcp : exchange.isCertificateDate ? .certificate : .tls
                return (steps, problem)
            }
            steps.append(Step(name: name, state: .ok, millis: millis, detail: exchange.successText(step: name)))
        }
        if baseURL.hasPrefix("https://") { steps.append(exchange.certificateStep()) }
        if failedAt == "adobe" {
            steps.append(Step(name: "adobe", state: .failed, millis: timings.step(3), detail: exchange.failureText(step: "adobe")))
            return (steps, .service)
        }
        steps.append(exchange.clockStep())
        let answer = exchange.answerStep(millis: timings.step(3))
        steps.append(answer)
        return (steps, answer.state == .failed ? .service : .none)
    }

    /// The base URL and the TLS options, checked before the network (as ae_client_create checks them).
    private func checkConfiguration() -> String? {
        if let problem = Settings.checkServiceURL(baseURL) { return "base URL: \(problem)" }
        return tls.validate()
    }

    /// Which step a libcurl outcome failed at (nil: none).
    static func failedStep(_ code: CURLcode, timings: DoctorExchange.Timings, https: Bool) -> String? {
        switch code {
        case CURLE_OK: return nil
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return "dns"
        case CURLE_COULDNT_CONNECT: return "tcp"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return "tls"
        case CURLE_OPERATION_TIMEDOUT:
            if timings.resolved == 0 { return "dns" }
            if timings.connected == 0 { return "tcp" }
            if https && timings.handshaken == 0 { return "tls" }
            return "adobe"
        default:
            if https && timings.connected > 0 && timings.handshaken == 0 { return "tls" }
            return timings.connected == 0 ? "tcp" : "adobe"
        }
    }

    /// The steps as a report: JSON (`{"ok", "problem", "steps": [{"name", "state", "ms", "detail"}]}`)
    /// or one line per step.
    package static func report(_ steps: [Step], problem: DiagnosticProblem, json: Bool) -> String {
        if json {
            return JSON.text(
                JSONValue.object([
                    "ok": .bool(problem == .none), "problem": .string(problem.name),
                    "steps": .array(
                        steps.map { step in
                            .object([
                                "name": .string(step.name), "state": .string(step.state.rawValue),
                                "ms": step.millis.map(JSONValue.int) ?? .null, "detail": .string(step.detail),
                            ])
                        }),
                ]))
        }
        var lines = steps.map { step in
            let time = step.millis.map { "\($0) ms" } ?? ""
            let name = step.name.padding(13)
            return "\(step.state.rawValue.uppercased().padding(8)) \(name) \(time.padding(9)) \(step.detail)"
        }
        lines.append(problem == .none ? "Adobe Pass is reachable from this box." : "stopped at \(steps.last?.name ?? "?"): \(problem.name)")
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
