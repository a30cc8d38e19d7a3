// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What `ae_config.store_check` asks at create (the iOS SDK's `IntegrityCheckType`, plus a quick
/// check as the default). The values are the header's AE_STORE_CHECK_*.
public enum IntegrityCheck: Int32, Sendable {
    /// `PRAGMA quick_check` (default): finds a truncated or overwritten file in well under a
    /// millisecond on a store of this size.
    case quick = 0
    /// iOS `INTEGRITY_CHECK_NONE`: no check beyond opening (a file SQLite cannot read at all is
    /// still moved aside: it could not be used).
    case none = 1
    /// iOS `INTEGRITY_CHECK_ALL`: the full `PRAGMA integrity_check`; on failure the store is
    /// moved aside and a new one started (the viewer is logged out).
    case all = 2
    /// iOS `INTEGRITY_CHECK_CLEAR`: the app's records are cleared at every create.
    case clear = 3
}

/// How the store was found at create; the values are the header's AE_STORE_*.
public enum StoreOpenStatus: Int32, Sendable {
    case opened = 0, created = 1, inMemory = 2, recovered = 3, cleared = 4, upgraded = 5
}

/// Opening the file: create it private (0600), configure SQLite, check it, migrate it; a damaged
/// file is moved aside (`<path>.corrupt-<ms>`, with its -wal and -shm) and a new one started.
enum StoreOpening {
    struct Opened {
        var database: SQLiteDatabase
        var status: StoreOpenStatus
        var movedTo: String?
    }

    static func open(path: String?, check: IntegrityCheck, logger: Logger) throws(StoreError) -> Opened {
        guard let path else {
            let database = try prepare(":memory:", check: .none)
            return Opened(database: database.0, status: .inMemory)
        }
        var info = stat()
        let existed = stat(path, &info) == 0 && info.st_size > 0
        try createPrivate(path)
        do {
            let (database, from) = try prepare(path, check: check)
            let status: StoreOpenStatus = !existed || from == 0 ? .created : from < StoreSchema.version ? .upgraded : .opened
            if from > StoreSchema.version {
                logger.info("the store has schema version \(from), newer than this library's \(StoreSchema.version): using it as is")
            }
            return Opened(database: database, status: status)
        } catch where error.isCorruption {
            let aside = path + ".corrupt-\(SystemClock().nowMillis())"
            for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
                guard rename(path + suffix, aside + suffix) == 0 else {
                    throw StoreError("the store is damaged (\(error)) and cannot be moved aside (errno \(errno))")
                }
            }
            logger.error("the store \(path) is damaged (\(error)); moved it to \(aside) and started a new one")
            try createPrivate(path)
            let (database, _) = try prepare(path, check: .none)
            return Opened(database: database, status: .recovered, movedTo: aside)
        }
    }

    /// Creates an empty file readable by its owner only, unless it exists (SQLite gives its -wal
    /// and -shm files the same mode).
    private static func createPrivate(_ path: String) throws(StoreError) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError("cannot create the store (errno \(errno))")
        }
    }

    /// Opens, configures, checks and migrates; returns the schema version the file had.
    private static func prepare(_ path: String, check: IntegrityCheck) throws(StoreError) -> (SQLiteDatabase, Int) {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = 5000")
        if path != ":memory:" { _ = try database.query("PRAGMA journal_mode = WAL") }
        // FULL: in WAL mode every commit is synced, so a power cut loses no acknowledged write.
        try database.execute("PRAGMA synchronous = FULL")
        switch check {
        case .quick, .clear: try verify(database, "PRAGMA quick_check")
        case .all: try verify(database, "PRAGMA integrity_check")
        case .none: _ = try database.query("SELECT count(*) FROM sqlite_master")
        }
        return (database, try StoreSchema.migrate(database))
    }

    private static func verify(_ database: SQLiteDatabase, _ pragma: String) throws(StoreError) {
        let rows = try database.query(pragma)
        guard rows.count == 1, rows[0].first?.text == "ok" else {
            let first = rows.first?.first?.text ?? "no answer"
            throw StoreError("\(pragma) failed: \(first)", kind: .corrupt)
        }
    }
}
