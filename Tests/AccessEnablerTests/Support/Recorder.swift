// SPDX-License-Identifier: Apache-2.0
import AccessEnabler
import Foundation
import Testing

/// A delegate that records every callback, in order, with the thread it ran on.
final class Recorder: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    enum Entry: Equatable, CustomStringConvertible {
        case requestorComplete(Int32)
        case authenticationStatus(Int32, String)
        case token(String, String)
        case tokenFailed(String, String, String)
        case selected(String?)
        case dialog([String])
        case navigate(String)
        case tracking(Int32, [String])
        case metadata(JSONValue?, Bool, Int32)
        case preauthorized([String])
        case status(String)

        var description: String {
            switch self {
            case .requestorComplete(let value): "requestorComplete(\(value))"
            case .authenticationStatus(let value, let code): "authenticationStatus(\(value), \(code))"
            case .token(_, let resource): "token(\(resource))"
            case .tokenFailed(let resource, let code, _): "tokenFailed(\(resource), \(code))"
            case .selected(let id): "selected(\(id ?? "nil"))"
            case .dialog(let ids): "dialog(\(ids))"
            case .navigate(let url): "navigate(\(url))"
            case .tracking(let event, _): "tracking(\(event))"
            case .metadata(let value, let encrypted, let key): "metadata(\(String(describing: value)), \(encrypted), \(key))"
            case .preauthorized(let list): "preauthorized(\(list))"
            case .status(let id): "status(\(id))"
            }
        }
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private(set) var statuses: [AdvancedStatus] = []
    private var threads = Set<UInt>()

    private func record(_ entry: Entry) {
        lock.lock()
        entries.append(entry)
        threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self())))
        lock.unlock()
    }

    var all: [Entry] { lock.lock(); defer { lock.unlock() }; return entries }
    var callbackThreads: Int { lock.lock(); defer { lock.unlock() }; return threads.count }
    var allStatuses: [AdvancedStatus] { lock.lock(); defer { lock.unlock() }; return statuses }

    /// Entries without tracking data (most tests assert on the rest).
    var main: [Entry] { all.filter { if case .tracking = $0 { false } else { true } } }

    /// Waits until an entry matches (polling the recording), up to `seconds`.
    @discardableResult
    func wait(_ seconds: Double = 10, for match: (Entry) -> Bool) async throws -> Entry {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let entry = all.first(where: match) { return entry }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        Issue.record("timed out waiting; recorded: \(all)")
        throw CancellationError()
    }

    func waitCount(_ count: Int, _ seconds: Double = 10, where match: (Entry) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if all.filter(match).count >= count { return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        Issue.record("timed out waiting for \(count); recorded: \(all)")
        throw CancellationError()
    }

    func status(_ id: String) -> AdvancedStatus? { allStatuses.first { $0.errorID == id } }

    func setRequestorComplete(_ status: Int32) { record(.requestorComplete(status)) }
    func setAuthenticationStatus(_ status: Int32, errorCode: String) { record(.authenticationStatus(status, errorCode)) }
    func setToken(_ token: String, forResource resource: String) { record(.token(token, resource)) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        record(.tokenFailed(resource, errorCode, errorDescription))
    }
    func selectedProvider(_ mvpd: MVPD?) { record(.selected(mvpd?.id)) }
    func displayProviderDialog(_ mvpds: [MVPD]) { record(.dialog(mvpds.map(\.id))) }
    func navigate(toUrl url: String) { record(.navigate(url)) }
    func sendTrackingData(_ data: [String], forEventType event: Int32) { record(.tracking(event, data)) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        record(.metadata(metadata, encrypted, key))
    }
    func preauthorizedResources(_ resources: [String]) { record(.preauthorized(resources)) }
    func status(_ status: AdvancedStatus) {
        lock.lock()
        statuses.append(status)
        lock.unlock()
        record(.status(status.errorID))
    }
}

extension Recorder.Entry {
    var isRequestorComplete: Bool { if case .requestorComplete = self { true } else { false } }
    var isAuthenticationStatus: Bool { if case .authenticationStatus = self { true } else { false } }
    var isTokenOutcome: Bool {
        switch self {
        case .token, .tokenFailed: true
        default: false
        }
    }
}
