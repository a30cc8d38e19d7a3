// SPDX-License-Identifier: Apache-2.0
// The gate in front of the functions a host gives a client (transport, partner framework, identity
// provider): closed at destroy, after which none of them is called again.
import AccessEnabler
import Glibc

/// Lets the SDK's threads call the host's functions until `close`, and makes `close` wait for the
/// calls running on other threads: once it returns (ae_client_destroy), none of the host's
/// functions behind it runs again (issue 28: a transport's `send` came after destroy had returned).
/// A call made on the closing thread itself (a host that destroys its client inside `send`, or the
/// cancels that destroy makes) is let through and not waited for.
final class HostCalls: Sendable {
    private struct State {
        var closed = false
        /// The threads inside a host function now (one entry per call; calls may nest).
        var inHost: [pthread_t] = []
        /// The thread running `close`, while it does.
        var closer: pthread_t?
    }

    private let state = Locked(State())

    /// Runs `body` (a call of the host's) unless closed; false when it did not run. `cancelling`:
    /// a cancel, which the closing thread still makes (`close`'s `finally`).
    @discardableResult
    func run(cancelling: Bool = false, _ body: () -> Void) -> Bool {
        let me = pthread_self()
        let allowed = state.withLock { state -> Bool in
            if state.closed {
                guard cancelling, let closer = state.closer, pthread_equal(closer, me) != 0 else { return false }
            }
            state.inHost.append(me)
            return true
        }
        guard allowed else { return false }
        defer {
            state.withLock { state in
                if let index = state.inHost.lastIndex(where: { pthread_equal($0, me) != 0 }) { state.inHost.remove(at: index) }
            }
        }
        body()
        return true
    }

    /// Closes the gate: no host function is called from now on; the ones running on other threads
    /// are waited for; then `finally` runs on this thread, whose cancels (`run(cancelling: true)`)
    /// still reach the host. Later calls return at once.
    func close(finally: () -> Void = {}) {
        let me = pthread_self()
        let first = state.withLock { state -> Bool in
            defer {
                state.closed = true
                state.closer = me
            }
            return !state.closed
        }
        guard first else { return }
        while state.withLock({ $0.inHost.contains { pthread_equal($0, me) == 0 } }) { usleep(200) }
        finally()
        state.withLock { $0.closer = nil }
    }
}
