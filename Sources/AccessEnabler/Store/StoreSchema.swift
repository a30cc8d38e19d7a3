// SPDX-License-Identifier: Apache-2.0

/// The store's schema and its migrations.
///
/// Rules (so that several builds of an app can share one file, in either order of upgrade):
/// * migrations only add (tables, columns with defaults, indexes); they never rename, drop or
///   change the meaning of what an earlier version reads;
/// * `PRAGMA user_version` is the highest migration applied; a build that finds a higher version
///   than it knows (a newer build wrote the file) uses the file as it is;
/// * each migration runs once, in the same IMMEDIATE transaction as the version bump, so two
///   processes opening an old file together migrate it once.
enum StoreSchema {
    /// `migrations[n - 1]` takes a store from version n - 1 to n.
    static let migrations: [String] = [
        // 1: the walking skeleton's schema (kept verbatim: Tests/fixtures/store-v1.sql is its copy).
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
        """,
        // 2: encryption at rest (a key check per app: secrets stay in their columns, sealed) and
        // Adobe's clock (an anchor per boot, and the latest server time seen).
        """
        CREATE TABLE IF NOT EXISTS app_keys (app TEXT PRIMARY KEY, key_check TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS server_clock (id INTEGER PRIMARY KEY CHECK (id = 1), boot_id TEXT NOT NULL,
            server_ms INTEGER NOT NULL, boot_ms INTEGER NOT NULL, latest_server_ms INTEGER NOT NULL);
        """,
        // 3: field diagnostics (issue 34): when the app registered (NULL: before version 3), the last
        // failures that reached a callback (bounded: TokenStore.maxRecentFailures), and values a
        // diagnostics tool reads by key (the key "metrics": a metrics snapshot as JSON text).
        """
        ALTER TABLE clients ADD COLUMN registered_at INTEGER;
        CREATE TABLE IF NOT EXISTS recent_failures (id INTEGER PRIMARY KEY, app TEXT NOT NULL,
            api TEXT NOT NULL, at INTEGER NOT NULL, level TEXT NOT NULL, error_id TEXT NOT NULL, message TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS diagnostics (app TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            updated_at INTEGER NOT NULL, PRIMARY KEY (app, key));
        """,
    ]

    static var version: Int { migrations.count }

    /// The tables whose rows belong to one app (cleared by AE_STORE_CHECK_CLEAR).
    static let appTables = [
        "clients", "access_tokens", "configurations", "profiles", "profile_syncs",
        "selected_mvpds", "authorizations", "app_keys", "recent_failures", "diagnostics",
    ]

    /// Applies the missing migrations; returns the version the file had (0: new).
    static func migrate(_ database: SQLiteDatabase) throws(StoreError) -> Int {
        try database.transaction { () throws(StoreError) -> Int in
            let found = Int(try database.query("PRAGMA user_version").first?.first?.integer ?? 0)
            guard found < version else { return found }
            for migration in migrations[found...] { try database.execute(migration) }
            try database.execute("PRAGMA user_version = \(version)")
            return found
        }
    }
}
