// SPDX-License-Identifier: Apache-2.0
import CCurl
import CSQLite

/// What a diagnostic is given (the C ABI reads it from an `ae_config`): the store, its key, the
/// service and the TLS options the app uses. No secret of it ever reaches a report: the key and
/// the software statement are said to be given or not, the proxy's user information is removed.
package struct DiagnosticConfig: Sendable {
    package var storagePath: String?
    /// The app's software statement: narrows the store's records to that app (hashed), else all.
    package var softwareStatement: String?
    package var storeKey: [UInt8]?
    package var baseURL: String?
    package var apiGeneration: APIGeneration = Defaults.apiGeneration
    package var tls = TLSOptions()
    package var connectTimeoutMillis = Defaults.connectTimeoutMillis
    package var requestTimeoutMillis = Defaults.requestTimeoutMillis

    package init() {}

    var app: String? { softwareStatement.map { StoreScope(softwareStatement: $0, api: "").app } }
    var sealer: Sealer? { storeKey.flatMap(Sealer.init(key:)) }

    /// The configuration without secrets, for the bundle.
    var redacted: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "storage_path": text(storagePath), "software_statement_given": .bool(softwareStatement != nil),
            "store_key_given": .bool(storeKey != nil), "base_url": text(baseURL), "api_generation": .string(apiGeneration.storeName),
            "ca_file": text(tls.caFile), "ca_path": text(tls.caPath), "ca_mode": .string(tls.trustSystemStore ? "with_system" : "only"),
            "pinned_public_keys": .int(Int64(tls.pinnedPublicKeys.count)),
            "min_tls_version": .string(tls.minimumVersion == .v1_3 ? "1.3" : "1.2"),
            "proxy": text(tls.proxy.map(Self.withoutUserInfo)), "proxy_from_environment": .bool(tls.proxyFromEnvironment),
            "connect_timeout_ms": .int(Int64(connectTimeoutMillis)), "request_timeout_ms": .int(Int64(requestTimeoutMillis)),
        ])
    }

    /// "http://user:secret@proxy:3128" → "http://***@proxy:3128".
    static func withoutUserInfo(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let authority = url[..<at].indices.first { url[$0...].hasPrefix("//") }.map { url.index($0, offsetBy: 2) } ?? url.startIndex
        return String(url[..<authority]) + "***" + String(url[at...])
    }
}

/// The diagnostics of `accessenabler-diag`: each returns its report (text or JSON) and the problem
/// that stopped it. They never change the store, but for `logout`.
package enum Diagnostics {
    /// The most failures a bundle holds (the store keeps `TokenStore.maxRecentFailures`).
    package static let defaultBundleFailures = 20

    package static func status(_ config: DiagnosticConfig, json: Bool) -> DiagnosticReport {
        do throws(DiagnosticFailure) {
            let summary = try summary(config)
            return DiagnosticReport(problem: .none, text: json ? JSON.text(summary.json()) : summary.text())
        } catch {
            return DiagnosticReport(error, json: json)
        }
    }

    package static func logout(_ config: DiagnosticConfig, requestor: String, json: Bool) -> DiagnosticReport {
        do throws(DiagnosticFailure) {
            guard let path = config.storagePath else { throw DiagnosticFailure(.configuration, "no store given (storage_path)") }
            let outcome = try StoreLogout.run(path: path, requestor: requestor, app: config.app, sealer: config.sealer)
            let removed = outcome.profiles + outcome.selections + outcome.authorizations > 0
            let text =
                json
                ? JSON.text(
                    JSONValue.object([
                        "ok": .bool(true), "requestor": .string(requestor), "profiles_removed": .int(Int64(outcome.profiles)),
                        "authorizations_removed": .int(Int64(outcome.authorizations)),
                        "selected_provider_removed": .bool(outcome.selections > 0),
                    ]))
                : removed
                    ? "logged out \(requestor) on this box: \(outcome.profiles) profile(s), \(outcome.authorizations) authorization(s) "
                        + "and the selected provider removed; the app sees it at its next call (Adobe keeps its session until it expires)"
                    : "\(requestor) had nothing stored: nothing changed"
            return DiagnosticReport(problem: .none, text: text)
        } catch {
            return DiagnosticReport(error, json: json)
        }
    }

    package static func doctor(_ config: DiagnosticConfig, requestor: String?, json: Bool) -> DiagnosticReport {
        guard let baseURL = config.baseURL else {
            return DiagnosticReport(DiagnosticFailure(.configuration, "no base URL given (base_url)"), json: json)
        }
        let doctor = Doctor(
            baseURL: baseURL, tls: config.tls, connectTimeoutMillis: config.connectTimeoutMillis,
            requestTimeoutMillis: config.requestTimeoutMillis, apiGeneration: config.apiGeneration,
            requestor: requestor ?? "accessenabler-diag")
        let (steps, problem) = doctor.run()
        return DiagnosticReport(problem: problem, text: Doctor.report(steps, problem: problem, json: json))
    }

    /// The support bundle (JSON only): versions, the configuration without secrets, the store's
    /// summary (or why it could not be read), its last `maxFailures` failures and the metrics
    /// snapshots stored, verbatim. The problem is the store's.
    package static func bundle(_ config: DiagnosticConfig, maxFailures: Int) -> DiagnosticReport {
        var object: [String: JSONValue] = [
            "bundle_version": .int(1),
            "created_at": Timestamp.json(SystemClock().nowMillis()),
            "versions": .object([
                "library": .string(Version.string), "store_schema": .int(Int64(StoreSchema.version)),
                "libcurl": .string(String(cString: curl_version())), "sqlite": .string(String(cString: sqlite3_libversion())),
            ]),
            "config": config.redacted,
        ]
        var problem = DiagnosticProblem.none
        do throws(DiagnosticFailure) {
            let summary = try summary(config)
            object["store"] = summary.json()
            object["recent_failures"] = .array(
                summary.failures.prefix(max(0, maxFailures)).map { failure in
                    .object([
                        "at": Timestamp.json(failure.at), "app": .string(String(failure.app.prefix(12))), "api": .string(failure.api),
                        "level": .string(failure.level), "error_id": .string(failure.errorID), "message": .string(failure.message),
                    ])
                })
            var metrics: [String: JSONValue] = [:]
            for entry in summary.diagnostics where entry.key == TokenStore.metricsKey {
                metrics[String(entry.app.prefix(12))] = .object([
                    "updated_at": Timestamp.json(entry.updatedAt), "value": JSON.parse(entry.value) ?? .string(entry.value),
                ])
            }
            object["metrics"] = metrics.isEmpty ? .null : .object(metrics)
        } catch {
            problem = error.problem
            object["store"] = .object(["ok": .bool(false), "problem": .string(error.problem.name), "message": .string(error.message)])
        }
        return DiagnosticReport(problem: problem, text: JSON.text(JSONValue.object(object)))
    }

    private static func summary(_ config: DiagnosticConfig) throws(DiagnosticFailure) -> StoreSummary {
        guard let path = config.storagePath else { throw DiagnosticFailure(.configuration, "no store given (storage_path)") }
        let snapshot = try StoreSnapshot.open(path: path)
        return try StoreSummary.read(snapshot, app: config.app, sealer: config.sealer, now: SystemClock().nowMillis())
    }
}
