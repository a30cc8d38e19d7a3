// SPDX-License-Identifier: Apache-2.0
import CSQLite
import Glibc

/// The store opened for reading without changing a byte of it (accessenabler-diag's `status` and
/// `bundle`): never created, migrated, recovered, repaired or checkpointed, and no -wal or -shm
/// written. SQLite's read-only mode is not enough: a read-only connection to a WAL database creates
/// the -wal and -shm when they are missing and writes its read marks into the -shm. So:
/// * no -wal beside the file (no process has it open, the usual case: the library's destroy
///   checkpoints and removes it): the file is opened `immutable` (no lock, no -shm, no -wal);
/// * a -wal (the app is running, or died with commits in it): the file and its -wal are copied into
///   a private directory (0700, removed at `close`) and the copy is read; a copy torn by a
///   concurrent checkpoint fails its check and is taken again (`attempts`).
///
/// The file checks are the library's (`StoreFile`): a symbolic link, not a regular file, or owned
/// by another user → refused; a mode open to group or others is reported (`openToOthers`), not set.
package final class StoreSnapshot {
    package let path: String
    let database: SQLiteDatabase
    /// `PRAGMA user_version`: the schema version the file has.
    package let schemaVersion: Int
    /// The file or its -wal / -shm is readable or writable by group or others.
    package let openToOthers: Bool
    /// A -wal was beside the file: a process has the store open (or died with commits in it).
    package let inUse: Bool
    private let copyDirectory: String?
    private static let attempts = 3

    package static func open(path: String) throws(DiagnosticFailure) -> StoreSnapshot {
        let (openToOthers, walPresent) = try check(path)
        var lastFailure = DiagnosticFailure(.storeUnreadable, "the store \(path) could not be copied")
        for _ in 0..<(walPresent ? attempts : 1) {
            var directory: String?
            do throws(DiagnosticFailure) {
                let target: String
                let flags: Int32
                if walPresent {
                    directory = try copy(path)
                    target = directory! + "/store.db"
                    flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
                } else {
                    target = "file:" + uriEscaped(path) + "?mode=ro&immutable=1"
                    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
                }
                let (database, version) = try opened(path, target: target, flags: flags)
                return StoreSnapshot(
                    path: path, database: database, schemaVersion: version, openToOthers: openToOthers, inUse: walPresent,
                    copyDirectory: directory)
            } catch {
                if let directory { removeCopy(directory) }
                guard walPresent, error.problem == .storeCorrupt else { throw error }
                lastFailure = error
            }
        }
        throw lastFailure
    }

    /// Opens `target` (the store, or its copy, with `flags`) and checks it: `PRAGMA quick_check`, and a
    /// schema version this library knows (0: not a store; higher: a newer SDK's). Names `path` in messages.
    static func opened(_ path: String, target: String, flags: Int32) throws(DiagnosticFailure) -> (SQLiteDatabase, Int) {
        let database: SQLiteDatabase
        let version: Int
        do throws(StoreError) {
            database = try SQLiteDatabase(path: target, flags: flags)
            try database.execute("PRAGMA busy_timeout = \(StoreLogout.busyTimeoutMillis)")
            let rows = try database.query("PRAGMA quick_check")
            guard rows.count == 1, rows[0].first?.text == "ok" else {
                throw StoreError("PRAGMA quick_check failed: \(rows.first?.first?.text ?? "no answer")", kind: .corrupt)
            }
            version = Int(try database.query("PRAGMA user_version").first?.first?.integer ?? 0)
        } catch {
            throw DiagnosticFailure(error, path: path)
        }
        if version == 0 {
            database.close()
            throw DiagnosticFailure(.storeCorrupt, "the store \(path) has no schema: it is not a token store of this SDK")
        }
        if version > StoreSchema.version {
            database.close()
            throw DiagnosticFailure(
                .storeNewer,
                "the store \(path) has schema version \(version), newer than this library's \(StoreSchema.version): "
                    + "nothing read or changed; use the accessenabler-diag of the SDK version the app uses")
        }
        return (database, version)
    }

    private init(path: String, database: SQLiteDatabase, schemaVersion: Int, openToOthers: Bool, inUse: Bool, copyDirectory: String?) {
        self.path = path
        self.database = database
        self.schemaVersion = schemaVersion
        self.openToOthers = openToOthers
        self.inUse = inUse
        self.copyDirectory = copyDirectory
    }

    deinit {
        database.close()
        if let copyDirectory { Self.removeCopy(copyDirectory) }
    }

    /// The file checks of `StoreFile`, changing nothing; returns (open to others, -wal present).
    static func check(_ path: String) throws(DiagnosticFailure) -> (Bool, Bool) {
        var openToOthers = false
        var walPresent = false
        for suffix in ["", "-wal", "-shm"] {
            let name = path + suffix
            var info = stat()
            guard lstat(name, &info) == 0 else {
                let code = errno
                if code == ENOENT {
                    if suffix.isEmpty {
                        throw DiagnosticFailure(.storeMissing, "there is no store at \(path) (\(SystemFile.errorText(code)))")
                    }
                    continue
                }
                throw DiagnosticFailure(.storeUnreadable, "cannot see \(name): \(SystemFile.errorText(code))")
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: throw DiagnosticFailure(.storeUnsafe, "\(name) is a symbolic link: refused (a store is never opened through one)")
            default: throw DiagnosticFailure(.storeUnsafe, "\(name) is not a regular file: refused")
            }
            guard info.st_uid == geteuid() else {
                throw DiagnosticFailure(
                    .storeUnsafe,
                    "\(name) is owned by uid \(info.st_uid), not by this user (uid \(geteuid())): refused, as the library "
                        + "refuses it; run the tool as the app's user")
            }
            if info.st_mode & 0o077 != 0 { openToOthers = true }
            if suffix == "-wal" { walPresent = true }
        }
        guard access(path, R_OK) == 0 else {
            throw DiagnosticFailure(.storeUnreadable, "cannot read the store \(path): \(SystemFile.errorText())")
        }
        return (openToOthers, walPresent)
    }

    /// Copies the file and its -wal into a new private directory; returns the directory.
    private static func copy(_ path: String) throws(DiagnosticFailure) -> String {
        let base = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/accessenabler-diag.XXXXXX"
        var template = Array(base.utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw DiagnosticFailure(.storeUnreadable, "cannot make a private directory to read the store in use: \(SystemFile.errorText())")
        }
        let directory = String(cString: made)
        for (suffix, target) in [("", "/store.db"), ("-wal", "/store.db-wal")] {
            guard let bytes = SystemFile.read(path + suffix, limit: 1 << 30) else {
                if suffix == "-wal" && errno == ENOENT { continue }  // checkpointed and removed meanwhile
                removeCopy(directory)
                throw DiagnosticFailure(.storeUnreadable, "cannot read \(path + suffix): \(SystemFile.errorText())")
            }
            guard SystemFile.write(directory + target, bytes, mode: 0o600) else {
                removeCopy(directory)
                throw DiagnosticFailure(.storeUnreadable, "cannot copy the store in use to \(directory): \(SystemFile.errorText())")
            }
        }
        return directory
    }

    private static func removeCopy(_ directory: String) {
        for name in ["store.db", "store.db-wal", "store.db-shm", "store.db-journal"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    /// A path as the path of a `file:` URI (RFC 3986: '%', '?' and '#' escaped).
    static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
