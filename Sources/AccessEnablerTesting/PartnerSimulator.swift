// SPDX-License-Identifier: Apache-2.0
public import AccessEnabler
import Dispatch
import FoundationEssentials

/// A scriptable stand-in for a platform's TV-provider SSO (tests, the emulator demo, the example
/// player): it plays every outcome the partner interface has, and a signed-in account answers a
/// SAML request silently with a SAML response as messy as real platforms return (CRLF, tabs,
/// double spaces). Its SAML is the one `Python/accessenabler/simulated_saml.py` defines and the
/// emulator checks: request ids are read from the verification token, nothing is random.
public final class PartnerSimulator: PartnerFramework, @unchecked Sendable {
    /// What the viewer does in the platform picker (a request that allows interruption while no
    /// account is signed in).
    public enum PickerAction: Sendable, Equatable {
        case choose(String)
        case cancel
        case otherProvider
        case unsupported(String)
        case unavailable
        case rejected
        /// Never answer (the SDK's timeout ends the request).
        case silence
    }

    public enum SAMLAction: Sendable, Equatable { case answer, fail, none }

    public struct Script: Sendable {
        public var access: PartnerAccessStatus = .granted
        /// nil: answer checkAccessStatus with this error instead.
        public var accessError: PartnerError?
        public var signIn: PartnerSignIn = .unknown
        /// The provider (platform id) the viewer is signed in to; nil: not signed in.
        public var account: String?
        public var expirationDate: Int64 = Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
        public var picker: PickerAction = .cancel
        public var saml: SAMLAction = .answer
        /// Answer after this delay, from another thread (0: at once, still from another thread).
        public var replyDelayMillis: Int = 0
        public init() {}
    }

    private let state: Locked<(script: Script, requests: [PartnerMetadataRequest], prompts: [Bool])>
    public let timeoutMillis: Int?

    public init(_ script: Script = Script(), timeoutMillis: Int? = nil) {
        state = Locked((script, [], []))
        self.timeoutMillis = timeoutMillis
    }

    public var script: Script {
        get { state.withLock { $0.script } }
        set { state.withLock { $0.script = newValue } }
    }

    /// Every metadata request received, in order.
    public var metadataRequests: [PartnerMetadataRequest] { state.withLock { $0.requests } }
    /// The `prompt` flag of every checkAccessStatus received.
    public var accessPrompts: [Bool] { state.withLock { $0.prompts } }

    public func checkAccessStatus(prompt: Bool, reply: PartnerReply<PartnerAccess>) {
        let script = state.withLock { state -> Script in
            state.prompts.append(prompt)
            return state.script
        }
        later(script) {
            if let error = script.accessError {
                reply.fail(error)
            } else {
                reply.succeed(PartnerAccess(script.access, signIn: script.signIn))
            }
        }
    }

    public func enqueue(_ request: PartnerMetadataRequest, reply: PartnerReply<PartnerMetadata>) {
        let script = state.withLock { state -> Script in
            state.requests.append(request)
            return state.script
        }
        guard script.access == .granted else {
            return later(script) { reply.fail(PartnerError(.accessNotGranted)) }
        }
        if let token = request.verificationToken {
            guard let account = script.account else {
                return later(script) { reply.fail(PartnerError(.failed, detail: "not signed in")) }
            }
            switch script.saml {
            case .fail: return later(script) { reply.fail(PartnerError(.failed, detail: "the provider did not answer")) }
            case .none: return later(script) { reply.succeed(self.metadata(account, script)) }
            case .answer:
                guard let id = SimulatedSAML.requestID(ofBase64: token) else {
                    return later(script) { reply.fail(PartnerError(.failed, detail: "unreadable verification token")) }
                }
                var answer = self.metadata(account, script)
                answer.samlAttributeQueryResponse = SimulatedSAML.response(
                    requestID: id, providerID: account,
                    attributeNames: request.attributeNames)
                let metadata = answer
                return later(script) { reply.succeed(metadata) }
            }
        }
        if let account = script.account {
            return later(script) { reply.succeed(self.metadata(account, script)) }
        }
        guard request.isInterruptionAllowed else {
            return later(script) { reply.succeed(PartnerMetadata()) }  // signed out; no picker allowed
        }
        switch script.picker {
        case .choose(let provider):
            state.withLock { $0.script.account = provider }
            later(script) { reply.succeed(self.metadata(provider, script)) }
        case .cancel: later(script) { reply.fail(PartnerError(.userCancelled)) }
        case .otherProvider: later(script) { reply.fail(PartnerError(.otherProvider)) }
        case .unsupported(let provider): later(script) { reply.fail(PartnerError(.unsupportedProvider, detail: provider)) }
        case .unavailable: later(script) { reply.fail(PartnerError(.serviceUnavailable, detail: "simulated outage")) }
        case .rejected: later(script) { reply.fail(PartnerError(.rejected)) }
        case .silence: break
        }
    }

    private func metadata(_ account: String, _ script: Script) -> PartnerMetadata {
        PartnerMetadata(accountProviderIdentifier: account, authenticationExpirationDate: script.expirationDate)
    }

    /// Answers from a Dispatch thread, as a platform's framework would: never from Swift's
    /// cooperative pool, which the host (or a busy test run) may keep busy.
    private func later(_ script: Script, _ answer: @escaping @Sendable () -> Void) {
        let delay = Limits.nanoseconds(millis: script.replyDelayMillis)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay)), execute: answer)
    }
}

/// The simulated platform's SAML (same text as Python/accessenabler/simulated_saml.py).
package enum SimulatedSAML {
    static let userIDAttributes: Set<String> = ["uid", "NameID", "uniqueId"]

    package static func userID(_ provider: String) -> String { "sim-" + provider.lowercased() }

    /// The root element's `ID` of a Base64 SAML request.
    package static func requestID(ofBase64 token: String) -> String? {
        guard let data = Data(base64Encoded: token.filter { !$0.isWhitespace }),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        // The first element that is not the XML declaration or a comment.
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            let tail = rest[open...]
            if tail.hasPrefix("<?") || tail.hasPrefix("<!--") {
                guard let close = tail.firstRange(of: tail.hasPrefix("<?") ? "?>" : "-->") else { return nil }
                rest = tail[close.upperBound...]
                continue
            }
            guard let end = tail.firstIndex(of: ">") else { return nil }
            let tag = tail[..<end]
            for quote in ["\"", "'"] {
                for prefix in [" ID=", "\tID=", "\nID="] {
                    if let range = tag.firstRange(of: prefix + quote) {
                        let value = tag[range.upperBound...].prefix { String($0) != quote }
                        return value.isEmpty ? nil : String(value)
                    }
                }
            }
            return nil
        }
        return nil
    }

    private static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;")
    }

    /// Python's xml.sax.saxutils.quoteattr.
    private static func quoteattr(_ text: String) -> String {
        var value = escape(text).replacing("\n", with: "&#10;")
            .replacing("\r", with: "&#13;").replacing("\t", with: "&#9;")
        if value.contains("\"") {
            if value.contains("'") {
                value = value.replacing("\"", with: "&quot;")
                return "\"\(value)\""
            }
            return "'\(value)'"
        }
        return "\"\(value)\""
    }

    package static func response(requestID: String, providerID: String, attributeNames: [String]) -> String {
        let digest = Digest.sha256Hex("\(requestID)\n\(providerID)")
        let responseID = "_resp" + digest.prefix(32)
        let assertionID = "_assert" + digest.dropFirst(32)
        let issuer = escape("urn:simulated-platform:" + providerID)
        var lines = [
            "<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" "
                + "xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\" ID=\(quoteattr(responseID)) "
                + "InResponseTo=\(quoteattr(requestID)) Version=\"2.0\">\r\n",
            "\t<saml:Issuer>\(issuer)</saml:Issuer>\r\n",
            "\t<samlp:Status>\r\n",
            "\t\t<samlp:StatusCode Value=\"urn:oasis:names:tc:SAML:2.0:status:Success\"/>\r\n",
            "\t</samlp:Status> \n",
            "\t<saml:Assertion  ID=\(quoteattr(assertionID)) Version=\"2.0\">\r\n",
            "\t\t<saml:Issuer>\(issuer)</saml:Issuer>\r\n",
            "\t\t<saml:Subject>\r\n",
            "\t\t\t<saml:NameID>\(escape(userID(providerID)))</saml:NameID>\r\n",
            "\t\t</saml:Subject>\r\n",
            "\t\t<saml:AttributeStatement>\r\n",
        ]
        for name in attributeNames {
            let value = userIDAttributes.contains(name) ? userID(providerID) : "\(name)-\(providerID)"
            lines += [
                "\t\t\t<saml:Attribute  Name=\(quoteattr(name)) \t>\r\n",
                "\t\t\t\t<saml:AttributeValue>\(escape(value))</saml:AttributeValue>\r\n",
                "\t\t\t</saml:Attribute>\r\n",
            ]
        }
        lines += ["\t\t</saml:AttributeStatement>\r\n", "\t</saml:Assertion>\r\n", "</samlp:Response>\r\n"]
        return lines.joined()
    }
}
