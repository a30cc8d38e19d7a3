// SPDX-License-Identifier: Apache-2.0

/// One series of a metric: its labels and its value at the snapshot (docs/METRICS.md).
public struct MetricSeries: Sendable {
    /// A histogram bucket: how many observations were at most `upperBound` (cumulative).
    public struct Bucket: Sendable, Equatable {
        public let upperBound: Double
        public let count: UInt64
    }

    /// The OpenTelemetry-style name (`http.client.request.duration`, `ae.calls`).
    public let name: String
    public let kind: MetricKind
    /// UCUM, as OpenTelemetry writes it: `s`, `By`, `1`, `{request}`.
    public let unit: String
    public let labelNames: [String]
    public let labelValues: [String]
    /// A counter's total, a gauge's value, a histogram's sum of observations.
    public let value: Double
    /// A counter's total; a histogram's number of observations; 0 for a gauge.
    public let count: UInt64
    /// A histogram's buckets, ascending (the `+Inf` bucket is `count`); empty otherwise.
    public let buckets: [Bucket]
    let prometheusName: String
    let help: String

    init(_ metric: MetricDefinition, _ labels: [String], value: Double, count: UInt64, buckets: [Bucket] = []) {
        name = metric.name
        kind = metric.kind
        unit = metric.unit
        labelNames = metric.labels
        labelValues = labels
        self.value = value
        self.count = count
        self.buckets = buckets
        prometheusName = metric.prometheusName
        help = metric.help
    }

    /// The labels as pairs, in the metric's order.
    public var labels: [(name: String, value: String)] { Array(zip(labelNames, labelValues)) }
}

/// The client's metrics at one moment (AccessEnabler.metrics(), the push handler).
public struct MetricsSnapshot: Sendable {
    public let series: [MetricSeries]

    /// Prometheus's text exposition format (version 0.0.4): `# HELP` and `# TYPE` for every metric of
    /// the catalog, then its series; dots become underscores, seconds and bytes suffix the name,
    /// counters end in `_total`, histograms give `_bucket{le=...}`, `_sum` and `_count`.
    public var prometheusText: String {
        var out = ""
        var seriesByName: [String: [MetricSeries]] = [:]
        for item in series { seriesByName[item.name, default: []].append(item) }
        for metric in MetricCatalog.all {
            let name = metric.prometheusName  // a counter's `_total` included: 0.0.4 names the samples' metric
            out += "# HELP \(name) \(Self.escapeHelp(metric.help))\n"
            out += "# TYPE \(name) \(metric.kind.rawValue)\n"
            for item in seriesByName[metric.name] ?? [] {
                let labels = zip(item.labelNames, item.labelValues).filter { !$0.1.isEmpty }
                    .map { "\(MetricDefinition.prometheus($0.0))=\"\(Self.escapeLabel($0.1))\"" }
                switch item.kind {
                case .counter, .gauge:
                    out += "\(name)\(Self.braces(labels)) \(Self.number(item.value))\n"
                case .histogram:
                    for bucket in item.buckets {
                        out += "\(name)_bucket\(Self.braces(labels + ["le=\"\(Self.number(bucket.upperBound))\""])) \(bucket.count)\n"
                    }
                    out += "\(name)_bucket\(Self.braces(labels + ["le=\"+Inf\""])) \(item.count)\n"
                    out += "\(name)_sum\(Self.braces(labels)) \(Self.number(item.value))\n"
                    out += "\(name)_count\(Self.braces(labels)) \(item.count)\n"
                }
            }
        }
        return out
    }

    /// The snapshot as JSON: `{"metrics": [{"name", "type", "unit", "labels": [names], "help", "series":
    /// [{"labels": {...}, "value", "count", "buckets": [[le, count], ...]}]}]}` (a series' labels with an
    /// empty value left out).
    public var json: JSONValue {
        var metrics: [JSONValue] = []
        var seriesByName: [String: [MetricSeries]] = [:]
        for item in series { seriesByName[item.name, default: []].append(item) }
        for metric in MetricCatalog.all {
            let items = (seriesByName[metric.name] ?? []).map { item -> JSONValue in
                var labels: [String: JSONValue] = [:]
                for (name, value) in zip(item.labelNames, item.labelValues) where !value.isEmpty { labels[name] = .string(value) }
                var object: [String: JSONValue] = ["labels": .object(labels), "value": .double(item.value)]
                if item.kind != .gauge { object["count"] = .int(Int64(clamping: item.count)) }
                if item.kind == .histogram {
                    object["buckets"] = .array(item.buckets.map { .array([.double($0.upperBound), .int(Int64(clamping: $0.count))]) })
                }
                return .object(object)
            }
            metrics.append(
                .object([
                    "name": .string(metric.name), "type": .string(metric.kind.rawValue), "unit": .string(metric.unit),
                    "labels": .array(metric.labels.map { .string($0) }), "help": .string(metric.help),
                    "series": .array(items),
                ]))
        }
        return .object(["metrics": .array(metrics)])
    }

    private static func braces(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }

    /// A number as Prometheus reads it: integers without a fraction, others in Swift's shortest form.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func escapeLabel(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func escapeHelp(_ text: String) -> String {
        text.replacing(text: "\\", with: "\\\\").replacing(text: "\n", with: "\\n")
    }
}
