// SPDX-License-Identifier: Apache-2.0

/// The kind of a metric: a monotonic counter, a gauge read when asked, or a histogram of fixed buckets.
public enum MetricKind: String, Sendable {
    case counter, gauge, histogram
}

/// One metric the SDK keeps: the one home of its name, unit, labels and meaning. docs/METRICS.md's
/// table is checked against this catalog (Tests/python/test_metrics.py), the Prometheus and JSON
/// forms are derived from it (`MetricsSnapshot`).
///
/// Names and units follow OpenTelemetry's semantic conventions where one exists
/// (`http.client.request.duration` in seconds, with `http.request.method`, `server.address`,
/// `http.response.status_code`, `error.type`); the SDK's own metrics and labels are under `ae.`.
/// Units are UCUM, as OpenTelemetry writes them (`s`, `By`, `{request}`).
package struct MetricDefinition: Sendable {
    package let name: String
    package let kind: MetricKind
    package let unit: String
    /// The label (attribute) names of its series, in this order.
    package let labels: [String]
    package let help: String
    /// The upper bounds of a histogram's buckets (seconds), ascending; `+Inf` is implied.
    package let buckets: [Double]

    init(_ name: String, _ kind: MetricKind, _ unit: String, _ labels: [String], _ help: String, buckets: [Double] = []) {
        self.name = name
        self.kind = kind
        self.unit = unit
        self.labels = labels
        self.help = help
        self.buckets = buckets
    }

    /// Prometheus's name: dots become underscores, seconds and bytes get their unit suffix, counters `_total`.
    package var prometheusName: String {
        var name = Self.prometheus(self.name)
        switch unit {
        case "s": name += "_seconds"
        case "By": name += "_bytes"
        default: break
        }
        return kind == .counter ? name + "_total" : name
    }

    static func prometheus(_ name: String) -> String {
        String(name.map { $0 == "." ? "_" : $0 })
    }
}

/// Every metric, by the place that records it (`Metrics`). Append-only in a 1.x release: hosts and
/// dashboards key on these names (docs/METRICS.md).
package enum MetricCatalog {
    /// HTTP latency buckets: 1 ms to 30 s (a loopback exchange to a slow Adobe answer).
    package static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    /// A store write: 0.1 ms (page cache) to 5 s (a flash device busy, the busy timeout).
    package static let storeBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 5]
    /// A viewer's login on a second screen: 5 s to 30 min (a code's lifetime).
    package static let loginBuckets: [Double] = [5, 10, 20, 30, 60, 120, 300, 600, 1800]

    static let requestDuration = MetricDefinition(
        "http.client.request.duration", .histogram, "s",
        ["ae.operation", "http.request.method", "server.address", "http.response.status_code", "error.type"],
        "Duration of each HTTP exchange with Adobe (one attempt: a retried call counts each), from the request handed to the transport to its answer or failure.",
        buckets: latencyBuckets)
    static let requests = MetricDefinition(
        "ae.http.requests", .counter, "{request}", ["ae.operation"],
        "Requests sent to Adobe, per operation (every attempt, retries included).")
    static let responses = MetricDefinition(
        "ae.http.responses", .counter, "{response}", ["ae.operation", "ae.status_class"],
        "Exchanges ended, per operation and status class (2xx, 3xx, 4xx, 5xx; `error` when no answer came).")
    static let retries = MetricDefinition(
        "ae.http.retries", .counter, "{retry}", ["ae.operation", "ae.retry.reason"],
        "Requests sent again within a call, per operation and reason: `429` (throttled), `5xx` (an idempotent call), `retry_after` (a 5xx's short Retry-After waited out), `adobe_action` (Adobe's `retry` action), `connect` (could not connect), `broken` (timed out or broken after sending, an idempotent call)."
    )
    static let requestBytes = MetricDefinition(
        "ae.http.request.body.size", .counter, "By", ["ae.operation"],
        "Bytes of request bodies sent to Adobe, per operation.")
    static let responseBytes = MetricDefinition(
        "ae.http.response.body.size", .counter, "By", ["ae.operation"],
        "Bytes of response bodies received from Adobe, per operation (after content decoding).")
    static let connections = MetricDefinition(
        "ae.http.connections", .counter, "{connection}", ["server.address", "ae.connection"],
        "Exchanges by what carried them: `opened` (a new connection, warm-ups included) or `reused` (one from the pool).")
    static let dnsLookups = MetricDefinition(
        "ae.dns.lookups", .counter, "{lookup}", [],
        "Host name resolutions started by libcurl (its DNS cache's hits are not counted).")
    static let tlsHandshakes = MetricDefinition(
        "ae.tls.handshakes", .counter, "{handshake}", ["server.address"],
        "TLS handshakes completed (new connections over https).")
    static let tlsFailures = MetricDefinition(
        "ae.tls.failures", .counter, "{failure}", ["server.address", "error.type"],
        "TLS failures by cause (`TLSFailure.Cause`): `certificate_expired`, `certificate_not_yet_valid`, `certificate_untrusted`, `certificate_self_signed`, `host_name_mismatch`, `pinned_key_mismatch`, `tls_version_refused`, `ca_file_unusable`, `handshake_failed`."
    )
    static let calls = MetricDefinition(
        "ae.calls", .counter, "{call}", ["ae.call", "ae.outcome"],
        "AccessEnabler calls ended, by call (`setRequestor`, `getAuthorization`, ...) and outcome: `success`, the advanced status's error id that explains a failure (`N130`, `Z100`, ...), or the callback's error code; `no_requestor` and `queue_full` for calls refused at once; checkAuthentication's answer \"not authenticated\" is `not_authenticated`."
    )
    static let loginDuration = MetricDefinition(
        "ae.login.duration", .histogram, "s", [],
        "Second-screen logins, from the code shown (REGCODE status or navigateToURL) to the profile.",
        buckets: loginBuckets)
    static let storeWriteDuration = MetricDefinition(
        "ae.store.write.duration", .histogram, "s", [],
        "Writes to the token store (a transaction, or one statement outside one) and how long each took; its count is the number of writes.",
        buckets: storeBuckets)
    static let tokenRenewals = MetricDefinition(
        "ae.token.renewals", .counter, "{renewal}", ["ae.token.kind"],
        "Tokens fetched again because the previous one expired or was refused: `access_token` (DCR).")
    static let clockSkew = MetricDefinition(
        "ae.clock.skew", .gauge, "s", [],
        "Adobe's clock (its Date headers) minus the box's wall clock; absent until an answer told Adobe's time.")
    static let outageState = MetricDefinition(
        "ae.outage.state", .gauge, "1", [],
        "The outage breaker (docs/OUTAGE.md): 0 closed (requests go out), 1 open (held back), 2 probing.")

    /// In the order of docs/METRICS.md and of every snapshot.
    package static let all: [MetricDefinition] = [
        requestDuration, requests, responses, retries, requestBytes, responseBytes, connections, dnsLookups,
        tlsHandshakes, tlsFailures, calls, loginDuration, storeWriteDuration, tokenRenewals, clockSkew, outageState,
    ]
}
