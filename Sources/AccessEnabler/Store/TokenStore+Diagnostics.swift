// SPDX-License-Identifier: Apache-2.0

/// The store's diagnostics records (schema 3, issue 34): the last failures that reached a callback
/// and values by key that the diagnostics tool (`accessenabler-diag`) reads. Nothing secret goes
/// here: failures are the statuses and error strings the callbacks carry, which hold no token.
extension TokenStore {
    /// How many failures the store keeps (all apps together): the newest.
    package static let maxRecentFailures = 20
    /// The longest message kept (a status message is a sentence; this bounds a hostile one).
    package static let maxFailureMessageLength = 500
    /// The diagnostics key of a metrics snapshot (JSON text), which the tool's bundle includes as is.
    package static let metricsKey = "metrics"

    /// Records a failure that reached a callback: `level` "error" or "warning", AccessEnabler's
    /// error id ("SEC412", "setRequestor", ...) and the message. The oldest beyond
    /// `maxRecentFailures` are deleted in the same transaction. Committed without waiting for the
    /// disk (as authorization expiries): a power cut may lose the latest, never tear one.
    package func recordFailure(_ scope: StoreScope, level: String, errorID: String, message: String, at millis: Int64)
        throws(StoreError)
    {
        try run { db throws(StoreError) in
            try db.execute("PRAGMA synchronous = NORMAL")
            defer { try? db.execute("PRAGMA synchronous = FULL") }
            try db.transaction { () throws(StoreError) in
                try db.query(
                    "INSERT INTO recent_failures (app, api, at, level, error_id, message) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(scope.app), .text(scope.api), .integer(millis), .text(level), .text(String(errorID.prefix(64))),
                        .text(String(message.prefix(Self.maxFailureMessageLength))),
                    ])
                try db.query(
                    "DELETE FROM recent_failures WHERE id NOT IN (SELECT id FROM recent_failures ORDER BY id DESC LIMIT ?)",
                    [.integer(Int64(Self.maxRecentFailures))])
            }
        }
    }

    /// Stores a diagnostics value of the app (`metricsKey`: a metrics snapshot as JSON text).
    package func saveDiagnostic(_ scope: StoreScope, key: String, value: String, at millis: Int64) throws(StoreError) {
        try run { db throws(StoreError) in
            try db.query(
                "INSERT OR REPLACE INTO diagnostics (app, key, value, updated_at) VALUES (?, ?, ?, ?)",
                [.text(scope.app), .text(key), .text(value), .integer(millis)])
        }
    }
}
