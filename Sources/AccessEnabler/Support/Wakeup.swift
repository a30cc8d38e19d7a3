// SPDX-License-Identifier: Apache-2.0

/// A sleep that another task can end early (handleExternalURL asks the second-screen poller to
/// look now). A wake that arrives while nobody sleeps is kept for the next sleep.
final class Wakeup: Sendable {
    private struct State {
        var sleeper: CheckedContinuation<Void, Never>?
        var generation = 0
        var pendingWake = false
    }

    private let state = Locked(State())

    /// Returns after `nanoseconds`, on `wake()`, or when the task is cancelled.
    func sleep(nanoseconds: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let generation = state.withLock { state -> Int? in
                    if state.pendingWake {
                        state.pendingWake = false
                        return nil
                    }
                    state.generation += 1
                    state.sleeper = continuation
                    return state.generation
                }
                guard let generation else {
                    continuation.resume()
                    return
                }
                if Task.isCancelled {
                    resume(generation: generation)
                    return
                }
                Task {
                    try? await Task.sleep(nanoseconds: nanoseconds)
                    self.resume(generation: generation)
                }
            }
        } onCancel: {
            resume(generation: nil)
        }
    }

    func wake() {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let sleeper = state.sleeper else {
                state.pendingWake = true
                return nil
            }
            state.sleeper = nil
            return sleeper
        }
        sleeper?.resume()
    }

    /// Ends the current sleep if it is still `generation` (nil: whichever).
    private func resume(generation: Int?) {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard generation == nil || generation == state.generation else { return nil }
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.resume()
    }
}
