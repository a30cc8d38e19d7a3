// SPDX-License-Identifier: Apache-2.0
import AccessEnabler
import Foundation

/// A wall clock the test moves: `sleep` returns when `advance` reaches its deadline (or the
/// sleeping task is cancelled), so polling, backoff, expiry and TTLs run on virtual time.
/// With `realSleeps`, the clock only reads wrong (a box at 1970): its time stands still while
/// sleeps take real time.
package final class ManualClock: WallClock, @unchecked Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Int64
        let continuation: CheckedContinuation<Void, Never>
    }

    private let lock = NSLock()
    private var now: Int64
    private var sleepers: [Sleeper] = []
    private var nextID = 0
    private let realSleeps: Bool

    package init(_ now: Int64 = Int64(Date().timeIntervalSince1970 * 1000), realSleeps: Bool = false) {
        self.now = now
        self.realSleeps = realSleeps
    }

    package func nowMillis() -> Int64 { lock.lock(); defer { lock.unlock() }; return now }

    /// Moves time forward and wakes the sleepers whose deadline it reaches, earliest first.
    package func advance(_ millis: Int64) {
        lock.lock()
        now += millis
        let due = sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
        sleepers.removeAll { $0.deadline <= now }
        lock.unlock()
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The number of tasks sleeping on this clock (a test waits for a flow to reach its sleep).
    package var sleeping: Int { lock.lock(); defer { lock.unlock() }; return sleepers.count }

    package func sleep(millis: Int64) async {
        if realSleeps {
            if millis > 0 { try? await Task.sleep(nanoseconds: UInt64(millis) * 1_000_000) }
            return
        }
        let id = lock.withLock {
            defer { nextID += 1 }
            return nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if millis <= 0 || Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                sleepers.append(Sleeper(id: id, deadline: now + millis, continuation: continuation))
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            let cancelled = sleepers.first { $0.id == id }
            sleepers.removeAll { $0.id == id }
            lock.unlock()
            cancelled?.continuation.resume()
        }
    }
}
