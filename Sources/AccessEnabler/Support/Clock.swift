// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Wall-clock time in milliseconds since the Unix epoch. Injected so tests can move time.
package protocol WallClock: Sendable {
    func nowMillis() -> Int64
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
func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
