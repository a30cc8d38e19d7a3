// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Wall-clock time in milliseconds since the Unix epoch. Injected so tests can move time.
package protocol WallClock: Sendable {
    func nowMillis() -> Int64
    /// Waits `millis` of this clock's time; returns early when the task is cancelled. Timers of
    /// the flows (polling, retries, backoff) sleep here, so tests run them on virtual time.
    func sleep(millis: Int64) async
}

extension WallClock {
    package func sleep(millis: Int64) async {
        guard millis > 0 else { return }
        try? await Task.sleep(nanoseconds: Limits.nanoseconds(millis: millis))
    }
}

package struct SystemClock: WallClock {
    package init() {}
    package func nowMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// Monotonic nanoseconds, for pacing and timeouts (never jumps with the wall clock).
package func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
