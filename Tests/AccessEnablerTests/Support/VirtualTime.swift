// SPDX-License-Identifier: Apache-2.0
import AccessEnablerTesting
import Foundation
import Testing

/// Waits (real time, bounded) until `clock` has `count` sleepers: the task under test reached its sleep.
func untilSleeping(_ clock: ManualClock, _ count: Int = 1) async {
    let deadline = Date().addingTimeInterval(5)
    while clock.sleeping < count && Date() < deadline { try? await Task.sleep(nanoseconds: 1_000_000) }
    #expect(clock.sleeping == count)
}
