// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Dispatch
import Foundation
import Testing

/// Swift's cooperative pool made unavailable, as a host that blocks its pool threads (or keeps
/// them busy) makes it: the SDK must go on without it (PoolIndependenceTests).
enum CooperativePool {
    /// Runs `body` on the calling pool thread while tasks block every other thread of the pool,
    /// then frees them. Records an issue when a task got a pool thread meanwhile: the pool was not
    /// full, and the test proved nothing.
    static func withAllThreadsBlocked(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) rethrows {
        let width = ProcessInfo.processInfo.activeProcessorCount
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<width {
            Task.detached {
                started.signal()
                release.wait()
            }
        }
        // The caller's thread is one of the pool's: width - 1 blockers fill the rest (the last
        // one waits in the queue, behind the probe's turn).
        var blockers = 0
        while blockers < width - 1, started.wait(timeout: .now() + 5) == .success { blockers += 1 }
        let probe = Locked(false)
        Task.detached { probe.withLock { $0 = true } }
        defer { for _ in 0..<width { release.signal() } }
        try body()
        if probe.withLock({ $0 }) {
            Issue.record(
                Comment(rawValue: "the pool was not full (\(blockers) blockers): nothing was proven"),
                sourceLocation: sourceLocation)
        }
    }
}
