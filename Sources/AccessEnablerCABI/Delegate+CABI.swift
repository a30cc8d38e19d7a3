// SPDX-License-Identifier: Apache-2.0
// The C delegate behind the Swift delegate protocols: converts each callback to C values.
import CAccessEnabler
import AccessEnabler

/// Calls the host's `ae_delegate` function pointers. Strings live for the duration of the call.
final class DelegateBridge: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    private let table: ae_delegate

    init(_ table: ae_delegate) { self.table = table }

    private var userData: UnsafeMutableRawPointer? { table.user_data }

    func setRequestorComplete(_ status: Int32) { table.set_requestor_complete?(status, userData) }

    func setAuthenticationStatus(_ status: Int32, errorCode: String) {
        guard let callback = table.set_authentication_status else { return }
        errorCode.withCString { callback(status, $0, userData) }
    }

    func setToken(_ token: String, forResource resource: String) {
        guard let callback = table.set_token else { return }
        token.withCString { token in resource.withCString { callback(token, $0, userData) } }
    }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        guard let callback = table.token_request_failed else { return }
        resource.withCString { resource in
            errorCode.withCString { code in errorDescription.withCString { callback(resource, code, $0, userData) } }
        }
    }

    func selectedProvider(_ mvpd: MVPD?) {
        guard let callback = table.selected_provider else { return }
        guard let mvpd else { return callback(nil, userData) }
        JSON.text(mvpd).withCString { callback($0, userData) }
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        guard let callback = table.display_provider_dialog else { return }
        JSON.text(mvpds).withCString { callback($0, userData) }
    }

    func navigate(toUrl url: String) {
        guard let callback = table.navigate_to_url else { return }
        url.withCString { callback($0, userData) }
    }

    func sendTrackingData(_ data: [String], forEventType event: Int32) {
        guard let callback = table.send_tracking_data else { return }
        JSON.text(data).withCString { callback(event, $0, userData) }
    }

    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        guard let callback = table.set_metadata_status else { return }
        arguments.jsonText.withCString { arguments in
            if let metadata {
                metadata.jsonText.withCString { callback($0, encrypted ? 1 : 0, key, arguments, userData) }
            } else {
                callback(nil, encrypted ? 1 : 0, key, arguments, userData)
            }
        }
    }

    func preauthorizedResources(_ resources: [String]) {
        guard let callback = table.preauthorized_resources else { return }
        JSON.text(resources).withCString { callback($0, userData) }
    }

    func presentTvProviderDialog(_ dialog: JSONValue) {
        guard let callback = table.present_tv_provider_dialog else { return }
        dialog.jsonText.withCString { callback($0, userData) }
    }

    func dismissTvProviderDialog(_ dialog: JSONValue) {
        guard let callback = table.dismiss_tv_provider_dialog else { return }
        dialog.jsonText.withCString { callback($0, userData) }
    }

    func status(_ status: AdvancedStatus) {
        guard let callback = table.status else { return }
        status.jsonText.withCString { callback($0, userData) }
    }
}
