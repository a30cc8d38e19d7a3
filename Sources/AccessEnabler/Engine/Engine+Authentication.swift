// SPDX-License-Identifier: Apache-2.0

/// checkAuthentication, getAuthentication, setSelectedProvider and handleExternalURL: the login
/// itself is LoginFlow's (Flows/LoginFlow.swift), run by LoginFlow+Driver.swift.
extension Engine {
    /// No HTTP request. With a partner framework the partner was just asked for its status (the
    /// engine's partner gate; VSA403 / VSA404 / APPL_ERROR come from there), and a partner profile
    /// counts only while that status is usable (ProfileUse).
    func checkAuthentication(_ call: CallID, explanation: AdvancedStatus? = nil) {
        reportAuthentication(call, currentProfile(), explanation: explanation)
    }

    /// `data`: promotional TempPass takes the viewer's identity from it (AP-TempPass-Identity).
    func getAuthentication(_ call: CallID, force: Bool, data: JSONValue? = nil, filter: JSONValue? = nil) {
        let current = force ? nil : currentProfile()
        run(
            loginFlow.getAuthentication(
                call, force: force, data: data, filter: filter, current: current,
                expiredTempPassMVPD: current == nil ? expiredTempPass()?.mvpd : nil))
    }

    /// A selection made during a login answers it: the call ends with the login (its waiters get
    /// the outcome). Without a login, a selection starts one whose waiter is this call.
    func setSelectedProvider(_ call: CallID, _ id: String?) {
        guard let requestor else { return }
        let deviceID = context.withLock { $0.deviceID }
        let stored = id == nil ? [] : (try? store.profiles(scope, requestor: requestor.id, deviceID: deviceID))?.profiles ?? []
        run(loginFlow.setSelectedProvider(call, id, stored: stored, now: clock.nowMillis()))
    }

    func handleExternalURL(_ call: CallID, _ url: String) {
        if let actions = loginFlow.externalURL() {
            run(actions)  // the browser says the login is done: look at once
            return
        }
        if logoutRedirectPending {
            logoutRedirectPending = false  // the end of a browser logout (its status was already sent)
            return
        }
        let status = AdvancedStatus("N130", .error, "handleExternalURL: no login is in progress (APIs called out of order).")
        emit(.status(status), calls: [call])
        end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.genericAuthentication), explanation: status)
    }
}
