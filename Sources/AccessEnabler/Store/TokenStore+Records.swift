// SPDX-License-Identifier: Apache-2.0

/// The store's records: the device id, DCR credentials and access token, configuration, profiles,
/// the selected MVPD, authorization expiries and Adobe's clock.
extension TokenStore {
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
                    "INSERT OR REPLACE INTO clients (app, api, base_url, client_id, client_secret, registered_at) VALUES (?, ?, ?, ?, ?, ?)",
                    key + [
                        .text(baseURL), .text(credentials.clientID),
                        try sealed(credentials.clientSecret, ["clients", scope.app, scope.api]),
                        .integer(SystemClock().nowMillis()),
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
                let expiresAt = Self.time(row[1])
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
                let body = row[0].text, let fetchedAt = Self.time(row[1]),
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
        try run { db throws(StoreError) in try profiles(db, scope, requestor: requestor, deviceID: deviceID, stamp: db.dataVersion()) }
    }

    private func profiles(_ db: SQLiteDatabase, _ scope: StoreScope, requestor: String, deviceID: String, stamp: Int64)
        throws(StoreError) -> (profiles: [Profile], syncedAt: Int64?)
    {
        let cacheKey = [scope.app, scope.api, requestor, deviceID].joined(separator: "\u{0}")
        if let cached = profileCache.withLock({ $0[cacheKey] }), cached.stamp == stamp { return cached.value }
        let key: [SQLValue] = [.text(scope.app), .text(scope.api), .text(requestor)]
        let rows = try db.query(
            "SELECT mvpd, body FROM profiles WHERE app = ? AND api = ? AND requestor = ? AND device_id = ? ORDER BY mvpd",
            key + [.text(deviceID)])
        let profiles = rows.compactMap { row -> Profile? in
            opened(db, row[1].text, ["profiles", scope.app, scope.api, requestor, row[0].text ?? ""])
                .flatMap { try? JSON.decode(Profile.self, from: Array($0.utf8)) }
                .map(Self.clampedTimes)
        }
        let synced = try db.query(
            "SELECT synced_at FROM profile_syncs WHERE app = ? AND api = ? AND requestor = ?", key
        ).first?.first.flatMap(Self.time)
        profileCache.withLock { $0[cacheKey] = (stamp, (profiles, synced)) }
        return (profiles, synced)
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
        try run { db throws(StoreError) in try selectedMVPD(db, scope, requestor: requestor, stamp: db.dataVersion()) }
    }

    /// The requestor's profiles and selected MVPD, read at one `data_version` (every entitlement
    /// call reads both: from the caches while no other connection committed).
    package func profilesAndSelection(_ scope: StoreScope, requestor: String, deviceID: String) throws(StoreError)
        -> (profiles: [Profile], selected: String?)
    {
        try run { db throws(StoreError) in
            let stamp = try db.dataVersion()
            return (
                try profiles(db, scope, requestor: requestor, deviceID: deviceID, stamp: stamp).profiles,
                try selectedMVPD(db, scope, requestor: requestor, stamp: stamp)
            )
        }
    }

    private func selectedMVPD(_ db: SQLiteDatabase, _ scope: StoreScope, requestor: String, stamp: Int64) throws(StoreError) -> String? {
        let cacheKey = [scope.app, scope.api, requestor].joined(separator: "\u{0}")
        if let cached = selectionCache.withLock({ $0[cacheKey] }), cached.stamp == stamp { return cached.mvpd }
        let mvpd = try db.query(
            "SELECT mvpd FROM selected_mvpds WHERE app = ? AND api = ? AND requestor = ?",
            [.text(scope.app), .text(scope.api), .text(requestor)]
        ).first?.first?.text
        selectionCache.withLock { $0[cacheKey] = (stamp, mvpd) }
        return mvpd
    }

    package func setSelectedMVPD(_ scope: StoreScope, requestor: String, _ mvpd: String?) throws(StoreError) {
        try run { db throws(StoreError) in
            defer { selectionCache.withLock { $0.removeAll() } }  // under the lock: no read caches what this replaced
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
            ).first?.first.flatMap(Self.time)
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
                let server = Self.time(row[1]), let boot = Self.time(row[2])
            else { return (nil, nil) }
            let anchor = !bootID.isEmpty && row[0].text == bootID ? ServerClock.Anchor(serverMillis: server, bootMillis: boot) : nil
            return (anchor, Self.time(row[3]))
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

// MARK: Numbers read back

extension TokenStore {
    /// A time read from the store (ms), clamped as times from Adobe are (`Limits.epochMillis`): the
    /// file may have been written by another build, a bad disk or anyone with the user's rights. A
    /// value that is no integer (a REAL, text) is absent.
    static func time(_ value: SQLValue) -> Int64? { value.integer?.clamped(to: Limits.epochMillis) }

    /// A stored profile with its times clamped as `time` clamps.
    static func clampedTimes(_ profile: Profile) -> Profile {
        var profile = profile
        profile.notBefore = profile.notBefore.clamped(to: Limits.epochMillis)
        profile.notAfter = profile.notAfter.clamped(to: Limits.epochMillis)
        return profile
    }
}
