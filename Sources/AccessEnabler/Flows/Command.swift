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
}

/// A callback on its way to the host, in AccessEnabler's terms.
package enum Event: Sendable {
    case setRequestorComplete(Int32)
    case setAuthenticationStatus(Int32, String)
    case setToken(String, resource: String)
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

/// Where the engine sends events (the facade's callback queue; a recorder in tests).
package protocol EventSink: Sendable {
    func emit(_ event: Event)
}
