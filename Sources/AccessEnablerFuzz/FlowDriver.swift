// SPDX-License-Identifier: Apache-2.0
// Drives AccessEnabler calls one at a time and waits for each call's own callback, answering the
// provider dialog and waking the second-screen poller as a host would (flow-answers through the
// Swift API, c-boundary through the C functions).
import Dispatch
import AccessEnabler

/// A callback, as the driver needs it.
enum FlowEvent: Sendable, CustomStringConvertible {
    case requestorComplete(Int32)
    case authenticationStatus(Int32, String)
    case token(resource: String)
    case tokenFailed(resource: String, code: String)
    case selected(String?)
    case dialog([String])
    case navigate(String)
    case status(String)
    case metadata(key: Int32, arguments: JSONValue?)
    case preauthorized([String])
    case preauthorizeResponse
    case other(String)

    var description: String {
        switch self {
        case .requestorComplete(let value): "requestorComplete(\(value))"
        case .authenticationStatus(let value, let code): "authenticationStatus(\(value), \(code))"
        case .token(let resource): "token(\(resource.prefix(40)))"
        case .tokenFailed(let resource, let code): "tokenFailed(\(resource.prefix(40)), \(code))"
        case .selected(let id): "selected(\(id?.prefix(40) ?? "nil"))"
        case .dialog(let ids): "dialog(\(ids.count) MVPDs)"
        case .navigate: "navigate"
        case .status(let id): "status(\(id))"
        case .metadata(let key, _): "metadata(\(key))"
        case .preauthorized(let list): "preauthorized(\(list.count))"
        case .preauthorizeResponse: "preauthorizeResponse"
        case .other(let name): name
        }
    }
}

extension FlowEvent {
    /// The status of a handleExternalURL that found no login in progress: N130, as a code that
    /// expired, but with a message of its own (Engine.handleExternalURL). Its
    /// setAuthenticationStatus(0) follows it, and answers no other call.
    static let noLoginForExternalURL = "N130 (handleExternalURL)"

    static func status(_ id: String, message: String) -> FlowEvent {
        id == "N130" && message.hasPrefix("handleExternalURL") ? .status(noLoginForExternalURL) : .status(id)
    }
}

/// Every callback of one client, in order, and a signal for each one (and for transport activity).
final class EventLog: @unchecked Sendable {
    private let events = Locked<[FlowEvent]>([])
    private let signal = DispatchSemaphore(value: 0)

    func append(_ event: FlowEvent) {
        events.withLock { $0.append(event) }
        signal.signal()
    }

    /// Something else happened (a request reached the transport).
    func poke() { signal.signal() }

    func events(from index: Int) -> [FlowEvent] {
        events.withLock { Array($0[min(index, $0.count)...]) }
    }

    var all: [FlowEvent] { events.withLock { $0 } }

    /// Waits for the next signal; false when `deadline` passed first.
    func wait(until deadline: DispatchTime) -> Bool { signal.wait(timeout: deadline) == .success }
}

/// What ends a call: the callback that answers it.
enum ExpectedOutcome {
    case requestorComplete
    case authenticationStatus
    case authorization(resource: String)
    case preauthorized
    case preauthorizeResponse
    case metadata(arguments: JSONValue)
    case selected

    func matches(_ event: FlowEvent) -> Bool {
        switch (self, event) {
        case (.requestorComplete, .requestorComplete), (.authenticationStatus, .authenticationStatus),
            (.preauthorized, .preauthorized), (.preauthorizeResponse, .preauthorizeResponse), (.selected, .selected):
            true
        case (.authorization(let wanted), .token(let resource)), (.authorization(let wanted), .tokenFailed(let resource, _)):
            wanted == resource
        case (.metadata(let wanted), .metadata(_, let arguments)):
            arguments.map { sameJSON($0, wanted) } ?? false
        default:
            false
        }
    }
}

/// How the host answers a login: the provider dialog's choice and how many polls it lets happen
/// (handleExternalURL wakes the poller; the SDK polls at most once a second on its own) before
/// it cancels with setSelectedProvider(NULL).
struct LoginPlan {
    /// Bits 0–2: 0–4 the dialog's MVPD of that index, 5 the TempPass MVPD, 6 an id not in the
    /// configuration, 7 cancel. Bits 3–4: polls allowed (0–3).
    var byte: UInt8 = 0

    var maxWakes: Int { Int((byte >> 3) & 3) }

    /// The MVPD to select at the `n`th dialog of a call (nil: cancel). A second dialog is cancelled.
    func choice(_ ids: [String], dialog n: Int) -> String? {
        guard n == 1 else { return nil }
        switch byte & 7 {
        case 0...4: return ids.isEmpty ? "Cablevision" : ids[Int(byte & 7) % ids.count]
        case 5: return "TempPass_TEST40"
        case 6: return "not-configured"
        default: return nil
        }
    }
}

/// Waits for a call's outcome, acting as the host on the way.
final class FlowDriver {
    let log: EventLog
    /// Serves what the transport has waiting (c-boundary's host replies); called between waits.
    var pump: () throws(FuzzFailure) -> Void = {}
    /// Second-screen polls the transport has answered so far.
    var polls: () -> Int = { 0 }
    /// True once the transport cancelled a task to skip a real sleep: flows may then end without
    /// a callback, so the input stops there.
    var stopped: () -> Bool = { false }
    /// The host's calls: setSelectedProvider (nil: cancel) and handleExternalURL; true when accepted.
    var select: (String?) -> Bool = { _ in false }
    var wake: () -> Bool = { false }
    /// Longest wait for one call's outcome (nothing sleeps for real, so this only catches hangs).
    var timeoutNanos: UInt64 = 10_000_000_000

    /// How long the last poll's answer gets to end the login before the host cancels it.
    static let graceMillis = 30
    private var cursor = 0
    /// handleExternalURL found no login: its setAuthenticationStatus(0) is its own.
    private var strayStatuses = 0

    init(log: EventLog) { self.log = log }

    /// Runs until `expected` arrives and returns it; nil when the input must stop (a cancelled task).
    @discardableResult
    func await(_ expected: ExpectedOutcome, plan: LoginPlan, call name: String) throws(FuzzFailure) -> FlowEvent? {
        let deadline = DispatchTime.now() + .nanoseconds(Int(timeoutNanos))
        var outcome: FlowEvent?
        var dialogs = 0, wakes = 0, pollsAtCode = 0
        var codeShown = false, cancelSent = false, cancelAnswered = false
        var cancelAt: DispatchTime?
        while true {
            try pump()
            for event in log.events(from: cursor) {
                cursor += 1
                switch event {
                case .dialog(let ids):
                    dialogs += 1
                    codeShown = false
                    // A choice the call refuses (an empty id) leaves the dialog open: cancel instead.
                    let choice = plan.choice(ids, dialog: dialogs)
                    if choice != nil && select(choice) { break }
                    if select(nil) { cancelSent = true }
                case .status("REGCODE"):
                    codeShown = true
                    wakes = 0
                    cancelAt = nil
                    pollsAtCode = polls()
                case .navigate:
                    if case .authenticationStatus = expected, name == "logout" { break }
                    codeShown = true
                    wakes = 0
                    cancelAt = nil
                    pollsAtCode = polls()
                case .status(FlowEvent.noLoginForExternalURL):
                    strayStatuses += 1
                case .authenticationStatus(let value, let code):
                    if strayStatuses > 0 && value == 0 {
                        strayStatuses -= 1
                        continue
                    }
                    codeShown = false  // whichever login there was has ended
                    if cancelSent && value == 0 && code == AccessEnablerErrorCode.providerNotSelected { cancelAnswered = true }
                    if outcome == nil, expected.matches(event) { outcome = event }
                default:
                    if outcome == nil, expected.matches(event) { outcome = event }
                }
            }
            // A cancel sent after the login had ended is answered by a callback of its own.
            if let outcome, !cancelSent || cancelAnswered { return outcome }
            if stopped() { return nil }
            var wakeAt = deadline
            if codeShown && !cancelSent && polls() - pollsAtCode >= wakes {
                if wakes < plan.maxWakes {
                    wakes += 1
                    cancelAt = nil
                    _ = wake()
                } else if wakes > 0 && cancelAt == nil {
                    // The last poll may end the login: give its answer a moment before cancelling.
                    cancelAt = DispatchTime.now() + .milliseconds(Self.graceMillis)
                    wakeAt = cancelAt!
                } else if cancelAt.map({ DispatchTime.now() < $0 }) ?? false {
                    wakeAt = cancelAt!
                } else if select(nil) {
                    cancelSent = true
                }
            }
            if !log.wait(until: wakeAt) && DispatchTime.now() >= deadline {
                if stopped() { return nil }
                let tail = log.all.suffix(12).map(\.description).joined(separator: ", ")
                throw FuzzFailure(
                    "\(name): no \(expected) callback within \(timeoutNanos / 1_000_000_000) s "
                        + "(the call must end with its callback); last callbacks: \(tail)")
            }
        }
    }
}
