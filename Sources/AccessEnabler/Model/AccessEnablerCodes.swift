// SPDX-License-Identifier: Apache-2.0

/// AccessEnabler's constant values.
public enum AccessEnablerStatus {
    public static let error: Int32 = 0
    public static let success: Int32 = 1
}

/// Error codes of setAuthenticationStatus and tokenRequestFailed (iOS spellings).
public enum AccessEnablerErrorCode {
    public static let userAuthenticated = ""
    public static let userNotAuthenticated = "User Not Authenticated Error"
    public static let userNotAuthorized = "User Not Authorized Error"
    public static let providerNotSelected = "Provider Not Selected Error"
    public static let genericAuthentication = "Generic Authentication Error"
    public static let genericAuthorization = "Generic Authorization Error"
}

/// sendTrackingData event types.
public enum TrackingEvent {
    public static let authentication: Int32 = 0
    public static let authorization: Int32 = 1
    public static let mvpdSelection: Int32 = 2
}
