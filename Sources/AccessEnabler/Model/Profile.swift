// SPDX-License-Identifier: Apache-2.0

/// A profile attribute (`UserMetadataResponse`): `state` "plain" or "enc".
package struct ProfileAttribute: Codable, Sendable, Hashable {
    package var value: JSONValue
    package var state: String?

    package init(value: JSONValue, state: String? = "plain") {
        self.value = value
        self.state = state
    }

    package var isEncrypted: Bool { state == "enc" }
}

/// An authenticated profile (`MvpdProfileResponse`) with the MVPD it is keyed by.
package struct Profile: Codable, Sendable, Hashable {
    package var mvpd: String
    package var notBefore: Int64
    package var notAfter: Int64
    package var issuer: String
    package var type: String
    package var attributes: [String: ProfileAttribute]
    /// Promotional TempPass: the AP-TempPass-Identity value the profile was obtained with (the
    /// decisions on it need it again). Kept with the profile in the store; never logged.
    package var tempPassIdentity: String?
    /// REST API V1: the profile came from tokens/authn, whose answer has no user metadata;
    /// `attributes` holds only `userID` until GET tokens/usermetadata fills them (nil: complete).
    package var attributesPending: Bool?
    /// REST API V1: a token found at Adobe that this SDK did not make (another build of the app, a
    /// lost store): whether the platform's SSO made it (`tokenSource`) is known only from the user
    /// metadata, which logout then reads first (the V1 cookbook's logout step). nil: known.
    package var originUnknown: Bool?

    package init(
        mvpd: String, notBefore: Int64, notAfter: Int64, issuer: String, type: String,
        attributes: [String: ProfileAttribute]
    ) {
        self.mvpd = mvpd
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issuer = issuer
        self.type = type
        self.attributes = attributes
    }

    package func isValid(at millis: Int64) -> Bool { millis < notAfter }

    /// A TempPass profile (`type: temporary`, issuer `Adobe`).
    package var isTemporary: Bool { type == "temporary" }

    /// A profile Adobe issued under an authenticate-all degradation rule (`type: degraded`).
    package var isDegraded: Bool { type == "degraded" }

    /// AccessEnabler's `tokenSource` user metadata: "Apple" for Apple SSO profiles, the profile type
    /// for the other SSO methods ("platformSSO": a platform identity, "serviceTokenSSO": a service
    /// token; docs/PLATFORM-SSO.md), else the issuer (the MVPD, or "Adobe" for temporary and
    /// degraded profiles). V2 profiles carry no such attribute.
    package var tokenSource: String {
        if type == "appleSSO" || issuer == "Apple" { return "Apple" }
        return IdentityTokenKind.allCases.contains { $0.profileType == type } ? type : issuer
    }

    /// Adobe's user id (the tracking GUID is its MD5).
    package var userID: String? { attributes["userID"]?.value.stringValue }
}
