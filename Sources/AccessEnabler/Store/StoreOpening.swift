// SPDX-License-Identifier: Apache-2.0
import Glibc

/// How the store was found at create; the values are the header's AE_STORE_*.
public enum StoreOpenStatus: Int32, Sendable {
    case opened = 0, created = 1, inMemory = 2, recovered = 3, cleared = 4, upgraded = 5
    /// The file (or its -wal or -shm) was readable or writable by group or others: set to 0600,
    /// its records kept. Reported instead of opened, created, upgraded or cleared (not recovered).
    case modeRepaired = 6
}

/// Opening the file: create it private (0600) or check the one found (`StoreFile`), configure
/// SQLite, check it, migrate it; a damaged file is moved aside (`<path>.corrupt-<ms>`, with its
/// -wal and -shm) and a new one started.
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
        let file = try StoreFile(path: path, logger: logger)
        do {
            let (database, from) = try prepare(path, check: check, file: file)
            let status: StoreOpenStatus =
                file.repaired
                ? .modeRepaired
                : !file.existed || from == 0 ? .created : from < StoreSchema.version ? .upgraded : .opened
            if from > StoreSchema.version {
                logger.info("the store has schema version \(from), newer than this library's \(StoreSchema.version): using it as is")
            }
            return Opened(database: database, status: status)
        } catch  where error.isCorruption {
            let aside = path + ".corrupt-\(SystemClock().nowMillis())"
            for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
                guard rename(path + suffix, aside + suffix) == 0 else {
                    throw StoreError("the store is damaged (\(error)) and cannot be moved aside: \(SystemFile.errorText())")
                }
            }
            logger.error("the store \(path) is damaged (\(error)); moved it to \(aside) and started a new one")
            let fresh = try StoreFile(path: path, logger: logger)
            let (database, _) = try prepare(path, check: .none, file: fresh)
            return Opened(database: database, status: .recovered, movedTo: aside)
        }
    }

    /// Opens, configures, checks and migrates; returns the schema version the file had.
    private static func prepare(_ path: String, check: IntegrityCheck, file: StoreFile? = nil) throws(StoreError)
        -> (SQLiteDatabase, Int)
    {
        let database = try SQLiteDatabase(path: path)
        try file?.verifyStillAt(path)
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

/// The store's file, claimed before SQLite opens it: created private (0600) when missing; else
/// the file found, and its -wal and -shm, are checked through descriptors opened with
/// `O_PATH | O_NOFOLLOW` (fstat on what was opened, not stat-then-open):
/// * a symbolic link, or not a regular file → refused (`.unsafeFile`), nothing followed or changed;
/// * owned by another user than the process's effective user → refused (`.unsafeFile`), untouched;
/// * readable or writable by group or others → set to 0600 (through `/proc/self/fd`, on the inode
///   checked), logged at warning, reported as `.modeRepaired`.
///
/// `O_PATH`, not an ordinary descriptor: closing any ordinary descriptor of a file drops every
/// POSIX lock the process holds on it, and SQLite's other connections to this file in this
/// process (other clients) hold such locks; closing an `O_PATH` descriptor drops none.
final class StoreFile {
    /// O_PATH: Glibc's module does not export it (glibc defines it under _GNU_SOURCE only); its
    /// value is asm-generic's 010000000 on every architecture Swift runs on (x86_64, arm64, arm, riscv64).
    private static let pathOnly: Int32 = 0o10000000

    /// The main file as checked, kept open until SQLite has opened the path (`verifyStillAt`).
    private let descriptor: Int32
    private let device: dev_t
    private let inode: ino_t
    /// The file was there (with content) before this create.
    let existed: Bool
    /// A mode was set to 0600.
    let repaired: Bool

    init(path: String, logger: Logger) throws(StoreError) {
        // Created here, private from the start (SQLite gives its -wal and -shm the same mode).
        // O_EXCL never follows a symbolic link: a link in place of the file is EEXIST, then refused below.
        try Self.checkDirectory(of: path, logger: logger)
        let created = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if created >= 0 {
            close(created)  // a file no connection can have opened yet: no lock to lose
        } else if errno != EEXIST {
            throw StoreError("cannot create the store \(path): \(SystemFile.errorText())")
        }
        var repairs: [String] = []
        let (main, info) = try Self.check(path, name: "the store", repairs: &repairs)
        guard let main else { throw StoreError("the store vanished while it was opened") }
        descriptor = main
        device = info.st_dev
        inode = info.st_ino
        existed = created < 0 && info.st_size > 0
        // The registration lock too (issue 28: another user who created it held every cold
        // setRequestor for 45 s): the same checks as the store's own files.
        for suffix in ["-wal", "-shm", ".lock"] {
            let (other, _) = try Self.check(path + suffix, name: "the store's \(suffix)", repairs: &repairs)
            if let other { close(other) }
        }
        repaired = !repairs.isEmpty
        if repaired {
            logger.warning(
                "the store \(path) was open to group or others (\(repairs.joined(separator: ", "))): set to 0600; "
                    + "another local user may have read or altered it")
        }
    }

    deinit { close(descriptor) }

    /// The store's directory: it must exist (a missing one is named, not a bare ENOENT: the README's
    /// snippet, run as written, failed silently on /var/lib/myapp), and must not let other users
    /// replace the store's files: writable by others without the sticky bit is refused; with it (as
    /// /tmp), others can still create the names the store will use before it does: logged.
    static func checkDirectory(of path: String, logger: Logger) throws(StoreError) {
        let directory = path.lastIndex(of: "/").map { index in index == path.startIndex ? "/" : String(path[..<index]) } ?? "."
        var info = stat()
        guard stat(directory, &info) == 0 else {
            let code = errno
            let reason = SystemFile.errorText(code)
            if code == ENOENT {
                throw StoreError(
                    "the store's directory \(directory) does not exist: create it (writable by the app's user only) "
                        + "or give another storage_path (\(reason))")
            }
            throw StoreError("the store's directory \(directory) cannot be used: \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw StoreError("\(directory), the store's directory, is not a directory") }
        let mode = info.st_mode & 0o7777
        guard mode & 0o002 != 0 else { return }
        if mode & S_ISVTX == 0 {
            throw StoreError(
                "the store's directory \(directory) has mode 0\(String(mode, radix: 8)): any user may replace or "
                    + "delete the store's files there; refused (use a directory writable by the app's user only)",
                kind: .unsafeFile)
        }
        logger.warning(
            "the store's directory \(directory) is writable by every user (sticky, as /tmp): another user may "
                + "create the store's file names first; use a directory writable by the app's user only")
    }

    /// Opens `path` (O_PATH, not following a link) and checks it; nil when it does not exist.
    /// Appends `name mode` to `repairs` when its mode was set to 0600.
    private static func check(_ path: String, name: String, repairs: inout [String]) throws(StoreError) -> (Int32?, stat) {
        var info = stat()
        let descriptor = Glibc.open(path, pathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return (nil, info) }
            throw StoreError("cannot open \(name) \(path): \(SystemFile.errorText())")
        }
        var keep = false
        defer { if !keep { close(descriptor) } }
        guard fstat(descriptor, &info) == 0 else { throw StoreError("cannot stat \(name) \(path): \(SystemFile.errorText())") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK:
            throw StoreError("\(name) \(path) is a symbolic link: refused (a store is never opened through one)", kind: .unsafeFile)
        default: throw StoreError("\(name) \(path) is not a regular file: refused", kind: .unsafeFile)
        }
        let user = geteuid()
        guard info.st_uid == user else {
            throw StoreError(
                "\(name) \(path) is owned by uid \(info.st_uid), not by this process's user (uid \(user)): refused",
                kind: .unsafeFile)
        }
        let mode = info.st_mode & 0o7777
        if mode & 0o077 != 0 {
            // chmod on the descriptor's inode (fchmod does not take an O_PATH descriptor).
            guard chmod("/proc/self/fd/\(descriptor)", 0o600) == 0 else {
                throw StoreError(
                    "\(name) \(path) has mode 0\(String(mode, radix: 8)), open to group or others, "
                        + "and cannot be set to 0600: \(SystemFile.errorText())", kind: .unsafeFile)
            }
            repairs.append("\(name == "the store" ? "mode" : String(name.dropFirst("the store's ".count))) 0\(String(mode, radix: 8))")
        }
        keep = true
        return (descriptor, info)
    }

    /// After SQLite opened `path`: the path still names the file checked (lstat: the last component
    /// itself, not a link's target), so it was not replaced in between. (Replaced and put back in
    /// between, by someone who can rename files in the store's directory, is not seen: SQLite opens
    /// the path itself. The directory must be writable by the app's user only.)
    func verifyStillAt(_ path: String) throws(StoreError) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_dev == device, info.st_ino == inode else {
            throw StoreError("the store \(path) was replaced while it was opened: refused", kind: .unsafeFile)
        }
    }
}
