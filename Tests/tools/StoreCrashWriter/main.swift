// SPDX-License-Identifier: Apache-2.0
// The writer and the checker of the crash test (scripts/store-crash.py kills the writer with
// SIGKILL at random points and runs the checker after each kill).
//
//   store-crash-writer write PATH KEYHEX   writes generations 1, 2, … until killed; after each
//                                          committed write prints "<record> <generation>"
//   store-crash-writer check PATH KEYHEX   opens the store and checks every record (see below);
//                                          prints "ok <generations>" or "FAIL <why>", exit 0 / 1
//
// Records (all sealed with the key, as a host with ae_config.store_key has them):
// * profiles of requestor CRASH: MVPDs M0…M4 replaced together in one transaction; each
//   profile's attributes hold the generation → all five must hold the same generation;
// * the access token "token-<generation>";
// * authorization expiries of resources r0…r9: resource r(g % 10) gets not_after = g.
// A record is right when it holds the last generation the writer reported for it or the next
// one (the write in flight when it was killed), and every sealed value opens (not torn).
import AccessEnabler
import Glibc

let statement = "crash.test.statement"
let scope = StoreScope(softwareStatement: statement, api: "v2")

/// Writes a line at once (unbuffered: what was said before a SIGKILL is what was done).
func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

func key(_ hex: String) -> Sealer {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    guard let sealer = Sealer(key: bytes) else { fail("the key must be 64 hex digits") }
    return sealer
}

func open(_ path: String, _ hex: String) -> TokenStore {
    do { return try TokenStore(path: path, app: scope.app, sealer: key(hex), check: .all) } catch {
        fail("cannot open the store: \(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: store-crash-writer write|check PATH KEYHEX") }
let store = open(arguments[2], arguments[3])

func profiles(_ generation: Int64) -> [Profile] {
    (0..<5).map { index in
        Profile(
            mvpd: "M\(index)", notBefore: 0, notAfter: 4_000_000_000_000 + generation, issuer: "M\(index)",
            type: "regular",
            attributes: [
                "generation": ProfileAttribute(value: .string(String(generation))),
                "filler": ProfileAttribute(value: .string(String(repeating: "x", count: 300))),
            ])
    }
}

switch arguments[1] {
case "write":
    var generation: Int64 =
        (try? store.profiles(scope, requestor: "CRASH", deviceID: "D").profiles.first?
            .attributes["generation"]?.value.stringValue.flatMap { Int64($0) }) ?? 0
    say("ready")
    while true {
        generation += 1
        do {
            try store.replaceProfiles(scope, requestor: "CRASH", deviceID: "D", with: profiles(generation), syncedAt: generation)
            say("profiles \(generation)")
            try store.saveAccessToken(scope, clientID: "C", token: "token-\(generation)", expiresAt: generation)
            say("token \(generation)")
            try store.saveAuthorizationExpiry(
                scope, requestor: "CRASH", mvpd: "M0", resource: "r\(generation % 10)",
                notAfter: generation)
            say("authorization r\(generation % 10) \(generation)")
        } catch {
            fail("write \(generation): \(error)")
        }
    }
case "check":
    do {
        let stored = try store.profiles(scope, requestor: "CRASH", deviceID: "D").profiles
        let generations = Set(stored.map { $0.attributes["generation"]?.value.stringValue ?? "?" })
        guard stored.isEmpty || (stored.count == 5 && generations.count == 1) else {
            fail("profiles: \(stored.count) read, generations \(generations.sorted())")
        }
        let token = try store.accessToken(scope, clientID: "C")
        guard token == nil || token!.token == "token-\(token!.expiresAt)" else {
            fail("token torn: \(String(describing: token?.expiresAt))")
        }
        var authorizations: [String] = []
        for index in 0..<10 {
            if let value = try store.authorizationExpiry(scope, requestor: "CRASH", mvpd: "M0", resource: "r\(index)") {
                guard value % 10 == Int64(index) else { fail("authorization r\(index) = \(value)") }
                authorizations.append("r\(index)=\(value)")
            }
        }
        say(
            "ok profiles=\(generations.first ?? "none") token=\(token.map { String($0.expiresAt) } ?? "none") \(authorizations.joined(separator: " "))"
        )
    } catch {
        fail("read: \(error)")
    }
default:
    fail("unknown command \(arguments[1])")
}
