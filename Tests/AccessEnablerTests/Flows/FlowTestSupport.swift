// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler

/// Readable one-line forms of the flows' emissions, so that action lists compare as string arrays
/// (events hold closures and are not Equatable). `end#3 ... <- Z100`: the event that ends call 3
/// with its explanation; `emit[3] ...`: an event of call 3 in progress; `emit[] ...`: of no call.
enum Summary {
    static func of(_ emission: Emission) -> String {
        let event = of(emission.event)
        let calls = emission.calls.map { String($0.value) }.joined(separator: ",")
        guard emission.ends else { return "emit[\(calls)] \(event)" }
        return "end#\(calls) \(event)" + (emission.explanation.map { " <- \($0.errorID)" } ?? "")
    }

    static func of(_ event: Event) -> String {
        switch event {
        case .setRequestorComplete(let value): "setRequestorComplete(\(value))"
        case .setAuthenticationStatus(let value, let code): "setAuthenticationStatus(\(value), \(code))"
        case .setToken(let token, let resource, _): "setToken(\(token), \(resource))"
        case .tokenRequestFailed(let resource, let code, let description): "tokenRequestFailed(\(resource), \(code), \(description))"
        case .selectedProvider(let mvpd): "selectedProvider(\(mvpd?.id ?? "nil"))"
        case .displayProviderDialog(let mvpds): "displayProviderDialog(\(mvpds.map(\.id)))"
        case .navigateToURL(let url): "navigateToURL(\(url))"
        case .sendTrackingData(let type, let data): "tracking(\(type): \(data.joined(separator: ",")))"
        case .setMetadataStatus(let value, let encrypted, let key, let arguments):
            "setMetadataStatus(\(value?.jsonText ?? "nil"), \(encrypted), \(key), \(arguments.jsonText))"
        case .preauthorizedResources(let resources): "preauthorizedResources(\(resources))"
        case .presentTvProviderDialog(let dialog): "presentTvProviderDialog(\(dialog.jsonText))"
        case .dismissTvProviderDialog(let dialog): "dismissTvProviderDialog(\(dialog.jsonText))"
        case .status(let status): "status(\(status.errorID)\(status.enhancedError.map { " " + $0.code } ?? ""))"
        case .preauthorizeResponse(let response, _): "preauthorizeResponse(\(response.jsonText))"
        }
    }
}

extension TrackingValues {
    /// deviceType "unknown", clientType "linux", os "Linux".
    static let test = TrackingValues(deviceInfo: [:])
}

/// The tracking data array tail of TrackingValues.test.
let trackingDevice = "unknown,linux,Linux"

extension Profile {
    static func regular(_ mvpd: String = "Cablevision", notAfter: Int64 = 2_000_000, user: String? = "user-1") -> Profile {
        var attributes: [String: ProfileAttribute] = [:]
        if let user { attributes["userID"] = ProfileAttribute(value: .string(user)) }
        return Profile(mvpd: mvpd, notBefore: 1_000, notAfter: notAfter, issuer: mvpd, type: "regular", attributes: attributes)
    }

    static func partner(_ mvpd: String = "Cablevision", notAfter: Int64 = 2_000_000) -> Profile {
        var profile = regular(mvpd, notAfter: notAfter)
        profile.type = "appleSSO"
        profile.issuer = "Apple"
        return profile
    }

    static func tempPass(_ mvpd: String = "TempPass_TEST40", notAfter: Int64 = 2_000_000, identity: String? = nil) -> Profile {
        var profile = Profile(mvpd: mvpd, notBefore: 1_000, notAfter: notAfter, issuer: "Adobe", type: "temporary", attributes: [:])
        profile.tempPassIdentity = identity
        return profile
    }
}

extension EnhancedError {
    static func adobe(_ code: String, action: String? = nil, status: Int = 403, details: String? = nil) -> EnhancedError {
        EnhancedError(status: status, code: code, action: action, message: "Adobe says \(code).", details: details)
    }
}

extension CallFailure {
    /// Adobe answered the call itself with an enhanced error.
    static func enhanced(_ error: EnhancedError, status: Int? = nil) -> CallFailure {
        CallFailure(.call, .enhanced(error, httpStatus: status ?? error.status))
    }

    static let network = CallFailure(.call, .transport(.timedOut))
    static let cancelled = CallFailure(.call, .transport(.cancelled))
}

extension Decision {
    static func permit(_ resource: String, token: String = "TOKEN", notAfter: Int64? = 5_000, source: String? = nil) -> Decision {
        Decision(resource: resource, authorized: true, token: .init(serializedToken: token, notAfter: notAfter), source: source)
    }

    static func deny(_ resource: String, _ error: EnhancedError? = nil) -> Decision {
        Decision(resource: resource, authorized: false, error: error)
    }
}

func digest(_ user: String = "user-1") -> String { Digest.md5Hex(user) }
