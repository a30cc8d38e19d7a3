// SPDX-License-Identifier: Apache-2.0
// The Swift example player: the whole AccessEnabler flow of a set-top box, on the callback API.
//
//   example-player --base-url http://127.0.0.1:PORT [--requestor REF30] [--mvpd ID] [--resource ID]
//                  [--storage PATH] [--unattended] [--partner signed-in:PROVIDER | --partner picker:PROVIDER]
//                  [--identity EMAIL] [--api v2|v1] [--ca-file PEM]
//
// Without --unattended it asks which MVPD to use and waits while you log in on another device
// (open the printed URL in a browser). With --unattended it picks --mvpd (or the first MVPD) and
// waits for the emulator's simulated viewer (`emulator.py --auto-login-ms N`) to log in.
// --partner plugs in the simulated platform SSO (PartnerSimulator): `signed-in:Comcast` is a
// platform already signed in to that provider (setRequestor exchanges it silently);
// `picker:Cablevision` shows the platform picker, where the simulated viewer picks that provider.
// A TempPass MVPD (`--mvpd TempPass_TEST40`, marked "TempPass" in the list) needs no login: the free
// preview starts at once. Promotional TempPass (`--mvpd flexibleTempPass`) is per viewer: --identity
// gives the viewer's e-mail address, passed as getAuthentication's data. `--api v1` speaks the
// legacy REST API V1 instead of V2: the calls and callbacks are the same.
import AccessEnabler
import AccessEnablerTesting
import Foundation

struct Options {
    var baseURL = "http://127.0.0.1:8080"
    var requestor = "REF30"
    var mvpd: String?
    var resource = "LIVE"
    var storage: String?
    var unattended = false
    var partner: String?
    var identity: String?
    var api = APIGeneration.v2
    /// An operator's CA bundle (the demo's TLS front: scripts/demo.sh --https).
    var caFile: String?
    // A software statement from the TVE Dashboard; the emulator accepts any JWT-shaped one.
    var softwareStatement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImV4YW1wbGUtcGxheWVyIn0.c2lnbmF0dXJl"

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            switch flag {
            case "--unattended": unattended = true
            case "--base-url": baseURL = rest.popFirst() ?? baseURL
            case "--requestor": requestor = rest.popFirst() ?? requestor
            case "--mvpd": mvpd = rest.popFirst()
            case "--resource": resource = rest.popFirst() ?? resource
            case "--storage": storage = rest.popFirst()
            case "--partner": partner = rest.popFirst()
            case "--identity": identity = rest.popFirst()
            case "--api":
                switch rest.popFirst() {
                case "v1": api = .v1
                case "v2": api = .v2
                default:
                    print("--api takes v1 or v2")
                    exit(2)
                }
            case "--software-statement": softwareStatement = rest.popFirst() ?? softwareStatement
            case "--ca-file": caFile = rest.popFirst()
            default:
                print("unknown option \(flag)")
                exit(2)
            }
        }
    }
}

/// Turns AccessEnabler's callbacks (on the SDK's callback thread) into events the player awaits
/// in order.
final class Events: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    enum Event {
        case requestorComplete(Int32)
        case authenticationStatus(Int32, String)
        case token(String, String)
        case tokenFailed(String, String, String)
        case providers([MVPD])
        case partnerPicker(JSONValue)
        case metadata(JSONValue?, Int32, JSONValue)
        case status(AdvancedStatus)
    }

    private let lock = NSLock()
    private var buffer: [Event] = []
    private var waiter: CheckedContinuation<Event, Never>?

    func yield(_ event: Event) {
        let waiter = lock.withLock { () -> CheckedContinuation<Event, Never>? in
            guard let waiter = self.waiter else {
                buffer.append(event)
                return nil
            }
            self.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    func next() async -> Event {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Event? in
                guard !buffer.isEmpty else {
                    waiter = continuation
                    return nil
                }
                return buffer.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func setRequestorComplete(_ status: Int32) { yield(.requestorComplete(status)) }
    func setAuthenticationStatus(_ status: Int32, errorCode: String) {
        yield(.authenticationStatus(status, errorCode))
    }
    func setToken(_ token: String, forResource resource: String) { yield(.token(token, resource)) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        yield(.tokenFailed(resource, errorCode, errorDescription))
    }
    func displayProviderDialog(_ mvpds: [MVPD]) { yield(.providers(mvpds)) }
    func presentTvProviderDialog(_ dialog: JSONValue) { yield(.partnerPicker(dialog)) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        yield(.metadata(metadata, key, arguments))
    }
    func status(_ status: AdvancedStatus) { yield(.status(status)) }
}

func describe(_ millis: JSONValue?) -> String {
    guard let millis = millis?.int64Value else { return "none" }
    let seconds = Double(millis) / 1000 - Date().timeIntervalSince1970
    return "\(millis) ms since the epoch (in \(Int(seconds / 60)) min)"
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
var settings = Settings(softwareStatement: options.softwareStatement)
settings.apiGeneration = options.api
settings.baseURL = options.baseURL
settings.storagePath = options.storage
settings.pollIntervalMillis = 3_000
settings.tls.caFile = options.caFile
if let partner = options.partner {
    var script = PartnerSimulator.Script()
    script.signIn = .signedIn
    let parts = partner.split(separator: ":", maxSplits: 1).map(String.init)
    switch (parts.first, parts.count == 2 ? parts[1] : nil) {
    case ("signed-in", let provider?): script.account = provider
    case ("picker", let provider?): script.picker = .choose(provider)
    default:
        print("--partner takes signed-in:PROVIDER or picker:PROVIDER")
        exit(2)
    }
    settings.partner = PartnerSimulator(script)
    print("platform SSO: simulated (\(partner))")
}

let events = Events()
let enabler: AccessEnabler
do {
    enabler = try AccessEnabler(settings: settings)
} catch {
    print("cannot create the client: \(error)")
    exit(1)
}
enabler.delegate = events
enabler.statusDelegate = events
print(
    "AccessEnabler for Linux \(Version.string) — requestor \(options.requestor) at \(options.baseURL), "
        + "REST API \(options.api == .v1 ? "V1" : "V2")")

func next() async -> Events.Event {
    let event = await events.next()
    if case .status(let status) = event, !["REGCODE", "LOGOUT", "VSA203"].contains(status.errorID) {
        print("  [status \(status.errorID) \(status.level.rawValue)] \(status.message)")
        if status.errorID == "N011" { print("  free preview until \(describe(status.extras["notAfter"]))") }
    }
    return event
}

do {
    try enabler.setRequestor(options.requestor)
    try enabler.checkAuthentication()
    while true {
        if case .requestorComplete(let status) = await next() {
            guard status == AccessEnablerStatus.success else {
                print("setRequestor failed")
                exit(1)
            }
            print("setRequestor: done")
            break
        }
    }
    var authenticated = false
    while true {
        if case .authenticationStatus(let status, _) = await next() {
            authenticated = status == 1
            print("checkAuthentication: \(authenticated ? "authenticated (no login needed)" : "not authenticated")")
            break
        }
    }

    if !authenticated {
        // Promotional TempPass identifies the viewer by the data given here (never logged by the SDK).
        try enabler.getAuthentication(withData: options.identity.map { ["email": .string($0)] })
        login: while true {
            switch await next() {
            case .providers(let mvpds):
                print("TV providers:")
                for (index, mvpd) in mvpds.enumerated() {
                    print("  \(index + 1). \(mvpd.displayName) (\(mvpd.id))\(mvpd.isTempPass ? " — TempPass, no login" : "")")
                }
                var choice = options.mvpd ?? mvpds.first?.id
                if !options.unattended {
                    print("Choose 1-\(mvpds.count) (empty cancels): ", terminator: "")
                    let line = readLine() ?? ""
                    choice = Int(line).flatMap { $0 >= 1 && $0 <= mvpds.count ? mvpds[$0 - 1].id : nil }
                }
                print("selected: \(choice ?? "none")")
                try enabler.setSelectedProvider(choice)
            case .partnerPicker(let dialog):
                let providers = dialog["supportedAccountProviderIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                print("platform picker shows: \(providers.joined(separator: ", ")) — the simulated viewer picks one")
            case .status(let status) where status.errorID == "REGCODE":
                let code = status.extras["code"]?.stringValue ?? "?"
                let url = status.extras["url"]?.stringValue ?? "?"
                print(
                    "\n  On your phone or computer, open\n    \(url)\n  (activation code \(code), valid until "
                        + "\(describe(status.extras["notAfter"])))\n")
                print(options.unattended ? "waiting for the simulated viewer to log in…" : "waiting for you to log in…")
            case .authenticationStatus(let status, let code):
                guard status == 1 else {
                    print("getAuthentication failed: \(code)")
                    exit(1)
                }
                print("getAuthentication: authenticated")
                break login
            default: continue
            }
        }
    }

    try enabler.getAuthorization(options.resource)
    authorization: while true {
        switch await next() {
        case .token(let token, let resource):
            print("getAuthorization(\(resource)): short media token (\(token.count) characters):\n  \(token.prefix(72))…")
            if let xml = Data(base64Encoded: token).map({ String(decoding: $0, as: UTF8.self) }),
                let start = xml.range(of: "<shortAuthorizationToken>")
            {
                print("  decodes to \(xml[start.lowerBound...].prefix(160))…")
            }
            break authorization
        case .tokenFailed(let resource, let code, let description):
            print("getAuthorization(\(resource)) failed: \(code) \(description)")
            break authorization
        default: continue
        }
    }

    try enabler.getMetadata(MetadataKey(opCode: MetadataKey.userMetadata, userMetadataName: "tokenSource"))
    try enabler.getMetadata(MetadataKey(opCode: MetadataKey.authentication))
    try enabler.getMetadata(MetadataKey(opCode: MetadataKey.authorization, resourceID: options.resource))
    var answers = 0
    while answers < 3 {
        if case .metadata(let value, let key, _) = await next() {
            answers += 1
            switch key {
            case MetadataKey.userMetadata: print("tokenSource: \(value?.stringValue ?? "none")")
            case MetadataKey.authentication: print("authentication TTL: \(describe(value))")
            default: print("authorization TTL (\(options.resource)): \(describe(value))")
            }
        }
    }

    try enabler.logout()
    while true {
        switch await next() {
        case .status(let status) where status.errorID == "LOGOUT":
            print("logout: the MVPD's logout page is \(status.extras["url"]?.stringValue ?? "?")")
        case .status(let status) where status.errorID == "VSA203":
            print("logout: \(status.message)")
        case .authenticationStatus(let status, _):
            print("logout: done (authenticated = \(status))")
            enabler.shutdown()
            exit(0)
        default: continue
        }
    }
} catch {
    print("call refused: \(error)")
    exit(1)
}
