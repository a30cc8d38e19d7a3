// SPDX-License-Identifier: Apache-2.0

/// What a store holds, as `accessenabler-diag status` shows it: never a secret (client secret,
/// access token, profile attributes, SSO tokens), only ids, kinds and times. Read from a
/// `StoreSnapshot`; sealed records are opened with the key the tool was given (a wrong key, or
/// none for a sealed store, is refused as the library refuses it).
package struct StoreSummary {
    package struct Clock {
        package var boxMillis: Int64
        /// Adobe's time now, from this boot's anchor (nil: the anchor is of another boot, or none).
        package var adobeMillis: Int64?
        /// The latest server time the store has seen.
        package var latestServerMillis: Int64?
    }

    package struct ProfileEntry {
        package var mvpd: String
        package var notAfter: Int64
        /// From the profile's record (nil: sealed under a key the tool does not hold).
        package var type: String?
        package var issuer: String?
        package var notBefore: Int64?
        package var isSSO: Bool
    }

    package struct Authorization {
        package var mvpd: String
        package var resource: String
        package var notAfter: Int64
    }

    package struct Requestor {
        package var id: String
        package var configurationFetchedAt: Int64?
        package var selectedMVPD: String?
        package var profilesSyncedAt: Int64?
        package var profiles: [ProfileEntry] = []
        package var authorizations: [Authorization] = []
    }

    package struct App {
        /// The app's scope: the hashed software statement (first 12 hex digits shown) and the API.
        package var app: String
        package var api: String
        package var sealed: Bool
        package var baseURL: String?
        package var clientID: String?
        package var registeredAt: Int64?
        package var accessTokenExpiresAt: Int64?
        package var requestors: [Requestor] = []
    }

    package struct Failure {
        package var at: Int64
        package var app: String
        package var api: String
        package var level: String
        package var errorID: String
        package var message: String
    }

    package var path: String
    package var schemaVersion: Int
    package var inUse: Bool
    package var openToOthers: Bool
    package var clock: Clock
    package var apps: [App] = []
    package var failures: [Failure] = []
    /// Diagnostics values by app and key (the key "metrics": a metrics snapshot, JSON text).
    package var diagnostics: [(app: String, key: String, value: String, updatedAt: Int64)] = []

    /// Reads `snapshot`. `app`: only that app's records (a software statement was given; hashed);
    /// `sealer`: the store key. Fails with `.storeKey` when a sealed app of the selection does not
    /// open with the key (or no key was given).
    package static func read(_ snapshot: StoreSnapshot, app filter: String?, sealer: Sealer?, now: Int64) throws(DiagnosticFailure)
        -> StoreSummary
    {
        do throws(StoreError) {
            return try read(snapshot.database, snapshot, filter: filter, sealer: sealer, now: now)
        } catch {
            throw DiagnosticFailure(error, path: snapshot.path)
        }
    }

    private static func read(_ db: SQLiteDatabase, _ snapshot: StoreSnapshot, filter: String?, sealer: Sealer?, now: Int64)
        throws(StoreError) -> StoreSummary
    {
        let version = snapshot.schemaVersion
        var summary = StoreSummary(
            path: snapshot.path, schemaVersion: version, inUse: snapshot.inUse, openToOthers: snapshot.openToOthers,
            clock: Clock(boxMillis: now))
        if version >= 2, let row = try db.query("SELECT boot_id, server_ms, boot_ms, latest_server_ms FROM server_clock").first {
            summary.clock.latestServerMillis = TokenStore.time(row[3])
            if let server = TokenStore.time(row[1]), let boot = TokenStore.time(row[2]), !ServerClock.bootID.isEmpty,
                row[0].text == ServerClock.bootID
            {
                summary.clock.adobeMillis = server.clampedAdding(ServerClock.bootMillis().clampedSubtracting(boot))
            }
        }
        let keyChecks = version >= 2 ? try db.query("SELECT app, key_check FROM app_keys") : []
        var sealedApps: Set<String> = []
        for row in keyChecks {
            guard let app = row[0].text, filter == nil || app == filter else { continue }
            sealedApps.insert(app)
            let opens = sealer?.open(row[1].text ?? "", context: "app_keys|\(app)") == TokenStore.keyCheckText
            if !opens {
                throw StoreError(
                    sealer == nil
                        ? "the store's records of app \(app.prefix(12)) are encrypted: give the app's store key (--key-file or --key-hex)"
                        : "the key given is not the key the records of app \(app.prefix(12)) were sealed with",
                    kind: sealer == nil ? .keyRequired : .wrongKey)
            }
        }
        let registered = version >= 3 ? ", registered_at" : ", NULL"
        var scopes: [String: App] = [:]
        func app(_ id: String, _ api: String) -> App? {
            guard filter == nil || id == filter else { return nil }
            return scopes["\(id)|\(api)"] ?? App(app: id, api: api, sealed: sealedApps.contains(id))
        }
        for row in try db.query("SELECT app, api, base_url, client_id\(registered) FROM clients") {
            guard let id = row[0].text, let api = row[1].text, var entry = app(id, api) else { continue }
            entry.baseURL = row[2].text
            entry.clientID = row[3].text
            entry.registeredAt = TokenStore.time(row[4])
            scopes["\(id)|\(api)"] = entry
        }
        for row in try db.query("SELECT app, api, expires_at FROM access_tokens") {
            guard let id = row[0].text, let api = row[1].text, var entry = app(id, api) else { continue }
            entry.accessTokenExpiresAt = TokenStore.time(row[2])
            scopes["\(id)|\(api)"] = entry
        }
        var requestors: [String: Requestor] = [:]
        func update(_ row: [SQLValue], _ change: (inout Requestor) -> Void) {
            guard let id = row[0].text, let api = row[1].text, let requestor = row[2].text, let entry = app(id, api) else { return }
            scopes["\(id)|\(api)"] = entry
            let key = "\(id)|\(api)|\(requestor)"
            var value = requestors[key] ?? Requestor(id: requestor)
            change(&value)
            requestors[key] = value
        }
        for row in try db.query("SELECT app, api, requestor, fetched_at FROM configurations") {
            update(row) { $0.configurationFetchedAt = TokenStore.time(row[3]) }
        }
        for row in try db.query("SELECT app, api, requestor, mvpd FROM selected_mvpds") { update(row) { $0.selectedMVPD = row[3].text } }
        for row in try db.query("SELECT app, api, requestor, synced_at FROM profile_syncs") {
            update(row) { $0.profilesSyncedAt = TokenStore.time(row[3]) }
        }
        for row in try db.query("SELECT app, api, requestor, mvpd, body, not_after FROM profiles ORDER BY mvpd") {
            let context = ["profiles", row[0].text ?? "", row[1].text ?? "", row[2].text ?? "", row[3].text ?? ""]
            let body = row[4].text.flatMap { text in
                Sealer.isSealed(text) ? sealer?.open(text, context: context.joined(separator: "|")) : text
            }
            let profile = body.flatMap { try? JSON.decode(Profile.self, from: Array($0.utf8)) }.map(TokenStore.clampedTimes)
            let entry = ProfileEntry(
                mvpd: row[3].text ?? "", notAfter: TokenStore.time(row[5]) ?? 0, type: profile?.type, issuer: profile?.issuer,
                notBefore: profile?.notBefore, isSSO: profile.map(Self.isSSO) ?? false)
            update(row) { $0.profiles.append(entry) }
        }
        for row in try db.query("SELECT app, api, requestor, mvpd, resource, not_after FROM authorizations ORDER BY resource") {
            let entry = Authorization(mvpd: row[3].text ?? "", resource: row[4].text ?? "", notAfter: TokenStore.time(row[5]) ?? 0)
            update(row) { $0.authorizations.append(entry) }
        }
        for (key, requestor) in requestors.sorted(by: { $0.key < $1.key }) {
            let scope = key.split(separator: "|", maxSplits: 2).prefix(2).joined(separator: "|")
            scopes[scope]?.requestors.append(requestor)
        }
        summary.apps = scopes.values.sorted { ($0.app, $0.api) < ($1.app, $1.api) }
        if version >= 3 {
            for row in try db.query("SELECT app, api, at, level, error_id, message FROM recent_failures ORDER BY id DESC") {
                guard let id = row[0].text, filter == nil || id == filter else { continue }
                summary.failures.append(
                    Failure(
                        at: TokenStore.time(row[2]) ?? 0, app: id, api: row[1].text ?? "", level: row[3].text ?? "",
                        errorID: row[4].text ?? "", message: row[5].text ?? ""))
            }
            for row in try db.query("SELECT app, key, value, updated_at FROM diagnostics ORDER BY app, key") {
                guard let id = row[0].text, filter == nil || id == filter else { continue }
                summary.diagnostics.append((id, row[1].text ?? "", row[2].text ?? "", TokenStore.time(row[3]) ?? 0))
            }
        }
        return summary
    }

    /// A profile of a single sign-on: Apple's, a platform identity's or a service token's.
    static func isSSO(_ profile: Profile) -> Bool {
        profile.type == "appleSSO" || profile.issuer == "Apple" || IdentityTokenKind.allCases.contains { $0.profileType == profile.type }
    }
}
