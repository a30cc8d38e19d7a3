// SPDX-License-Identifier: Apache-2.0
// ae_identity_provider: the host's single sign-on tokens on request, behind the Swift
// IdentityTokenProvider protocol, and the reply that answers its requests.
public import CAccessEnabler
import AccessEnabler

/// The host's ae_identity_provider as an IdentityTokenProvider.
final class CIdentityProvider: IdentityTokenProvider, @unchecked Sendable {
    private let table: ae_identity_provider
    let kinds: Set<IdentityTokenKind>
    let timeoutMillis: Int?
    /// Closed at destroy (ae_client_destroy): no host function is called after it.
    let host = HostCalls()

    init(_ table: ae_identity_provider) throws(AccessEnablerError) {
        guard table.request_token != nil else { throw .invalidArgument("identity: request_token is required") }
        guard table.timeout_ms >= 0 else { throw .invalidArgument("identity: timeout_ms must not be negative") }
        self.table = table
        var kinds: Set<IdentityTokenKind> = []
        if table.platform_identity != 0 { kinds.insert(.platformIdentity) }
        if table.service_token != 0 { kinds.insert(.service) }
        self.kinds = kinds
        self.timeoutMillis = table.timeout_ms == 0 ? nil : Int(table.timeout_ms)
    }

    func requestToken(_ kind: IdentityTokenKind, reason: IdentityTokenReason, reply: IdentityTokenReply) {
        guard let handle = Handles.identityRequests.insert(reply) else {
            reply.succeed(nil)  // too many pending: none
            return
        }
        let number = UInt(bitPattern: handle)
        reply.whenFinished { _ = Handles.identityRequests.remove(OpaquePointer(bitPattern: number)) }
        if let cancel = table.cancel_request {
            let userData = HostPointer(raw: table.user_data)
            let host = host
            reply.onCancel { host.run(cancelling: true) { cancel(OpaquePointer(bitPattern: number), userData.raw) } }
        }
        host.run {
            // Over already (the client is being destroyed): the host never hears of it, and would get
            // no cancel_request for it (the hooks above came too late to run).
            guard reply.isPending else { return }
            table.request_token?(kind.rawValue, reason.rawValue, handle, table.user_data)
        }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_identity_provider_init")
#endif
public func ae_identity_provider_init(_ provider: UnsafeMutablePointer<ae_identity_provider>?, _ version: UInt32) -> Int32 {
    status { () throws(AccessEnablerError) in try Layouts.identity.initialize(provider, version: version) }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_identity_request_reply")
#endif
public func ae_identity_request_reply(_ request: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        let reply = try Handles.identityRequests.value(request)
        let text = try CInput.optionalString(token, "token")
        guard reply.succeed(text) else {
            throw .invalidHandle("the identity request is over (answered, cancelled or timed out)")
        }
    }
}
