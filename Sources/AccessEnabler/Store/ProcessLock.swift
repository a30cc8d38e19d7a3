// SPDX-License-Identifier: Apache-2.0
import Glibc

/// An advisory lock between the app's processes: flock(2) on `<store>.lock`. The kernel releases
/// it when the holder closes it or dies (even by SIGKILL), so a crash never leaves it stuck.
/// Used around client registration, so processes starting together register the app once.
package final class ProcessLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Waits (polling, never blocking a thread) up to `timeoutMillis` for the lock; nil when it
    /// cannot be had (the caller goes on without it: a duplicate registration is harmless,
    /// a stuck call is not).
    package static func acquire(path: String, timeoutMillis: Int) async -> ProcessLock? {
        // NOFOLLOW: a symbolic link in place of the lock file is not followed (nil, as any lock not had).
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        // Another user's file (made after create checked it): never waited for, whoever holds it.
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            close(descriptor)
            return nil
        }
        let deadline = monotonicNanos() + Limits.nanoseconds(millis: timeoutMillis)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, monotonicNanos() < deadline, !Task.isCancelled else {
                close(descriptor)
                return nil
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return ProcessLock(descriptor: descriptor)
    }
}
