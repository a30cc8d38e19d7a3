// SPDX-License-Identifier: Apache-2.0

/// AccessEnabler's callbacks, with iOS's names. Every method has a default that does nothing, so
/// a host implements what it uses. Called on the client's callback thread, one at a time, in order.
public protocol EntitlementDelegate: AnyObject, Sendable {
    /// `status`: 1 (`AccessEnablerStatus.success`) or 0 after a `status` callback naming the error.
    func setRequestorComplete(_ status: Int32)
    /// 1 with `errorCode` "", or 0 with one of `AccessEnablerErrorCode`.
    func setAuthenticationStatus(_ status: Int32, errorCode: String)
    /// The short media token (Base64, as Adobe issues it) for `resource`.
    func setToken(_ token: String, forResource resource: String)
    /// `setToken(_:forResource:)` with the token's expiry (ms since the epoch on Adobe's clock; nil
    /// when Adobe gave none). Its default calls `setToken(_:forResource:)`.
    func setToken(_ token: String, forResource resource: String, notAfter: Int64?)
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String)
    func selectedProvider(_ mvpd: MVPD?)
    /// Answer with `setSelectedProvider(_:)` (nil cancels).
    func displayProviderDialog(_ mvpds: [MVPD])
    func navigate(toUrl url: String)
    func sendTrackingData(_ data: [String], forEventType event: Int32)
    /// `metadata`: opcodes 0 and 1 an expiry in ms since the epoch (number), 2 the device id,
    /// 3 the user metadata value; nil when unavailable.
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue)
    func preauthorizedResources(_ resources: [String])
    func presentTvProviderDialog(_ dialog: JSONValue)
    func dismissTvProviderDialog(_ dialog: JSONValue)
}

extension EntitlementDelegate {
    public func setRequestorComplete(_ status: Int32) {}
    public func setAuthenticationStatus(_ status: Int32, errorCode: String) {}
    public func setToken(_ token: String, forResource resource: String) {}
    public func setToken(_ token: String, forResource resource: String, notAfter: Int64?) {
        setToken(token, forResource: resource)
    }
    public func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {}
    public func selectedProvider(_ mvpd: MVPD?) {}
    public func displayProviderDialog(_ mvpds: [MVPD]) {}
    public func navigate(toUrl url: String) {}
    public func sendTrackingData(_ data: [String], forEventType event: Int32) {}
    public func setMetadataStatus(
        _ metadata: JSONValue?, encrypted: Bool, forKey key: Int32,
        andArguments arguments: JSONValue
    ) {}
    public func preauthorizedResources(_ resources: [String]) {}
    public func presentTvProviderDialog(_ dialog: JSONValue) {}
    public func dismissTvProviderDialog(_ dialog: JSONValue) {}
}

/// AccessEnabler's advanced status callback (iOS `EntitlementStatus`).
public protocol EntitlementStatus: AnyObject, Sendable {
    func status(_ status: AdvancedStatus)
}
