// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
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
