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
    static let keyCheckText = "accessenabler-store-key"
    private static let warnedUnencrypted = Locked<Set<String>>([])
    /// The columns that hold the app's secrets, and the columns of their record's key (after app).
    private static let sealedColumns: [(table: String, column: String, key: [String])] = [
        ("clients", "client_secret", ["api"]), ("access_tokens", "token", ["api", "client_id"]),
        ("profiles", "body", ["api", "requestor", "mvpd"]),
    ]

    let database: Locked<SQLiteDatabase>
    /// Held by `close` and `keepingOpen`; true once closed. (A Bool, not an empty value: ThreadSanitizer
    /// placed the accesses to a zero-sized value at the lock object's start and reported them as a race.)
    private let closing = Locked(false)
    let sealer: Sealer?
    /// The app whose records `sealer` seals (other apps sharing the file keep their own keys).
    let app: String
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
    let profileCache = Locked<[String: (stamp: Int64, value: ([Profile], Int64?))]>([:])
    /// The selected MVPD by scope and requestor, valid as `profileCache` is (emptied by this store's
    /// `setSelectedMVPD`).
    let selectionCache = Locked<[String: (stamp: Int64, mvpd: String?)]>([:])
    let logger: Logger
    /// The records already logged as tampered with (once per record and store object).
    private let reportedTampering = Locked<Set<String>>([])

    /// Closes the database now (the client's destroy); later calls fail with `.closed`. Waits for
    /// a `keepingOpen` section in progress, so its writes land.
    package func close() {
        closing.withLock { closed in
            database.withLock { $0.close() }
            closed = true
        }
    }

    /// Runs `body`, in which the store is not closed (a close waits for it): the engine tells the
    /// host an outcome and stores what goes with it there, so a destroy the host makes as soon as
    /// it hears loses nothing.
    package func keepingOpen<T>(_ body: () throws -> T) rethrows -> T {
        try closing.withLock { _ in try body() }
    }

    /// Opens or creates the store. `path` nil keeps everything in memory. `app` is the scope's
    /// app (hashed software statement) whose key `sealer` holds.
    package init(
        path: String?, app: String = "", sealer: Sealer? = nil, check: IntegrityCheck = .quick,
        logger: Logger = .silent, metrics: Metrics? = nil
    ) throws(StoreError) {
        let opened = try StoreOpening.open(path: path, check: check, logger: logger)
        if let metrics { opened.database.onWrite = { metrics.observe(MetricCatalog.storeWriteDuration, $0) } }
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
    func sealed(_ value: String, _ context: [String]) throws(StoreError) -> SQLValue {
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
    func opened(_ db: SQLiteDatabase, _ value: String?, _ context: [String]) -> String? {
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
    func isSealed(_ db: SQLiteDatabase, app owner: String) -> Bool {
        if owner == app { return sealer != nil }
        return (try? db.query("SELECT 1 FROM app_keys WHERE app = ?", [.text(owner)])).map { !$0.isEmpty } ?? true
    }

    /// Logs a refused value at error level, once per record and store object. Names the table,
    /// column and the record's key (API, requestor, MVPD or client id), never the value. Logged under the
    /// database lock, the line reaches the host's sink once the thread holds no lock (Logger).
    func reportTampering(_ context: [String], _ what: String) {
        guard reportedTampering.withLock({ $0.insert(context.joined(separator: "|") + "|" + what).inserted }) else { return }
        let column = Self.sealedColumns.first { $0.table == context[0] }?.column ?? "?"
        let line =
            "the store's \(context[0]).\(column) of record (\(context.dropFirst(2).joined(separator: ", "))) \(what): "
            + "refused as tampering; the record is treated as absent"
        logger.error(line)
    }

    @discardableResult
    func run<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        return try database.withLock { database throws(StoreError) in try body(database) }
    }

    /// `run` for a write to the profiles: the decoded profiles are dropped under the same lock
    /// (whether the write committed or not), so no read can cache what it replaced.
    @discardableResult
    func writingProfiles<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.withLock { database throws(StoreError) in
            defer { profileCache.withLock { $0.removeAll() } }
            return try body(database)
        }
    }
}
