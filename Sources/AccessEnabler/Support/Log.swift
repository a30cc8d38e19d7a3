// SPDX-License-Identifier: Apache-2.0
import CSystem
import Glibc

/// Log levels; the values are the header's AE_LOG_*.
public enum LogLevel: Int32, Sendable, Comparable {
    case error = 0, warning = 1, info = 2, debug = 3
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The host's log sink. Calls are serialized (one at a time, in order) and made with no lock of
/// the SDK held, so the sink may call any SDK function, also ones that log: a message logged while
/// the sink runs (by the sink itself or by another thread) is queued and delivered by the thread
/// already delivering, once the sink returns; one logged by a thread that holds a lock (Locked)
/// is queued and delivered when that thread's last lock is released. Messages never carry secrets: callers log ids,
/// codes and sizes, never credentials, tokens, attributes or SAML. Once `close` returns (the
/// client is destroyed), the sink is never called again.
package final class Logger: Sendable {
    package typealias Sink = @Sendable (LogLevel, String) -> Void
    private struct State {
        var queue: [(LogLevel, String)] = []
        var delivering = false
        var dropped = 0
        var closed = false
        /// The thread delivering, while `delivering`.
        var deliverer: pthread_t?
    }

    /// Messages waiting while the sink is slow; beyond this the newest are counted, not kept.
    private static let maxQueued = 10_000
    private let sink: Sink?
    private let maxLevel: LogLevel
    private let state = Locked(State())

    package init(maxLevel: LogLevel, sink: Sink?) {
        self.maxLevel = maxLevel
        self.sink = sink
    }

    package static let silent = Logger(maxLevel: .error, sink: nil)

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard sink != nil, level <= maxLevel else { return }
        let text = message()
        // A thread that holds one of the library's locks (Locked) only queues the line: the lock's
        // last release on this thread delivers it (deliverDeferred), so the sink never runs under a
        // lock that a call it makes would take again (issue 28: a sink calling ae_* hung for good).
        let held = csystem_lock_depth() > 0
        let deliver = state.withLock { state -> Bool in
            if state.closed { return false }
            if state.queue.count < Self.maxQueued { state.queue.append((level, text)) } else { state.dropped += 1 }
            if state.delivering || held { return false }
            state.delivering = true
            state.deliverer = pthread_self()
            return true
        }
        if held {
            Self.deferOnThisThread(self)
        } else if deliver {
            deliverQueued()
        }
    }

    /// Delivers the queued lines on this thread, which took the delivering role (`state.delivering`),
    /// until the queue is empty or the logger is closed; the lock is never held while the sink runs.
    private func deliverQueued() {
        guard let sink else { return }
        while true {
            let (batch, dropped) = state.withLock { state -> ([(LogLevel, String)], Int) in
                defer {
                    state.queue = []
                    state.dropped = 0
                }
                if state.closed || (state.queue.isEmpty && state.dropped == 0) {
                    state.delivering = false
                    state.deliverer = nil
                    return ([], 0)
                }
                return (state.queue, state.dropped)
            }
            if batch.isEmpty && dropped == 0 { return }
            for (level, text) in batch where !state.withLock({ $0.closed }) { sink(level, text) }
            if dropped > 0 && !state.withLock({ $0.closed }) {
                sink(.warning, "\(dropped) log messages were dropped (the log sink is slower than the SDK)")
            }
        }
    }

    /// Delivers the queued lines of a logger whose line was deferred, unless another thread is
    /// delivering (it takes them).
    private func deliverIfIdle() {
        let deliver = state.withLock { state -> Bool in
            if state.closed || state.delivering || (state.queue.isEmpty && state.dropped == 0) { return false }
            state.delivering = true
            state.deliverer = pthread_self()
            return true
        }
        if deliver { deliverQueued() }
    }

    /// The loggers with lines queued while this thread held a lock (the thread's list in CSystem).
    private final class Deferred {
        var loggers: [Logger] = []
    }

    private static func deferOnThisThread(_ logger: Logger) {
        let list: Deferred
        if let raw = csystem_deferred_logs() {
            list = Unmanaged<Deferred>.fromOpaque(raw).takeUnretainedValue()
        } else {
            list = Deferred()
            csystem_set_deferred_logs(Unmanaged.passRetained(list).toOpaque())
        }
        if !list.loggers.contains(where: { $0 === logger }) { list.loggers.append(logger) }
    }

    /// Called by Locked when this thread released its last lock and lines were deferred meanwhile
    /// (`raw`: the thread's list, now this call's to release).
    package static func deliverDeferred(_ raw: UnsafeMutableRawPointer) {
        let list = Unmanaged<Deferred>.fromOpaque(raw).takeRetainedValue()
        for logger in list.loggers { logger.deliverIfIdle() }
    }

    /// Stops the sink for good (ae_client_destroy): messages queued or logged later are dropped, and
    /// a message another thread is delivering finishes before this returns. From inside the sink
    /// (a sink that destroys its client) the sink's own call is not waited for: it ends when the
    /// sink returns, with nothing delivered after it.
    package func close() {
        let wait = state.withLock { state -> Bool in
            state.closed = true
            state.queue = []
            state.dropped = 0
            guard state.delivering, let deliverer = state.deliverer else { return false }
            return pthread_equal(deliverer, pthread_self()) == 0
        }
        guard wait else { return }
        while state.withLock({ $0.delivering }) { usleep(200) }
    }

    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
