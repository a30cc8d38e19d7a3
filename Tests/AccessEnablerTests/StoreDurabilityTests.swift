// SPDX-License-Identifier: Apache-2.0
import CSQLite
import Foundation
import Testing

@testable import AccessEnabler

/// The store on real SQLite files: migrations, sealing, damaged files, the integrity-check
/// options, concurrent writers. (Through the C API and across processes: Tests/python/test_store*.py.)
@Suite struct StoreDurabilityTests {
    let app = StoreScope(softwareStatement: "a.b.c", api: "v2")
    let key = Array(0..<32).map(UInt8.init)

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ae-store-\(UUID().uuidString).sqlite").path
    }

    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasPrefix(name + ".corrupt-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + file)
        }
    }

    /// Runs SQL on a file with SQLite directly (as another build of the app, or a damaged disk, would).
    func sqlite(_ path: String, _ sql: String) throws {
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        #expect(result == SQLITE_OK, "\(error.map { String(cString: $0) } ?? "")")
        sqlite3_free(error)
    }

    func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    func profile(_ mvpd: String, _ user: String = "u") -> Profile {
        Profile(
            mvpd: mvpd, notBefore: 0, notAfter: 4_102_444_800_000, issuer: mvpd, type: "regular",
            attributes: ["userID": ProfileAttribute(value: .string(user))])
    }

    // MARK: Migrations

    @Test func theV1FixtureIsTheV1Schema() throws {
        let fromFixture = temporaryPath(), fromMigration = temporaryPath()
        defer { remove(fromFixture); remove(fromMigration) }
        try sqlite(fromFixture, try fixture("store-v1.sql"))
        try sqlite(fromMigration, StoreSchema.migrations[0] + "PRAGMA user_version = 1;")
        func schema(_ path: String) throws -> [String] {
            let database = try SQLiteDatabase(path: path)
            return try database.query("SELECT sql FROM sqlite_master ORDER BY name").compactMap { $0.first?.text }
        }
        #expect(try schema(fromFixture) == schema(fromMigration))
    }

    @Test func aV1StoreOpensUpgradedWithEverythingKept() throws {
        let path = temporaryPath()
        defer { remove(path) }
        try sqlite(path, try fixture("store-v1.sql"))
        #expect(chmod(path, 0o600) == 0)  // as the SDK created it (sqlite3_open gives 0644 under umask 022)
        let store = try TokenStore(path: path, app: app.app)
        #expect(store.openStatus == .upgraded)
        #expect(try store.credentials(app)?.0 == ClientCredentials(clientID: "id-1", clientSecret: "secret-1"))
        #expect(try store.accessToken(app, clientID: "id-1")?.token == "token-1")
        let stored = try store.profiles(app, requestor: "R", deviceID: "d")
        #expect(stored.profiles.map(\.mvpd) == ["M"])
        #expect(stored.profiles.first?.attributes["userID"]?.value == .string("u-1"))
        #expect(try store.selectedMVPD(app, requestor: "R") == "M")
        #expect(try store.authorizationExpiry(app, requestor: "R", mvpd: "M", resource: "LIVE") == 4_102_444_800_000)
        #expect(try store.deviceID { "new" } == "d")
        // Opened again: now current.
        #expect(try TokenStore(path: path, app: app.app).openStatus == .opened)
    }

    @Test func aV1StoreGetsSealedWhenAKeyIsFirstGiven() throws {
        let path = temporaryPath()
        defer { remove(path) }
        try sqlite(path, try fixture("store-v1.sql"))
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        #expect(try store.credentials(app)?.0.clientSecret == "secret-1")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.count == 1)
        let raw = try SQLiteDatabase(path: path)
        for (table, column) in [("clients", "client_secret"), ("access_tokens", "token"), ("profiles", "body")] {
            let value = try raw.query("SELECT \(column) FROM \(table)").first?.first?.text ?? ""
            #expect(value.hasPrefix("ae-gcm1:"), "\(table).\(column) is not sealed")
        }
    }

    @Test func aStoreOfANewerSchemaIsUsedAsItIs() throws {
        let path = temporaryPath()
        defer { remove(path) }
        do {
            let store = try TokenStore(path: path, app: app.app)
            try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M"))
        }
        try sqlite(path, "CREATE TABLE future (x); PRAGMA user_version = 99;")
        let store = try TokenStore(path: path, app: app.app)
        #expect(store.openStatus == .opened)
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.count == 1)
    }

    // MARK: Encryption at rest

    @Test func secretsAreSealedAndOpenOnlyWithTheKey() throws {
        let path = temporaryPath()
        defer { remove(path) }
        do {
            let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
            try store.saveCredentials(app, ClientCredentials(clientID: "id", clientSecret: "the-secret"), baseURL: "https://h")
            try store.saveAccessToken(app, clientID: "id", token: "the-token", expiresAt: 1)
            try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M", "the-user"))
        }
        for (file, _) in [(path, 0), (path + "-wal", 1)] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            for secret in ["the-secret", "the-token", "the-user"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file) in the clear")
            }
        }
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        #expect(try store.credentials(app)?.0.clientSecret == "the-secret")
        #expect(try store.accessToken(app, clientID: "id")?.token == "the-token")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.first?.attributes["userID"]?.value == .string("the-user"))
        try store.deleteAccessToken(app, token: "the-token")
        #expect(try store.accessToken(app, clientID: "id") == nil)

        var wrong = key
        wrong[0] ^= 1
        #expect { try TokenStore(path: path, app: app.app, sealer: Sealer(key: wrong)) } throws: { ($0 as? StoreError)?.kind == .wrongKey }
        #expect { try TokenStore(path: path, app: app.app) } throws: { ($0 as? StoreError)?.kind == .keyRequired }
        // Another app of the same file has no key: its records are its own business.
        #expect(try TokenStore(path: path, app: "another app").openStatus == .opened)
    }

    @Test func aSealedValueMovedToAnotherRecordDoesNotOpen() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("A", "user-a"))
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("B", "user-b"))
        try sqlite(path, "UPDATE profiles SET body = (SELECT body FROM profiles WHERE mvpd = 'A') WHERE mvpd = 'B'")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["A"])
        let sealer = try #require(Sealer(key: key))
        let sealed = try #require(sealer.seal("text", context: "x"))
        #expect(sealer.open(sealed, context: "x") == "text")
        #expect(sealer.open(sealed, context: "y") == nil)
        var altered = Array(sealed.utf8)
        altered[12] = altered[12] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(sealer.open(String(decoding: altered, as: UTF8.self), context: "x") == nil)
    }

    // MARK: Damaged files and the integrity-check options

    @Test(arguments: ["garbage", "truncated", "zeroed page"])
    func aDamagedFileIsMovedAsideAndANewStoreStarts(_ damage: String) throws {
        let path = temporaryPath()
        defer { remove(path) }
        do {
            let store = try TokenStore(path: path, app: app.app)
            for index in 0..<200 { try store.saveProfile(app, requestor: "R\(index)", deviceID: "d", profile("M")) }
        }
        try sqlite(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        switch damage {
        case "garbage": bytes = Data(repeating: 0x41, count: 8192)
        case "truncated": bytes = bytes.prefix(bytes.count / 2)
        default: bytes.replaceSubrange(4096..<8192, with: Data(repeating: 0, count: 4096))
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let store = try TokenStore(path: path, app: app.app)
        #expect(store.openStatus == .recovered)
        let aside = try #require(store.movedTo)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == bytes)
        #expect(try store.profiles(app, requestor: "R0", deviceID: "d").profiles.isEmpty)
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M"))
        #expect(try TokenStore(path: path, app: app.app).openStatus == .opened)
    }

    @Test func checkAllFindsWhatTheQuickCheckLeaves() throws {
        // An index that disagrees with its table: integrity_check sees it, quick_check does not.
        let path = temporaryPath()
        defer { remove(path) }
        do {
            let store = try TokenStore(path: path, app: app.app)
            _ = try store.deviceID { "d" }
        }
        try sqlite(path, "CREATE INDEX by_device ON device(device_id)")
        try sqlite(
            path,
            "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE INDEX by_device ON device(id)' WHERE name = 'by_device';")
        #expect(try TokenStore(path: path, app: app.app, check: .quick).openStatus == .opened)
        let store = try TokenStore(path: path, app: app.app, check: .all)
        #expect(store.openStatus == .recovered)
    }

    @Test func checkClearStartsTheAppAfreshAndLeavesOtherApps() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let other = StoreScope(softwareStatement: "x.y.z", api: "v2")
        do {
            let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
            try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M"))
            try store.saveProfile(other, requestor: "R", deviceID: "d", profile("M"))
        }
        var wrong = key
        wrong[1] ^= 1
        // Clear also forgets the old key: the app starts over under the new one.
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: wrong), check: .clear)
        #expect(store.openStatus == .cleared)
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.count == 1)
    }

    @Test func aNewFileIsPrivateAndSaysCreated() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let store = try TokenStore(path: path, app: app.app)
        #expect(store.openStatus == .created)
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M"))
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
        #expect(try TokenStore(path: nil).openStatus == .inMemory)
    }

    @Test func logoutRemovesThatAppsRequestorAndMVPDOnly() throws {
        let store = try TokenStore(path: nil)
        let other = StoreScope(softwareStatement: "x.y.z", api: "v2")
        try store.saveCredentials(app, ClientCredentials(clientID: "id", clientSecret: "s"), baseURL: "h")
        for scope in [app, other] {
            for requestor in ["R", "S"] {
                for mvpd in ["A", "B"] {
                    try store.saveProfile(scope, requestor: requestor, deviceID: "d", profile(mvpd))
                    try store.saveAuthorizationExpiry(scope, requestor: requestor, mvpd: mvpd, resource: "LIVE", notAfter: 1)
                }
            }
        }
        try store.deleteProfiles(app, requestor: "R", mvpd: "A")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["B"])
        #expect(try store.authorizationExpiry(app, requestor: "R", mvpd: "A", resource: "LIVE") == nil)
        #expect(try store.authorizationExpiry(app, requestor: "R", mvpd: "B", resource: "LIVE") == 1)
        try store.deleteProfiles(app, requestor: "R")  // AccessEnabler's logout: every MVPD of the requestor
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(try store.profiles(app, requestor: "S", deviceID: "d").profiles.count == 2)
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.count == 2)
        #expect(try store.credentials(app)?.0.clientID == "id")
    }

    // MARK: Concurrency

    @Test func cachedProfilesFollowWritesOfThisAndOtherConnections() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let mine = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        let other = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        #expect(try mine.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        try other.saveProfile(app, requestor: "R", deviceID: "d", profile("A"))
        #expect(try mine.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["A"])
        try mine.saveProfile(app, requestor: "R", deviceID: "d", profile("B"))
        #expect(try mine.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["A", "B"])
        try other.deleteProfiles(app, requestor: "R", mvpd: "A")
        #expect(try mine.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["B"])
    }

    @Test func concurrentWritersOnSeparateConnectionsLoseNothing() async throws {
        let path = temporaryPath()
        defer { remove(path) }
        _ = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        let app = app, key = key
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
                    for item in 0..<50 {
                        try store.saveAuthorizationExpiry(
                            app, requestor: "R", mvpd: "M", resource: "w\(writer)-\(item)",
                            notAfter: Int64(item))
                        try store.saveProfile(app, requestor: "R\(writer)", deviceID: "d", profile("M\(item % 5)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let raw = try SQLiteDatabase(path: path)
        #expect(try raw.query("SELECT count(*) FROM authorizations").first?.first?.integer == 400)
        #expect(try raw.query("SELECT count(*) FROM profiles").first?.first?.integer == 40)
    }
}

/// Adobe's clock: the local clock and the boot clock are injected and moved both ways.
@Suite struct ServerClockTests {
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int64
        init(_ value: Int64) { self.value = value }
        func get() -> Int64 { lock.lock(); defer { lock.unlock() }; return value }
        func add(_ delta: Int64) { lock.lock(); value += delta; lock.unlock() }
    }

    struct Local: WallClock {
        let box: Box
        func nowMillis() -> Int64 { box.get() }
    }

    /// 2026-11-22 12:00:00 GMT.
    static let serverNow: Int64 = 1_795_348_800_000
    static let serverDate = "Sun, 22 Nov 2026 12:00:00 GMT"

    @Test func httpDates() {
        #expect(HTTPDate.parse(Self.serverDate) == Self.serverNow / 1000)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        for bad in [
            "", "Sun, 22 Nov 2026 12:00:00 UTC", "Sunday, 22-Nov-26 12:00:00 GMT", "Sun Nov 22 12:00:00 2026",
            "Sun, 22 Nov 2026 24:00:00 GMT", "Sun, +2 Nov 2026 12:00:00 GMT", "Sun, 22 Foo 2026 12:00:00 GMT",
            "Sun, 22 Nov 2026 12:00:0x GMT",
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    /// The local clock at 1970-01-02, 3 h behind, 5 h ahead.
    static let localErrors: [Int64] = [86_400_000 - serverNow, -3 * 3_600_000, 5 * 3_600_000]

    @Test(arguments: localErrors)
    func aWrongLocalClockDoesNotMatterOnceAdobeAnswered(_ localError: Int64) {
        let local = Box(Self.serverNow + localError), boot = Box(1_000)
        let anchors = Box(0)
        let clock = ServerClock(local: Local(box: local), boot: { boot.get() }) { _ in anchors.add(1) }
        #expect(clock.nowMillis() == Self.serverNow + localError)  // nothing better known yet
        clock.observe(dateHeader: Self.serverDate)
        #expect(abs(clock.nowMillis() - Self.serverNow) <= 1_000)
        // Time passes (boot clock); the local clock jumps both ways (NTP, the user): no effect.
        boot.add(60_000)
        local.add(-7 * 86_400_000)
        #expect(abs(clock.nowMillis() - (Self.serverNow + 60_000)) <= 1_000)
        local.add(30 * 86_400_000)
        #expect(abs(clock.nowMillis() - (Self.serverNow + 60_000)) <= 1_000)
        // A later Date within the tolerance keeps the anchor (no store write).
        clock.observe(dateHeader: "Sun, 22 Nov 2026 12:01:01 GMT")
        #expect(anchors.get() == 1)
        // Validity is judged on Adobe's clock: a profile ending in 30 s is valid, one that ended 30 s ago is not.
        let profile = Profile(mvpd: "M", notBefore: 0, notAfter: Self.serverNow + 90_000, issuer: "M", type: "regular", attributes: [:])
        #expect(profile.isValid(at: clock.nowMillis()))
        boot.add(60_000)
        #expect(!profile.isValid(at: clock.nowMillis()))
    }

    @Test func aBoxBackAt1970JudgesNoEarlierThanTheLatestServerTimeSeen() {
        let local = Box(86_400_000), boot = Box(5)  // 1970-01-02, just booted
        let clock = ServerClock(local: Local(box: local), boot: { boot.get() }, latestServerMillis: Self.serverNow)
        #expect(clock.nowMillis() == Self.serverNow)
        boot.add(10_000)
        #expect(clock.nowMillis() == Self.serverNow + 10_000)
        // A local clock ahead of that floor is believed until Adobe answers.
        local.add(Self.serverNow)
        #expect(clock.nowMillis() == Self.serverNow + 86_400_000)
    }

    @Test func theAnchorIsSharedThroughTheStoreWithinOneBootOnly() throws {
        let store = try TokenStore(path: nil)
        let anchor = ServerClock.Anchor(serverMillis: Self.serverNow, bootMillis: 1_000)
        try store.saveClockAnchor(bootID: "boot-1", anchor)
        #expect(try store.clockAnchor(bootID: "boot-1").anchor == anchor)
        #expect(try store.clockAnchor(bootID: "boot-2").anchor == nil)
        #expect(try store.clockAnchor(bootID: "boot-2").latest == Self.serverNow)
        try store.saveClockAnchor(bootID: "boot-2", ServerClock.Anchor(serverMillis: 1, bootMillis: 1))
        #expect(try store.clockAnchor(bootID: "boot-2").latest == Self.serverNow)  // the latest never goes back
        let local = Box(0), boot = Box(61_000)
        let clock = ServerClock(local: Local(box: local), boot: { boot.get() }, anchor: anchor)
        #expect(clock.nowMillis() == Self.serverNow + 60_000)
        #expect(!ServerClock.bootID.isEmpty)
    }
}
