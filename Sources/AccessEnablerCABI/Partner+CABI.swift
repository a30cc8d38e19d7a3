// SPDX-License-Identifier: Apache-2.0
// ae_partner_framework: the host's platform SSO behind the Swift PartnerFramework protocol, and
// the reply functions that answer its requests.
public import CAccessEnabler
import AccessEnabler

/// A pending partner request as the host holds it (`ae_partner_request *`, a handle of
/// `Handles.partnerRequests`): the reply slot of either kind of request. The handle lives until the
/// slot is over (answered, timed out, cancelled), so a late, repeated or made-up reply is a failed
/// lookup.
enum PartnerRequest {
    case access(PartnerReply<PartnerAccess>)
    case metadata(PartnerReply<PartnerMetadata>)

    /// Answers the request with `error`, whichever its kind; false when it was already over.
    func fail(_ error: PartnerError) -> Bool {
        switch self {
        case .access(let reply): reply.fail(error)
        case .metadata(let reply): reply.fail(error)
        }
    }

    /// The request of `handle`, which must be pending (else AE_E_INVALID_HANDLE).
    static func of(_ handle: OpaquePointer?) throws(AccessEnablerError) -> PartnerRequest {
        try Handles.partnerRequests.value(handle)
    }

    /// Throws AE_E_INVALID_HANDLE for a reply that came too late: the request ended between the
    /// lookup and the answer (it timed out or was cancelled meanwhile, or another thread answered).
    static func delivered(_ accepted: Bool) throws(AccessEnablerError) {
        guard accepted else { throw .invalidHandle("the partner request is over (answered, cancelled or timed out)") }
    }
}

/// The host's ae_partner_framework as a PartnerFramework.
final class CPartner: PartnerFramework, @unchecked Sendable {
    private let table: ae_partner_framework
    let name: String
    let timeoutMillis: Int?
    /// Closed at destroy (ae_client_destroy): no host function is called after it.
    let host = HostCalls()

    init(_ table: ae_partner_framework) throws(AccessEnablerError) {
        guard table.check_access_status != nil, table.enqueue_metadata_request != nil else {
            throw .invalidArgument("partner: check_access_status and enqueue_metadata_request are required")
        }
        guard table.timeout_ms >= 0 else { throw .invalidArgument("partner: timeout_ms must not be negative") }
        self.table = table
        self.name = try CInput.optionalString(table.name, "partner.name") ?? Defaults.partnerName
        guard !name.isEmpty else { throw .invalidArgument("partner.name is empty") }
        self.timeoutMillis = table.timeout_ms == 0 ? nil : Int(table.timeout_ms)
    }

    func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>) {
        guard let handle = track(.access(reply), reply) else { return }
        host.run {
            guard reply.isPending else { return }  // cancelled meanwhile (destroy): never heard of
            table.check_access_status?(prompt ? 1 : 0, handle, table.user_data)
        }
    }

    func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {
        guard let handle = track(.metadata(reply), reply) else { return }
        host.run {
            guard reply.isPending else { return }  // cancelled meanwhile (destroy): never heard of
            JSON.text(request).withCString { table.enqueue_metadata_request?($0, handle, table.user_data) }
        }
    }

    /// The handle the host gets for `reply`: refused once the request is over (late replies are
    /// AE_E_INVALID_HANDLE); the host hears of a cancellation or timeout through `cancel_request`.
    private func track<T>(_ request: PartnerRequest, _ reply: PartnerReply<T>) -> OpaquePointer? {
        guard let handle = Handles.partnerRequests.insert(request) else {
            reply.fail(PartnerError(.failed, detail: "too many partner requests pending"))
            return nil
        }
        let number = UInt(bitPattern: handle)
        reply.whenFinished { _ = Handles.partnerRequests.remove(OpaquePointer(bitPattern: number)) }
        if let cancel = table.cancel_request {
            let userData = HostPointer(raw: table.user_data)
            let host = host
            reply.onCancel { host.run(cancelling: true) { cancel(OpaquePointer(bitPattern: number), userData.raw) } }
        }
        return handle
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_partner_framework_init")
#endif
public func ae_partner_framework_init(_ partner: UnsafeMutablePointer<ae_partner_framework>?, _ version: UInt32) -> Int32 {
    status { () throws(AccessEnablerError) in try Layouts.partner.initialize(partner, version: version) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_partner_request_reply_access_status")
#endif
public func ae_partner_request_reply_access_status(_ request: OpaquePointer?, _ access_status: Int32, _ signed_in: Int32) -> Int32 {
    status { () throws(AccessEnablerError) in
        let pending = try PartnerRequest.of(request)
        guard let access = PartnerAccessStatus(rawValue: access_status) else {
            throw .invalidArgument("access_status \(access_status) is not an AE_PARTNER_ACCESS_* value")
        }
        guard let signIn = PartnerSignIn(rawValue: signed_in) else {
            throw .invalidArgument("signed_in \(signed_in) is not an AE_PARTNER_SIGNED_* value")
        }
        guard case .access(let reply) = pending else {
            throw .invalidArgument("this reply does not answer that kind of partner request")
        }
        try PartnerRequest.delivered(reply.succeed(PartnerAccess(access, signIn: signIn)))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_partner_request_reply_metadata")
#endif
public func ae_partner_request_reply_metadata(_ request: OpaquePointer?, _ metadata_json: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        let pending = try PartnerRequest.of(request)
        guard let object = try CInput.json(metadata_json, "metadata_json").objectValue else {
            throw .invalidArgument("metadata_json must be a JSON object")
        }
        func optionalString(_ key: String) throws(AccessEnablerError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .invalidArgument("metadata_json: \(key) must be a string or null")
            }
        }
        let provider = try optionalString("accountProviderIdentifier")
        let saml = try optionalString("samlAttributeQueryResponse")
        var expiration: Int64?
        if let value = object["authenticationExpirationDate"], value != .null {
            guard let millis = value.int64Value else {
                throw .invalidArgument("metadata_json: authenticationExpirationDate must be milliseconds or null")
            }
            expiration = millis.clamped(to: Limits.epochMillis)
        }
        guard case .metadata(let reply) = pending else {
            throw .invalidArgument("this reply does not answer that kind of partner request")
        }
        try PartnerRequest.delivered(
            reply.succeed(
                PartnerMetadata(
                    accountProviderIdentifier: provider,
                    authenticationExpirationDate: expiration,
                    samlAttributeQueryResponse: saml)))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_partner_request_reply_error")
#endif
public func ae_partner_request_reply_error(_ request: OpaquePointer?, _ error: Int32, _ detail: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        let pending = try PartnerRequest.of(request)
        guard let code = PartnerError.Code(rawValue: error), code != .timeout else {
            throw .invalidArgument("error \(error) is not an AE_PARTNER_E_* reply value")
        }
        let text = try CInput.optionalString(detail, "detail")
        try PartnerRequest.delivered(pending.fail(PartnerError(code, detail: text)))
    }
}
