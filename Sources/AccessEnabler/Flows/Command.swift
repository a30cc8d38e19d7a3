// SPDX-License-Identifier: Apache-2.0

/// An AccessEnabler call, after its arguments were checked, on its way to the engine.
package enum Command: Sendable {
    case setRequestor(id: String, serviceProviders: [String]?)
    case checkAuthentication
    case getAuthentication(force: Bool, data: JSONValue?, filter: JSONValue?)
    case setSelectedProvider(String?)
    case getSelectedProvider
    case authorization(resource: String, check: Bool)
    case checkPreauthorizedResources([String], cache: Bool)
    case preauthorize(PreauthorizeRequest, completion: @Sendable (PreauthorizeResponse) -> Void)
    case getMetadata(MetadataKey)
    case logout
    case handleExternalURL(String)

    /// The AccessEnabler call that made it (iOS's name), as the metrics' `ae.call` names it.
    package var callName: String {
        switch self {
        case .setRequestor: "setRequestor"
        case .checkAuthentication: "checkAuthentication"
        case .getAuthentication: "getAuthentication"
        case .setSelectedProvider: "setSelectedProvider"
        case .getSelectedProvider: "getSelectedProvider"
        case .authorization(_, let check): check ? "checkAuthorization" : "getAuthorization"
        case .checkPreauthorizedResources: "checkPreauthorizedResources"
        case .preauthorize: "preauthorize"
        case .getMetadata: "getMetadata"
        case .logout: "logout"
        case .handleExternalURL: "handleExternalURL"
        }
    }
}

/// A callback on its way to the host, in AccessEnabler's terms.
package enum Event: Sendable {
    case setRequestorComplete(Int32)
    case setAuthenticationStatus(Int32, String)
    /// The short media token, its resource and expiry (ms since the epoch on Adobe's clock; nil: not given).
    case setToken(String, resource: String, notAfter: Int64?)
    case tokenRequestFailed(resource: String, code: String, description: String)
    case selectedProvider(MVPD?)
    case displayProviderDialog([MVPD])
    case navigateToURL(String)
    case sendTrackingData(event: Int32, data: [String])
    case setMetadataStatus(JSONValue?, encrypted: Bool, key: Int32, arguments: JSONValue)
    case preauthorizedResources([String])
    case presentTvProviderDialog(JSONValue)
    case dismissTvProviderDialog(JSONValue)
    case status(AdvancedStatus)
    case preauthorizeResponse(PreauthorizeResponse, completion: @Sendable (PreauthorizeResponse) -> Void)
}

/// The identity of one public call (setRequestor, getAuthorization, ...): given by the facade
/// when it accepts the call, carried with its command through the engine and the flows, and
/// with the event that ends it, so the async API resumes the caller it belongs to.
package struct CallID: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let value: UInt64
    package init(_ value: UInt64) { self.value = value }
    package static func < (lhs: CallID, rhs: CallID) -> Bool { lhs.value < rhs.value }
    package var description: String { "call#\(value)" }
}

/// A command with the identity of the call that made it.
package struct Call: Sendable {
    package let id: CallID
    package let command: Command
    package init(_ id: CallID, _ command: Command) {
        self.id = id
        self.command = command
    }
}

/// An event with the calls it belongs to. The event that ends a call (`ends`) names it alone,
/// with the advanced status that explains its outcome (`explanation`: the status delivered just
/// before it for that call, e.g. Z100 before tokenRequestFailed; nil when none). Events of a call
/// in progress (the provider dialog, the code to show, a logout's statuses) name every call
/// waiting for that flow; events of no call (tracking data, warnings) name none.
package struct Emission: Sendable {
    package var event: Event
    package var calls: [CallID]
    package var ends: Bool
    package var explanation: AdvancedStatus?

    package init(_ event: Event, calls: [CallID] = [], ends: Bool = false, explanation: AdvancedStatus? = nil) {
        self.event = event
        self.calls = calls
        self.ends = ends
        self.explanation = explanation
    }

    /// The event that ends `call`.
    package static func end(_ call: CallID, _ event: Event, explanation: AdvancedStatus? = nil) -> Emission {
        Emission(event, calls: [call], ends: true, explanation: explanation)
    }
}

/// Where the engine sends events (the facade's callback queue; a recorder in tests).
package protocol EventSink: Sendable {
    func emit(_ emission: Emission)
}
