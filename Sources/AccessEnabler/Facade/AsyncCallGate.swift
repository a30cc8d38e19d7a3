// SPDX-License-Identifier: Apache-2.0

/// Orders the async calls of one client (`AsyncAccessEnabler`). Calls whose answer names what it
/// answers (checkAuthorization, getAuthorization, getMetadata, preauthorize) run side by side
/// (`shared`). Calls that wait for a callback any flow may send (setRequestor, checkAuthentication,
/// getAuthentication, logout) run alone (`exclusive`): after the calls in progress, before the
/// ones that come later. First come, first served; a cancelled task leaves the line.
///
/// A call made from inside another one's work (getAuthentication's `selectProvider` closure, say)
/// runs at once when it is shared, and is refused when it is exclusive: it would wait for the
/// call it is part of.
final class AsyncCallGate: @unchecked Sendable {
    enum Access { case shared, exclusive }

    private struct Waiter {
        let id: Int
        let access: Access
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var shared = 0
        var exclusive = false
        var line: [Waiter] = []
        var nextID = 0
    }

    /// The gate the current task holds (set while a call runs, inherited by its child tasks).
    @TaskLocal private static var held: ObjectIdentifier?

    private let state = Locked(State())

    func run<T: Sendable>(_ access: Access, _ name: String, _ body: () async throws -> T) async throws -> T {
        if Self.held == ObjectIdentifier(self) {
            guard access == .shared else {
                throw AccessEnablerError.invalidArgument("\(name) cannot run inside another async call of this client")
            }
            return try await body()
        }
        try await acquire(access)
        defer { release(access) }
        return try await Self.$held.withValue(ObjectIdentifier(self)) { try await body() }
    }

    private func acquire(_ access: Access) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let granted = state.withLock { state -> Bool in
                    if state.line.isEmpty && Self.fits(access, state) {
                        Self.take(access, &state)
                        return true
                    }
                    state.line.append(Waiter(id: id, access: access, continuation: continuation))
                    return false
                }
                if granted { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.line.firstIndex(where: { $0.id == id }) else { return nil }
                return state.line.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
            grantWaiting()  // the line may have been waiting behind it
        }
    }

    private func release(_ access: Access) {
        state.withLock { state in
            if access == .shared { state.shared -= 1 } else { state.exclusive = false }
        }
        grantWaiting()
    }

    private func grantWaiting() {
        let granted = state.withLock { state -> [Waiter] in
            var granted: [Waiter] = []
            while let first = state.line.first, Self.fits(first.access, state) {
                state.line.removeFirst()
                Self.take(first.access, &state)
                granted.append(first)
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }

    private static func fits(_ access: Access, _ state: State) -> Bool {
        access == .shared ? !state.exclusive : !state.exclusive && state.shared == 0
    }

    private static func take(_ access: Access, _ state: inout State) {
        if access == .shared { state.shared += 1 } else { state.exclusive = true }
    }
}
