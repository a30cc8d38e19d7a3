// SPDX-License-Identifier: Apache-2.0

/// What every flow machine has in common: its actions, some of which every flow shares (emit an
/// event, log a line, say that it is over). The engine runs the shared ones the same way for
/// every flow (`Engine.execute`, Engine/Engine+Flows.swift) and hands the rest to the flow's own
/// driver; a flow in progress lives in the engine's one `FlowTable`.
protocol Flow: Sendable {
    associatedtype Action: FlowAction
}

/// An action of a flow: one the driver runs the same way for every flow (`shared`), or the flow's own.
protocol FlowAction: Sendable {
    /// The shared action this is, or nil when it is the flow's own.
    var shared: SharedFlowAction? { get }
}

/// The actions every flow may return, run alike for all (Engine.execute).
enum SharedFlowAction: Sendable {
    /// Hand an event to the host (sink.emit).
    case emit(Emission)
    /// A line for the log.
    case log(LogLevel, String)
    /// The flow is over: the driver forgets it (no event of it is fed any more).
    case done
}

extension AuthorizationFlow: Flow {}
extension AuthorizationFlow.Action: FlowAction {
    var shared: SharedFlowAction? {
        switch self {
        case .emit(let emission): .emit(emission)
        case .done: .done
        default: nil
        }
    }
}

extension PreauthorizationFlow: Flow {}
extension PreauthorizationFlow.Action: FlowAction {
    var shared: SharedFlowAction? {
        switch self {
        case .emit(let emission): .emit(emission)
        case .done: .done
        default: nil
        }
    }
}

extension LogoutFlow: Flow {}
extension LogoutFlow.Action: FlowAction {
    var shared: SharedFlowAction? {
        switch self {
        case .emit(let emission): .emit(emission)
        case .log(let level, let message): .log(level, message)
        case .done: .done
        default: nil
        }
    }
}

extension RequestorSetupFlow: Flow {}
extension RequestorSetupFlow.Action: FlowAction {
    var shared: SharedFlowAction? {
        switch self {
        case .emit(let emission): .emit(emission)
        case .log(let level, let message): .log(level, message)
        default: nil  // `finish` ends it, with more to do than forget it (RequestorSetupFlow+Driver.swift)
        }
    }
}

extension LoginFlow: Flow {}
extension LoginFlow.Action: FlowAction {
    var shared: SharedFlowAction? {
        switch self {
        case .emit(let emission): .emit(emission)
        case .log(let level, let message): .log(level, message)
        default: nil
        }
    }
}
