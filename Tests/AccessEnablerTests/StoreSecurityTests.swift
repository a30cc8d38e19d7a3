// SPDX-License-Identifier: Apache-2.0
import CAccessEnabler
import CSQLite
import Foundation
import Glibc
import Testing

@testable import AccessEnabler

/// The store against someone who can write its file: forged plaintext in sealed columns, sealed
/// values moved between records, a file open to other users, owned by another user, or replaced by
/// a symbolic link. Real SQLite files, altered with SQLite directly. (Through the C API:
/// Tests/python/test_store.py.)
@Suite struct StoreSecurityTests {
    let app = StoreScope(softwareStatement: "a.b.c", api: "v2")
    let key = Array(0..<32).map(UInt8.init)

    /// A log sink that keeps what it is given.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [(LogLevel, String)] = []
        var logger: Logger { Logger(maxLevel: .debug) { level, text in self.add(level, text) } }
        private func add(_ level: LogLevel, _ text: String) { lock.lock(); lines.append((level, text)); lock.unlock() }
        var all: [(LogLevel, String)] { lock.lock(); defer { lock.unlock() }; return lines }
        func containing(_ text: String) -> [(LogLevel, String)] { all.filter { $0.1.contains(text) } }
    }

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ae-store-\(UUID().uuidString).sqlite").path
    }

    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".lock", ".target"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func sqlite(_ path: String, _ sql: String, _ values: [String] = []) throws {
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, "\(String(cString: sqlite3_errmsg(handle)))")
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() { sqlite3_bind_text(statement, Int32(index + 1), value, -1, csqlite_transient()) }
        #expect(sqlite3_step(statement) == SQLITE_DONE, "\(String(cString: sqlite3_errmsg(handle)))")
    }

    func column(_ path: String, _ sql: String) throws -> [String] {
        try SQLiteDatabase(path: path).query(sql).compactMap { $0.first?.text }
    }

    func profile(_ mvpd: String, _ user: String = "u") -> Profile {
        Profile(
            mvpd: mvpd, notBefore: 0, notAfter: 4_102_444_800_000, issuer: mvpd, type: "regular",
            attributes: ["userID": ProfileAttribute(value: .string(user))])
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    /// Fills a keyed (or unkeyed) store with client credentials, an access token and a profile.
    func fill(_ store: TokenStore) throws {
        try store.saveCredentials(app, ClientCredentials(clientID: "id", clientSecret: "the-secret"), baseURL: "https://h")
        try store.saveAccessToken(app, clientID: "id", token: "the-token", expiresAt: 1)
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M", "the-user"))
    }

    // MARK: Forged plaintext in sealed columns (issue 16, item 14)

    @Test func plaintextInEverySealedColumnOfAKeyedStoreIsRefusedAndLoggedOnce() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let lines = Lines()
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        try fill(store)
        // Someone with write access to the file replaces every sealed value with plaintext of
        // their choosing, and adds a profile.
        try sqlite(path, "UPDATE clients SET client_secret = 'forged-secret'")
        try sqlite(path, "UPDATE access_tokens SET token = 'forged-token'")
        try sqlite(path, "UPDATE profiles SET body = ?", [JSON.text(profile("M", "forged-user"))])
        try sqlite(
            path,
            "INSERT INTO profiles (app, api, requestor, mvpd, device_id, body, not_after) VALUES (?, 'v2', 'R', 'F', 'd', ?, 4102444800000)",
            [app.app, JSON.text(profile("F", "forged-user"))])
        for _ in 0..<2 {
            #expect(try store.credentials(app) == nil)
            #expect(try store.accessToken(app, clientID: "id") == nil)
            #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        }
        // A new client (a new store object) refuses them too: the store stays sealed.
        let again = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        #expect(try again.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(try again.credentials(app) == nil)

        let tampering = lines.containing("tamper")
        #expect(tampering.allSatisfy { $0.0 == .error })
        // Once per record and store object: clients, access_tokens, profiles M and F; then M, F and clients again.
        #expect(tampering.count == 7, "\(tampering.map(\.1))")
        for table in ["clients.client_secret", "access_tokens.token", "profiles.body"] {
            #expect(tampering.contains { $0.1.contains(table) }, "no tampering logged for \(table)")
        }
        for (_, text) in lines.all {
            for secret in ["forged-secret", "forged-token", "forged-user", "the-secret", "the-token", "the-user"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
        // The next legitimate write replaces the forged record.
        try store.saveProfile(app, requestor: "R", deviceID: "d", profile("M", "the-user"))
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["M"])
    }

    @Test func thePlaintextStoreIsSealedOnceAndPlaintextIsRefusedAfterwards() throws {
        let path = temporaryPath()
        defer { remove(path) }
        try fill(try TokenStore(path: path, app: app.app))
        let plaintext = try column(path, "SELECT body FROM profiles")
        #expect(plaintext.count == 1 && !(plaintext.first ?? "").hasPrefix(Sealer.prefix))
        // The one-time migration: a store written without a key, first opened with one.
        let lines = Lines()
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        #expect(try store.credentials(app)?.0.clientSecret == "the-secret")
        #expect(try store.accessToken(app, clientID: "id")?.token == "the-token")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.first?.attributes["userID"]?.value == .string("the-user"))
        #expect(lines.containing("tamper").isEmpty)
        #expect(try column(path, "SELECT body FROM profiles").allSatisfy { $0.hasPrefix(Sealer.prefix) })
        // The very plaintext it held before is refused now, by this store and by the next one.
        try sqlite(path, "UPDATE profiles SET body = ?", [plaintext[0]])
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        let next = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        #expect(try next.profiles(app, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(try column(path, "SELECT body FROM profiles") == plaintext)  // refused, not sealed
        #expect(lines.containing("tamper").count == 2)
    }

    @Test func deletingTheKeyCheckDoesNotReopenTheMigration() throws {
        let path = temporaryPath()
        defer { remove(path) }
        do {
            let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
            try store.saveProfile(app, requestor: "R", deviceID: "d", profile("A", "user-a"))
        }
        try sqlite(path, "DELETE FROM app_keys")
        try sqlite(
            path,
            "INSERT INTO profiles (app, api, requestor, mvpd, device_id, body, not_after) VALUES (?, 'v2', 'R', 'F', 'd', ?, 4102444800000)",
            [app.app, JSON.text(profile("F", "forged-user"))])
        let lines = Lines()
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.map(\.mvpd) == ["A"])
        #expect(try column(path, "SELECT body FROM profiles WHERE mvpd = 'F'").allSatisfy { !$0.hasPrefix(Sealer.prefix) })
        #expect(lines.containing("key check").contains { $0.0 == .error })
        // The key check is back (recorded again), so the next create does not look at plaintext again either.
        #expect(try SQLiteDatabase(path: path).query("SELECT count(*) FROM app_keys").first?.first?.integer == 1)
    }

    @Test func sealedValuesMovedToAnotherRecordAreRefused() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let v1 = StoreScope(softwareStatement: "a.b.c", api: "v1")
        let lines = Lines()
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key), logger: lines.logger)
        try fill(store)
        try store.saveCredentials(v1, ClientCredentials(clientID: "id", clientSecret: "v1-secret"), baseURL: "https://h")
        try store.saveAccessToken(v1, clientID: "id", token: "v1-token", expiresAt: 1)
        try store.saveProfile(app, requestor: "S", deviceID: "d", profile("M", "user-s"))
        // Each sealed value of the V2 records copied over the matching V1 (or other requestor's) record.
        try sqlite(path, "UPDATE clients SET client_secret = (SELECT client_secret FROM clients WHERE api = 'v2') WHERE api = 'v1'")
        try sqlite(path, "UPDATE access_tokens SET token = (SELECT token FROM access_tokens WHERE api = 'v2') WHERE api = 'v1'")
        try sqlite(path, "UPDATE profiles SET body = (SELECT body FROM profiles WHERE requestor = 'R') WHERE requestor = 'S'")
        #expect(try store.credentials(v1) == nil)
        #expect(try store.accessToken(v1, clientID: "id") == nil)
        #expect(try store.profiles(app, requestor: "S", deviceID: "d").profiles.isEmpty)
        // The V2 originals still open; a sealed value moved to another client id (same row) does not.
        #expect(try store.credentials(app)?.0.clientSecret == "the-secret")
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.count == 1)
        try sqlite(path, "UPDATE access_tokens SET client_id = 'other' WHERE api = 'v2'")
        #expect(try store.accessToken(app, clientID: "other") == nil)
        // Moved into another app's records: that app cannot open it (and the key's own app never reads it).
        try sqlite(path, "UPDATE profiles SET app = 'another app' WHERE requestor = 'R'")
        let other = StoreScope(softwareStatement: "x.y.z", api: "v2")
        try sqlite(path, "UPDATE profiles SET app = ? WHERE app = 'another app'", [other.app])
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.isEmpty)
        #expect(lines.containing("tamper").count >= 4)
    }

    @Test func anotherAppsPlaintextRecordsFollowThatAppsOwnKeyCheck() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let other = StoreScope(softwareStatement: "x.y.z", api: "v2")
        let store = try TokenStore(path: path, app: app.app, sealer: Sealer(key: key))
        // An app without a key: its records are plaintext, and plaintext is what it reads.
        try store.saveProfile(other, requestor: "R", deviceID: "d", profile("M"))
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.count == 1)
        // That app adopts a key: from then on its plaintext is refused too.
        var otherKey = key
        otherKey[0] ^= 0xff
        _ = try TokenStore(path: path, app: other.app, sealer: Sealer(key: otherKey))
        try sqlite(path, "UPDATE profiles SET body = ? WHERE app = ?", [JSON.text(profile("M", "forged")), other.app])
        #expect(try store.profiles(other, requestor: "R", deviceID: "d").profiles.isEmpty)
    }

    // MARK: The file's owner and mode (issue 16, item 15)

    @Test func aFileOpenToOtherUsersIsRepairedTo0600AndSaysSo() throws {
        let path = temporaryPath()
        defer { remove(path) }
        let first = try TokenStore(path: path, app: app.app)
        try first.saveProfile(app, requestor: "R", deviceID: "d", profile("M"))  // -wal and -shm exist while it is open
        #expect(chmod(path, 0o644) == 0 && chmod(path + "-wal", 0o660) == 0 && chmod(path + "-shm", 0o606) == 0)
        let lines = Lines()
        let store = try TokenStore(path: path, app: app.app, logger: lines.logger)
        #expect(store.openStatus == .modeRepaired)
        for file in [path, path + "-wal", path + "-shm"] { #expect(mode(file) == 0o600, "\(file)") }
        let warnings = lines.containing("group or others")
        #expect(warnings.count == 1 && warnings.first?.0 == .warning, "\(lines.all)")
        #expect(warnings.first?.1.contains("0644") == true)
        // The records are kept, and the other connection of this process still writes (its locks held).
        #expect(try store.profiles(app, requestor: "R", deviceID: "d").profiles.count == 1)
        try first.saveProfile(app, requestor: "S", deviceID: "d", profile("M"))
        #expect(try store.profiles(app, requestor: "S", deviceID: "d").profiles.count == 1)
        #expect(try TokenStore(path: path, app: app.app).openStatus == .opened)
    }

    @Test func aTooOpenFileStillSaysRecoveredWhenItIsDamaged() throws {
        let path = temporaryPath()
        defer {
            remove(path)
            let directory = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasPrefix(name + ".corrupt-") {
                try? FileManager.default.removeItem(atPath: directory + "/" + file)
            }
        }
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o666) == 0)
        let store = try TokenStore(path: path, app: app.app)
        #expect(store.openStatus == .recovered)
        let aside = try #require(store.movedTo)
        #expect(mode(aside) == 0o600)  // the damaged copy is not left readable by others either
        #expect(mode(path) == 0o600)
    }

    @Test(arguments: ["a store", "nothing"])
    func aSymbolicLinkInPlaceOfTheStoreIsRefused(_ target: String) throws {
        let path = temporaryPath(), real = path + ".target"
        defer { remove(path) }
        if target == "a store" { try fill(try TokenStore(path: real, app: app.app)) }
        let before = try? Data(contentsOf: URL(fileURLWithPath: real))
        #expect(symlink(real, path) == 0)
        #expect { try TokenStore(path: path, app: app.app) } throws: { error in
            (error as? StoreError)?.kind == .unsafeFile && "\(error)".contains("symbolic link")
        }
        #expect((try? Data(contentsOf: URL(fileURLWithPath: real))) == before)
        #expect(FileManager.default.fileExists(atPath: real) == (target == "a store"))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aStoreInADirectoryReachedThroughASymbolicLinkOpens() throws {
        // Only the file itself must not be a link: /var/run → /run and the like stay usable.
        let directory = temporaryPath() + ".dir", link = temporaryPath() + ".link"
        defer { try? FileManager.default.removeItem(atPath: directory); try? FileManager.default.removeItem(atPath: link) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(symlink(directory, link) == 0)
        let store = try TokenStore(path: link + "/store.sqlite", app: app.app)
        #expect(store.openStatus == .created)
        try fill(store)
        #expect(try TokenStore(path: link + "/store.sqlite", app: app.app).openStatus == .opened)
    }

    @Test func aSymbolicLinkInPlaceOfTheWALIsRefused() throws {
        let path = temporaryPath()
        defer { remove(path) }
        try fill(try TokenStore(path: path, app: app.app))
        #expect(symlink(path + ".target", path + "-wal") == 0)
        #expect { try TokenStore(path: path, app: app.app) } throws: { ($0 as? StoreError)?.kind == .unsafeFile }
        #expect(!FileManager.default.fileExists(atPath: path + ".target"))
    }

    @Test func somethingOtherThanAFileInPlaceOfTheStoreIsRefused() throws {
        let path = temporaryPath()
        defer { remove(path) }
        #expect(mkfifo(path, 0o600) == 0)
        #expect { try TokenStore(path: path, app: app.app) } throws: { error in
            (error as? StoreError)?.kind == .unsafeFile && "\(error)".contains("not a regular file")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root (CI runs the tests as root)"))
    func aFileOfAnotherUserIsRefusedAndLeftUntouched() throws {
        let path = temporaryPath()
        defer { remove(path) }
        try fill(try TokenStore(path: path, app: app.app))
        #expect(chown(path, 12345, 12345) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect { try TokenStore(path: path, app: app.app) } throws: { error in
            (error as? StoreError)?.kind == .unsafeFile && "\(error)".contains("owned by uid 12345")
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_uid == 12345 && info.st_mode & 0o777 == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func theOpenStatusesAreTheHeadersValues() {
        let pairs: [(StoreOpenStatus, Int)] = [
            (.opened, AE_STORE_OPENED), (.created, AE_STORE_CREATED), (.inMemory, AE_STORE_IN_MEMORY),
            (.recovered, AE_STORE_RECOVERED), (.cleared, AE_STORE_CLEARED), (.upgraded, AE_STORE_UPGRADED),
            (.modeRepaired, AE_STORE_MODE_REPAIRED),
        ]
        for (status, value) in pairs { #expect(Int(status.rawValue) == value, "\(status)") }
    }

    // MARK: Key material

    @Test func theSealerKeepsItsOwnCopyOfTheKeyAndWipeZeroesInPlace() throws {
        var bytes = Array(0..<32).map(UInt8.init)  // its own buffer (not shared with `key`)
        let sealer = try #require(Sealer(key: bytes))
        let sealed = try #require(sealer.seal("text", context: "x"))
        let address = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        Sealer.wipe(&bytes)
        #expect(bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)  // in place, no copy
        #expect(bytes == [UInt8](repeating: 0, count: 32))
        #expect(sealer.open(sealed, context: "x") == "text")
        #expect(try #require(Sealer(key: bytes)).open(sealed, context: "x") == nil)
    }
}
