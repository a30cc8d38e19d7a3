// SPDX-License-Identifier: Apache-2.0
import CSQLite

/// `accessenabler-diag logout`: forgets one requestor's sign-in on the box, in a store the app may
/// be using at that moment. It removes what the library's own logout removes locally
/// (`Engine/LogoutFlow+Driver.swift`: `deleteProfiles` and the selected MVPD), in one IMMEDIATE transaction
/// under SQLite's locking, as every write of the library: an app's write in progress is waited for
/// (busy timeout), and the app's next call reads the change (its caches follow `PRAGMA
/// data_version`). The file is never created, migrated or recovered; a sealed store needs its key.
/// Adobe is not called: its session ends when it expires, or at the app's next logout.
package enum StoreLogout {
    package struct Outcome {
        package var profiles = 0
        package var authorizations = 0
        package var selections = 0
    }

    package static let busyTimeoutMillis = 5000

    package static func run(path: String, requestor: String, app filter: String?, sealer: Sealer?) throws(DiagnosticFailure) -> Outcome {
        _ = try StoreSnapshot.check(path)
        let (db, version) = try StoreSnapshot.opened(path, target: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        defer { db.close() }
        do throws(StoreError) {
            return try db.transaction { () throws(StoreError) -> Outcome in
                let apps = try apps(db, version: version, filter: filter, sealer: sealer)
                var outcome = Outcome()
                for app in apps {
                    let key: [SQLValue] = [.text(app), .text(requestor)]
                    outcome.profiles += try count(db, "profiles", key)
                    outcome.authorizations += try count(db, "authorizations", key)
                    outcome.selections += try count(db, "selected_mvpds", key)
                    for table in ["profiles", "authorizations", "selected_mvpds"] {
                        try db.query("DELETE FROM \(table) WHERE app = ? AND requestor = ?", key)
                    }
                }
                return outcome
            }
        } catch {
            throw DiagnosticFailure(error, path: path)
        }
    }

    /// The apps whose records may be changed: every app of the store (or the one given); every
    /// sealed app of them must open with the key given, as the library would open it.
    private static func apps(_ db: SQLiteDatabase, version: Int, filter: String?, sealer: Sealer?) throws(StoreError) -> [String] {
        var apps = Set(
            try db.query("SELECT DISTINCT app FROM profiles UNION SELECT DISTINCT app FROM selected_mvpds").compactMap { $0.first?.text })
        if let filter { apps = apps.filter { $0 == filter } }
        guard version >= 2 else { return apps.sorted() }
        for row in try db.query("SELECT app, key_check FROM app_keys") {
            guard let app = row[0].text, filter == nil || app == filter else { continue }
            guard let sealer else {
                throw StoreError("the store's records of app \(app.prefix(12)) are encrypted: give the app's store key", kind: .keyRequired)
            }
            guard sealer.open(row[1].text ?? "", context: "app_keys|\(app)") == TokenStore.keyCheckText else {
                throw StoreError("the key given is not the key the records of app \(app.prefix(12)) were sealed with", kind: .wrongKey)
            }
        }
        return apps.sorted()
    }

    private static func count(_ db: SQLiteDatabase, _ table: String, _ key: [SQLValue]) throws(StoreError) -> Int {
        Int(try db.query("SELECT COUNT(*) FROM \(table) WHERE app = ? AND requestor = ?", key).first?.first?.integer ?? 0)
    }
}
