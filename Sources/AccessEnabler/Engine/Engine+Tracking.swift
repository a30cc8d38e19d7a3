// SPDX-License-Identifier: Apache-2.0

extension Engine {
    /// authN: [success, mvpd, GUID (MD5 of the user id), cached, deviceType, clientType, os].
    func trackAuthentication(success: Bool, profile: Profile?, cached: Bool) {
        emit(
            .sendTrackingData(
                event: TrackingEvent.authentication,
                data: [
                    String(success), profile?.mvpd ?? "", profile?.userID.map(Digest.md5Hex) ?? "", String(cached),
                    tracking.deviceType, tracking.clientType, tracking.os,
                ]))
    }

    /// authZ: [success, mvpd, GUID, cached, error, details, deviceType, clientType, os].
    func trackAuthorization(success: Bool, profile: Profile?, error: EnhancedError? = nil) {
        emit(
            .sendTrackingData(
                event: TrackingEvent.authorization,
                data: [
                    String(success), profile?.mvpd ?? "", profile?.userID.map(Digest.md5Hex) ?? "", "false",
                    error?.code ?? "", error?.details ?? error?.message ?? "", tracking.deviceType, tracking.clientType, tracking.os,
                ]))
    }

    /// MVPD selection: [mvpd, deviceType, clientType, os].
    func trackSelection(_ mvpd: String) {
        emit(
            .sendTrackingData(
                event: TrackingEvent.mvpdSelection,
                data: [mvpd, tracking.deviceType, tracking.clientType, tracking.os]))
    }
}
