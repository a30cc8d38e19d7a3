// SPDX-License-Identifier: Apache-2.0
import CSystem
import Glibc

/// A value behind a pthread mutex. Used for state shared between the host's threads, the
/// callback thread and the network thread (small critical sections, no awaits inside).
///
/// Every lock counts itself in the calling thread's lock depth (CSystem): a line logged while the
/// thread holds any of them waits until it holds none (Logger), so the host's log sink, which may
/// call any ae_* function and so take these locks again, never runs under one of them.
package final class Locked<Value>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    @discardableResult
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        csystem_lock_enter()
        pthread_mutex_lock(&mutex)
        defer {
            pthread_mutex_unlock(&mutex)
            if let deferred = csystem_lock_exit() { Logger.deliverDeferred(deferred) }
        }
        return try body(&value)
    }
}
