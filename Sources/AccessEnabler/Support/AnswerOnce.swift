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
        /// The timeout given to `wait` passed first.
        case timedOut
        /// `abandon` came first (cancellation, destroy).
        case abandoned
    }

    private struct State {
        var deliver: (@Sendable (Value) -> Void)?
        var ending: Ending?
        var onFinish: [@Sendable () -> Void] = []
        var onCancel: [@Sendable () -> Void] = []
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

    @discardableResult
    fileprivate func finish(_ value: Value, _ ending: Ending) -> Bool {
        let taken = state.withLock { state -> State? in
            guard state.ending == nil else { return nil }
            defer { state = State(deliver: nil, ending: ending) }
            return state
        }
        guard let taken, let deliver = taken.deliver else { return false }
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
    ///
    /// The timer is a child task of the waiting one, not a task of its own: it runs where the
    /// waiting task runs (the client's engine thread, never Swift's cooperative pool, which a host
    /// may keep busy: docs/THREADING.md) and ends with the wait.
    ///
    /// A `TaskGroup<Void>`, not a discarding group: before swiftlang/swift#81814 (May 2025; Swift
    /// 6.0 and 6.1 have the bug) a discarding group's wait for its children wrote the body's result
    /// type into a buffer of the children's (Void) size, past it into the waiting task's allocator:
    /// a client built with Debian's Swift 6.0.3 crashed now and then ("free(): invalid pointer").
    package static func wait(
        timeoutMillis: Int64?, clock: any WallClock = SystemClock(),
        timedOut: @escaping @Sendable () -> Value, cancelled: @escaping @Sendable () -> Value,
        _ start: (AnswerOnce<Value>) -> Void
    ) async -> Value {
        guard let timeoutMillis else { return await outcome(cancelled: cancelled, start) }
        return await withTaskGroup(of: Void.self, returning: Value.self) { timers in
            let timer = Timer()
            timers.addTask {
                await clock.sleep(millis: timeoutMillis)
                if !Task.isCancelled { timer.fire(timedOut()) }
            }
            let value = await outcome(cancelled: cancelled) { slot in
                timer.arm(slot)
                start(slot)
            }
            timers.cancelAll()  // the answer came first: the timer's sleep ends now
            return value
        }
    }

    private static func outcome(cancelled: @escaping @Sendable () -> Value, _ start: (AnswerOnce<Value>) -> Void) async -> Value {
        let pending = Locked<AnswerOnce<Value>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let slot = AnswerOnce { continuation.resume(returning: $0) }
                pending.withLock { $0 = slot }
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

    /// The timeout of one wait: the timer may fire before the slot exists (a timeout of 0 on a
    /// slow start), then the slot ends as soon as it is armed.
    private final class Timer: Sendable {
        private let state = Locked<(slot: AnswerOnce<Value>?, fired: Value?)>((nil, nil))

        func arm(_ slot: AnswerOnce<Value>) {
            let fired = state.withLock { state -> Value? in
                state.slot = slot
                return state.fired
            }
            if let fired { slot.finish(fired, .timedOut) }
        }

        func fire(_ value: Value) {
            let slot = state.withLock { state -> AnswerOnce<Value>? in
                if state.slot == nil { state.fired = value }
                return state.slot
            }
            slot?.finish(value, .timedOut)
        }
    }
}
