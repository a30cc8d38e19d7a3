// SPDX-License-Identifier: Apache-2.0
// ae_client: handles, create/destroy, and the AccessEnabler calls. Each thunk converts its
// arguments, forwards to the Swift facade and converts the outcome to a status code.
public import CAccessEnabler
import AccessEnabler

/// A C client: the facade plus the delegate bridge it calls (kept alive here; the facade's
/// delegate references are weak).
final class CClient: Sendable {
    let enabler: AccessEnabler
    let bridge: DelegateBridge
    /// The gates of the host's partner framework and identity provider, closed at destroy after the
    /// engine cancelled their requests (the transport's is closed by the facade's shutdown).
    let hostGates: [HostCalls]

    init(enabler: AccessEnabler, bridge: DelegateBridge, hostGates: [HostCalls]) {
        self.enabler = enabler
        self.bridge = bridge
        self.hostGates = hostGates
    }

    /// ae_client_destroy: the facade's shutdown (callbacks, requests, store, log), then the gates:
    /// once this returns, none of the host's functions given to this client runs again.
    func destroy() {
        enabler.shutdown()
        for gate in hostGates { gate.close() }
    }
}

/// Runs a call on the client of `handle`: the handle is looked up first (a NULL, made-up or
/// destroyed one is AE_E_INVALID_HANDLE before any argument is read), then `body` converts the
/// arguments and forwards them.
func call(_ handle: OpaquePointer?, _ body: (AccessEnabler) throws(AccessEnablerError) -> Void) -> Int32 {
    status { () throws(AccessEnablerError) in try body(try Handles.clients.value(handle).enabler) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_create")
#endif
public func ae_client_create(
    _ config: UnsafePointer<ae_config>?, _ delegate: UnsafePointer<ae_delegate>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return status { () throws(AccessEnablerError) in
        guard let out else { throw .invalidArgument("out is NULL") }
        guard let config else { throw .invalidArgument("config is NULL") }
        guard let delegate else { throw .invalidArgument("delegate is NULL") }
        let table = try Layouts.delegate.copy(delegate)
        var settings = try ConfigReader.settings(try Layouts.config.copy(config))
        // The store key copied from the host: the store's sealer holds its own copy and the engine
        // keeps none, so this one (the only other) is wiped in place on the way out.
        defer { if settings.storeKey != nil { Sealer.wipe(&settings.storeKey!) } }
        let enabler = try AccessEnabler(settings: settings)
        let bridge = DelegateBridge(table)
        enabler.delegate = bridge
        enabler.statusDelegate = bridge
        let gates = [(settings.partner as? CPartner)?.host, (settings.identityProvider as? CIdentityProvider)?.host]
        guard let handle = Handles.clients.insert(CClient(enabler: enabler, bridge: bridge, hostGates: gates.compactMap { $0 }))
        else {
            enabler.shutdown()
            throw .internalError("too many clients")
        }
        out.pointee = handle
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_destroy")
#endif
public func ae_client_destroy(_ client: OpaquePointer?) {
    guard let removed = Handles.clients.remove(client) else { return }
    removed.destroy()
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_options")
#endif
public func ae_set_options(_ client: OpaquePointer?, _ options_json: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let options = try CInput.json(options_json, "options_json").objectValue else {
            throw .invalidArgument("options_json must be a JSON object")
        }
        try enabler.setOptions(options)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_identity_token")
#endif
public func ae_set_identity_token(_ client: OpaquePointer?, _ kind: Int32, _ token: UnsafePointer<CChar>?) -> Int32 {
    setIdentityToken(client, kind, token)
}

/// The 1.2 name of ae_set_identity_token (deprecated in the header; exported until the next major).
#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_set_identity_token")
#endif
public func ae_client_set_identity_token(_ client: OpaquePointer?, _ kind: Int32, _ token: UnsafePointer<CChar>?) -> Int32 {
    setIdentityToken(client, kind, token)
}

private func setIdentityToken(_ client: OpaquePointer?, _ kind: Int32, _ token: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let kind = IdentityTokenKind(rawValue: kind) else {
            throw .invalidArgument("kind \(kind) is not an AE_IDENTITY_TOKEN_* value")
        }
        try enabler.setIdentityToken(token == nil ? nil : try CInput.string(token, "token"), kind: kind)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_requestor")
#endif
public func ae_set_requestor(
    _ client: OpaquePointer?, _ requestor_id: UnsafePointer<CChar>?,
    _ service_providers_json: UnsafePointer<CChar>?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        let id = try CInput.string(requestor_id, "requestor_id")
        let providers =
            service_providers_json == nil
            ? nil : try CInput.stringArray(service_providers_json, "service_providers_json")
        try enabler.setRequestor(id, serviceProviders: providers)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_check_authentication")
#endif
public func ae_check_authentication(_ client: OpaquePointer?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in try enabler.checkAuthentication() }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_get_authentication")
#endif
public func ae_get_authentication(
    _ client: OpaquePointer?, _ force_authn: Int32, _ data_json: UnsafePointer<CChar>?,
    _ filter_json: UnsafePointer<CChar>?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        let data = try CInput.optionalJSON(data_json, "data_json")
        let filter = try CInput.optionalJSON(filter_json, "filter_json")
        try enabler.getAuthentication(forceAuthn: force_authn != 0, withData: data, andFilter: filter)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_selected_provider")
#endif
public func ae_set_selected_provider(_ client: OpaquePointer?, _ mvpd_id: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.setSelectedProvider(try CInput.optionalString(mvpd_id, "mvpd_id"))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_get_selected_provider")
#endif
public func ae_get_selected_provider(_ client: OpaquePointer?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in try enabler.getSelectedProvider() }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_check_authorization")
#endif
public func ae_check_authorization(
    _ client: OpaquePointer?, _ resource: UnsafePointer<CChar>?,
    _ data_json: UnsafePointer<CChar>?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.checkAuthorization(
            try CInput.string(resource, "resource"),
            withData: try CInput.optionalJSON(data_json, "data_json"))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_get_authorization")
#endif
public func ae_get_authorization(
    _ client: OpaquePointer?, _ resource: UnsafePointer<CChar>?,
    _ data_json: UnsafePointer<CChar>?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.getAuthorization(
            try CInput.string(resource, "resource"),
            withData: try CInput.optionalJSON(data_json, "data_json"))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_check_preauthorized_resources")
#endif
public func ae_check_preauthorized_resources(
    _ client: OpaquePointer?, _ resources_json: UnsafePointer<CChar>?,
    _ cache: Int32
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.checkPreauthorizedResources(try CInput.stringArray(resources_json, "resources_json"), cache: cache != 0)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_get_metadata")
#endif
public func ae_get_metadata(_ client: OpaquePointer?, _ key_json: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let key = MetadataKey(json: try CInput.json(key_json, "key_json")) else {
            throw .invalidArgument("key_json must be {\"opCode\": 0-3} with resource_id (1) or user_metadata_name (3)")
        }
        try enabler.getMetadata(key)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_logout")
#endif
public func ae_logout(_ client: OpaquePointer?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in try enabler.logout() }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_handle_external_url")
#endif
public func ae_handle_external_url(_ client: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in try enabler.handleExternalURL(try CInput.string(url, "url")) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_preauthorize")
#endif
public func ae_preauthorize(
    _ client: OpaquePointer?, _ request_json: UnsafePointer<CChar>?,
    _ callback: ae_preauthorize_fn?, _ user_data: UnsafeMutableRawPointer?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let callback else { throw .invalidArgument("callback is NULL") }
        guard let request = PreauthorizeRequest(json: try CInput.json(request_json, "request_json")) else {
            throw .invalidArgument(
                "request_json must be {\"resources\": [non-empty strings], \"disableFeatures\"?: "
                    + "[\"LOCAL_CACHE\" | \"REMOTE_CACHE\"]}")
        }
        try preauthorize(enabler, request, callback, user_data)
    }
}

/// ae_preauthorize and ae_preauthorize_list: the request, and the host's completion with its typed view.
func preauthorize(
    _ enabler: AccessEnabler, _ request: PreauthorizeRequest, _ callback: ae_preauthorize_fn,
    _ user_data: UnsafeMutableRawPointer?
) throws(AccessEnablerError) {
    let userData = HostPointer(raw: user_data)
    try enabler.preauthorize(request) { response in
        let json = response.jsonText
        Payloads.during(Int32(AE_PAYLOAD_PREAUTHORIZE), json: json) { json.withCString { callback($0, userData.raw) } }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_store_status")
#endif
public func ae_client_store_status(_ client: OpaquePointer?, _ out_status: UnsafeMutablePointer<Int32>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let out_status else { throw .invalidArgument("out_status is NULL") }
        out_status.pointee = enabler.storeStatus.rawValue
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_event_fd")
#endif
public func ae_client_event_fd(_ client: OpaquePointer?) -> CInt {
    var descriptor: CInt = -1
    _ = call(client) { enabler throws(AccessEnablerError) in
        guard let fd = enabler.eventFileDescriptor else {
            throw .invalidArgument("the client is not in event-loop mode (ae_config.callback_mode)")
        }
        descriptor = fd
    }
    return descriptor
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_client_dispatch")
#endif
public func ae_client_dispatch(_ client: OpaquePointer?, _ out_count: UnsafeMutablePointer<Int32>?) -> Int32 {
    out_count?.pointee = 0
    return call(client) { enabler throws(AccessEnablerError) in
        let ran = try enabler.dispatch()
        out_count?.pointee = Int32(ran)
    }
}
