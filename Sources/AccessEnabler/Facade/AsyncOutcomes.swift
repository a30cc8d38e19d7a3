// SPDX-License-Identifier: Apache-2.0

/// Matches AccessEnabler's callbacks to the async calls waiting for them (`AsyncAccessEnabler`).
///
/// The delegate gets no call identifier, so matching uses what the callbacks do carry. Three kinds
/// of call end with exactly one callback that names what it answers:
/// - setRequestor → `setRequestorComplete`, in call order;
/// - checkAuthorization / getAuthorization → `setToken` or `tokenRequestFailed` for that resource;
/// - getMetadata → `setMetadataStatus` with the key object given.
/// (preauthorize has a completion of its own; an async one is only tracked, so that `close` ends it.)
/// Every such call, async or not, takes a place in a first-in first-out line for what answers it
/// (`register`, from the facade's submit, under the lock that orders commands); each of those
/// callbacks ends the oldest place of its line. A place without an async caller (a call of the
/// callback API, or an async caller that was cancelled) just drops its answer, which the delegate
/// gets as always.
///
/// The other calls end with callbacks any flow may send (`setAuthenticationStatus` comes from
/// checkAuthentication, every login, logout, ...): their async forms read the callback stream
/// (`subscribe`) while `AsyncCallGate` keeps other async calls from running beside them.
final class AsyncOutcomes: @unchecked Sendable {
    /// What ends a registered call; `status` is the advanced status delivered just before the
    /// callback (tracking and authentication statuses aside): the one naming the error.
    enum Outcome: Sendable {
        case requestorComplete(Int32, status: AdvancedStatus?)
        case token(String)
        case tokenFailed(errorCode: String, errorDescription: String, status: AdvancedStatus?)
        case metadata(JSONValue?, encrypted: Bool)
        case preauthorized(PreauthorizeResponse)
    }

    /// An async caller: an id from `newCall()`, and where its outcome goes.
    struct Waiter: Sendable {
        let id: Int
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private enum Line: Hashable {
        case requestor
        case authorization(String)
        case metadata(JSONValue)
    }

    private enum Call {
        case allocated
        case cancelled
        case waiting(CheckedContinuation<Outcome, any Error>)
    }

    private struct State {
        var lines: [Line: [Int?]] = [:]
        var calls: [Int: Call] = [:]
        var nextID = 0
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var watchers: [Int: Watcher] = [:]
        var precedingStatus: AdvancedStatus?
        var closed = false
    }

    /// Waits for one callback, whatever the task (`watch`).
    private struct Watcher {
        let matches: @Sendable (Event) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let state = Locked(State())

    // MARK: Registered calls

    /// A new async call's id, before it is submitted (so that it can be cancelled at any time).
    func newCall() -> Int {
        state.withLock { state in
            state.nextID += 1
            state.calls[state.nextID] = .allocated
            return state.nextID
        }
    }

    /// The call with this id was refused: forget it.
    func forget(_ id: Int) { state.withLock { _ = $0.calls.removeValue(forKey: id) } }

    /// Takes a place in the line of `command` (for commands that have one). Called for every
    /// accepted command, in the order the engine receives them.
    func register(_ command: Command, waiter: Waiter?) {
        let line: Line?
        switch command {
        case .setRequestor: line = .requestor
        case .authorization(let resource, _): line = .authorization(resource)
        case .getMetadata(let key): line = .metadata(key.arguments)
        case .preauthorize: line = nil  // its own completion answers it (`finish`)
        default: return
        }
        let refusal = state.withLock { state -> (any Error)? in
            if state.closed { return waiter.map { _ in AccessEnablerError.invalidHandle() } }
            guard let waiter else {
                if let line { state.lines[line, default: []].append(nil) }
                return nil
            }
            if case .cancelled = state.calls[waiter.id] {
                state.calls[waiter.id] = nil
                if let line { state.lines[line, default: []].append(nil) }  // its answer will be dropped
                return CancellationError()
            }
            state.calls[waiter.id] = .waiting(waiter.continuation)
            if let line { state.lines[line, default: []].append(waiter.id) }
            return nil
        }
        if let refusal, let waiter { waiter.continuation.resume(throwing: refusal) }
    }

    /// Ends the call `id` with `outcome` (a call answered by its own completion, not by a line).
    func finish(_ id: Int, _ outcome: Outcome) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, any Error>? in
            guard case .waiting(let continuation) = state.calls[id] else { return nil }
            state.calls[id] = nil
            return continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// The async caller `id` was cancelled: it stops waiting; its place stays in line.
    func cancel(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, any Error>? in
            switch state.calls[id] {
            case .allocated:
                state.calls[id] = .cancelled
                return nil
            case .waiting(let continuation):
                state.calls[id] = nil
                return continuation
            case .cancelled, nil:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }

    // MARK: The callback stream

    /// Every callback from now on, in order, until `unsubscribe` or `close`.
    func subscribe() -> (id: Int, events: AsyncStream<Event>) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        if id == nil { continuation.finish() }
        return (id ?? 0, events)
    }

    func unsubscribe(_ id: Int) {
        state.withLock { $0.subscribers.removeValue(forKey: id) }?.finish()
    }

    /// Resumes `continuation` at the first callback that `matches` (or at `close`); not ended by
    /// task cancellation. Returns an id for `unwatch`.
    func watch(_ matches: @escaping @Sendable (Event) -> Bool, _ continuation: CheckedContinuation<Void, Never>) -> Int {
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.watchers[state.nextID] = Watcher(matches: matches, continuation: continuation)
            return state.nextID
        }
        if id == nil { continuation.resume() }
        return id ?? 0
    }

    /// Stops waiting (the callback will not come): resumes the watcher now.
    func unwatch(_ id: Int) {
        state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
    }

    // MARK: Events and the end

    /// Sees every callback, on the callback thread, before the delegate does.
    func observe(_ event: Event) {
        let (ended, subscribers, watchers) = state.withLock { state -> ((CheckedContinuation<Outcome, any Error>, Outcome)?, [AsyncStream<Event>.Continuation], [Watcher]) in
            let preceding = state.precedingStatus
            var ended: (CheckedContinuation<Outcome, any Error>, Outcome)?
            func end(_ line: Line, _ outcome: Outcome) {
                guard var places = state.lines[line], !places.isEmpty else { return }
                let first = places.removeFirst()
                state.lines[line] = places.isEmpty ? nil : places
                if let id = first, case .waiting(let continuation) = state.calls.removeValue(forKey: id) {
                    ended = (continuation, outcome)
                }
            }
            switch event {
            case .setRequestorComplete(let status):
                end(.requestor, .requestorComplete(status, status: status == AccessEnablerStatus.success ? nil : preceding))
            case .setToken(let token, let resource):
                end(.authorization(resource), .token(token))
            case .tokenRequestFailed(let resource, let code, let description):
                end(.authorization(resource), .tokenFailed(errorCode: code, errorDescription: description, status: preceding))
            case .setMetadataStatus(let value, let encrypted, _, let arguments):
                end(.metadata(arguments), .metadata(value, encrypted: encrypted))
            default:
                break
            }
            switch event {
            case .status(let status): state.precedingStatus = status
            case .sendTrackingData, .setAuthenticationStatus: break  // they sit between a status and its outcome
            default: state.precedingStatus = nil
            }
            let matched = state.watchers.filter { $0.value.matches(event) }
            for id in matched.keys { state.watchers[id] = nil }
            return (ended, Array(state.subscribers.values), Array(matched.values))
        }
        if let (continuation, outcome) = ended { continuation.resume(returning: outcome) }
        for subscriber in subscribers { subscriber.yield(event) }
        for watcher in watchers { watcher.continuation.resume() }
    }

    /// The client was shut down: every async caller stops waiting with `invalidHandle`.
    func close() {
        let (waiting, subscribers, watchers) = state.withLock { state -> ([CheckedContinuation<Outcome, any Error>], [AsyncStream<Event>.Continuation], [Watcher]) in
            state.closed = true
            let waiting = state.calls.values.compactMap { call -> CheckedContinuation<Outcome, any Error>? in
                if case .waiting(let continuation) = call { continuation } else { nil }
            }
            let subscribers = Array(state.subscribers.values)
            let watchers = Array(state.watchers.values)
            state.calls = [:]
            state.lines = [:]
            state.subscribers = [:]
            state.watchers = [:]
            return (waiting, subscribers, watchers)
        }
        for continuation in waiting {
            continuation.resume(throwing: AccessEnablerError.invalidHandle("the client was shut down while the call waited"))
        }
        for subscriber in subscribers { subscriber.finish() }
        for watcher in watchers { watcher.continuation.resume() }
    }
}
