// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where callbacks run: the client's callback thread, or the host's event loop.
protocol CallbackRunner: AnyObject, Sendable {
    func enqueue(_ item: @escaping () -> Void)
    /// Drops what is queued; after it returns no callback runs (unless called from a callback,
    /// which then finishes first).
    func close()
}

/// One thread per client that runs callbacks one at a time, in the order they were queued.
/// `close()` drops what is still queued and, unless called on this thread, waits until the
/// callback that may be running has returned: after it, no callback runs.
final class CallbackQueue: CallbackRunner, @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var items: [() -> Void] = []
    private var head = 0
    private var closed = false
    private var thread = pthread_t()
    private var threadStarted = false

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        let retained = Unmanaged.passRetained(self)
        threadStarted =
            pthread_create(
                &thread, nil,
                { raw in
                    let queue = Unmanaged<CallbackQueue>.fromOpaque(raw!).takeRetainedValue()
                    queue.run()
                    return nil
                }, retained.toOpaque()) == 0
        if !threadStarted { retained.release() }
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// True on the callback thread (a callback is calling back into the SDK).
    var isCurrentThread: Bool { threadStarted && pthread_equal(pthread_self(), thread) != 0 }

    func enqueue(_ item: @escaping () -> Void) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard !closed else { return }
        items.append(item)
        pthread_cond_signal(&condition)
    }

    func close() {
        pthread_mutex_lock(&mutex)
        let wasOpen = !closed
        closed = true
        items.removeAll()
        head = 0
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
        guard wasOpen, threadStarted else { return }
        if isCurrentThread {
            pthread_detach(thread)  // destroy from inside a callback: the thread ends when it returns
        } else {
            pthread_join(thread, nil)
        }
    }

    private func run() {
        while true {
            pthread_mutex_lock(&mutex)
            while !closed && head == items.count { pthread_cond_wait(&condition, &mutex) }
            if closed {
                pthread_mutex_unlock(&mutex)
                return
            }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            pthread_mutex_unlock(&mutex)
            item()
        }
    }
}
