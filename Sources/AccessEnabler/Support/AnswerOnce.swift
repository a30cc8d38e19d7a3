// SPDX-License-Identifier: Apache-2.0

/// A one-shot reply slot: whoever waits for an answer from elsewhere (the host's partner
/// framework, the host's HTTP stack) gets exactly one outcome —
/// the answer, a timeout, or an abandonment (the waiting task was cancelled, the client destroyed).
/// Whatever arrives after that is ignored, and the caller is told (`answer` returns false), so a C
/// reply function can return AE_E_INVALID_HANDLE instead of pretending it was heard.
///
/// Hooks: `whenFinished` runs once the slot is over, however it ended (a handle table forgets the
/// request there, so late replies are refused); `onCancel` runs only when the SDK stopped waiting
/// first (timeout, abandon), so the other side may stop working on it. Both run before the waiting
/// side gets its outcome: a host that sees what follows can rely on the request being over.
///
/// The timeout sleeps through a `WallClock` (default `SystemClock()`), so tests run it on
/// virtual time (`ManualClock`).
package final class AnswerOnce<Value: Sendable>: Sendable {
    /// How a slot ended.
    package enum Ending: Sendable, Equatable {
        /// `answer` came first.
        case answered
        /// The timeout given to `wait` or `startTimeout` passed first.
        case timedOut
        /// `abandon` came first (cancellation, destroy).
        case abandoned
    }

    private struct State {
        var deliver: (@Sendable (Value) -> Void)?
        var ending: Ending?
        var onFinish: [@Sendable () -> Void] = []
        var onCancel: [@Sendable () -> Void] = []
        var timer: Task<Void, Never>?
    }

    private let state: Locked<State>

    /// A pending slot; `deliver` gets the outcome, once, on the thread that ends the slot.
    package init(_ deliver: @escaping @Sendable (Value) -> Void) { state = Locked(State(deliver: deliver)) }

    /// True until the slot is answered, times out or is abandoned.
    package var isPending: Bool { state.withLock { $0.ending == nil } }

    /// How the slot ended; nil while it is pending.
    package var ending: Ending? { state.withLock { $0.ending } }

    /// Delivers `value` if the slot is still pending. False when it is already over (the value is
    /// dropped): the caller's answer came too late, or twice.
    @discardableResult
    package func answer(_ value: Value) -> Bool { finish(value, .answered) }

    /// Ends the slot from the waiting side with `value` (cancellation, destroy): the `onCancel`
    /// handlers run. False when it was already over.
    @discardableResult
    package func abandon(_ value: Value) -> Bool { finish(value, .abandoned) }

    /// Runs `handler` if the slot ends by timeout or abandonment (never once it was answered, nor
    /// when it is already over). Runs on the thread that ends the slot; must not block.
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { state in if state.ending == nil { state.onCancel.append(handler) } }
    }

    /// Runs `body` once the slot is over, however it ended (at once if it already is).
    package func whenFinished(_ body: @escaping @Sendable () -> Void) {
        let over = state.withLock { state -> Bool in
            if state.ending != nil { return true }
            state.onFinish.append(body)
            return false
        }
        if over { body() }
    }

    /// Ends the slot with `value()` (as a timeout: the `onCancel` handlers run) unless it is over
    /// within `millis` of `clock`'s time. The timer stops when the slot ends first.
    package func startTimeout(
        millis: Int64, clock: any WallClock = SystemClock(),
        with value: @escaping @Sendable () -> Value
    ) {
        let timer = Task {
            await clock.sleep(millis: millis)
            if !Task.isCancelled { self.finish(value(), .timedOut) }
        }
        let over = state.withLock { state -> Bool in
            if state.ending != nil { return true }
            state.timer = timer
            return false
        }
        if over { timer.cancel() }
    }

    @discardableResult
    private func finish(_ value: Value, _ ending: Ending) -> Bool {
        let taken = state.withLock { state -> State? in
            guard state.ending == nil else { return nil }
            defer { state = State(deliver: nil, ending: ending) }
            return state
        }
        guard let taken, let deliver = taken.deliver else { return false }
        taken.timer?.cancel()
        for hook in taken.onFinish { hook() }
        if ending != .answered { for cancel in taken.onCancel { cancel() } }
        deliver(value)
        return true
    }
}

extension AnswerOnce {
    /// Starts a request with `start` and waits for its outcome: the answer given to the slot,
    /// `timedOut()` after `timeoutMillis` of `clock`'s time (nil: no timeout), or `cancelled()`
    /// when the waiting task is cancelled (before `start` too: then `start` is not called).
    package static func wait(
        timeoutMillis: Int64?, clock: any WallClock = SystemClock(),
        timedOut: @escaping @Sendable () -> Value, cancelled: @escaping @Sendable () -> Value,
        _ start: (AnswerOnce<Value>) -> Void
    ) async -> Value {
        let pending = Locked<AnswerOnce<Value>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let slot = AnswerOnce { continuation.resume(returning: $0) }
                pending.withLock { $0 = slot }
                if let timeoutMillis { slot.startTimeout(millis: timeoutMillis, clock: clock, with: timedOut) }
                if Task.isCancelled {
                    slot.abandon(cancelled())
                    return
                }
                start(slot)
            }
        } onCancel: {
            pending.withLock { $0 }?.abandon(cancelled())
        }
    }
}
