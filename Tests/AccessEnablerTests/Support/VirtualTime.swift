// SPDX-License-Identifier: Apache-2.0
import AccessEnablerTesting
import Foundation
import Testing

/// Waits (real time, bounded) until `clock` has `count` sleepers: the task under test reached its sleep.
/// The bound is generous: under ThreadSanitizer, with the CPU-heavy suites (the state machines'
/// every-state tests) holding both threads of Swift's cooperative pool, a task took more than 5 s to
/// start; a test that then advanced the clock before the sleep began waited forever for a sleeper
/// that had missed its deadline (sanitizers.sh's swift test hung until its timeout).
func untilSleeping(_ clock: ManualClock, _ count: Int = 1) async {
    let deadline = Date().addingTimeInterval(60)
    while clock.sleeping < count && Date() < deadline { try? await Task.sleep(nanoseconds: 1_000_000) }
    #expect(clock.sleeping == count)
}
