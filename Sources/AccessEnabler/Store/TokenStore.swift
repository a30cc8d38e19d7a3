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
///
/// With a key, the app's secrets (client secret, access token, profiles with their attributes)
/// are sealed (`Sealer`); ids, times and configurations stay readable, so the SQL keys work.
/// Once the app's records are sealed (its key check is in `app_keys`), a value of a sealed column
/// that is not sealed, or does not open for its record, is refused: treated as absent and logged
/// once as tampering. Plaintext is sealed, not refused, only by the one-time migration of a store
/// written without a key (`sealPlaintext`).
package final class TokenStore: Sendable {
    package static var schemaVersion: Int { StoreSchema.version }
    private static let keyCheckText = "accessenabler-store-key"
    private static let warnedUnencrypted = Locked<Set<String>>([])
    /// The columns that hold the app's secrets, and the columns of their record's key (after app).
    private static let sealedColumns: [(table: String, column: String, key: [String])] = [
        ("clients", "client_secret", ["api"]), ("access_tokens", "token", ["api", "client_id"]),
        ("profiles", "body", ["api", "requestor", "mvpd"]),
    ]

    private let database: Locked<SQLiteDatabase>
    private let sealer: Sealer?
    /// The app whose records `sealer` seals (other apps sharing the file keep their own keys).
    private let app: String
    /// How the file was found at create.
    package let openStatus: StoreOpenStatus
    /// Where a damaged file was moved (status `.recovered`).
    package let movedTo: String?
    /// The file of the app's processes' registration lock (nil in memory).
    package let lockPath: String?
    /// Decoded (and opened) profiles by scope, requestor and device: every entitlement call reads
    /// them, and decoding is most of its CPU time. Valid while `PRAGMA data_version` holds (no other
    /// connection committed) and this store wrote no profile (its profile writes empty the cache;
    /// its other writes, such as every authorization's expiry, leave it).
    private let profileCache = Locked<[String: (stamp: Int64, value: ([Profile], Int64?))]>([:])
    private let logger: Logger
    /// The records already logged as tampered with (once per record and store object).
    private let reportedTampering = Locked<Set<String>>([])
    /// Tampering lines waiting for the database lock to be released.
    private let pendingReports = Locked<[String]>([])

    /// Closes the database now (the client's destroy); later calls fail with `.closed`.
    package func close() { database.withLock { $0.close() } }

    /// Opens or creates the store. `path` nil keeps everything in memory. `app` is the scope's
    /// app (hashed software statement) whose key `sealer` holds.
    package init(
        path: String?, app: String = "", sealer: Sealer? = nil, check: IntegrityCheck = .quick,
        logger: Logger = .silent
    ) throws(StoreError) {
        let opened = try StoreOpening.open(path: path, check: check, logger: logger)
        var status = opened.status
        if check == .clear {
            try Self.clear(opened.database, app: app)
            if status == .opened || status == .upgraded { status = .cleared }
        }
        try Self.settleKey(opened.database, app: app, sealer: sealer, logger: logger)
        if let path, sealer == nil, Self.warnedUnencrypted.withLock({ $0.insert(path).inserted }) {
            logger.warning("the store \(path) is not encrypted (no store_key): its secrets are protected by file mode 0600 only")
        }
        database = Locked(opened.database)
        self.sealer = sealer
        self.app = app
        self.logger = logger
        openStatus = status
        movedTo = opened.movedTo
        lockPath = path.map { $0 + ".lock" }
    }

    /// Removes every record of `app` (AE_STORE_CHECK_CLEAR).
    private static func clear(_ database: SQLiteDatabase, app: String) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for table in StoreSchema.appTables { try database.query("DELETE FROM \(table) WHERE app = ?", [.text(app)]) }
        }
    }

    /// Checks the key against the app's key check, or, the first time a key is given, seals the
    /// app's plaintext secrets and records the key check, in one transaction. The key check is the
    /// store's mark that the app's records are sealed: from then on plaintext is refused.
    private static func settleKey(_ database: SQLiteDatabase, app: String, sealer: Sealer?, logger: Logger) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            let check = try database.query("SELECT key_check FROM app_keys WHERE app = ?", [.text(app)]).first?.first?.text
            guard let sealer else {
                if check != nil {
                    throw StoreError("the app's records in the store are encrypted and no store_key was given", kind: .keyRequired)
                }
                return
            }
            if let check {
                guard sealer.open(check, context: "app_keys|\(app)") == keyCheckText else {
                    throw StoreError("the store_key is not the key the app's records were sealed with", kind: .wrongKey)
                }
                return
            }
            try sealPlaintext(database, app: app, sealer: sealer, logger: logger)
            guard let sealed = sealer.seal(keyCheckText, context: "app_keys|\(app)") else {
                throw StoreError("libcrypto failed to seal the key check")
            }
            try database.query("INSERT INTO app_keys (app, key_check) VALUES (?, ?)", [.text(app), .text(sealed)])
        }
    }

    /// The one-time migration: seals the secrets that a store written without a key holds for
    /// `app` (the key is given for the first time). A store that already holds sealed values of the
    /// app was not written without a key: its key check was deleted. Its plaintext is then left as
    /// it is (and refused at every read), not sealed.
    private static func sealPlaintext(_ database: SQLiteDatabase, app: String, sealer: Sealer, logger: Logger) throws(StoreError) {
        var found: [(table: String, column: String, key: [String], rows: [[SQLValue]])] = []
        for (table, column, key) in sealedColumns {
            let rows = try database.query("SELECT \(key.joined(separator: ", ")), \(column) FROM \(table) WHERE app = ?", [.text(app)])
            found.append((table, column, key, rows))
        }
        if found.contains(where: { $0.rows.contains { $0.last?.text.map(Sealer.isSealed) == true } }) {
            let plaintext = found.reduce(0) { $0 + $1.rows.filter { $0.last?.text.map(Sealer.isSealed) == false }.count }
            logger.error(
                "the store holds sealed records of this app but no key check (it was deleted): "
                    + "refused as tampering; its \(plaintext) unsealed value(s) are not sealed and will not be used")
            return
        }
        for (table, column, key, rows) in found {
            for row in rows {
                guard let value = row.last?.text else { continue }
                let keyValues = row.dropLast().map { $0.text ?? "" }
                let context = ([table, app] + keyValues).joined(separator: "|")
                guard let sealed = sealer.seal(value, context: context) else { throw StoreError("libcrypto failed to seal") }
                let filter = key.map { "\($0) = ?" }.joined(separator: " AND ")
                try database.query(
                    "UPDATE \(table) SET \(column) = ? WHERE app = ? AND \(filter)",
                    [.text(sealed), .text(app)] + keyValues.map { .text($0) })
            }
        }
    }

    /// `value` as stored: sealed for `context` (table, app, …) when the store has the app's key.
    private func sealed(_ value: String, _ context: [String]) throws(StoreError) -> SQLValue {
        guard let sealer, context[1] == app else { return .text(value) }
        guard let sealed = sealer.seal(value, context: context.joined(separator: "|")) else {
            throw StoreError("libcrypto failed to seal a value")
        }
        return .text(sealed)
    }

    /// A stored value of a sealed column in the clear, or nil (treated as absent):
    /// * sealed: opens only with the app's key and for this very record (`context`: table, app, row
    ///   key); altered, moved from another record or sealed under another key → nil, logged;
    /// * plaintext: passes only while the record's app is not sealed (no key check: a store written
    ///   without a key); once it is, plaintext → nil, logged as tampering.
    private func opened(_ db: SQLiteDatabase, _ value: String?, _ context: [String]) -> String? {
        guard let value else { return nil }
        let owner = context[1]
        if Sealer.isSealed(value) {
            guard owner == app else { return nil }  // another app's key, which this store does not hold
            if let sealer, let plaintext = sealer.open(value, context: context.joined(separator: "|")) { return plaintext }
            if sealer != nil {
                reportTampering(context, "holds a sealed value that does not open for it (altered, or moved from another record)")
            }
            return nil
        }
        guard isSealed(db, app: owner) else { return value }
        reportTampering(context, "holds an unsealed value although the app's records are sealed")
        return nil
    }

    /// Whether `app`'s records are sealed: for this store's app, whether it has the key (create
    /// checked it against the key check, or recorded one); for another app, whether it has a key
    /// check (when it cannot be read: sealed, so nothing forged passes).
    private func isSealed(_ db: SQLiteDatabase, app owner: String) -> Bool {
        if owner == app { return sealer != nil }
        return (try? db.query("SELECT 1 FROM app_keys WHERE app = ?", [.text(owner)])).map { !$0.isEmpty } ?? true
    }

    /// Logs a refused value at error level, once per record and store object. Names the table,
    /// column and the record's key (API, requestor, MVPD or client id), never the value. The line is
    /// logged once the database lock is released (`run`): the host's log sink never runs under it.
    private func reportTampering(_ context: [String], _ what: String) {
        guard reportedTampering.withLock({ $0.insert(context.joined(separator: "|") + "|" + what).inserted }) else { return }
        let column = Self.sealedColumns.first { $0.table == context[0] }?.column ?? "?"
        let line =
            "the store's \(context[0]).\(column) of record (\(context.dropFirst(2).joined(separator: ", "))) \(what): "
            + "refused as tampering; the record is treated as absent"
        pendingReports.withLock { $0.append(line) }
    }

    private func flushReports() {
        for line in pendingReports.withLock({ lines in
            defer { lines = [] }; return lines
        }) { logger.error(line) }
    }

    @discardableResult
    private func run<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        defer { flushReports() }  // after the lock is released
        return try database.withLock { database throws(StoreError) in try body(database) }
    }

    /// `run` for a write to the profiles: the decoded profiles are dropped under the same lock
    /// (whether the write committed or not), so no read can cache what it replaced.
    @discardableResult
    private func writingProfiles<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.withLock { database throws(StoreError) in
            defer { profileCache.withLock { $0.removeAll() } }
            return try body(database)
        }
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
            guard
                let row = try db.query(
                    "SELECT client_id, client_secret, base_url FROM clients WHERE app = ? AND api = ?",
                    [.text(scope.app), .text(scope.api)]
                ).first,
                let id = row[0].text, let secret = opened(db, row[1].text, ["clients", scope.app, scope.api]),
                let base = row[2].text
            else { return nil }
            return (ClientCredentials(clientID: id, clientSecret: secret), base)
        }
    }

    /// Stores new credentials. Profiles and the token of the old credentials die with them.
    package func saveCredentials(_ scope: StoreScope, _ credentials: ClientCredentials, baseURL: String) throws(StoreError) {
        try writingProfiles { db throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api)]
                try db.query("DELETE FROM access_tokens WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM profiles WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM profile_syncs WHERE app = ? AND api = ?", key)
                try db.query("DELETE FROM authorizations WHERE app = ? AND api = ?", key)
                try db.query(
                    "INSERT OR REPLACE INTO clients (app, api, base_url, client_id, client_secret) VALUES (?, ?, ?, ?, ?)",
                    key + [
                        .text(baseURL), .text(credentials.clientID),
                        try sealed(credentials.clientSecret, ["clients", scope.app, scope.api]),
                    ])
            }
        }
    }

    package func deleteCredentials(_ scope: StoreScope, clientID: String) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query(
                "DELETE FROM clients WHERE app = ? AND api = ? AND client_id = ?",
                [.text(scope.app), .text(scope.api), .text(clientID)])
        }
    }

    package func accessToken(_ scope: StoreScope, clientID: String) throws(StoreError) -> (token: String, expiresAt: Int64)? {
        try run { db throws(StoreError) in
            guard
                let row = try db.query(
                    "SELECT token, expires_at FROM access_tokens WHERE app = ? AND api = ? AND client_id = ?",
                    [.text(scope.app), .text(scope.api), .text(clientID)]
                ).first,
                let token = opened(db, row[0].text, ["access_tokens", scope.app, scope.api, clientID]),
                let expiresAt = row[1].integer
            else { return nil }
            return (token, expiresAt)
        }
    }

    package func saveAccessToken(_ scope: StoreScope, clientID: String, token: String, expiresAt: Int64) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query(
                "INSERT OR REPLACE INTO access_tokens (app, api, client_id, token, expires_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(scope.app), .text(scope.api), .text(clientID),
                    try sealed(token, ["access_tokens", scope.app, scope.api, clientID]), .integer(expiresAt),
                ])
        }
    }

    package func deleteAccessToken(_ scope: StoreScope, token: String) throws(StoreError) {
        try run { db throws(StoreError) in
            // Sealed tokens differ from the plaintext (and from each other): compare in the clear.
            try db.transaction { () throws(StoreError) in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api)]
                guard let row = try db.query("SELECT client_id, token FROM access_tokens WHERE app = ? AND api = ?", key).first,
                    let clientID = row[0].text,
                    opened(db, row[1].text, ["access_tokens", scope.app, scope.api, clientID]) == token
                else { return }
                try db.query("DELETE FROM access_tokens WHERE app = ? AND api = ?", key)
            }
        }
    }

    // MARK: Configuration

    package func configuration(_ scope: StoreScope, requestor: String) throws(StoreError)
        -> (RequestorConfiguration, fetchedAt: Int64)?
    {
        try run { db throws(StoreError) in
            guard
                let row = try db.query(
                    "SELECT body, fetched_at FROM configurations WHERE app = ? AND api = ? AND requestor = ?",
                    [.text(scope.app), .text(scope.api), .text(requestor)]
                ).first,
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
                [
                    .text(scope.app), .text(scope.api), .text(configuration.requestorID), .text(JSON.text(configuration)),
                    .integer(fetchedAt),
                ])
        }
    }

    // MARK: Profiles

    /// Profiles of `requestor` bound to `deviceID`, and when they were last synced with Adobe.
    package func profiles(_ scope: StoreScope, requestor: String, deviceID: String) throws(StoreError)
        -> (profiles: [Profile], syncedAt: Int64?)
    {
        try run { db throws(StoreError) in
            let cacheKey = [scope.app, scope.api, requestor, deviceID].joined(separator: "\u{0}")
            let stamp = try db.dataVersion()
            if let cached = profileCache.withLock({ $0[cacheKey] }), cached.stamp == stamp { return cached.value }
            let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
            let rows = try db.query(
                "SELECT mvpd, body FROM profiles WHERE app = ? AND api = ? AND requestor = ? AND device_id = ? ORDER BY mvpd",
                key + [.text(deviceID)])
            let profiles = rows.compactMap { row -> Profile? in
                opened(db, row[1].text, ["profiles", scope.app, scope.api, requestor, row[0].text ?? ""])
                    .flatMap { try? JSON.decode(Profile.self, from: Array($0.utf8)) }
            }
            let synced = try db.query(
                "SELECT synced_at FROM profile_syncs WHERE app = ? AND api = ? AND requestor = ?", key
            ).first?.first?.integer
            profileCache.withLock { $0[cacheKey] = (stamp, (profiles, synced)) }
            return (profiles, synced)
        }
    }

    /// Replaces the requestor's profiles with Adobe's answer (profiles absent there were logged out
    /// or expired) and records the sync time.
    package func replaceProfiles(
        _ scope: StoreScope, requestor: String, deviceID: String, with profiles: [Profile],
        syncedAt: Int64
    ) throws(StoreError) {
        try writingProfiles { db throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
                try db.query("DELETE FROM profiles WHERE app = ? AND api = ? AND requestor = ?", key)
                for profile in profiles { try insert(db, scope, requestor, deviceID, profile) }
                try db.query(
                    "INSERT OR REPLACE INTO profile_syncs (app, api, requestor, synced_at) VALUES (?, ?, ?, ?)",
                    key + [.integer(syncedAt)])
            }
        }
    }

    package func saveProfile(_ scope: StoreScope, requestor: String, deviceID: String, _ profile: Profile) throws(StoreError) {
        try writingProfiles { db throws(StoreError) in try insert(db, scope, requestor, deviceID, profile) }
    }

    private func insert(
        _ db: SQLiteDatabase, _ scope: StoreScope, _ requestor: String, _ deviceID: String,
        _ profile: Profile
    ) throws(StoreError) {
        try db.query(
            "INSERT OR REPLACE INTO profiles (app, api, requestor, mvpd, device_id, body, not_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(scope.app), .text(scope.api), .text(requestor), .text(profile.mvpd), .text(deviceID),
                try sealed(JSON.text(profile), ["profiles", scope.app, scope.api, requestor, profile.mvpd]),
                .integer(profile.notAfter),
            ])
    }

    /// Removes the requestor's profiles (all, or one MVPD's) and their authorization expiries.
    package func deleteProfiles(_ scope: StoreScope, requestor: String, mvpd: String? = nil) throws(StoreError) {
        try writingProfiles { db throws(StoreError) in
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
        try writingProfiles { db throws(StoreError) in
            try db.transaction { () throws(StoreError) -> Int in
                let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(deviceID)]
                let count =
                    try db.query("SELECT COUNT(*) FROM profiles WHERE app = ? AND api = ? AND device_id != ?", key)
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
            try db.query(
                "SELECT mvpd FROM selected_mvpds WHERE app = ? AND api = ? AND requestor = ?",
                [.text(scope.app), .text(scope.api), .text(requestor)]
            ).first?.first?.text
        }
    }

    package func setSelectedMVPD(_ scope: StoreScope, requestor: String, _ mvpd: String?) throws(StoreError) {
        try run { db throws(StoreError) in
            let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
            if let mvpd {
                try db.query(
                    "INSERT OR REPLACE INTO selected_mvpds (app, api, requestor, mvpd) VALUES (?, ?, ?, ?)",
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
                [.text(scope.app), .text(scope.api), .text(requestor), .text(mvpd), .text(resource)]
            ).first?.first?.integer
        }
    }

    /// Records when an authorization ends. Committed without waiting for the disk (WAL with
    /// `synchronous = NORMAL` for this one write; the next ordinary commit syncs it): it is a cache
    /// of Adobe's answer written after every authorization, so a power cut may lose the latest one
    /// (V1 then asks authorize once more; getMetadata(1) answers nothing), never tear it.
    package func saveAuthorizationExpiry(
        _ scope: StoreScope, requestor: String, mvpd: String, resource: String,
        notAfter: Int64
    ) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.execute("PRAGMA synchronous = NORMAL")
            defer { try? db.execute("PRAGMA synchronous = FULL") }
            try db.query(
                "INSERT OR REPLACE INTO authorizations (app, api, requestor, mvpd, resource, not_after) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(scope.app), .text(scope.api), .text(requestor), .text(mvpd), .text(resource), .integer(notAfter)])
        }
    }

    // MARK: Adobe's clock (ServerClock)

    /// The clock anchor stored for boot `bootID` (nil for another boot) and the latest server
    /// time ever stored.
    package func clockAnchor(bootID: String) throws(StoreError) -> (anchor: ServerClock.Anchor?, latest: Int64?) {
        try run { db throws(StoreError) in
            guard let row = try db.query("SELECT boot_id, server_ms, boot_ms, latest_server_ms FROM server_clock WHERE id = 1").first,
                let server = row[1].integer, let boot = row[2].integer
            else { return (nil, nil) }
            let anchor = !bootID.isEmpty && row[0].text == bootID ? ServerClock.Anchor(serverMillis: server, bootMillis: boot) : nil
            return (anchor, row[3].integer)
        }
    }

    package func saveClockAnchor(bootID: String, _ anchor: ServerClock.Anchor) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query(
                """
                INSERT INTO server_clock (id, boot_id, server_ms, boot_ms, latest_server_ms) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET boot_id = excluded.boot_id, server_ms = excluded.server_ms,
                    boot_ms = excluded.boot_ms, latest_server_ms = max(latest_server_ms, excluded.latest_server_ms)
                """,
                [.text(bootID), .integer(anchor.serverMillis), .integer(anchor.bootMillis), .integer(anchor.serverMillis)])
        }
    }
}
