// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// LogoutFlow without I/O: the logout Engine+Session.swift runs (V2, one request per MVPD; V1,
/// one request for the device), with the statuses in their order.
@Suite struct LogoutFlowTests {
    static let id = CallID(5)
    static let base = "https://sp.auth.example"
    static let local = ["endLogin", "removeStoredProfiles", "clearPreauthorizationCache"]
    static let end = ["end#5 setAuthenticationStatus(0, User Not Authenticated Error)", "done"]

    static func flow(
        _ stored: [Profile], current: Profile? = nil, scheme: LogoutFlow.Scheme = .perMVPD,
        browser: Bool = false
    ) -> LogoutFlow {
        LogoutFlow(call: id, stored: stored, current: current, scheme: scheme, browserLogin: browser, baseURL: base)
    }

    static func describe(_ actions: [LogoutFlow.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .endLogin: "endLogin"
            case .removeStoredProfiles: "removeStoredProfiles"
            case .clearPreauthorizationCache: "clearPreauthorizationCache"
            case .readUserMetadata: "readUserMetadata"
            case .saveProfileIfStillStored(let profile): "saveProfileIfStillStored(\(profile.mvpd), \(profile.type), \(profile.issuer))"
            case .sendLogout(let mvpd): "sendLogout(\(mvpd))"
            case .sendDeviceLogout: "sendDeviceLogout"
            case .setLogoutRedirectPending: "setLogoutRedirectPending"
            case .log(let level, let message): "log(\(level), \(message))"
            case .emit(let emission):
                if case .status(let status) = emission.event {
                    "emit[\(emission.calls.map { String($0.value) }.joined())] status(\(status.errorID) "
                        + status.extras.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.stringValue ?? "")" }.joined(separator: " ")
                        + ")"
                } else {
                    Summary.of(emission)
                }
            case .done: "done"
            }
        }
    }

    static func page(_ url: String?, name: String = "logout") -> LogoutAction {
        LogoutAction(actionName: name, actionType: "interactive", mvpd: nil, url: url)
    }

    static func metadata(_ json: String) throws -> V1UserMetadata {
        try JSON.decode(V1UserMetadata.self, from: Array(json.utf8))
    }

    // MARK: REST API V2: one request per MVPD

    @Test func withoutProfilesOnlyTheLocalStateGoes() {
        var flow = Self.flow([])
        #expect(Self.describe(flow.start()) == Self.local + Self.end)
        // TempPass profiles need no logout at Adobe: their TempPass goes on.
        flow = Self.flow([.tempPass()])
        #expect(Self.describe(flow.start()) == Self.local + Self.end)
        #expect(flow.state == .finished)
    }

    @Test func theMVPDsLogoutPageIsALogoutStatusWithoutABrowser() {
        var flow = Self.flow([.regular(), .tempPass()])
        #expect(Self.describe(flow.start()) == Self.local + ["sendLogout(Cablevision)"])
        #expect(flow.state == .loggingOut(waiting: ["Cablevision"]))
        #expect(
            Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .success(["Cablevision": Self.page("https://mvpd.example/logout")])))
                == [
                    "emit[5] status(LOGOUT mvpd=Cablevision url=https://mvpd.example/logout)",
                    "end#5 setAuthenticationStatus(0, User Not Authenticated Error) <- LOGOUT", "done",
                ])
    }

    @Test func aBrowserOpensTheLogoutPageResolvedAgainstTheServiceURL() {
        var flow = Self.flow([.regular()], browser: true)
        _ = flow.start()
        #expect(
            Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .success(["Cablevision": Self.page("/adobe-services/logout?x=1")])))
                == ["setLogoutRedirectPending", "emit[5] navigateToURL(\(Self.base)/adobe-services/logout?x=1)"] + Self.end)
        flow = Self.flow([.regular()], browser: true)
        _ = flow.start()
        #expect(
            Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .success(["Cablevision": Self.page("logout")])))[1]
                == "emit[5] navigateToURL(\(Self.base)/logout)")
    }

    @Test func answersAreReportedOnceAllAreInInMVPDOrderWithVSA203ForPartnerProfiles() {
        var flow = Self.flow([.partner("Dish"), .regular("Cablevision"), .regular("Altice"), .tempPass()])
        #expect(Self.describe(flow.start()) == Self.local + ["sendLogout(Dish)", "sendLogout(Cablevision)", "sendLogout(Altice)"])
        #expect(flow.logoutAnswered(mvpd: "Dish", .success([:])).isEmpty)
        #expect(flow.logoutAnswered(mvpd: "Altice", .failure(.network)).isEmpty)
        #expect(flow.state == .loggingOut(waiting: ["Cablevision"]))
        let answer: [String: LogoutAction] = [
            "z": Self.page(nil), "b": Self.page("https://mvpd.example/b"), "a": Self.page("https://mvpd.example/a"),
            "p": Self.page(nil, name: "partner_logout"),
        ]
        #expect(
            Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .success(answer))) == [
                "log(warning, logout of Altice could not reach Adobe (network_error); the local profile was removed)",
                // Adobe's partner_logout action asks for VSA203 too.
                "emit[5] status(VSA203 mvpd=Cablevision)",
                "emit[5] status(LOGOUT mvpd=Cablevision url=https://mvpd.example/a)",
                "emit[5] status(LOGOUT mvpd=Cablevision url=https://mvpd.example/b)",
                // A partner profile gets VSA203 whatever Adobe answers.
                "emit[5] status(VSA203 mvpd=Dish)",
                "end#5 setAuthenticationStatus(0, User Not Authenticated Error) <- VSA203", "done",
            ])
    }

    @Test func aPartnerProfileGetsVSA203AlsoWhenAdobeCannotBeReached() {
        var flow = Self.flow([.partner()])
        _ = flow.start()
        #expect(
            Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .failure(.enhanced(.adobe("internal_error", status: 500))))) == [
                "log(warning, logout of Cablevision could not reach Adobe (internal_error); the local profile was removed)",
                "emit[5] status(VSA203 mvpd=Cablevision)", "end#5 setAuthenticationStatus(0, User Not Authenticated Error) <- VSA203",
                "done",
            ])
    }

    @Test func lateUnknownAndSecondAnswersAreIgnored() {
        var flow = Self.flow([.regular(), .regular("Dish")])
        #expect(flow.logoutAnswered(mvpd: "Cablevision", .success([:])).isEmpty)  // idle
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)
        #expect(flow.userMetadataAnswered(.success(nil)).isEmpty)
        _ = flow.start()
        #expect(flow.start().isEmpty)
        #expect(flow.logoutAnswered(mvpd: "Other", .success([:])).isEmpty)
        #expect(flow.logoutAnswered(mvpd: "Cablevision", .success([:])).isEmpty)
        #expect(flow.logoutAnswered(mvpd: "Cablevision", .success(["x": Self.page("https://x")])).isEmpty)  // a second answer
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)
        #expect(Self.describe(flow.logoutAnswered(mvpd: "Dish", .success([:]))) == Self.end)
        #expect(flow.logoutAnswered(mvpd: "Dish", .success([:])).isEmpty)
        #expect(flow.cancel().isEmpty && flow.state == .finished)
    }

    @Test func afterCancelOrACancelledRequestNothingIsEmitted() {
        var flow = Self.flow([.regular(), .regular("Dish")])
        _ = flow.start()
        #expect(flow.cancel().isEmpty && flow.state == .cancelled)
        #expect(flow.logoutAnswered(mvpd: "Cablevision", .success([:])).isEmpty)
        #expect(flow.logoutAnswered(mvpd: "Dish", .success([:])).isEmpty)
        flow = Self.flow([.regular(), .regular("Dish")])
        _ = flow.start()
        _ = flow.logoutAnswered(mvpd: "Dish", .success([:]))
        #expect(Self.describe(flow.logoutAnswered(mvpd: "Cablevision", .failure(.cancelled))) == ["done"])
        #expect(flow.state == .cancelled)
    }

    // MARK: REST API V1: one request for the device

    @Test func v1LogsTheDeviceOutOnceTempPassIncluded() {
        var flow = Self.flow([.tempPass(), .regular()], current: .regular(), scheme: .device)
        #expect(Self.describe(flow.start()) == Self.local + ["sendDeviceLogout"])
        #expect(flow.state == .loggingOutDevice)
        #expect(Self.describe(flow.deviceLogoutAnswered(.success(()))) == Self.end)
        flow = Self.flow([.tempPass()], scheme: .device)
        #expect(Self.describe(flow.start()) == Self.local + ["sendDeviceLogout"])
        flow = Self.flow([], scheme: .device)
        #expect(Self.describe(flow.start()) == Self.local + Self.end)
    }

    @Test func v1SaysVSA203FirstForAnAppleTokenAndTheLongestStoredProfileCountsWhenNoneIsUsable() {
        var flow = Self.flow([.regular("Dish", notAfter: 10), .partner("Cablevision", notAfter: 20)], current: nil, scheme: .device)
        #expect(flow.current?.mvpd == "Cablevision")
        #expect(Self.describe(flow.start()) == Self.local + ["emit[5] status(VSA203 mvpd=Cablevision)", "sendDeviceLogout"])
        #expect(
            Self.describe(flow.deviceLogoutAnswered(.failure(.network))) == [
                "log(warning, logout could not reach Adobe (network_error); the local profile was removed)",
                "end#5 setAuthenticationStatus(0, User Not Authenticated Error) <- VSA203", "done",
            ])
    }

    static func foundAtAdobe(pending: Bool? = true) -> Profile {
        var profile = Profile.regular()
        profile.originUnknown = true
        profile.attributesPending = pending
        return profile
    }

    @Test func v1ReadsTheUserMetadataOfATokenItDidNotMakeBeforeLoggingOut() throws {
        var flow = Self.flow([Self.foundAtAdobe()], current: Self.foundAtAdobe(), scheme: .device)
        #expect(Self.describe(flow.start()) == Self.local + ["readUserMetadata"])
        #expect(flow.state == .readingUserMetadata)
        let apple = try Self.metadata(#"{"data": {"tokenSource": "Apple", "zip": "10001"}, "encrypted": []}"#)
        #expect(
            Self.describe(flow.userMetadataAnswered(.success(apple)))
                == [
                    "saveProfileIfStillStored(Cablevision, appleSSO, Apple)", "emit[5] status(VSA203 mvpd=Cablevision)", "sendDeviceLogout",
                ])
        let completed = LogoutFlow.completed(Self.foundAtAdobe(), with: apple)
        #expect(completed.attributesPending == nil && completed.originUnknown == nil)
        #expect(completed.attributes["zip"]?.value == .string("10001") && completed.attributes["userID"] != nil)
        #expect(completed.attributes["tokenSource"] == nil)
    }

    @Test func v1LogsOutWithoutVSA203WhenTheMetadataSaysNothingOrCannotBeRead() throws {
        let other = try Self.metadata(#"{"data": {"zip": "10001"}}"#)
        var flow = Self.flow([Self.foundAtAdobe()], current: Self.foundAtAdobe(), scheme: .device)
        _ = flow.start()
        #expect(
            Self.describe(flow.userMetadataAnswered(.success(other))) == [
                "saveProfileIfStillStored(Cablevision, regular, Cablevision)",
                "sendDeviceLogout",
            ])
        flow = Self.flow([Self.foundAtAdobe()], current: Self.foundAtAdobe(), scheme: .device)
        _ = flow.start()
        #expect(Self.describe(flow.userMetadataAnswered(.success(nil))) == ["sendDeviceLogout"])
        flow = Self.flow([Self.foundAtAdobe()], current: Self.foundAtAdobe(), scheme: .device)
        _ = flow.start()
        #expect(
            Self.describe(flow.userMetadataAnswered(.failure(.network))) == [
                "log(warning, user metadata: network_error)", "sendDeviceLogout",
            ])
        // Its metadata already read (not pending): nothing to read.
        flow = Self.flow([Self.foundAtAdobe(pending: nil)], current: Self.foundAtAdobe(pending: nil), scheme: .device)
        #expect(Self.describe(flow.start()) == Self.local + ["sendDeviceLogout"])
    }

    @Test func v1LateAndCancelledEvents() {
        var flow = Self.flow([Self.foundAtAdobe()], current: Self.foundAtAdobe(), scheme: .device)
        _ = flow.start()
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)  // not sent yet
        #expect(flow.logoutAnswered(mvpd: "Cablevision", .success([:])).isEmpty)
        #expect(Self.describe(flow.userMetadataAnswered(.failure(.cancelled))) == ["done"])
        #expect(flow.state == .cancelled)
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)
        flow = Self.flow([.regular()], current: .regular(), scheme: .device)
        _ = flow.start()
        #expect(flow.userMetadataAnswered(.success(nil)).isEmpty)  // not asked
        #expect(Self.describe(flow.deviceLogoutAnswered(.failure(.cancelled))) == ["done"])
        flow = Self.flow([.regular()], current: .regular(), scheme: .device)
        _ = flow.start()
        _ = flow.cancel()
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)
        flow = Self.flow([.regular()], current: .regular(), scheme: .device)
        _ = flow.start()
        _ = flow.deviceLogoutAnswered(.success(()))
        #expect(flow.deviceLogoutAnswered(.success(())).isEmpty)  // a second answer
    }

    // MARK: Every state × event

    /// The flow in `state`: V2 (Cablevision, Dish) for loggingOut, V1 (a token found at Adobe) for
    /// readingUserMetadata and loggingOutDevice.
    static func flow(in state: String) -> LogoutFlow {
        let v1 = ["readingUserMetadata", "loggingOutDevice"].contains(state)
        var flow =
            v1
            ? Self.flow([foundAtAdobe()], current: foundAtAdobe(), scheme: .device)
            : Self.flow([.regular(), .regular("Dish")])
        switch state {
        case "readingUserMetadata", "loggingOut": _ = flow.start()
        case "loggingOutDevice":
            _ = flow.start()
            _ = flow.userMetadataAnswered(.success(nil))
        case "finished":
            _ = flow.start()
            _ = flow.logoutAnswered(mvpd: "Cablevision", .success([:]))
            _ = flow.logoutAnswered(mvpd: "Dish", .success([:]))
        case "cancelled":
            _ = flow.start()
            _ = flow.cancel()
        default: break
        }
        return flow
    }

    @Test(arguments: [
        // state, start, user metadata answered, Cablevision's answer, device logout answered (first action or "-")
        ("idle", "endLogin", "-", "-", "-"),
        ("readingUserMetadata", "-", "sendDeviceLogout", "-", "-"),
        ("loggingOut", "-", "-", "(waits for Dish)", "-"),
        ("loggingOutDevice", "-", "-", "-", "end#5 setAuthenticationStatus(0, User Not Authenticated Error)"),
        ("finished", "-", "-", "-", "-"),
        ("cancelled", "-", "-", "-", "-"),
    ])
    func everyStateAndEvent(state: String, start: String, metadata: String, answer: String, device: String) {
        func first(_ actions: [LogoutFlow.Action]) -> String { Self.describe(actions).first ?? "-" }
        var flow = Self.flow(in: state)
        #expect(first(flow.start()) == start)
        flow = Self.flow(in: state)
        #expect(first(flow.userMetadataAnswered(.success(nil))) == metadata)
        flow = Self.flow(in: state)
        let answered = flow.logoutAnswered(mvpd: "Cablevision", .success([:]))
        #expect(
            (state == "loggingOut" ? (flow.state == .loggingOut(waiting: ["Dish"]) ? "(waits for Dish)" : "?") : first(answered)) == answer)
        flow = Self.flow(in: state)
        #expect(first(flow.deviceLogoutAnswered(.success(()))) == device)
        flow = Self.flow(in: state)
        #expect(flow.cancel().isEmpty)
        #expect(flow.isFinished)
    }
}
