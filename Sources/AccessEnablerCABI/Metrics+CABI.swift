// SPDX-License-Identifier: Apache-2.0
public import CAccessEnabler
import AccessEnabler
import Glibc

// The metrics functions of Include/accessenabler.h (since 1.5): thin thunks over
// AccessEnabler.metrics() and setMetricsPush (Facade/AccessEnabler+Metrics.swift).

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_metrics")
#endif
public func ae_client_metrics(_ client: OpaquePointer?, _ visit: ae_metric_fn?, _ user_data: UnsafeMutableRawPointer?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let visit else { throw .invalidArgument("visit is NULL") }
        for series in enabler.metrics().series { MetricView.visit(series, visit, user_data) }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_metrics_text")
#endif
public func ae_client_metrics_text(
    _ client: OpaquePointer?, _ format: Int32, _ out_text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    out_text?.pointee = nil
    return call(client) { enabler throws(AccessEnablerError) in
        guard let out_text else { throw .invalidArgument("out_text is NULL") }
        let snapshot = enabler.metrics()
        switch format {
        case Int32(AE_METRICS_PROMETHEUS): out_text.pointee = strdup(snapshot.prometheusText)
        case Int32(AE_METRICS_JSON): out_text.pointee = strdup(snapshot.json.jsonText)
        default: throw .invalidArgument("format \(format) is neither AE_METRICS_PROMETHEUS nor AE_METRICS_JSON")
        }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_set_metrics_push")
#endif
public func ae_client_set_metrics_push(
    _ client: OpaquePointer?, _ interval_ms: UInt32, _ push: ae_metrics_push_fn?, _ user_data: UnsafeMutableRawPointer?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let push else { return try enabler.setMetricsPush(intervalMillis: 0, nil) }
        // The handle is a number (HandleTable), passed back as it came; the push never runs after destroy.
        let (host, handle) = (HostPointer(raw: user_data), UInt(bitPattern: client))
        try enabler.setMetricsPush(intervalMillis: Int(interval_ms)) { _ in push(OpaquePointer(bitPattern: handle), host.raw) }
    }
}

/// One series as an `ae_metric`: its strings and arrays live for the call of `visit` only.
private enum MetricView {
    static func visit(_ series: MetricSeries, _ visit: ae_metric_fn, _ userData: UnsafeMutableRawPointer?) {
        let names = series.labelNames.map { strdup($0) }
        let values = series.labelValues.map { strdup($0) }
        defer { (names + values).forEach { free($0) } }
        var namePointers = names.map { UnsafePointer($0) }
        var valuePointers = values.map { UnsafePointer($0) }
        var bounds = series.buckets.map(\.upperBound)
        var counts = series.buckets.map(\.count)
        series.name.withCString { name in
            series.unit.withCString { unit in
                namePointers.withUnsafeMutableBufferPointer { labelNames in
                    valuePointers.withUnsafeMutableBufferPointer { labelValues in
                        bounds.withUnsafeMutableBufferPointer { bounds in
                            counts.withUnsafeMutableBufferPointer { counts in
                                var metric = ae_metric(
                                    version: UInt32(AE_METRIC_VERSION), name: name, unit: unit, type: type(series.kind),
                                    label_count: labelNames.count, label_names: labelNames.baseAddress,
                                    label_values: labelValues.baseAddress, value: series.value, count: series.count,
                                    bucket_count: bounds.count, bucket_bounds: bounds.baseAddress,
                                    bucket_counts: counts.baseAddress)
                                visit(&metric, userData)
                            }
                        }
                    }
                }
            }
        }
    }

    private static func type(_ kind: MetricKind) -> Int32 {
        switch kind {
        case .counter: Int32(AE_METRIC_COUNTER)
        case .gauge: Int32(AE_METRIC_GAUGE)
        case .histogram: Int32(AE_METRIC_HISTOGRAM)
        }
    }
}
