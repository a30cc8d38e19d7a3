// SPDX-License-Identifier: Apache-2.0

/// A sleep that another task can end early (handleExternalURL asks the second-screen poller to
/// look now). A wake that arrives while nobody sleeps is kept for the next sleep. Each sleep is a
/// one-shot slot (`AnswerOnce`): `wake()` answers it, its timeout ends it on `clock`'s time.
final class Wakeup: Sendable {
    private struct State {
        var sleeper: AnswerOnce<Void>?
        var pendingWake = false
    }

    private let state = Locked(State())
    private let clock: any WallClock

    init(clock: any WallClock = SystemClock()) { self.clock = clock }

    /// Returns after `millis` of the clock's time, on `wake()`, or when the task is cancelled.
    func sleep(millis: Int64) async {
        await AnswerOnce<Void>.wait(timeoutMillis: millis, clock: clock, timedOut: {}, cancelled: {}) { slot in
            let woken = state.withLock { state -> Bool in
                if state.pendingWake {
                    state.pendingWake = false
                    return true
                }
                state.sleeper = slot
                return false
            }
            if woken { slot.answer(()) }
        }
    }

    /// `sleep(millis:)` for a duration in nanoseconds (rounded up to a millisecond).
    func sleep(nanoseconds: UInt64) async {
        await sleep(millis: Limits.millis(roundingUp: nanoseconds))
    }

    /// Ends the current sleep, or the next one if none is under way (or the current one is
    /// already ending on its own).
    func wake() {
        let sleeper = state.withLock { state -> AnswerOnce<Void>? in
            defer { state.sleeper = nil }
            if state.sleeper == nil { state.pendingWake = true }
            return state.sleeper
        }
        if let sleeper, !sleeper.answer(()) { state.withLock { $0.pendingWake = true } }
    }
}
