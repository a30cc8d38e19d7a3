// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// The one-shot reply slot (partner requests, host HTTP requests, wake-ups), on virtual time.
@Suite struct AnswerOnceTests {
    @Test func theFirstOutcomeWinsAndLateAnswersAreReported() {
        let delivered = Locked<[Int]>([])
        let finished = Locked(0)
        let slot = AnswerOnce<Int> { value in delivered.withLock { $0.append(value) } }
        slot.whenFinished { finished.withLock { $0 += 1 } }
        #expect(slot.isPending && slot.ending == nil)
        #expect(slot.answer(1))
        #expect(!slot.answer(2))  // late: ignored, and the caller is told
        #expect(!slot.abandon(3))
        #expect(delivered.withLock { $0 } == [1])
        #expect(finished.withLock { $0 } == 1 && slot.ending == .answered && !slot.isPending)
        slot.whenFinished { finished.withLock { $0 += 1 } }  // already over: runs at once
        #expect(finished.withLock { $0 } == 2)
    }

    @Test func theTimeoutSleepsOnTheClockAndTellsTheOtherSide() async {
        let clock = ManualClock(0)
        let cancelled = Locked(0)
        let waiting = Task {
            await AnswerOnce<String>.wait(timeoutMillis: 10_000, clock: clock, timedOut: { "timeout" }, cancelled: { "cancelled" }) {
                $0.onCancel { cancelled.withLock { $0 += 1 } }
            }
        }
        await untilSleeping(clock)
        clock.advance(9_999)
        #expect(clock.sleeping == 1)
        clock.advance(1)
        #expect(await waiting.value == "timeout")
        #expect(cancelled.withLock { $0 } == 1)
    }

    @Test func anAnswerStopsTheTimerAndIsNeverACancellation() async {
        let clock = ManualClock(0)
        let cancelled = Locked(0)
        let held = Locked<AnswerOnce<String>?>(nil)
        let waiting = Task {
            await AnswerOnce<String>.wait(timeoutMillis: 10_000, clock: clock, timedOut: { "timeout" }, cancelled: { "cancelled" }) {
                slot in
                slot.onCancel { cancelled.withLock { $0 += 1 } }
                held.withLock { $0 = slot }
            }
        }
        await untilSleeping(clock)
        #expect(held.withLock { $0 }?.answer("answer") == true)
        #expect(await waiting.value == "answer")
        await untilSleeping(clock, 0)  // the timer's sleep was cancelled
        #expect(cancelled.withLock { $0 } == 0)
    }

    @Test func cancellingTheWaitingTaskAbandonsTheSlot() async {
        let clock = ManualClock(0)
        let cancelled = Locked(0)
        let started = Locked(0)
        let waiting = Task {
            await AnswerOnce<String>.wait(timeoutMillis: nil, clock: clock, timedOut: { "timeout" }, cancelled: { "cancelled" }) {
                started.withLock { $0 += 1 }
                $0.onCancel { cancelled.withLock { $0 += 1 } }
            }
        }
        while started.withLock({ $0 }) == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
        waiting.cancel()
        #expect(await waiting.value == "cancelled")
        #expect(cancelled.withLock { $0 } == 1)
        // Already cancelled: the request is not even started.
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await AnswerOnce<String>.wait(
                timeoutMillis: 5, clock: clock, timedOut: { "timeout" },
                cancelled: { "cancelled" }
            ) { _ in started.withLock { $0 += 1 } }
        }
        #expect(await late.value == "cancelled")
        #expect(started.withLock { $0 } == 1)
    }

    @Test func answersFromManyThreadsDeliverOnce() async {
        let delivered = Locked(0)
        let accepted = Locked(0)
        let slot = AnswerOnce<Int> { _ in delivered.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 { group.addTask { if slot.answer(index) { accepted.withLock { $0 += 1 } } } }
        }
        #expect(delivered.withLock { $0 } == 1 && accepted.withLock { $0 } == 1)
    }

    @Test func aPartnerRequestTimesOutOnTheClock() async {
        let clock = ManualClock(0)
        let told = Locked(0)
        let asking = Task {
            await Engine.ask(timeoutMillis: 60_000, clock: clock) { (reply: PartnerReply<PartnerAccess>) in
                reply.onCancel { told.withLock { $0 += 1 } }
            }
        }
        await untilSleeping(clock)
        clock.advance(60_000)
        guard case .failure(let error) = await asking.value else {
            Issue.record("answered")
            return
        }
        #expect(error.code == .timeout && told.withLock { $0 } == 1)
    }
}
