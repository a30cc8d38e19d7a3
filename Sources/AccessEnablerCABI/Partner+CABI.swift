// SPDX-License-Identifier: Apache-2.0
// ae_partner_framework: the host's platform SSO behind the Swift PartnerFramework protocol, and
// the reply functions that answer its requests.
public import CAccessEnabler
import AccessEnabler

/// A pending partner request, looked up by number (never an address): a late, repeated or
/// made-up reply is a failed lookup.
private enum PendingRequests {
    enum Reply {
        case access(PartnerReply<PartnerAccess>)
        case metadata(PartnerReply<PartnerMetadata>)

        func fail(_ error: PartnerError) {
            switch self {
            case .access(let reply): reply.fail(error)
            case .metadata(let reply): reply.fail(error)
            }
        }
    }

    private static let state = Locked<(next: UInt, replies: [UInt: Reply])>((0x10_0000, [:]))

    static func add(_ reply: Reply) -> OpaquePointer {
        let handle = state.withLock { state -> UInt in
            let handle = state.next
            state.next += 0x10
            state.replies[handle] = reply
            return handle
        }
        return OpaquePointer(bitPattern: handle)!
    }

    /// Takes the request out (it can be answered once) if `accepts` it; a wrong kind of reply
    /// leaves it pending.
    static func take(_ handle: OpaquePointer?, accepts: (Reply) -> Bool = { _ in true }) throws(AccessEnablerError)
        -> Reply
    {
        guard let handle else { throw .invalidHandle("request is NULL") }
        let key = UInt(bitPattern: handle)
        let found = state.withLock { state -> (Reply?, Bool) in
            guard let reply = state.replies[key] else { return (nil, false) }
            guard accepts(reply) else { return (reply, false) }
            state.replies[key] = nil
            return (reply, true)
        }
        switch found {
        case (nil, _): throw .invalidHandle("unknown, answered or timed-out partner request")
        case (_?, false): throw .invalidArgument("this reply does not answer that kind of partner request")
        case (let reply?, true): return reply
        }
    }

    /// Throws `invalidHandle` unless `handle` is a pending request (the handle is judged before the
    /// arguments, as the header's rule for every call says).
    static func check(_ handle: OpaquePointer?) throws(AccessEnablerError) {
        guard let handle else { throw .invalidHandle("request is NULL") }
        let key = UInt(bitPattern: handle)
        guard state.withLock({ $0.replies[key] != nil }) else {
            throw .invalidHandle("unknown, answered or timed-out partner request")
        }
    }

    static func forget(_ handle: UInt) {
        state.withLock { _ = $0.replies.removeValue(forKey: handle) }
    }
}

/// The host's ae_partner_framework as a PartnerFramework.
final class CPartner: PartnerFramework, @unchecked Sendable {
    private let table: ae_partner_framework
    let name: String
    let timeoutMillis: Int?

    /// Copies the host's table, reading no further than its version's last field (a table compiled
    /// against an older header is shorter).
    static func copy(_ pointer: UnsafePointer<ae_partner_framework>) throws(AccessEnablerError) -> ae_partner_framework {
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        let size: Int
        switch version {
        case 1: size = MemoryLayout<ae_partner_framework>.offset(of: \ae_partner_framework.cancel_request)!
        case UInt32(AE_PARTNER_FRAMEWORK_VERSION): size = MemoryLayout<ae_partner_framework>.size
        default:
            throw .unsupportedVersion("ae_partner_framework version \(version) is not supported "
                + "(this library knows 1...\(AE_PARTNER_FRAMEWORK_VERSION))")
        }
        var table = ae_partner_framework()
        withUnsafeMutableBytes(of: &table) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: size)) }
        return table
    }

    init(_ table: ae_partner_framework) throws(AccessEnablerError) {
        guard (1...UInt32(AE_PARTNER_FRAMEWORK_VERSION)).contains(table.version) else {
            throw .unsupportedVersion("ae_partner_framework version \(table.version) is not supported")
        }
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
        let handle = PendingRequests.add(.access(reply))
        track(reply, handle)
        table.check_access_status?(prompt ? 1 : 0, handle, table.user_data)
    }

    func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {
        let handle = PendingRequests.add(.metadata(reply))
        track(reply, handle)
        JSON.text(request).withCString { table.enqueue_metadata_request?($0, handle, table.user_data) }
    }

    /// Late replies are refused once the request is over; the host hears of a cancellation.
    private func track<T>(_ reply: PartnerReply<T>, _ handle: OpaquePointer) {
        let number = UInt(bitPattern: handle)
        reply.whenFinished { PendingRequests.forget(number) }  // timed out or cancelled: refuse late replies
        if let cancel = table.cancel_request {
            let userData = HostPointer(raw: table.user_data)
            reply.onCancel { cancel(OpaquePointer(bitPattern: number), userData.raw) }
        }
    }
}

@c @implementation
public func ae_partner_framework_init(_ partner: UnsafeMutablePointer<ae_partner_framework>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let partner else { throw .invalidArgument("partner is NULL") }
        partner.pointee = ae_partner_framework()
        partner.pointee.version = UInt32(AE_PARTNER_FRAMEWORK_VERSION)
    }
}

@c @implementation
public func ae_partner_reply_access_status(_ request: OpaquePointer?, _ access_status: Int32, _ signed_in: Int32) -> Int32 {
    status { () throws(AccessEnablerError) in
        try PendingRequests.check(request)
        guard let access = PartnerAccessStatus(rawValue: access_status) else {
            throw .invalidArgument("access_status \(access_status) is not an AE_PARTNER_ACCESS_* value")
        }
        guard let signIn = PartnerSignIn(rawValue: signed_in) else {
            throw .invalidArgument("signed_in \(signed_in) is not an AE_PARTNER_SIGNED_* value")
        }
        guard case .access(let reply) = try PendingRequests.take(request, accepts: {
            if case .access = $0 { true } else { false }
        }) else { throw .internalError("partner reply kind") }
        reply.succeed(PartnerAccess(access, signIn: signIn))
    }
}

@c @implementation
public func ae_partner_reply_metadata(_ request: OpaquePointer?, _ metadata_json: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        try PendingRequests.check(request)
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
        guard case .metadata(let reply) = try PendingRequests.take(request, accepts: {
            if case .metadata = $0 { true } else { false }
        }) else { throw .internalError("partner reply kind") }
        reply.succeed(PartnerMetadata(accountProviderIdentifier: provider, authenticationExpirationDate: expiration,
                                      samlAttributeQueryResponse: saml))
    }
}

@c @implementation
public func ae_partner_reply_error(_ request: OpaquePointer?, _ error: Int32, _ detail: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        try PendingRequests.check(request)
        guard let code = PartnerError.Code(rawValue: error), code != .timeout else {
            throw .invalidArgument("error \(error) is not an AE_PARTNER_E_* reply value")
        }
        let text = try CInput.optionalString(detail, "detail")
        try PendingRequests.take(request).fail(PartnerError(code, detail: text))
    }
}
