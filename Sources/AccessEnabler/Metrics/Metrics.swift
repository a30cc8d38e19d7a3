// SPDX-License-Identifier: Apache-2.0

/// One client's metrics (docs/METRICS.md): the transport, the executor, the store, the engine and
/// the facade record into it; `snapshot()` reads it (the host's pull, or the push timer).
///
/// Recording is a few dictionary updates under one lock per event (an HTTP exchange is one
/// event), nothing when nobody reads: no allocation beyond a series' first time, no I/O, no
/// timer. The label values are bounded sets (operations, status codes, error ids, host names
/// of the configured service URLs), so the series are too; pending calls are capped.
package final class Metrics: Sendable {
    private struct Key: Hashable {
        let metric: Int
        let labels: [String]
    }

    private struct Histogram {
        var counts: [UInt64]  // per bucket, not cumulative; the last is +Inf
        var sum: Double = 0
        var count: UInt64 = 0

        init(buckets: Int) { counts = Array(repeating: 0, count: buckets + 1) }

        mutating func observe(_ value: Double, bounds: [Double]) {
            let index = bounds.firstIndex { value <= $0 } ?? bounds.count
            counts[index] += 1
            sum += value
            count += 1
        }
    }

    private struct State {
        var counters: [Key: UInt64] = [:]
        var histograms: [Key: Histogram] = [:]
        /// Calls accepted and not ended yet: their name and nothing else (capped).
        var openCalls: [UInt64: String] = [:]
    }

    /// At most this many calls are remembered between their start and their end: beyond it the
    /// oldest are forgotten (a host that never reads its callbacks does not grow the client).
    static let maxOpenCalls = 1024

    private let state = Locked(State())
    private static let index: [String: Int] = Dictionary(
        uniqueKeysWithValues: MetricCatalog.all.enumerated().map { ($1.name, $0) })
    /// What the gauges read when a snapshot is taken (set once by the client, at create).
    private let gauges = Locked<[String: @Sendable () -> Double?]>([:])

    package init() {}

    // MARK: Recording

    package func add(_ metric: MetricDefinition, _ labels: [String] = [], _ amount: UInt64 = 1) {
        let key = Key(metric: Self.index[metric.name]!, labels: labels)
        state.withLock { $0.counters[key, default: 0] &+= amount }
    }

    package func observe(_ metric: MetricDefinition, _ value: Double, _ labels: [String] = []) {
        let key = Key(metric: Self.index[metric.name]!, labels: labels)
        state.withLock { state in
            state.histograms[key, default: Histogram(buckets: metric.buckets.count)].observe(value, bounds: metric.buckets)
        }
    }

    /// A gauge's reading, taken at each snapshot (nil: no value now).
    package func gauge(_ metric: MetricDefinition, _ read: @escaping @Sendable () -> Double?) {
        gauges.withLock { $0[metric.name] = read }
    }

    /// One HTTP exchange with Adobe ended (RequestExecutor): its answer's status, or the transport
    /// error that ended it.
    package func exchange(
        operation: String, method: String, host: String, status: Int?, error: String?, seconds: Double,
        sentBytes: Int, receivedBytes: Int
    ) {
        let statusText = status.map(String.init) ?? ""
        let errorType = error ?? (status.map { $0 >= 400 ? String($0) : "" } ?? "")
        let statusClass = status.map { "\($0 / 100)xx" } ?? "error"
        let c = MetricCatalog.self
        let duration = Key(
            metric: Self.index[c.requestDuration.name]!, labels: [operation, method, host, statusText, errorType])
        state.withLock { state in
            state.histograms[duration, default: Histogram(buckets: c.requestDuration.buckets.count)]
                .observe(seconds, bounds: c.requestDuration.buckets)
            state.counters[Key(metric: Self.index[c.requests.name]!, labels: [operation]), default: 0] &+= 1
            state.counters[Key(metric: Self.index[c.responses.name]!, labels: [operation, statusClass]), default: 0] &+= 1
            state.counters[Key(metric: Self.index[c.requestBytes.name]!, labels: [operation]), default: 0] &+= UInt64(sentBytes)
            state.counters[Key(metric: Self.index[c.responseBytes.name]!, labels: [operation]), default: 0] &+= UInt64(receivedBytes)
        }
    }

    /// A call was accepted (the facade): remembered until `callEnded`.
    package func callStarted(_ id: UInt64, name: String) {
        state.withLock { state in
            if state.openCalls.count >= Self.maxOpenCalls, let oldest = state.openCalls.keys.min() {
                state.openCalls.removeValue(forKey: oldest)
            }
            state.openCalls[id] = name
        }
    }

    /// The event that ends call `id` was emitted; `outcome` tells, from the call's name, how it
    /// ended (`success` or an error id).
    package func callEnded(_ id: UInt64, outcome: (String) -> String) {
        let key = Self.index[MetricCatalog.calls.name]!
        state.withLock { state in
            guard let name = state.openCalls.removeValue(forKey: id) else { return }
            state.counters[Key(metric: key, labels: [name, outcome(name)]), default: 0] &+= 1
        }
    }

    // MARK: Reading

    /// Every series now, in the catalog's order (docs/METRICS.md), each metric's series sorted by
    /// their labels. A label-less counter or histogram is there from the start (at zero).
    package func snapshot() -> MetricsSnapshot {
        // The counter and histogram series are built under the lock, into new arrays: a copy of
        // the dictionaries read after the lock would share their storage, and the next recording
        // (copy-on-write, the runtime's uniqueness check) is invisible to ThreadSanitizer, which
        // then reports that read against the recording (CI's tsan lifetime-race run). Gauges are
        // read after it: a reader may take another lock (the server clock's).
        let recorded = state.withLock { state in
            MetricCatalog.all.enumerated().map { index, metric -> [MetricSeries] in
                var found: [MetricSeries] = []
                switch metric.kind {
                case .counter:
                    for (key, value) in state.counters where key.metric == index {
                        found.append(MetricSeries(metric, key.labels, value: Double(value), count: value))
                    }
                    if found.isEmpty, metric.labels.isEmpty { found.append(MetricSeries(metric, [], value: 0, count: 0)) }
                case .histogram:
                    for (key, histogram) in state.histograms where key.metric == index {
                        found.append(Self.series(metric, key.labels, histogram))
                    }
                    if found.isEmpty, metric.labels.isEmpty {
                        found.append(Self.series(metric, [], Histogram(buckets: metric.buckets.count)))
                    }
                case .gauge:
                    break
                }
                return found
            }
        }
        let readers = gauges.withLock { $0 }
        var series: [MetricSeries] = []
        for (metric, recordedSeries) in zip(MetricCatalog.all, recorded) {
            var found = recordedSeries
            if metric.kind == .gauge, let value = readers[metric.name]?() {
                found.append(MetricSeries(metric, [], value: value, count: 0))
            }
            series += found.sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
        }
        return MetricsSnapshot(series: series)
    }

    private static func series(_ metric: MetricDefinition, _ labels: [String], _ histogram: Histogram) -> MetricSeries {
        var cumulative: UInt64 = 0
        let buckets = metric.buckets.enumerated().map { index, bound -> MetricSeries.Bucket in
            cumulative += histogram.counts[index]
            return MetricSeries.Bucket(upperBound: bound, count: cumulative)
        }
        return MetricSeries(metric, labels, value: histogram.sum, count: histogram.count, buckets: buckets)
    }
}
