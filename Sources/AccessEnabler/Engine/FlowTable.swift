// SPDX-License-Identifier: Apache-2.0

/// The id of a flow in the `FlowTable`, typed by the flow: an event meant for one kind of flow
/// cannot reach another.
struct FlowID<F: Flow>: Hashable, Sendable {
    let value: Int
}

/// Every flow in progress of one engine, with what its driver keeps beside it (the setup's
/// backend, ...): started, fed and forgotten alike whatever the flow (Engine+Flows.swift).
struct FlowTable {
    private var flows: [Int: (flow: any Flow, context: any Sendable)] = [:]
    private var next = 1

    /// Keeps `flow` (and its driver's `context`) under a new id.
    mutating func add<F: Flow>(_ flow: F, context: any Sendable = ()) -> FlowID<F> {
        defer { next += 1 }
        flows[next] = (flow, context)
        return FlowID(value: next)
    }

    /// Feeds `event` to the flow `id`; nil when it is no longer here (over, or replaced).
    mutating func feed<F: Flow>(_ id: FlowID<F>, _ event: (inout F) -> [F.Action]) -> [F.Action]? {
        guard let entry = flows[id.value], var flow = entry.flow as? F else { return nil }
        let actions = event(&flow)
        flows[id.value]?.flow = flow
        return actions
    }

    /// What the driver of `id` keeps beside the flow (nil: the flow is not here).
    func context<F: Flow, C>(of id: FlowID<F>, as type: C.Type) -> C? {
        flows[id.value]?.context as? C
    }

    func contains<F: Flow>(_ id: FlowID<F>) -> Bool { flows[id.value] != nil }

    /// Forgets the flow `id`: its later events are dropped.
    mutating func remove<F: Flow>(_ id: FlowID<F>) { flows[id.value] = nil }

    var count: Int { flows.count }
}
