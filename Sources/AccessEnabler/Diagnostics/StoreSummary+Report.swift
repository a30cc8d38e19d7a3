// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The status report: JSON for machines, lines for a serial console. Times are UTC (ISO 8601) and,
/// for expiries, the time left on Adobe's clock (what the library judges by) and on the box's.
extension StoreSummary {
    /// Adobe's time now: this boot's anchor, else the box's clock.
    var adobeNow: Int64 { clock.adobeMillis ?? clock.boxMillis }

    package func json() -> JSONValue {
        var clockObject: [String: JSONValue] = ["box": Timestamp.json(clock.boxMillis)]
        clockObject["adobe"] = clock.adobeMillis.map(Timestamp.json) ?? .null
        clockObject["skew_ms"] = clock.adobeMillis.map { .int($0 - clock.boxMillis) } ?? .null
        clockObject["latest_server_time"] = clock.latestServerMillis.map(Timestamp.json) ?? .null
        return .object([
            "ok": .bool(true),
            "store": .object([
                "path": .string(path), "schema_version": .int(Int64(schemaVersion)),
                "library_schema_version": .int(Int64(StoreSchema.version)), "in_use": .bool(inUse),
                "open_to_others": .bool(openToOthers), "encrypted": .bool(apps.contains(where: \.sealed)),
            ]),
            "clock": .object(clockObject),
            "apps": .array(apps.map(appJSON)),
        ])
    }

    private func appJSON(_ app: App) -> JSONValue {
        var object: [String: JSONValue] = [
            "app": .string(String(app.app.prefix(12))), "api": .string(app.api), "encrypted": .bool(app.sealed),
            "base_url": app.baseURL.map(JSONValue.string) ?? .null, "client_id": app.clientID.map(JSONValue.string) ?? .null,
        ]
        object["registered_at"] = app.registeredAt.map(Timestamp.json) ?? .null
        object["registration_age_s"] = app.registeredAt.map { .int((clock.boxMillis - $0) / 1000) } ?? .null
        object["access_token_expires_at"] = app.accessTokenExpiresAt.map(expiryJSON) ?? .null
        object["requestors"] = .array(
            app.requestors.map { requestor in
                .object([
                    "requestor": .string(requestor.id),
                    "selected_provider": requestor.selectedMVPD.map(JSONValue.string) ?? .null,
                    "configuration_fetched_at": requestor.configurationFetchedAt.map(Timestamp.json) ?? .null,
                    "profiles_synced_at": requestor.profilesSyncedAt.map(Timestamp.json) ?? .null,
                    "profiles": .array(requestor.profiles.filter { !$0.isSSO }.map(profileJSON)),
                    "sso_profiles": .array(requestor.profiles.filter(\.isSSO).map(profileJSON)),
                    "authorizations": .array(
                        requestor.authorizations.map {
                            .object(["mvpd": .string($0.mvpd), "resource": .string($0.resource), "expires": expiryJSON($0.notAfter)])
                        }),
                ])
            })
        return .object(object)
    }

    private func profileJSON(_ profile: ProfileEntry) -> JSONValue {
        .object([
            "mvpd": .string(profile.mvpd), "type": profile.type.map(JSONValue.string) ?? .null,
            "issuer": profile.issuer.map(JSONValue.string) ?? .null, "expires": expiryJSON(profile.notAfter),
        ])
    }

    /// An expiry (Adobe's time): when, the seconds left on Adobe's clock and on the box's, and when
    /// the box's clock will show it.
    private func expiryJSON(_ millis: Int64) -> JSONValue {
        .object([
            "at": Timestamp.json(millis), "valid": .bool(adobeNow < millis),
            "left_adobe_s": .int((millis - adobeNow) / 1000), "left_box_s": .int((millis - clock.boxMillis) / 1000),
            "at_box_clock": Timestamp.json(millis - (adobeNow - clock.boxMillis)),
        ])
    }

    package func text() -> String {
        var lines: [String] = []
        let encrypted = apps.contains(where: \.sealed) ? "encrypted" : "not encrypted"
        lines.append(
            "store     \(path): schema \(schemaVersion) (this library \(StoreSchema.version)), \(encrypted), "
                + (inUse ? "in use by a process (read from a private copy)" : "not in use"))
        if openToOthers { lines.append("warning   the store is readable or writable by group or others (the library sets it to 0600)") }
        var clockLine = "clock     box \(Timestamp.iso(clock.boxMillis))"
        if let adobe = clock.adobeMillis {
            clockLine += ", Adobe \(Timestamp.iso(adobe)) (skew \(Timestamp.signedSeconds(adobe - clock.boxMillis)))"
        } else {
            clockLine += ", Adobe unknown this boot (no answer since boot); expiries judged on the box's clock"
        }
        lines.append(clockLine)
        if apps.isEmpty { lines.append("(no app has records in this store)") }
        for app in apps {
            var line = "app       \(app.app.prefix(12)) (REST API \(app.api))"
            if let registered = app.registeredAt {
                line += ", registered \(Timestamp.iso(registered)) (\(Timestamp.span(clock.boxMillis - registered)) ago)"
            } else if app.clientID != nil {
                line += ", registered (time unknown: before schema 3)"
            } else {
                line += ", not registered"
            }
            if let base = app.baseURL { line += " at \(base)" }
            lines.append(line)
            if let client = app.clientID { lines.append("  client id      \(client)") }
            if let expiry = app.accessTokenExpiresAt { lines.append("  access token   \(expiryText(expiry))") }
            for requestor in app.requestors {
                lines.append("  requestor \(requestor.id): selected provider \(requestor.selectedMVPD ?? "none")")
                if requestor.profiles.isEmpty { lines.append("    no profile (not signed in)") }
                for profile in requestor.profiles {
                    let kind = [profile.type, profile.issuer.map { "issuer \($0)" }].compactMap { $0 }.joined(separator: ", ")
                    lines.append(
                        "    \(profile.isSSO ? "SSO profile" : "profile") \(profile.mvpd)\(kind.isEmpty ? "" : " (\(kind))"): "
                            + expiryText(profile.notAfter))
                }
                for authorization in requestor.authorizations {
                    lines.append(
                        "    authorization \(authorization.resource) (\(authorization.mvpd)): \(expiryText(authorization.notAfter))")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    private func expiryText(_ millis: Int64) -> String {
        let left = millis - adobeNow
        let state = left > 0 ? "valid, \(Timestamp.span(left)) left" : "expired \(Timestamp.span(-left)) ago"
        return "until \(Timestamp.iso(millis)) Adobe clock (\(state)); box clock \(Timestamp.iso(millis - (adobeNow - clock.boxMillis)))"
    }
}

/// Times for reports.
enum Timestamp {
    /// "2026-11-29T06:40:00Z".
    static func iso(_ millis: Int64) -> String {
        var seconds = time_t(millis.clamped(to: -62_135_596_800_000...253_402_300_799_000) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    static func json(_ millis: Int64) -> JSONValue { .string(iso(millis)) }

    /// "2 d 3 h", "5 h 12 min", "4 min 2 s", "800 ms".
    static func span(_ millis: Int64) -> String {
        let seconds = millis / 1000
        switch seconds {
        case ..<1: return "\(millis) ms"
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min \(seconds % 60) s"
        case ..<86400: return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        default: return "\(seconds / 86400) d \(seconds % 86400 / 3600) h"
        }
    }

    /// "+2.0 s", "-1.3 s".
    static func signedSeconds(_ millis: Int64) -> String {
        let tenths = (abs(millis) + 50) / 100
        return "\(millis < 0 ? "-" : "+")\(tenths / 10).\(tenths % 10) s"
    }
}
