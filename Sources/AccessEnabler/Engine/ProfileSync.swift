// SPDX-License-Identifier: Apache-2.0

/// Profiles that GET /profiles does not list (REST API V2 §4.8: it answers regular and SSO
/// profiles; `temporary` and `degraded` ones come from the per-MVPD and per-code endpoints).
enum ProfileSync {
    /// Adobe's profiles plus the stored TempPass profiles (valid or over: an expired one still
    /// says N111) and valid degraded ones of MVPDs Adobe's answer does not have.
    static func merged(_ adobe: [Profile], stored: [Profile], now: Int64) -> [Profile] {
        let answered = Set(adobe.map(\.mvpd))
        let kept = stored.filter { profile in
            !answered.contains(profile.mvpd) && (profile.isTemporary || (profile.isDegraded && profile.isValid(at: now)))
        }
        return adobe + kept
    }
}
