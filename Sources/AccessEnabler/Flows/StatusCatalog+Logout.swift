// SPDX-License-Identifier: Apache-2.0

/// The advanced statuses of logout. Pure.
extension StatusCatalog {
    /// VSA203: the viewer must also sign out of the platform's TV provider account, or the silent
    /// exchange signs them in again at the next setRequestor.
    static func platformSignOut(_ mvpd: String) -> AdvancedStatus {
        AdvancedStatus(
            "VSA203", .info,
            "The viewer signed in through the platform's TV provider account: ask them to "
                + "sign out of it in the platform's TV provider settings too.", extras: ["mvpd": .string(mvpd)])
    }

    /// LOGOUT: the MVPD's logout page, for hosts that do not open it themselves (no browser login).
    static func mvpdLogoutPage(_ url: String, mvpd: String) -> AdvancedStatus {
        AdvancedStatus(
            "LOGOUT", .info, "Open the MVPD's logout page to end its session too.",
            extras: ["url": .string(url), "mvpd": .string(mvpd)])
    }
}
