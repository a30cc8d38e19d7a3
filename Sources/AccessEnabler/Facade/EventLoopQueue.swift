// SPDX-License-Identifier: Apache-2.0
import CSystem
import Glibc

/// Event-loop mode: callbacks wait in a queue; an eventfd is readable while it is not empty, and
/// the host runs them on its own thread with `dispatch()` (glib, libuv, epoll, a poll() loop).
final class EventLoopQueue: CallbackRunner, @unchecked Sendable {
    let fileDescriptor: Int32
    private var mutex = pthread_mutex_t()
    /// Held while a dispatch runs callbacks; close() takes it to wait for a running dispatch.
    private var running = pthread_mutex_t()
    /// Queued callbacks are `items[head...]`: taken from the front in O(1) (the array is compacted
    /// when the taken part is most of it), so a dispatch is linear in what it runs (issue 28: a
    /// `removeFirst` per callback made 160,000 queued callbacks take 5.8 s).
    private var items: [() -> Void] = []
    private var head = 0
    private var closed = false
    private var dispatcher: pthread_t?

    init?() {
        fileDescriptor = csystem_eventfd()
        guard fileDescriptor >= 0 else { return nil }
        pthread_mutex_init(&mutex, nil)
        pthread_mutex_init(&running, nil)
    }

    deinit {
        Glibc.close(fileDescriptor)
        pthread_mutex_destroy(&running)
        pthread_mutex_destroy(&mutex)
    }

    func enqueue(_ item: @escaping () -> Void) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard !closed else { return }
        items.append(item)
        if items.count - head == 1 { signal() }
    }

    /// The most callbacks one dispatch runs (the header's AE_DISPATCH_MAX_CALLBACKS), as libuv bounds
    /// a loop iteration: a host's loop gets back control after at most this many, and the
    /// descriptor stays readable while more wait.
    static let maxPerDispatch = 1_000

    private func signal() {
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
    }

    /// Runs the callbacks queued now, at most `maxPerDispatch` of them; returns how many ran. A dispatch already running (on
    /// another thread, or this one: a callback calling dispatch) makes it return 0 at once.
    func dispatch() -> Int {
        guard pthread_mutex_trylock(&running) == 0 else { return 0 }
        defer { pthread_mutex_unlock(&running) }
        pthread_mutex_lock(&mutex)
        var count: UInt64 = 0
        _ = read(fileDescriptor, &count, 8)  // clear readiness; enqueue sets it again
        let end = min(items.count, head + Self.maxPerDispatch)
        let batch = items[head..<end]
        head = end
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 4 * Self.maxPerDispatch)
            head = 0
        } else {
            if head >= Self.maxPerDispatch && head * 2 >= items.count {
                items.removeFirst(head)  // linear, at most once per half of the queue taken
                head = 0
            }
            signal()  // more wait beyond this dispatch's bound: still readable
        }
        dispatcher = pthread_self()
        pthread_mutex_unlock(&mutex)
        var ran = 0
        for item in batch {
            if withLock({ closed }) { break }
            item()
            ran += 1
        }
        withLock { dispatcher = nil }
        return ran
    }

    func close() {
        let onDispatchingThread = withLock { () -> Bool in
            closed = true
            items.removeAll()
            head = 0
            return dispatcher.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        guard !onDispatchingThread else { return }  // the dispatch stops after this callback
        pthread_mutex_lock(&running)  // wait for a dispatch running on another thread
        pthread_mutex_unlock(&running)
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
