// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import AccessEnabler

/// The login flows' actions as one line each, so that tests compare whole action lists as
/// protocol traces (Event is not Equatable: it may carry a completion closure). Everything the
/// host or the driver would see is in the line: statuses with level, message, details, extras
/// (sorted JSON) and enhanced error code; the calls of each emission; the explanation of the end.
enum LoginTrace {
    static func lines(_ actions: [LoginFlow.Action]) -> [String] { actions.map(line) }

    static func lines(_ actions: [PartnerExchangeFlow.Action]) -> [String] { actions.map(line) }

    static func line(_ action: LoginFlow.Action) -> String {
        switch action {
        case .emit(let emission): return line(emission)
        case .request(let operation, let request): return "request \(operation.value) \(line(request))"
        case .askPartner(let operation, let question, let timeout): return "ask \(operation.value) \(line(question)) \(timeout)ms"
        case .schedulePoll(let operation, let millis): return "wait \(operation.value) \(millis)ms"
        case .cancel(let operation): return "cancel \(operation.value)"
        case .storeSelectedMVPD(let mvpd): return "select \(mvpd ?? "nil")"
        case .saveProfile(let profile): return "save \(profile.mvpd) \(profile.type)"
        case .endTempPass(let mvpd, let identity): return "endTempPass \(mvpd) \(identity ?? "nil")"
        case .cachePartnerStatus(let status): return "cache \(line(status))"
        case .startAuthorization(let call, let resource, let profile): return "authorize \(call.value) \(resource) \(profile.mvpd)"
        case .log(let level, let message): return "log \(level) \(message)"
        }
    }

    static func line(_ action: PartnerExchangeFlow.Action) -> String {
        switch action {
        case .request(let request): return "request \(line(request))"
        case .askPartner(let question, let timeout): return "ask \(line(question)) \(timeout)ms"
        case .cachePartnerStatus(let status): return "cache \(line(status))"
        case .finish(let outcome): return "finish \(line(outcome))"
        }
    }

    static func line(_ outcome: PartnerExchangeFlow.Outcome) -> String {
        switch outcome {
        case .profile(let profile): return "profile \(profile.mvpd) \(profile.type)"
        case .fallback(let session, let status):
            return "fallback session=\(session?.code ?? "nil") " + (status.map(line) ?? "silent")
        case .partnerFailed(let error): return "partnerFailed \(error.summary)"
        case .failed(let failure): return "failed \(failure.stage) \(failure.error.enhancedError.code)"
        }
    }

    static func line(_ emission: Emission) -> String {
        let event = line(emission.event)
        if emission.ends {
            return "end \(emission.calls.map { String($0.value) }.joined(separator: ",")) \(event) ← "
                + (emission.explanation?.errorID ?? "-")
        }
        precondition(emission.explanation == nil, "only an end has an explanation")
        return "emit [\(emission.calls.map { String($0.value) }.joined(separator: ","))] \(event)"
    }

    static func line(_ event: Event) -> String {
        switch event {
        case .status(let status): return "status " + line(status)
        case .setAuthenticationStatus(let code, let error): return "authenticated(\(code), \(error))"
        case .tokenRequestFailed(let resource, let code, let description):
            return "tokenRequestFailed(\(resource), \(code), \(description))"
        case .displayProviderDialog(let mvpds): return "dialog[\(mvpds.map(\.id).joined(separator: ","))]"
        case .navigateToURL(let url): return "navigate \(url)"
        case .sendTrackingData(let event, let data): return "track \(event) [\(data.joined(separator: ","))]"
        case .presentTvProviderDialog(let dialog): return "present \(dialog.jsonText)"
        case .dismissTvProviderDialog(let dialog): return "dismiss \(dialog.jsonText)"
        default: return "\(event)"
        }
    }

    static func line(_ status: AdvancedStatus) -> String {
        var text = "\(status.errorID)/\(status.level.rawValue) \(status.message)"
        if let details = status.details { text += " details=\(details)" }
        if !status.extras.isEmpty { text += " " + JSONValue.object(status.extras).jsonText }
        if let error = status.enhancedError { text += " error=\(error.code)" }
        return text
    }

    static func line(_ status: PartnerStatus) -> String {
        "\(status.access.status.wireName) \(status.providerID ?? "nil") \(status.expirationDate.map(String.init) ?? "nil")"
    }

    static func line(_ request: LoginRequest) -> String {
        switch request {
        case .startCodeLogin(let mvpd, let continuing):
            let session = continuing.map { " continuing \($0.kind) \($0.session.code ?? "nil")" } ?? ""
            return "startCodeLogin \(mvpd.id)" + session
        case .pollCodeLogin(let challenge): return "poll \(challenge.code)"
        case .tempPass(let mvpd, let identity): return "tempPass \(mvpd.id) \(identity ?? "nil")"
        case .partnerRequest(let mvpd, let partnerStatus): return "partnerRequest \(mvpd.id) \(partnerStatus)"
        case .partnerProfile(let mvpd, let saml, let partnerStatus): return "partnerProfile \(mvpd.id) \(saml) \(partnerStatus)"
        }
    }

    static func line(_ question: PartnerQuestion) -> String {
        switch question {
        case .accessStatus(let prompt): return "accessStatus(prompt: \(prompt))"
        case .metadata(let request):
            var text = "metadata(interruption: \(request.isInterruptionAllowed)"
            if !request.supportedAccountProviderIdentifiers.isEmpty {
                text += ", supported: \(request.supportedAccountProviderIdentifiers.joined(separator: ","))"
            }
            if !request.featuredAccountProviderIdentifiers.isEmpty {
                text += ", featured: \(request.featuredAccountProviderIdentifiers.joined(separator: ","))"
            }
            if !request.attributeNames.isEmpty { text += ", attributes: \(request.attributeNames.joined(separator: ","))" }
            if let token = request.verificationToken { text += ", token: \(token)" }
            return text + ", channel: \(request.channelIdentifier))"
        }
    }
}

/// Shared fixtures of the login flow tests.
enum LoginFixtures {
    static let now: Int64 = 1_700_000_000_000
    static let far: Int64 = 4_102_444_800_000
    static let channel = "https://saml.sp.auth.adobe.com"

    static func mvpd(_ id: String, tempPass: Bool = false, platform: String? = nil, boarding: String? = nil) -> MVPD {
        var mvpd = MVPD(id: id, displayName: id + " TV", isTempPass: tempPass)
        if let platform {
            mvpd.enablePlatformServices = true
            mvpd.displayInPlatformPicker = true
            mvpd.platformMappingId = platform
        }
        mvpd.boardingStatus = boarding
        return mvpd
    }

    static let configuration = RequestorConfiguration(
        requestorID: "REF30", domains: ["adobe.com"],
        mvpds: [
            mvpd("Cablevision"), mvpd("Dish"), mvpd("TempPass_TEST40", tempPass: true),
        ])

    static let partnerConfiguration = RequestorConfiguration(
        requestorID: "REF30", domains: ["adobe.com"],
        mvpds: [
            mvpd("Cablevision"), mvpd("Comcast", platform: "comcast-id"), mvpd("Spectrum", platform: "spectrum-id", boarding: "PICKER"),
        ])

    static func requestor(_ configuration: RequestorConfiguration = configuration) -> LoginFlow.Requestor {
        LoginFlow.Requestor(configuration: configuration, pollIntervalMillis: 4_000, channelIdentifier: channel)
    }

    static func flow(
        mode: LoginMode = .secondScreen, activationURL: String? = nil, partner: Bool = false,
        configuration: RequestorConfiguration? = nil
    ) -> LoginFlow {
        let settings = LoginFlow.Settings(
            loginMode: mode, activationURL: activationURL,
            tracking: TrackingValues(deviceInfo: [:]),
            partner: partner ? .init(name: "Apple", timeoutMillis: nil) : nil)
        return LoginFlow(
            settings: settings,
            requestor: requestor(configuration ?? (partner ? partnerConfiguration : self.configuration)))
    }

    static func profile(
        _ mvpd: String, type: String = "regular", notAfter: Int64 = far, user: String = "user-1",
        identity: String? = nil
    ) -> Profile {
        var profile = Profile(
            mvpd: mvpd, notBefore: 0, notAfter: notAfter, issuer: type == "regular" ? mvpd : "Adobe",
            type: type, attributes: ["userID": ProfileAttribute(value: .string(user))])
        profile.tempPassIdentity = identity
        return profile
    }

    static func session(_ json: String) throws -> SessionAnswer {
        try JSONDecoder().decode(SessionAnswer.self, from: Data(json.utf8))
    }

    static func call(_ value: UInt64) -> CallID { CallID(value) }
    static func op(_ value: UInt64) -> LoginOperation { LoginOperation(value) }

    // Tracking lines (TrackingValues(deviceInfo: [:]): unknown, linux, Linux).
    static func authN(_ success: Bool, _ profile: Profile? = nil, cached: Bool = false) -> String {
        let guid = profile?.userID.map(Digest.md5Hex) ?? ""
        return "emit [] track 0 [\(success),\(profile?.mvpd ?? ""),\(guid),\(cached),unknown,linux,Linux]"
    }

    static let authZFailed = "emit [] track 1 [false,,,false,,,unknown,linux,Linux]"

    static func selection(_ mvpd: String) -> String { "emit [] track 2 [\(mvpd),unknown,linux,Linux]" }

    static func failure(_ error: ServiceError, stage: CallFailure.Stage = .call) -> CallFailure { CallFailure(stage, error) }

    static func enhanced(_ code: String, status: Int, action: String? = nil) -> ServiceError {
        .enhanced(EnhancedError(status: status, code: code, action: action, message: "Adobe says \(code)."), httpStatus: status)
    }
}

struct LoginTraceTests {
    @Test func theTraceNamesTheCallsAndTheExplanationOfAnEnd() {
        let status = AdvancedStatus("N005", .info, "The MVPD selection was cancelled.")
        #expect(
            LoginTrace.line(Emission(.status(status), calls: [CallID(1), CallID(2)]))
                == "emit [1,2] status N005/info The MVPD selection was cancelled.")
        #expect(
            LoginTrace.line(.end(CallID(1), .setAuthenticationStatus(0, "Provider Not Selected Error"), explanation: status))
                == "end 1 authenticated(0, Provider Not Selected Error) ← N005")
        #expect(
            LoginTrace.line(AdvancedStatus("REGCODE", .info, "m", extras: ["url": "u", "code": "c"]))
                == #"REGCODE/info m {"code":"c","url":"u"}"#)
    }
}
