// SPDX-License-Identifier: Apache-2.0
import CCurl
import Glibc

/// The one thread a client's engine and its requests run on (docs/THREADING.md).
///
/// The engine actor uses it as its serial executor and every task the engine starts prefers it
/// as its task executor, so a call is one wake-up of this thread: the engine's step, the request
/// and the answer's step all run here, with no hand-off to Swift's cooperative pool in between.
/// With libcurl (`CurlTransport`) this thread is the network thread: its loop runs the jobs
/// between `curl_multi_perform` and `curl_multi_poll` and is woken by `curl_multi_wakeup`. With
/// a host transport or a test's transport the executor starts a thread of its own.
///
/// The thread outlives the transport: after destroy it keeps running the jobs of tasks that are
/// winding down (cancelled waits, late replies), and ends when the executor is released, that is
/// when the engine and every task that holds it are gone.
package final class ClientExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    package let mailbox = JobMailbox()

    /// `ownThread` false: a network loop runs the jobs (`JobMailbox.drive`), as CurlTransport's does.
    package init(ownThread: Bool) {
        mailbox.executors = (asUnownedSerialExecutor(), asUnownedTaskExecutor())
        if ownThread { mailbox.startThread() }
    }

    deinit { mailbox.close() }

    package func enqueue(_ job: consuming ExecutorJob) { mailbox.post(UnownedJob(job)) }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// `assumeIsolated` and friends: true on the thread that runs the jobs.
    package func checkIsolated() {
        precondition(mailbox.isRunnerThread, "not on the client's engine thread")
    }
}

/// The jobs of a `ClientExecutor`, in the order they were posted, and the thread that runs them.
package final class JobMailbox: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var jobs: [UnownedJob] = []
    private var closed = false
    /// How to wake the loop that runs the jobs while a network loop drives them (nil: the condition).
    private var wake: (() -> Void)?
    private var runner = pthread_t()
    private var hasRunner = false
    /// Set once by the executor before any job is posted (unowned: the executor owns this mailbox).
    fileprivate var executors: (serial: UnownedSerialExecutor, task: UnownedTaskExecutor)?

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    var isRunnerThread: Bool {
        locked { hasRunner && pthread_equal(runner, pthread_self()) != 0 }
    }

    fileprivate func post(_ job: UnownedJob) {
        pthread_mutex_lock(&mutex)
        if closed {
            pthread_mutex_unlock(&mutex)
            return
        }
        jobs.append(job)
        pthread_cond_signal(&condition)
        // The loop drains what its own jobs post before it waits: no wake-up for those.
        let onRunner = hasRunner && pthread_equal(runner, pthread_self()) != 0
        let wake = onRunner ? nil : self.wake
        pthread_mutex_unlock(&mutex)
        wake?()
    }

    /// A network loop will run the jobs (`becomeRunner`, then `runPending` in its loop); `wake`
    /// interrupts its wait.
    package func drive(wake: @escaping () -> Void) {
        locked { self.wake = wake }
    }

    /// The calling thread runs the jobs from now on.
    package func becomeRunner() {
        locked {
            runner = pthread_self()
            hasRunner = true
        }
    }

    /// The network loop stops driving (its transport shut down); the thread goes on with
    /// `runUntilClosed()`. Wakes `waitUntilUndriven()`.
    package func stopDriving() {
        locked {
            wake = nil
            pthread_cond_broadcast(&condition)
        }
    }

    /// Waits until the network loop called `stopDriving()` (the transport's shutdown).
    package func waitUntilUndriven() {
        locked {
            while wake != nil { pthread_cond_wait(&condition, &mutex) }
        }
    }

    /// Runs what is posted, and what those jobs post, until nothing is left (on the runner thread).
    package func runPending() {
        while true {
            let batch = locked { () -> [UnownedJob] in
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }

    /// Runs jobs as they come until the executor is released (on the runner thread).
    package func runUntilClosed() {
        becomeRunner()
        while true {
            let batch = locked { () -> [UnownedJob]? in
                while jobs.isEmpty && !closed { pthread_cond_wait(&condition, &mutex) }
                if closed { return nil }  // no task holds the executor any more: nothing can be posted
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            guard let batch else { return }
            run(batch)
        }
    }

    /// Runs the jobs on a thread of its own (`runUntilClosed`).
    package func startThread() {
        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let started =
            pthread_create(
                &thread, nil,
                { raw in
                    let mailbox = Unmanaged<JobMailbox>.fromOpaque(raw!).takeRetainedValue()
                    mailbox.runUntilClosed()
                    return nil
                }, retained.toOpaque()) == 0
        if started {
            pthread_detach(thread)
        } else {
            retained.release()
        }
    }

    fileprivate func close() {
        locked {
            closed = true
            jobs.removeAll()
            pthread_cond_broadcast(&condition)
        }
    }

    private func run(_ batch: [UnownedJob]) {
        guard let executors else { return }
        // At process exit (the exit gate closed, ccurl.h) the engine's thread stops here for good:
        // no job starts while OpenSSL may be cleaning up.
        guard ccurl_work_begin() != 0 else { ccurl_park() }
        defer { ccurl_work_end() }
        for job in batch { job.runSynchronously(isolatedTo: executors.serial, taskExecutor: executors.task) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
