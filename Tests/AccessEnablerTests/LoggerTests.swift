// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Glibc
import Testing

// The host's log sink: never re-entered, serialized across threads, never called once the client
// is destroyed (Logger.close).
@Suite struct LoggerReentrancyTests {
    @Test func aSinkThatLogsIsCalledAfterItReturnsNeverInside() {
        let depth = Locked(0)
        let seen = Locked<[String]>([])
        let logger = Locked<Logger?>(nil)
        let sink: Logger.Sink = { _, message in
            let nested = depth.withLock {
                $0 += 1; return $0
            }
            #expect(nested == 1)  // never re-entered
            seen.withLock { $0.append(message) }
            if message.hasPrefix("outer") { logger.withLock { $0 }?.info("inner of \(message)") }
            depth.withLock { $0 -= 1 }
        }
        let instance = Logger(maxLevel: .debug, sink: sink)
        logger.withLock { $0 = instance }
        instance.info("outer 1")
        #expect(seen.withLock { $0 } == ["outer 1", "inner of outer 1"])
    }

    @Test func manyThreadsLoggingThroughASinkThatLogsFinishInOrderPerThread() async {
        let count = Locked(0)
        let holder = Locked<Logger?>(nil)
        let instance = Logger(maxLevel: .debug) { _, message in
            count.withLock { $0 += 1 }
            if message.hasSuffix("!") { holder.withLock { $0 }?.debug(String(message.dropLast())) }
        }
        holder.withLock { $0 = instance }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask { for index in 0..<200 { instance.info("\(thread)-\(index)!") } }
            }
        }
        #expect(count.withLock { $0 } == 8 * 200 * 2)
    }
}

/// After `close` (ae_client_destroy) the sink is never called, also for messages queued or being
/// logged on other threads; a sink that closes its logger from inside does not deadlock.
@Suite struct LoggerCloseTests {
    @Test func nothingReachesTheSinkOnceCloseReturns() async {
        let calls = Locked(0)
        let closed = Locked(false)
        let late = Locked(0)
        let logger = Logger(maxLevel: .debug) { _, _ in
            calls.withLock { $0 += 1 }
            if closed.withLock({ $0 }) { late.withLock { $0 += 1 } }
            usleep(50)
        }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask { for index in 0..<300 { logger.info("\(thread)-\(index)") } }
            }
            group.addTask {
                usleep(2_000)
                logger.close()
                closed.withLock { $0 = true }
            }
        }
        logger.info("after close")
        #expect(late.withLock { $0 } == 0)
        #expect(calls.withLock { $0 } > 0)
    }

    @Test func aSinkThatClosesItsLoggerReturnsAndNothingFollows() {
        let seen = Locked<[String]>([])
        let holder = Locked<Logger?>(nil)
        let logger = Logger(maxLevel: .debug) { _, message in
            seen.withLock { $0.append(message) }
            if message == "close" {
                holder.withLock { $0 }?.close()
                holder.withLock { $0 }?.info("from the sink, after close")
            }
        }
        holder.withLock { $0 = logger }
        logger.info("close")
        logger.info("later")
        #expect(seen.withLock { $0 } == ["close"])
    }
}

/// A line logged while the thread holds one of the library's locks (Locked) reaches the sink once
/// the thread holds none (issue 28 item 3: a sink calling ae_* waited for good on the lock its own
/// line was logged under: a sealed profile row refused while the facade held its submit lock).
@Suite struct LoggerUnderLockTests {
    /// Runs `body` on a thread of its own; false when it did not end within `seconds` (a deadlock:
    /// the thread is left behind, blocked).
    static func endsInTime(seconds: Int = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = Locked(false)
        let thread = Thread {
            body()
            done.withLock { $0 = true }
        }
        thread.start()
        for _ in 0..<(seconds * 100) where !done.withLock({ $0 }) { usleep(10_000) }
        return done.withLock { $0 }
    }

    @Test func aSinkThatTakesTheLockItsLineWasLoggedUnderRunsAfterTheLockIsReleased() {
        let shared = Locked<[String]>([])
        let holder = Locked<Logger?>(nil)
        let logger = Logger(maxLevel: .debug) { _, message in
            // What a sink calling ae_* does: take the library's locks, the one held when logging too.
            shared.withLock { $0.append("sink: \(message)") }
            _ = holder
        }
        holder.withLock { $0 = logger }
        let ended = Self.endsInTime {
            shared.withLock { lines in
                logger.error("refused row")  // under `shared`: the sink must wait for its release
                lines.append("after the log call, lock still held")
            }
        }
        #expect(ended, "the sink ran under the lock and waited for it (deadlock)")
        #expect(shared.withLock { $0 } == ["after the log call, lock still held", "sink: refused row"])
    }

    @Test func nestedLocksDeliverOnceTheOutermostIsReleasedInOrder() {
        let outer = Locked(0)
        let inner = Locked(0)
        let seen = Locked<[String]>([])
        let logger = Logger(maxLevel: .debug) { _, message in
            outer.withLock { _ in inner.withLock { _ in seen.withLock { $0.append(message) } } }
        }
        let ended = Self.endsInTime {
            outer.withLock { _ in
                logger.info("one")
                inner.withLock { _ in logger.info("two") }
                #expect(seen.withLock { $0 }.isEmpty)  // nothing while a lock is held
                logger.info("three")
            }
            logger.info("four")  // no lock held: at once
        }
        #expect(ended)
        #expect(seen.withLock { $0 } == ["one", "two", "three", "four"])
    }

    @Test func aLoggerClosedWhileItsLineWaitsForTheLockDeliversNothing() {
        let lock = Locked(0)
        let seen = Locked(0)
        let logger = Logger(maxLevel: .debug) { _, _ in seen.withLock { $0 += 1 } }
        lock.withLock { _ in
            logger.error("queued under the lock")
            logger.close()
        }
        #expect(seen.withLock { $0 } == 0)
    }
}
