// SPDX-License-Identifier: Apache-2.0

/// The async calls waiting for their events, by call id (`AsyncAccessEnabler`).
///
/// Every public call gets a `CallID` when the facade accepts it; the engine sends the events of a
/// call with its id, and the one that ends it with `ends` and the status that explains it
/// (`Emission`). An async caller opens a stream for its id before submitting the call and reads
/// its events from it: the provider dialog and the code of a login, a logout's statuses, then the
/// end. Callbacks of other calls — async or of the callback API, from any thread — never reach it.
final class AsyncCalls: Sendable {
    /// What an async caller reads.
    enum Update: Sendable {
        /// An event of the call in progress.
        case progress(Event)
        /// The event that ends the call, and the status that explains it.
        case end(Event, explanation: AdvancedStatus?)
    }

    private struct State {
        var open: [CallID: AsyncStream<Update>.Continuation] = [:]
        var closed = false
    }

    private let state = Locked(State())

    /// The updates of `call` from now on; the stream finishes after the end, at `close`, or at `forget`.
    func open(_ call: CallID) -> AsyncStream<Update> {
        let (updates, continuation) = AsyncStream.makeStream(of: Update.self, bufferingPolicy: .unbounded)
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.open[call] = continuation
            return true
        }
        if !accepted { continuation.finish() }
        return updates
    }

    /// How many async calls wait now.
    var waiting: Int { state.withLock { $0.open.count } }

    /// The caller stops reading (refused, cancelled, done).
    func forget(_ call: CallID) {
        state.withLock { $0.open.removeValue(forKey: call) }?.finish()
    }

    /// Sees every event, on the callback thread, before the delegate does.
    func observe(_ emission: Emission) {
        guard !emission.calls.isEmpty else { return }
        let targets = state.withLock { state -> [AsyncStream<Update>.Continuation] in
            emission.calls.compactMap { call in
                emission.ends ? state.open.removeValue(forKey: call) : state.open[call]
            }
        }
        for target in targets {
            if emission.ends {
                target.yield(.end(emission.event, explanation: emission.explanation))
                target.finish()
            } else {
                target.yield(.progress(emission.event))
            }
        }
    }

    /// The client was shut down: every stream finishes (its caller throws `invalidHandle`).
    func close() {
        let open = state.withLock { state -> [AsyncStream<Update>.Continuation] in
            state.closed = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
