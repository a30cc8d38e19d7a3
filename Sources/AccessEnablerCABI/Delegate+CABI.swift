// SPDX-License-Identifier: Apache-2.0
// The C delegate behind the Swift delegate protocols: converts each callback to C values, and
// gives each the typed view of its data (ae_callback_payload, Payload.swift).
import CAccessEnabler
import AccessEnabler

/// Calls the host's `ae_delegate` function pointers. Strings live for the duration of the call.
final class DelegateBridge: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    private let table: ae_delegate

    init(_ table: ae_delegate) { self.table = table }

    private var userData: UnsafeMutableRawPointer? { table.user_data }

    /// A callback with no data: no view (not even an enclosing callback's).
    private static func none() -> (kind: Int32, value: JSONValue)? { nil }

    func setRequestorComplete(_ status: Int32) {
        guard let callback = table.set_requestor_complete else { return }
        Payloads.during(Self.none) { callback(status, userData) }
    }

    func setAuthenticationStatus(_ status: Int32, errorCode: String) {
        guard let callback = table.set_authentication_status else { return }
        Payloads.during(Self.none) { errorCode.withCString { callback(status, $0, userData) } }
    }

    func setToken(_ token: String, forResource resource: String, notAfter: Int64?) {
        guard let callback = table.set_token else { return }
        let view = {
            var fields: [String: JSONValue] = ["token": .string(token), "resource": .string(resource)]
            fields["notAfter"] = notAfter.map { .int($0) }
            return (Int32(AE_PAYLOAD_TOKEN), JSONValue.object(fields))
        }
        Payloads.during(view) { token.withCString { token in resource.withCString { callback(token, $0, userData) } } }
    }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        guard let callback = table.token_request_failed else { return }
        let view = {
            (
                Int32(AE_PAYLOAD_TOKEN_FAILURE),
                JSONValue.object([
                    "resource": .string(resource), "errorCode": .string(errorCode),
                    "errorDescription": .string(errorDescription),
                ])
            )
        }
        Payloads.during(view) {
            resource.withCString { resource in
                errorCode.withCString { code in errorDescription.withCString { callback(resource, code, $0, userData) } }
            }
        }
    }

    func selectedProvider(_ mvpd: MVPD?) {
        guard let callback = table.selected_provider else { return }
        guard let mvpd else { return Payloads.during(Self.none) { callback(nil, userData) } }
        let json = JSON.text(mvpd)
        Payloads.during(Int32(AE_PAYLOAD_PROVIDER), json: json) { json.withCString { callback($0, userData) } }
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        guard let callback = table.display_provider_dialog else { return }
        let json = JSON.text(mvpds)
        Payloads.during(Int32(AE_PAYLOAD_PROVIDERS), json: json) { json.withCString { callback($0, userData) } }
    }

    func navigate(toUrl url: String) {
        guard let callback = table.navigate_to_url else { return }
        Payloads.during(Self.none) { url.withCString { callback($0, userData) } }
    }

    func sendTrackingData(_ data: [String], forEventType event: Int32) {
        guard let callback = table.send_tracking_data else { return }
        let view = {
            (Int32(AE_PAYLOAD_TRACKING), JSONValue.object(["eventType": .int(Int64(event)), "data": .array(data.map { .string($0) })]))
        }
        Payloads.during(view) { JSON.text(data).withCString { callback(event, $0, userData) } }
    }

    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        guard let callback = table.set_metadata_status else { return }
        let view = {
            var fields: [String: JSONValue] = ["key": .int(Int64(key)), "encrypted": .bool(encrypted), "arguments": arguments]
            fields["value"] = metadata
            return (Int32(AE_PAYLOAD_METADATA), JSONValue.object(fields))
        }
        Payloads.during(view) {
            arguments.jsonText.withCString { arguments in
                if let metadata {
                    metadata.jsonText.withCString { callback($0, encrypted ? 1 : 0, key, arguments, userData) }
                } else {
                    callback(nil, encrypted ? 1 : 0, key, arguments, userData)
                }
            }
        }
    }

    func preauthorizedResources(_ resources: [String]) {
        guard let callback = table.preauthorized_resources else { return }
        let json = JSON.text(resources)
        Payloads.during(Int32(AE_PAYLOAD_RESOURCES), json: json) { json.withCString { callback($0, userData) } }
    }

    func presentTvProviderDialog(_ dialog: JSONValue) {
        guard let callback = table.present_tv_provider_dialog else { return }
        Payloads.during({ (Int32(AE_PAYLOAD_PARTNER_DIALOG), dialog) }) { dialog.jsonText.withCString { callback($0, userData) } }
    }

    func dismissTvProviderDialog(_ dialog: JSONValue) {
        guard let callback = table.dismiss_tv_provider_dialog else { return }
        Payloads.during({ (Int32(AE_PAYLOAD_PARTNER_DIALOG), dialog) }) { dialog.jsonText.withCString { callback($0, userData) } }
    }

    func status(_ status: AdvancedStatus) {
        guard let callback = table.status else { return }
        let json = status.jsonText
        Payloads.during(Int32(AE_PAYLOAD_STATUS), json: json) { json.withCString { callback($0, userData) } }
    }
}
