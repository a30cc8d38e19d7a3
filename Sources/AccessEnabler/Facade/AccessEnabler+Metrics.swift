// SPDX-License-Identifier: Apache-2.0

/// The client's metrics for the host (docs/METRICS.md): pulled (`metrics()`) or pushed on a timer
/// (`setMetricsPush`).
extension AccessEnabler {
    /// The shortest push interval: a fleet exporter needs no more, and a box should not spend more.
    public static let minimumMetricsPushMillis = 1_000

    /// Every metric's series now. Safe from any thread, also from callbacks and after shutdown
    /// (then the last values).
    public func metrics() -> MetricsSnapshot { metricsRegistry.snapshot() }

    /// Calls `handler` with a snapshot every `intervalMillis` (at least `minimumMetricsPushMillis`),
    /// on the callback thread (event-loop mode: in `dispatch()`), in order with the other callbacks;
    /// nil stops. A new call replaces the previous timer; shutdown stops it (no call after it).
    public func setMetricsPush(
        intervalMillis: Int, _ handler: (@Sendable (MetricsSnapshot) -> Void)?
    ) throws(AccessEnablerError) {
        if handler != nil, intervalMillis < Self.minimumMetricsPushMillis {
            throw .invalidArgument("the metrics push interval must be at least \(Self.minimumMetricsPushMillis) ms")
        }
        let (callbacks, registry, clock) = (callbacks, metricsRegistry, wallClock)
        let interval = Int64(intervalMillis)
        try whileAlive { () throws(AccessEnablerError) in
            metricsPush.withLock { push in
                push?.cancel()
                push = handler.map { handler in
                    Task(executorPreference: engine.thread) {
                        while !Task.isCancelled {
                            await clock.sleep(millis: interval)
                            if Task.isCancelled { return }
                            callbacks.enqueue { handler(registry.snapshot()) }
                        }
                    }
                }
            }
        }
    }
}

extension Metrics {
    /// An accepted call: remembered until the event that ends it. setSelectedProvider and
    /// handleExternalURL end no call of their own (they answer the login in progress).
    func callAccepted(_ call: Call) {
        switch call.command {
        case .setSelectedProvider, .handleExternalURL: return
        default: callStarted(call.id.value, name: call.command.callName)
        }
    }

    /// A call the requestor gate refused at once (`noRequestor`, `queueFull`: it threw, no callback).
    func callRefused(_ command: Command, outcome: String) {
        add(MetricCatalog.calls, [command.callName, outcome])
    }
}

extension Emission {
    /// The outcome of call `name` that this event ends (`ae.calls`' `ae.outcome`): `success`, or the
    /// error id of the advanced status that explains the failure (`N130`, `Z100`, ...), else the
    /// callback's own error code. checkAuthentication's "not authenticated" is `not_authenticated`
    /// (an answer, not a failure); logout's setAuthenticationStatus(0) is its success.
    func outcome(of name: String) -> String {
        let failed: String?
        switch event {
        case .setRequestorComplete(let status): failed = status == AccessEnablerStatus.success ? nil : "failure"
        case .setAuthenticationStatus(let status, let code):
            if status == 1 || name == "logout" {
                failed = nil
            } else if name == "checkAuthentication", explanation.map({ $0.level == .info }) ?? true {
                return "not_authenticated"
            } else {
                failed = code
            }
        case .tokenRequestFailed(_, let code, _): failed = code
        case .setMetadataStatus(let value, _, _, _): failed = value == nil ? "unavailable" : nil
        case .preauthorizeResponse(let response, _): failed = response.status?.code
        default: failed = nil
        }
        if let explanation, explanation.level != .info, failed != nil || name == "logout" { return explanation.errorID }
        guard let failed else { return "success" }
        return failed.isEmpty ? "failure" : failed
    }
}
