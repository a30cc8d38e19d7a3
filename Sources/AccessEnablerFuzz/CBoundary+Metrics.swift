// SPDX-License-Identifier: Apache-2.0
// fuzzCBoundary's metrics part (ABI 1.5): ae_client_metrics with the visit's every field checked,
// ae_client_metrics_text in every format and a few that are not, NULL arguments, and a push timer
// left running into ae_client_destroy (no push may run after destroy returns).
import CAccessEnabler
import AccessEnabler

extension CBoundaryFuzz.Calls {
    /// Part of call 14 (it reads no byte of the input, so earlier corpora keep their meaning).
    func metricsCalls() throws(FuzzFailure) {
        typealias Fuzz = CBoundaryFuzz
        let (ok, invalidArg) = (Fuzz.ok, Fuzz.invalidArg)
        try Fuzz.expect("ae_client_metrics(NULL visit)", ae_client_metrics(client, nil, nil), documented: [invalidArg])
        let visit = MetricsVisit()
        let status = ae_client_metrics(
            client,
            { metric, userData in
                Unmanaged<MetricsVisit>.fromOpaque(userData!).takeUnretainedValue().visit(metric)
            }, Unmanaged.passUnretained(visit).toOpaque())
        try Fuzz.expect("ae_client_metrics", status, documented: [ok], predicted: ok)
        try check(visit.problems.isEmpty, "ae_client_metrics: \(visit.problems.prefix(3).joined(separator: "; "))")
        try check(visit.series > 0, "ae_client_metrics visited no series (label-less counters start at zero)")

        for format: Int32 in [Int32(AE_METRICS_PROMETHEUS), Int32(AE_METRICS_JSON), 0, 3, .min] {
            var text: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(bitPattern: 0x1)
            let valid = format == Int32(AE_METRICS_PROMETHEUS) || format == Int32(AE_METRICS_JSON)
            let status = ae_client_metrics_text(client, format, &text)
            try Fuzz.expect("ae_client_metrics_text(\(format))", status, documented: [ok, invalidArg], predicted: valid ? ok : invalidArg)
            guard status == ok else {
                try check(text == nil, "ae_client_metrics_text(\(format)) failed without setting *out_text to NULL")
                continue
            }
            defer { ae_string_free(text) }
            guard let text, let string = String(validatingCString: text) else {
                throw FuzzFailure("ae_client_metrics_text(\(format)): NULL or not UTF-8")
            }
            if format == Int32(AE_METRICS_JSON) {
                try check(
                    JSONValue.parse(string)?.objectValue?["metrics"]?.arrayValue != nil,
                    "ae_client_metrics_text(JSON) is not {\"metrics\": [...]}")
            } else {
                try check(string.contains("# TYPE ae_calls_total counter\n"), "ae_client_metrics_text(Prometheus) lacks ae_calls_total")
            }
        }
        try Fuzz.expect(
            "ae_client_metrics_text(NULL out)", ae_client_metrics_text(client, Int32(AE_METRICS_JSON), nil),
            documented: [invalidArg])

        try Fuzz.expect(
            "ae_client_set_metrics_push(999 ms)",
            ae_client_set_metrics_push(client, UInt32(AE_METRICS_PUSH_MIN_MS) - 1, { _, _ in }, nil), documented: [invalidArg])
        try Fuzz.expect(
            "ae_client_set_metrics_push(stop)", ae_client_set_metrics_push(client, 0, nil, nil), documented: [ok], predicted: ok)
        // Left running: the client's destroy (at the end of the input) stops it; a push after that
        // would read a freed host (AddressSanitizer) or count a call the check below refuses.
        let push = ae_client_set_metrics_push(
            client, UInt32(AE_METRICS_PUSH_MIN_MS),
            { client, userData in
                let host = Unmanaged<CBoundaryFuzz.Host>.fromOpaque(userData!).takeUnretainedValue()
                if host.destroyed.withLock({ $0 }) { return host.problem("[F9] the metrics push ran after ae_client_destroy returned") }
                var text: UnsafeMutablePointer<CChar>?
                if ae_client_metrics_text(client, Int32(AE_METRICS_PROMETHEUS), &text) == CBoundaryFuzz.ok {
                    ae_string_free(text)
                }
            }, Unmanaged.passUnretained(host).toOpaque())
        try Fuzz.expect("ae_client_set_metrics_push", push, documented: [ok], predicted: ok)
    }
}

/// What one ae_client_metrics call visited, and what was wrong with it.
final class MetricsVisit: @unchecked Sendable {
    var series = 0
    var problems: [String] = []

    func visit(_ pointer: UnsafePointer<ae_metric>?) {
        series += 1
        guard let metric = pointer?.pointee else { return problems.append("a NULL metric") }
        guard metric.version >= 1, let namePointer = metric.name, let name = String(validatingCString: namePointer),
            let unit = metric.unit.flatMap(String.init(validatingCString:))
        else { return problems.append("series \(series): a version below 1, or a NULL or non-UTF-8 name or unit") }
        let types = [AE_METRIC_COUNTER, AE_METRIC_GAUGE, AE_METRIC_HISTOGRAM].map { Int32($0) }
        if !types.contains(metric.type) { problems.append("\(name): type \(metric.type)") }
        if name.isEmpty || unit.isEmpty { problems.append("\(name): an empty name or unit") }
        for index in 0..<metric.label_count {
            let label = metric.label_names?[index].flatMap(String.init(validatingCString:))
            let value = metric.label_values?[index].flatMap(String.init(validatingCString:))
            if label == nil || value == nil { problems.append("\(name): label \(index) NULL or not UTF-8") }
        }
        if !metric.value.isFinite { problems.append("\(name): value \(metric.value)") }
        if metric.type == Int32(AE_METRIC_HISTOGRAM) {
            guard metric.bucket_count > 0, let bounds = metric.bucket_bounds, let counts = metric.bucket_counts else {
                return problems.append("\(name): a histogram without buckets")
            }
            for index in 0..<metric.bucket_count {
                if index > 0 && (bounds[index] <= bounds[index - 1] || counts[index] < counts[index - 1]) {
                    problems.append("\(name): bucket \(index) not ascending or not cumulative")
                }
            }
            if counts[metric.bucket_count - 1] > metric.count { problems.append("\(name): a bucket above the count") }
        } else if metric.bucket_count != 0 {
            problems.append("\(name): buckets on a \(metric.type == Int32(AE_METRIC_GAUGE) ? "gauge" : "counter")")
        }
    }
}
