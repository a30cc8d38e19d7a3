// SPDX-License-Identifier: Apache-2.0

/// One logout call (Engine+Session.swift `logout`).
/// The login in progress ends and the local profiles are removed first (checkAuthentication answers
/// 0 at once; a logout never fails for the viewer), then Adobe is told:
///
/// - `perMVPD` (REST API V2): one logout request per stored MVPD that is not a TempPass (Adobe
///   needs none for them, their TempPass goes on), all at once. Once every answer is in, in MVPD
///   order: VSA203 for a partner profile whatever Adobe answered (also when it could not be
///   reached) or when Adobe names `partner_logout`; each `logout` action's page as
///   navigate_to_url (browser login) or a LOGOUT status.
/// - `device` (REST API V1): one device-wide logout (TempPass tokens too: V1 would hand them back).
///   VSA203 first when the current token's `tokenSource` is "Apple"; for a token whose origin is
///   unknown (found at Adobe) the user metadata is read first to learn it.
///
/// The call ends with set_authentication_status(0, "User Not Authenticated Error").
///
/// States (`State`): `idle`; `readingUserMetadata` (device); `loggingOut(waiting)` (perMVPD: the
/// MVPDs whose answer is not in yet); `loggingOutDevice`; `finished`; `cancelled` (destroyed).
struct LogoutFlow: Sendable {
    enum Scheme: Sendable {
        /// REST API V2: one request per MVPD.
        case perMVPD
        /// REST API V1: one request for the device.
        case device
    }

    enum State: Equatable, Sendable {
        case idle
        case readingUserMetadata
        case loggingOut(waiting: Set<String>)
        case loggingOutDevice
        case finished
        case cancelled
    }

    enum Action: Sendable {
        /// End the login in progress, if any, for all its waiters ("User Not Authenticated Error", no status).
        case endLogin
        /// Delete the requestor's stored profiles and its selected MVPD (log an error if the store fails).
        case removeStoredProfiles
        case clearPreauthorizationCache
        /// V1: GET tokens/usermetadata; answer with `userMetadataAnswered`.
        case readUserMetadata
        /// V1: store `profile` (completed with its user metadata) only while it is still the device's
        /// token (the stored profile of its MVPD has its `notAfter`), as Engine.saveIfStillStored does.
        case saveProfileIfStillStored(Profile)
        /// V2: DELETE logout for `mvpd`; answer with `logoutAnswered(mvpd:_:)`.
        case sendLogout(mvpd: String)
        /// V1: DELETE /api/v1/logout; answer with `deviceLogoutAnswered`.
        case sendDeviceLogout
        /// A browser logout was opened: the next handleExternalURL is its end (no callback).
        case setLogoutRedirectPending
        case log(LogLevel, String)
        case emit(Emission)
        /// The flow is over: the driver forgets it.
        case done
    }

    let call: CallID
    let stored: [Profile]
    let scheme: Scheme
    let browserLogin: Bool
    let baseURL: String
    /// The profile being logged out, usable now or not (a partner profile whose platform status
    /// lapsed still needs its VSA203): the current one, else the stored one that lasts longest.
    let current: Profile?
    private(set) var state: State = .idle
    private var answers: [String: Result<[String: LogoutAction], CallFailure>] = [:]
    private var lastStatus: AdvancedStatus?

    /// - Parameters:
    ///   - stored: the requestor's stored profiles (valid or not), read before they are removed.
    ///   - current: ProfileUse.current among them (nil when none is usable now).
    ///   - browserLogin: `settings.loginMode == .browser`.
    ///   - baseURL: the service URL relative logout pages are resolved against (V2Client.absolute).
    init(call: CallID, stored: [Profile], current: Profile?, scheme: Scheme, browserLogin: Bool, baseURL: String) {
        self.call = call
        self.stored = stored
        self.scheme = scheme
        self.browserLogin = browserLogin
        self.baseURL = baseURL
        self.current = current ?? stored.max { $0.notAfter < $1.notAfter }
    }

    var isFinished: Bool { state == .finished || state == .cancelled }

    // MARK: Events

    mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        var actions: [Action] = [.endLogin, .removeStoredProfiles, .clearPreauthorizationCache]
        if scheme == .device, !stored.isEmpty, let current {
            if current.originUnknown == true, current.attributesPending == true {
                // A token this SDK did not make: the cookbook reads its tokenSource before logging out.
                state = .readingUserMetadata
                return actions + [.readUserMetadata]
            }
            return actions + logOutDevice(source: current.tokenSource)
        }
        var mvpds: [String] = []
        for profile in stored where !profile.isTemporary && !mvpds.contains(profile.mvpd) { mvpds.append(profile.mvpd) }
        guard !mvpds.isEmpty else { return actions + end() }
        state = .loggingOut(waiting: Set(mvpds))
        actions += mvpds.map { .sendLogout(mvpd: $0) }
        return actions
    }

    /// V1: the user metadata of the current token (nil: Adobe has none).
    mutating func userMetadataAnswered(_ result: Result<V1UserMetadata?, CallFailure>) -> [Action] {
        guard state == .readingUserMetadata, let current else { return [] }
        switch result {
        case .success(nil):
            return logOutDevice(source: current.tokenSource)
        case .success(let metadata?):
            let complete = Self.completed(current, with: metadata)
            return [.saveProfileIfStillStored(complete)] + logOutDevice(source: complete.tokenSource)
        case .failure(let failure):
            if failure.isCancellation {
                state = .cancelled
                return [.done]
            }
            return [.log(.warning, "user metadata: \(failure.error.enhancedError.code)")] + logOutDevice(source: current.tokenSource)
        }
    }

    mutating func deviceLogoutAnswered(_ result: Result<Void, CallFailure>) -> [Action] {
        guard state == .loggingOutDevice else { return [] }
        var actions: [Action] = []
        if case .failure(let failure) = result {
            if failure.isCancellation {
                state = .cancelled
                return [.done]
            }
            actions.append(
                .log(
                    .warning,
                    "logout could not reach Adobe (\(failure.error.enhancedError.code)); "
                        + "the local profile was removed"))
        }
        return actions + end()
    }

    /// V2: Adobe's answer for `mvpd` (its `logouts` map). Nothing is emitted before every answer is in.
    mutating func logoutAnswered(mvpd: String, _ result: Result<[String: LogoutAction], CallFailure>) -> [Action] {
        guard case .loggingOut(var waiting) = state, waiting.remove(mvpd) != nil else { return [] }
        if case .failure(let failure) = result, failure.isCancellation {
            state = .cancelled
            return [.done]
        }
        answers[mvpd] = result
        state = .loggingOut(waiting: waiting)
        guard waiting.isEmpty else { return [] }
        let partnerMVPDs = Set(stored.filter(ProfileUse.isPartnerProfile).map(\.mvpd))
        var actions: [Action] = []
        for (mvpd, answer) in answers.sorted(by: { $0.key < $1.key }) {
            switch answer {
            case .success(let logouts):
                let actionsByKey = logouts.sorted { $0.key < $1.key }.map(\.value)
                if partnerMVPDs.contains(mvpd) || actionsByKey.contains(where: { $0.actionName == "partner_logout" }) {
                    actions.append(status(StatusCatalog.platformSignOut(mvpd)))
                }
                for action in actionsByKey where action.actionName == "logout" {
                    guard let url = action.url.map(absolute) else { continue }
                    if browserLogin {
                        actions += [.setLogoutRedirectPending, .emit(Emission(.navigateToURL(url), calls: [call]))]
                    } else {
                        actions.append(status(StatusCatalog.mvpdLogoutPage(url, mvpd: mvpd)))
                    }
                }
            case .failure(let failure):
                actions.append(
                    .log(
                        .warning,
                        "logout of \(mvpd) could not reach Adobe (\(failure.error.enhancedError.code)); "
                            + "the local profile was removed"))
                if partnerMVPDs.contains(mvpd) { actions.append(status(StatusCatalog.platformSignOut(mvpd))) }
            }
        }
        return actions + end()
    }

    /// Destroy: nothing more is emitted.
    mutating func cancel() -> [Action] {
        if !isFinished { state = .cancelled }
        return []
    }

    // MARK: Steps

    private mutating func logOutDevice(source: String) -> [Action] {
        var actions: [Action] = []
        if source == "Apple", let current { actions.append(status(StatusCatalog.platformSignOut(current.mvpd))) }
        state = .loggingOutDevice
        return actions + [.sendDeviceLogout]
    }

    private mutating func status(_ status: AdvancedStatus) -> Action {
        lastStatus = status
        return .emit(Emission(.status(status), calls: [call]))
    }

    private mutating func end() -> [Action] {
        state = .finished
        return [
            .emit(.end(call, .setAuthenticationStatus(0, AccessEnablerErrorCode.userNotAuthenticated), explanation: lastStatus)),
            .done,
        ]
    }

    /// A logout page as the V2 backend resolves it (V2Client.absolute): relative to the service URL.
    private func absolute(_ url: String) -> String {
        url.hasPrefix("http://") || url.hasPrefix("https://") ? url : baseURL + (url.hasPrefix("/") ? "" : "/") + url
    }

    /// `profile` completed with its user metadata (Engine.saveIfStillStored stores it).
    static func completed(_ profile: Profile, with metadata: V1UserMetadata) -> Profile {
        var complete = profile
        complete.attributes.merge(metadata.attributes) { _, adobe in adobe }
        complete.attributesPending = nil
        complete.originUnknown = nil
        if metadata.tokenSource == "Apple" {
            complete.type = "appleSSO"
            complete.issuer = "Apple"
        }
        return complete
    }
}
