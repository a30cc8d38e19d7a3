// SPDX-License-Identifier: Apache-2.0

/// What the partner framework says about the viewer, without interrupting them: permission,
/// provider and expiry — the content of the `AP-Partner-Framework-Status` header.
package struct PartnerStatus: Sendable, Equatable {
    /// Which question of the partner's failed: the permission (checkAccessStatus) or the account
    /// metadata (the provider and its expiry).
    package enum ErrorSource: Sendable, Equatable { case permission, provider }

    package var access: PartnerAccess
    package var providerID: String?
    package var expirationDate: Int64?
    /// The partner failed (error or no reply): APPL / APPL_ERROR.
    package var error: PartnerError?
    package var errorSource: ErrorSource

    package init(
        access: PartnerAccess, providerID: String? = nil, expirationDate: Int64? = nil, error: PartnerError? = nil,
        errorSource: ErrorSource = .permission
    ) {
        self.access = access
        self.providerID = providerID
        self.expirationDate = expirationDate
        self.error = error
        self.errorSource = errorSource
    }

    /// Why the status may not be sent, by the cookbook's rules; nil when it is usable: permission
    /// granted, provider id present and known to the configuration, and the expiration date, if
    /// the platform gave one, in the future (V2 cookbook B.2, C.4, C.11: "the expiry of the user's
    /// provider profile (if any) is valid"; docs/DECISIONS.md). Without one, no expiry is known:
    /// the header goes without `expirationDate`.
    package func problem(at now: Int64, configuration: RequestorConfiguration?) -> String? {
        if let error { return "the partner failed (\(error.summary))" }
        guard access.status == .granted else { return "permission is \(access.status.wireName)" }
        guard let providerID, !providerID.isEmpty else { return "no provider id" }
        if let configuration, configuration.mvpd(platformMappingID: providerID) == nil {
            return "provider \(providerID) is not in the configuration"
        }
        if let expirationDate, expirationDate <= now { return "the provider authentication expired" }
        return nil
    }

    /// Adobe's `invalid_header_pfs_*` code for the status's problem (nil when usable): the code
    /// Adobe would answer if it were sent, so that a decision never sent reads as one refused.
    package func refusalCode(at now: Int64, configuration: RequestorConfiguration?) -> String? {
        guard problem(at: now, configuration: configuration) != nil else { return nil }
        if error != nil, errorSource == .permission { return "invalid_header_pfs_permission_access_not_present" }
        switch access.status {
        case .granted: break
        case .notDetermined: return "invalid_header_pfs_permission_access_not_determined"
        case .denied, .restricted: return "invalid_header_pfs_permission_access_not_granted"
        }
        guard let providerID, !providerID.isEmpty, error == nil,
            configuration.map({ $0.mvpd(platformMappingID: providerID) != nil }) ?? true
        else { return "invalid_header_pfs_provider_id_not_determined" }
        return "invalid_header_pfs_provider_info_expired"
    }

    /// The MVPD the platform account maps to (its `platformMappingId`).
    package func mvpd(in configuration: RequestorConfiguration) -> MVPD? {
        providerID.flatMap { configuration.mvpd(platformMappingID: $0) }
    }

    /// `AP-Partner-Framework-Status`: Base64 of the JSON of Adobe's header page — `accessStatus`,
    /// the provider `id` and `expirationDate` (ms, as a string, as Adobe's samples write it; left
    /// out when the platform gave none), and
    /// the optional `error` object (`code`, `message`) on the side whose question failed.
    package var headerValue: String {
        var permission: [String: JSONValue] = ["accessStatus": .string(access.status.wireName)]
        var provider: [String: JSONValue] = [:]
        if let providerID { provider["id"] = .string(providerID) }
        if let expirationDate { provider["expirationDate"] = .string(String(expirationDate)) }
        if let error {
            var object: [String: JSONValue] = ["code": .string(error.code.wireName)]
            if let detail = error.detail { object["message"] = .string(detail) }
            switch errorSource {
            case .permission: permission["error"] = .object(object)
            case .provider: provider["error"] = .object(object)
            }
        }
        let status: JSONValue = ["frameworkPermissionInfo": .object(permission), "frameworkProviderInfo": .object(provider)]
        return Encoding.base64(status.jsonText)
    }
}
