// SPDX-License-Identifier: Apache-2.0

/// An MVPD of the requestor's configuration (`MvpdType`), with AccessEnabler's field names when
/// encoded for the host (`ID`, `displayName`, `logoURL`, ...).
public struct MVPD: Sendable, Hashable, Codable {
    public var id: String
    public var displayName: String
    public var logoURL: String?
    public var isTempPass: Bool
    public var isProxy: Bool
    public var enablePlatformServices: Bool
    public var boardingStatus: String?
    public var platformMappingId: String?
    public var displayInPlatformPicker: Bool
    /// The integration's "Enforce Platform Permission" (TVE Dashboard): whether the viewer's
    /// decision to allow or deny the platform access to their TV provider account is respected.
    /// nil (absent) counts as true: a partner (`appleSSO`) profile of the MVPD is used only while
    /// the platform's permission is granted; false: it stays usable when the viewer denied it
    /// (docs/DECISIONS.md, "Partner single sign-on").
    public var enforcePlatformPermissions: Bool?
    /// SAML attribute names the partner must return (V1's MVPD list field; read when present).
    public var requiredMetadataFields: [String]

    public init(id: String, displayName: String, logoURL: String? = nil, isTempPass: Bool = false) {
        self.id = id
        self.displayName = displayName
        self.logoURL = logoURL
        self.isTempPass = isTempPass
        self.isProxy = false
        self.enablePlatformServices = false
        self.boardingStatus = nil
        self.platformMappingId = nil
        self.displayInPlatformPicker = false
        self.enforcePlatformPermissions = nil
        self.requiredMetadataFields = []
    }

    private enum HostKeys: String, CodingKey {
        case id = "ID", displayName, logoURL, isTempPass, isProxy, enablePlatformServices, boardingStatus,
            platformMappingId, displayInPlatformPicker, enforcePlatformPermissions, requiredMetadataFields
    }

    private enum AdobeKeys: String, CodingKey {
        case id, displayName, logoUrl, isTempPass, isProxy, enablePlatformServices, boardingStatus,
            platformMappingId, displayInPlatformPicker, enforcePlatformPermissions, requiredMetadataFields
    }

    /// Decodes Adobe's `MvpdType` (configuration answer) or the host form written by `encode`.
    public init(from decoder: any Decoder) throws {
        let adobe = try decoder.container(keyedBy: AdobeKeys.self)
        if adobe.contains(.id) {
            id = try adobe.decode(String.self, forKey: .id)
            displayName = try adobe.decodeIfPresent(String.self, forKey: .displayName) ?? id
            logoURL = try adobe.decodeIfPresent(String.self, forKey: .logoUrl)
            isTempPass = try adobe.decodeIfPresent(Bool.self, forKey: .isTempPass) ?? false
            isProxy = try adobe.decodeIfPresent(Bool.self, forKey: .isProxy) ?? false
            enablePlatformServices = try adobe.decodeIfPresent(Bool.self, forKey: .enablePlatformServices) ?? false
            boardingStatus = try adobe.decodeIfPresent(String.self, forKey: .boardingStatus)
            platformMappingId = try adobe.decodeIfPresent(String.self, forKey: .platformMappingId)
            displayInPlatformPicker = try adobe.decodeIfPresent(Bool.self, forKey: .displayInPlatformPicker) ?? false
            enforcePlatformPermissions = try adobe.decodeIfPresent(Bool.self, forKey: .enforcePlatformPermissions)
            requiredMetadataFields = (try? adobe.decodeIfPresent([String].self, forKey: .requiredMetadataFields)) ?? []
            return
        }
        let host = try decoder.container(keyedBy: HostKeys.self)
        id = try host.decode(String.self, forKey: .id)
        displayName = try host.decodeIfPresent(String.self, forKey: .displayName) ?? id
        logoURL = try host.decodeIfPresent(String.self, forKey: .logoURL)
        isTempPass = try host.decodeIfPresent(Bool.self, forKey: .isTempPass) ?? false
        isProxy = try host.decodeIfPresent(Bool.self, forKey: .isProxy) ?? false
        enablePlatformServices = try host.decodeIfPresent(Bool.self, forKey: .enablePlatformServices) ?? false
        boardingStatus = try host.decodeIfPresent(String.self, forKey: .boardingStatus)
        platformMappingId = try host.decodeIfPresent(String.self, forKey: .platformMappingId)
        displayInPlatformPicker = try host.decodeIfPresent(Bool.self, forKey: .displayInPlatformPicker) ?? false
        enforcePlatformPermissions = try host.decodeIfPresent(Bool.self, forKey: .enforcePlatformPermissions)
        requiredMetadataFields = try host.decodeIfPresent([String].self, forKey: .requiredMetadataFields) ?? []
    }

    /// The host form: AccessEnabler's MVPD field names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: HostKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(displayName, forKey: .displayName)
        try container.encodeIfPresent(logoURL, forKey: .logoURL)
        try container.encode(isTempPass, forKey: .isTempPass)
        try container.encode(isProxy, forKey: .isProxy)
        try container.encode(enablePlatformServices, forKey: .enablePlatformServices)
        try container.encodeIfPresent(boardingStatus, forKey: .boardingStatus)
        try container.encodeIfPresent(platformMappingId, forKey: .platformMappingId)
        try container.encode(displayInPlatformPicker, forKey: .displayInPlatformPicker)
        try container.encodeIfPresent(enforcePlatformPermissions, forKey: .enforcePlatformPermissions)
        if !requiredMetadataFields.isEmpty { try container.encode(requiredMetadataFields, forKey: .requiredMetadataFields) }
    }
}

/// The requestor configuration this SDK keeps (`ConfigurationResponse`, reduced).
package struct RequestorConfiguration: Codable, Sendable, Equatable {
    package var requestorID: String
    package var name: String?
    package var domains: [String]
    package var mvpds: [MVPD]

    package init(requestorID: String, name: String? = nil, domains: [String], mvpds: [MVPD]) {
        self.requestorID = requestorID
        self.name = name
        self.domains = domains
        self.mvpds = mvpds
    }

    package func mvpd(_ id: String) -> MVPD? { mvpds.first { $0.id == id } }
}
