// SPDX-License-Identifier: Apache-2.0

/// The sendTrackingData events the flows emit, built from the device fields: the one home of
/// AccessEnabler's tracking arrays (pure).
extension TrackingValues {
    /// authN: [success, mvpd, GUID (MD5 of the user id), cached, deviceType, clientType, os].
    func authentication(success: Bool, profile: Profile?, cached: Bool) -> Event {
        .sendTrackingData(
            event: TrackingEvent.authentication,
            data: [
                String(success), profile?.mvpd ?? "", profile?.userID.map(Digest.md5Hex) ?? "", String(cached),
                deviceType, clientType, os,
            ])
    }

    /// authZ: [success, mvpd, GUID, cached, error, details, deviceType, clientType, os].
    func authorization(success: Bool, profile: Profile?, error: EnhancedError? = nil) -> Event {
        .sendTrackingData(
            event: TrackingEvent.authorization,
            data: [
                String(success), profile?.mvpd ?? "", profile?.userID.map(Digest.md5Hex) ?? "", "false",
                error?.code ?? "", error?.details ?? error?.message ?? "", deviceType, clientType, os,
            ])
    }

    /// MVPD selection: [mvpd, deviceType, clientType, os].
    func selection(_ mvpd: String) -> Event {
        .sendTrackingData(event: TrackingEvent.mvpdSelection, data: [mvpd, deviceType, clientType, os])
    }
}
