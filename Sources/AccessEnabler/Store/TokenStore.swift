// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Which application's records: the software statement (hashed) and the API generation.
/// V2 profiles are bound to the client credentials and the device id, so only processes of the
/// same app share them.
package struct StoreScope: Sendable, Hashable {
    package var app: String
    package var api: String

    package init(softwareStatement: String, api: String) {
        self.app = Digest.sha256Hex(softwareStatement)
        self.api = api
    }
}

/// The durable state of the SDK in one SQLite file that an app's processes share (WAL mode,
/// busy timeout, every write in a transaction). The store is the source of truth for profiles,
/// the selected MVPD and authorization expiries, so a profile written by one process is seen by
/// the others at their next read.
package final class TokenStore: Sendable {
    package static let schemaVersion = 1
    private let database: Locked<SQLiteDatabase>

    /// Opens or creates the store. `path` nil keeps everything in memory.
    package init(path: String?) throws(StoreError) {
        let database = try SQLiteDatabase(path: path ?? ":memory:")
        if let path { chmod(path, 0o600) }
        try database.execute("PRAGMA busy_timeout = 5000")
        if path != nil { _ = try database.query("PRAGMA journal_mode = WAL") }
        try database.execute("PRAGMA synchronous = FULL")
        try Self.migrate(database)
        self.database = Locked(database)
    }

    private static func migrate(_ database: SQLiteDatabase) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
            guard version < Int64(schemaVersion) else { return }
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS device (id INTEGER PRIMARY KEY CHECK (id = 1), device_id TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS clients (app TEXT NOT NULL, api TEXT NOT NULL, base_url TEXT NOT NULL,
                    client_id TEXT NOT NULL, client_secret TEXT NOT NULL, PRIMARY KEY (app, api));
                CREATE TABLE IF NOT EXISTS access_tokens (app TEXT NOT NULL, api TEXT NOT NULL, client_id TEXT NOT NULL,
                    token TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (app, api));
                CREATE TABLE IF NOT EXISTS configurations (app TEXT NOT NULL, api TEXT NOT NULL, requestor TEXT NOT NULL,
                    body TEXT NOT NULL, fetched_at INTEGER NOT NULL, PRIMARY KEY (app, api, requestor));
                CREATE TABLE IF NOT EXISTS profiles (app TEXT NOT NULL, api TEXT NOT NULL, requestor TEXT NOT NULL,
                    mvpd TEXT NOT NULL, device_id TEXT NOT NULL, body TEXT NOT NULL, not_after INTEGER NOT NULL,
                    PRIMARY KEY (app, api, requestor, mvpd));
                CREATE TABLE IF NOT EXISTS profile_syncs (app TEXT NOT NULL, api TEXT NOT NULL, requestor TEXT NOT NULL,
                    synced_at INTEGER NOT NULL, PRIMARY KEY (app, api, requestor));
                CREATE TABLE IF NOT EXISTS selected_mvpds (app TEXT NOT NULL, api TEXT NOT NULL, requestor TEXT NOT NULL,
                    mvpd TEXT NOT NULL, PRIMARY KEY (app, api, requestor));
                CREATE TABLE IF NOT EXISTS authorizations (app TEXT NOT NULL, api TEXT NOT NULL, requestor TEXT NOT NULL,
                    mvpd TEXT NOT NULL, resource TEXT NOT NULL, not_after INTEGER NOT NULL,
                    PRIMARY KEY (app, api, requestor, mvpd, resource));
                PRAGMA user_version = \(schemaVersion);
                """)
        }
    }

    @discardableResult
    private func run<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.withLock { database throws(StoreError) in try body(database) }
    }

    // MARK: Device

    /// The stored device id; `makeID` creates it the first time (stored in the same transaction,
    /// so two processes starting together agree on one id).
    package func deviceID(orCreate makeID: () -> String) throws(StoreError) -> String {
        try run { db throws(StoreError) in
            try db.transaction { () throws(StoreError) -> String in
                if let stored = try db.query("SELECT device_id FROM device WHERE id = 1").first?.first?.text {
                    return stored
                }
                let created = makeID()
                try db.query("INSERT INTO device (id, device_id) VALUES (1, ?)", [.text(created)])
                return created
            }
        }
    }

    // MARK: Client credentials and access token

    package func credentials(_ scope: StoreScope) throws(StoreError) -> (ClientCredentials, baseURL: String)? {
        try run { db throws(StoreError) in
            guard let row = try db.query(
                "SELECT client_id, client_secret, base_url FROM clients WHERE app = ? AND api = ?",
                [.text(scope.app), .text(scope.api)]).first,
                let id = row[0].text, let secret = row[1].text, let base = row[2].text
            else { return nil }
            return (ClientCredentials(clientID: id, clientSecret: secret), base)
        }
    }

    /// Stores new credentials. Profiles and the token of the old credentials die with them.
    package func saveCredentials(_ scope: StoreScope, _ credentials: ClientCredentials, baseURL: String) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api)]
                try db.query("DELETE FROM access_tokens WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM profiles WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM profile_syncs WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM authorizations WHERE app = ? AND api = ?", key)
                try db.query(
                    "INSERT OR REPLACE INTO clients (app, api, base_url, client_id, client_secret) VALUES (?, ?, ?, ?, ?)",
                    key + [.text(baseURL), .text(credentials.clientID), .text(credentials.clientSecret)])
            }
        }
    }

    package func deleteCredentials(_ scope: StoreScope, clientID: String) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query("DELETE FROM clients WHERE app = ? AND api = ? AND client_id = ?",
                         [.text(scope.app), .text(scope.api), .text(clientID)])
        }
    }

    package func accessToken(_ scope: StoreScope, clientID: String) throws(StoreError) -> (token: String, expiresAt: Int64)? {
        try run { db throws(StoreError) in
            guard let row = try db.query(
                "SELECT token, expires_at FROM access_tokens WHERE app = ? AND api = ? AND client_id = ?",
                [.text(scope.app), .text(scope.api), .text(clientID)]).first,
                let token = row[0].text, let expiresAt = row[1].integer
            else { return nil }
            return (token, expiresAt)
        }
    }

    package func saveAccessToken(_ scope: StoreScope, clientID: String, token: String, expiresAt: Int64) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query(
                "INSERT OR REPLACE INTO access_tokens (app, api, client_id, token, expires_at) VALUES (?, ?, ?, ?, ?)",
                [.text(scope.app), .text(scope.api), .text(clientID), .text(token), .integer(expiresAt)])
        }
    }

    package func deleteAccessToken(_ scope: StoreScope, token: String) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query("DELETE FROM access_tokens WHERE app = ? AND api = ? AND token = ?",
                         [.text(scope.app), .text(scope.api), .text(token)])
        }
    }

    // MARK: Configuration

    package func configuration(_ scope: StoreScope, requestor: String) throws(StoreError)
        -> (RequestorConfiguration, fetchedAt: Int64)?
    {
        try run { db throws(StoreError) in
            guard let row = try db.query(
                "SELECT body, fetched_at FROM configurations WHERE app = ? AND api = ? AND requestor = ?",
                [.text(scope.app), .text(scope.api), .text(requestor)]).first,
                let body = row[0].text, let fetchedAt = row[1].integer,
                let configuration = try? JSON.decode(RequestorConfiguration.self, from: Array(body.utf8))
            else { return nil }
            return (configuration, fetchedAt)
        }
    }

    package func saveConfiguration(_ scope: StoreScope, _ configuration: RequestorConfiguration, fetchedAt: Int64)
        throws(StoreError)
    {
        try run { db throws(StoreError) in
            try db.query(
                "INSERT OR REPLACE INTO configurations (app, api, requestor, body, fetched_at) VALUES (?, ?, ?, ?, ?)",
                [.text(scope.app), .text(scope.api), .text(configuration.requestorID), .text(JSON.text(configuration)),
                 .integer(fetchedAt)])
        }
    }

    // MARK: Profiles

    /// Profiles of `requestor` bound to `deviceID`, and when they were last synced with Adobe.
    package func profiles(_ scope: StoreScope, requestor: String, deviceID: String) throws(StoreError)
        -> (profiles: [Profile], syncedAt: Int64?)
    {
        try run { db throws(StoreError) in
            let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
            let rows = try db.query(
                "SELECT body FROM profiles WHERE app = ? AND api = ? AND requestor = ? AND device_id = ? ORDER BY mvpd",
                key + [.text(deviceID)])
            let profiles = rows.compactMap { row in
                row[0].text.flatMap { try? JSON.decode(Profile.self, from: Array($0.utf8)) }
            }
            let synced = try db.query(
                "SELECT synced_at FROM profile_syncs WHERE app = ? AND api = ? AND requestor = ?", key).first?.first?.integer
            return (profiles, synced)
        }
    }

    /// Replaces the requestor's profiles with Adobe's answer (profiles absent there were logged out
    /// or expired) and records the sync time.
    package func replaceProfiles(_ scope: StoreScope, requestor: String, deviceID: String, with profiles: [Profile],
                                 syncedAt: Int64) throws(StoreError)
    {
        try run { db throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
                try db.query("DELETE FROM profiles WHERE app = ? AND api = ? AND requestor = ?", key)
                for profile in profiles { try insert(db, scope, requestor, deviceID, profile) }
                try db.query("INSERT OR REPLACE INTO profile_syncs (app, api, requestor, synced_at) VALUES (?, ?, ?, ?)",
                             key + [.integer(syncedAt)])
            }
        }
    }

    package func saveProfile(_ scope: StoreScope, requestor: String, deviceID: String, _ profile: Profile) throws(StoreError) {
        try run { db throws(StoreError) in try insert(db, scope, requestor, deviceID, profile) }
    }

    private func insert(_ db: SQLiteDatabase, _ scope: StoreScope, _ requestor: String, _ deviceID: String,
                        _ profile: Profile) throws(StoreError)
    {
        try db.query(
            "INSERT OR REPLACE INTO profiles (app, api, requestor, mvpd, device_id, body, not_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(scope.app), .text(scope.api), .text(requestor), .text(profile.mvpd), .text(deviceID),
             .text(JSON.text(profile)), .integer(profile.notAfter)])
    }

    /// Removes the requestor's profiles (all, or one MVPD's) and their authorization expiries.
    package func deleteProfiles(_ scope: StoreScope, requestor: String, mvpd: String? = nil) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                var key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
                let filter = mvpd == nil ? "" : " AND mvpd = ?"
                if let mvpd { key.append(.text(mvpd)) }
                try db.query("DELETE FROM profiles WHERE app = ? AND api = ? AND requestor = ?" + filter, key)
                try db.query("DELETE FROM authorizations WHERE app = ? AND api = ? AND requestor = ?" + filter, key)
            }
        }
    }

    /// Deletes profiles bound to another device id (they are void, SEC412); returns how many.
    package func deleteProfilesOfOtherDevices(_ scope: StoreScope, deviceID: String) throws(StoreError) -> Int {
        try run { db throws(StoreError) in
            try db.transaction { () throws(StoreError) -> Int in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(deviceID)]
                let count = try db.query("SELECT COUNT(*) FROM profiles WHERE app = ? AND api = ? AND device_id != ?", key)
                    .first?.first?.integer ?? 0
                if count > 0 {
                    try db.query("DELETE FROM profiles WHERE app = ? AND api = ? AND device_id != ?", key)
                    try db.query("DELETE FROM profile_syncs WHERE app = ? AND api = ?", Array(key.prefix(2)))
                }
                return Int(count)
            }
        }
    }

    // MARK: Selected MVPD

    package func selectedMVPD(_ scope: StoreScope, requestor: String) throws(StoreError) -> String? {
        try run { db throws(StoreError) in
            try db.query("SELECT mvpd FROM selected_mvpds WHERE app = ? AND api = ? AND requestor = ?",
                         [.text(scope.app), .text(scope.api), .text(requestor)]).first?.first?.text
        }
    }

    package func setSelectedMVPD(_ scope: StoreScope, requestor: String, _ mvpd: String?) throws(StoreError) {
        try run { db throws(StoreError) in
            let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
            if let mvpd {
                try db.query("INSERT OR REPLACE INTO selected_mvpds (app, api, requestor, mvpd) VALUES (?, ?, ?, ?)",
                             key + [.text(mvpd)])
            } else {
                try db.query("DELETE FROM selected_mvpds WHERE app = ? AND api = ? AND requestor = ?", key)
            }
        }
    }

    // MARK: Authorization expiries (getMetadata opcode 1)

    package func authorizationExpiry(_ scope: StoreScope, requestor: String, mvpd: String, resource: String)
        throws(StoreError) -> Int64?
    {
        try run { db throws(StoreError) in
            try db.query(
                "SELECT not_after FROM authorizations WHERE app = ? AND api = ? AND requestor = ? AND mvpd = ? AND resource = ?",
                [.text(scope.app), .text(scope.api), .text(requestor), .text(mvpd), .text(resource)]).first?.first?.integer
        }
    }

    package func saveAuthorizationExpiry(_ scope: StoreScope, requestor: String, mvpd: String, resource: String,
                                         notAfter: Int64) throws(StoreError)
    {
        try run { db throws(StoreError) in
            try db.query(
                "INSERT OR REPLACE INTO authorizations (app, api, requestor, mvpd, resource, not_after) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(scope.app), .text(scope.api), .text(requestor), .text(mvpd), .text(resource), .integer(notAfter)])
        }
    }
}
