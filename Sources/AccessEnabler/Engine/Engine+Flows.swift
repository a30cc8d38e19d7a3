// SPDX-License-Identifier: Apache-2.0

/// A flow the engine drives from its `FlowTable`: the engine starts it, runs the actions every
/// flow shares (`Engine.execute`), and hands the flow's own actions to `perform`, which runs
/// them (a request, a wait, a store write) and feeds their results back as events (`Engine.feed`).
protocol DrivenFlow: Flow {
    /// Runs one of the flow's own actions for the flow `id`.
    static func perform(_ action: Action, of id: FlowID<Self>, on engine: isolated Engine)
    /// True when the store stays open while the flow's actions run (AuthorizationFlow: a token
    /// goes out before its expiry is stored).
    static var keepsStoreOpen: Bool { get }
}

extension DrivenFlow {
    static var keepsStoreOpen: Bool { false }
}

/// The generic driver: one way to start, feed and end every flow.
extension Engine {
    /// Keeps `flow` (with what its driver needs beside it, `context`) and runs what `begin` returns.
    @discardableResult
    func start<F: DrivenFlow>(_ flow: F, context: any Sendable = (), _ begin: (inout F) -> [F.Action]) -> FlowID<F> {
        let id = flows.add(flow, context: context)
        feed(id, begin)
        return id
    }

    /// Feeds an event to the flow `id` and runs its actions; dropped when the flow is over (or the
    /// client was destroyed, or a newer call replaced it).
    func feed<F: DrivenFlow>(_ id: FlowID<F>, _ event: (inout F) -> [F.Action]) {
        guard let actions = flows.feed(id, event) else { return }
        guard F.keepsStoreOpen, !keepingStoreOpen else { return run(id, actions) }
        keepingStoreOpen = true
        defer { keepingStoreOpen = false }
        store.keepingOpen { run(id, actions) }
    }

    /// Runs `work` in a task of the engine's (destroy cancels it); its result goes to the flow
    /// `id` through `event`.
    func answer<F: DrivenFlow, T: Sendable>(
        _ id: FlowID<F>, _ work: @escaping @Sendable () async -> T,
        then event: @escaping @Sendable (inout F, T) -> [F.Action]
    ) {
        spawn {
            let result = await work()
            await self.feed(id) { event(&$0, result) }
        }
    }

    /// As `answer`, for a backend call: its failure (CallFailure) is part of the result.
    func request<F: DrivenFlow, T: Sendable>(
        _ id: FlowID<F>, _ work: @escaping @Sendable () async throws(CallFailure) -> T,
        then event: @escaping @Sendable (inout F, Result<T, CallFailure>) -> [F.Action]
    ) {
        answer(id, { await CallFailure.capture(work) }, then: event)
    }

    /// The flow `id`'s driver context (`start`'s), nil when the flow is over.
    func context<F: DrivenFlow, C>(of id: FlowID<F>, as type: C.Type) -> C? { flows.context(of: id, as: type) }

    /// Forgets the flow `id`: its later events are dropped.
    func end<F: DrivenFlow>(_ id: FlowID<F>) { flows.remove(id) }

    private func run<F: DrivenFlow>(_ id: FlowID<F>, _ actions: [F.Action]) {
        execute(actions, ended: { flows.remove(id) }) { F.perform($0, of: id, on: self) }
    }

    /// Runs a flow's actions in order: those every flow shares here, the flow's own by `perform`.
    func execute<A: FlowAction>(_ actions: [A], ended: () -> Void = {}, _ perform: (A) -> Void) {
        for action in actions {
            switch action.shared {
            case .emit(let emission)?: sink.emit(emission)
            case .log(let level, let message)?: logger.log(level, message)
            case .done?: ended()
            case nil: perform(action)
            }
        }
    }
}
