// SPDX-License-Identifier: Apache-2.0

/// What stopped a diagnostic (`accessenabler-diag`'s exit status); the values are the header's
/// AE_DIAG_* (2 is the tool's own: a usage error).
public enum DiagnosticProblem: Int32, Sendable, CaseIterable {
    case none = 0
    case failed = 1
    case storeMissing = 3
    case storeUnsafe = 4
    case storeLocked = 5
    case storeCorrupt = 6
    case storeNewer = 7
    case storeKey = 8
    case storeUnreadable = 9
    case configuration = 10
    case dns = 11
    case tcp = 12
    case tls = 13
    case certificate = 14
    case service = 15

    /// The name in the reports' JSON ("problem").
    public var name: String {
        switch self {
        case .none: "none"
        case .failed: "failed"
        case .storeMissing: "store_missing"
        case .storeUnsafe: "store_unsafe"
        case .storeLocked: "store_locked"
        case .storeCorrupt: "store_corrupt"
        case .storeNewer: "store_newer"
        case .storeKey: "store_key"
        case .storeUnreadable: "store_unreadable"
        case .configuration: "configuration"
        case .dns: "dns"
        case .tcp: "tcp"
        case .tls: "tls"
        case .certificate: "certificate"
        case .service: "service"
        }
    }
}

/// A diagnostic that could not be made: the problem and a sentence for the support engineer.
package struct DiagnosticFailure: Error, Sendable {
    package var problem: DiagnosticProblem
    package var message: String

    package init(_ problem: DiagnosticProblem, _ message: String) {
        self.problem = problem
        self.message = message
    }

    /// A store error as the tool reports it.
    init(_ error: StoreError, path: String) {
        switch error.kind {
        case .corrupt: self.init(.storeCorrupt, "the store \(path) is damaged: \(error)")
        case .wrongKey, .keyRequired: self.init(.storeKey, "\(error)")
        case .unsafeFile: self.init(.storeUnsafe, "\(error)")
        case .sqlite(let code) where error.isCorruption: self.init(.storeCorrupt, "the store \(path) is damaged (SQLite \(code)): \(error)")
        case .sqlite(let code) where code & 0xff == 5 || code & 0xff == 6:  // SQLITE_BUSY, SQLITE_LOCKED
            self.init(.storeLocked, "the store \(path) is locked by another process (\(error)); try again when the app is idle")
        default: self.init(.storeUnreadable, "the store \(path) cannot be read: \(error)")
        }
    }
}

/// A diagnostic's outcome: its report (text or JSON) and the problem that stopped it (`.none`).
public struct DiagnosticReport: Sendable {
    public var problem: DiagnosticProblem
    public var text: String

    package init(problem: DiagnosticProblem, text: String) {
        self.problem = problem
        self.text = text
    }

    /// The report of a failure: `{"ok": false, "problem": ..., "message": ...}` or the message.
    package init(_ failure: DiagnosticFailure, json: Bool) {
        problem = failure.problem
        text =
            json
            ? JSON.text(
                JSONValue.object(["ok": .bool(false), "problem": .string(failure.problem.name), "message": .string(failure.message)]))
            : failure.message
    }
}
