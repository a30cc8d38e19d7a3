// SPDX-License-Identifier: Apache-2.0
import CSQLite
import Glibc

/// Errors of the token store; the message names the SQLite error, never a stored value.
package struct StoreError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// An SQLite failure (extended result code; 0 when not from SQLite).
        case sqlite(Int32)
        /// The file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB, or a failed integrity check).
        case corrupt
        /// The app's records are sealed under another key than the one given.
        case wrongKey
        /// The app's records are sealed and no key was given.
        case keyRequired
        /// The file is not one the store may use: a symbolic link, not a regular file, owned by
        /// another user, or replaced while it was opened (AE_E_STORAGE, nothing changed).
        case unsafeFile
        /// The client was destroyed (`TokenStore.close`).
        case closed
    }

    package var kind: Kind
    package var description: String

    init(_ description: String, kind: Kind = .sqlite(0)) {
        self.description = description
        self.kind = kind
    }

    /// SQLite says the file is not a database or is malformed.
    var isCorruption: Bool {
        if case .sqlite(let code) = kind { return code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
        return kind == .corrupt
    }
}

/// A bound SQL value.
enum SQLValue {
    case text(String)
    case integer(Int64)
    case null
}

/// A thin SQLite connection: prepared statements, typed binds, transactions.
/// Not thread-safe by itself; `TokenStore` serializes access.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text, kept for the connection's life: every entitlement call
    /// runs the same few statements, and compiling one costs more than running it.
    private var statements: [String: OpaquePointer] = [:]
    /// More distinct statements than this are compiled each time (the SQL is a fixed set, so
    /// this is never reached; it only bounds the memory).
    private static let maxCachedStatements = 64
    /// Told each write's duration in seconds (the metrics' `ae.store.write.duration`): a
    /// transaction that changed something, or one changing statement outside a transaction.
    var onWrite: ((Double) -> Void)?
    private var inTransaction = false
    private var transactionWrote = false

    /// Opens `path` read-write, created when missing; `flags` other than the default open it another
    /// way (the diagnostics tool: an existing file only, or a `file:` URI read-only and immutable).
    init(path: String, flags: Int32 = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX) throws(StoreError) {
        // Not SQLITE_OPEN_NOFOLLOW: it also refuses a link among the directories (/var/run → /run).
        // A link in place of the file itself is refused before (StoreFile).
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = handle.map { sqlite3_extended_errcode($0) } ?? result
            sqlite3_close_v2(handle)
            handle = nil
            throw StoreError("cannot open the store (\(message))", kind: .sqlite(code))
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// Closes the connection now (the client's destroy): the WAL is checkpointed and removed
    /// before destroy returns, not when the last task lets go of the store. Later statements fail.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    private func checkOpen() throws(StoreError) {
        if handle == nil { throw StoreError("the store was closed (the client was destroyed)", kind: .closed) }
    }

    func execute(_ sql: String) throws(StoreError) {
        // One statement (BEGIN, COMMIT, a PRAGMA) goes through the statement cache.
        if !sql.utf8.contains(UInt8(ascii: ";")) {
            try query(sql)
            return
        }
        try checkOpen()
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        guard result == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw StoreError("\(message) (SQLite \(sqlite3_extended_errcode(handle)))", kind: .sqlite(sqlite3_extended_errcode(handle)))
        }
    }

    /// Runs `sql` with `values` bound and returns every row (columns as text or integer).
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        try checkOpen()
        var statement = statements[sql]
        let cached = statement != nil
        if !cached {
            let keep = statements.count < Self.maxCachedStatements
            let flags = keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            guard sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil) == SQLITE_OK else { throw lastError() }
            if keep { statements[sql] = statement }
        }
        defer {
            if statements[sql] == statement {
                sqlite3_reset(statement)  // ends its read of the file, as finalizing did
                sqlite3_clear_bindings(statement)
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .text(let text):
                // The byte count, not -1: a NUL inside the text must not cut it short.
                let bytes = text.utf8CString  // NUL-terminated, so never an empty (NULL) buffer
                bytes.withUnsafeBufferPointer {
                    _ = sqlite3_bind_text(statement, position, $0.baseAddress, Int32($0.count - 1), csqlite_transient())
                }
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .null: sqlite3_bind_null(statement, position)
            }
        }
        var rows: [[SQLValue]] = []
        let write = onWrite != nil && sqlite3_stmt_readonly(statement) == 0
        if write && inTransaction { transactionWrote = true }
        let startedAt = write && !inTransaction ? monotonicNanos() : 0
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE {
                if startedAt != 0 { onWrite?(Double(monotonicNanos() &- startedAt) / 1e9) }
                return rows
            }
            guard step == SQLITE_ROW else { throw lastError() }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_NULL: .null
                    default:
                        .text(
                            String(
                                decoding: UnsafeBufferPointer(
                                    start: sqlite3_column_text(statement, column),
                                    count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self))
                    }
                })
        }
    }

    /// Runs `body` in an IMMEDIATE transaction (the write lock is taken up front, so concurrent
    /// writers from other processes wait on busy_timeout instead of failing mid-transaction).
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let startedAt = monotonicNanos()
        try execute("BEGIN IMMEDIATE")
        inTransaction = true
        transactionWrote = false
        defer { inTransaction = false }
        do {
            let result = try body()
            try execute("COMMIT")
            if transactionWrote { onWrite?(Double(monotonicNanos() &- startedAt) / 1e9) }
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Changes when any connection (this one or another process's) commits a change: SQLite's
    /// PRAGMA data_version: changes when another connection (another process of the app, or
    /// another client of this one) commits to the file; not for this connection's own commits.
    func dataVersion() throws(StoreError) -> Int64 {
        try query("PRAGMA data_version").first?.first?.integer ?? -1
    }

    private func lastError() -> StoreError {
        StoreError(
            "\(String(cString: sqlite3_errmsg(handle))) (SQLite \(sqlite3_extended_errcode(handle)))",
            kind: .sqlite(sqlite3_extended_errcode(handle)))
    }
}

extension SQLValue {
    var text: String? { if case .text(let value) = self { value } else { nil } }
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
}
