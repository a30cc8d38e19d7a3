// SPDX-License-Identifier: Apache-2.0

/// getSelectedProvider (logout: LogoutFlow+Driver.swift).
extension Engine {
    func getSelectedProvider(_ call: CallID) {
        guard let requestor else { return }
        let selected = (try? store.selectedMVPD(scope, requestor: requestor.id)) ?? currentProfile()?.mvpd
        let mvpd = selected.map { requestor.configuration.mvpd($0) ?? MVPD(id: $0, displayName: $0) }
        end(call, .selectedProvider(mvpd))
    }
}
