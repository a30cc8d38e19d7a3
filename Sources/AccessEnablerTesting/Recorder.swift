// SPDX-License-Identifier: Apache-2.0
package import AccessEnabler
import Foundation

/// A delegate that records every callback, in order, with the thread it ran on.
package final class Recorder: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    package enum Entry: Equatable, CustomStringConvertible {
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

        package var description: String {
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
    package private(set) var statuses: [AdvancedStatus] = []

    package init() {}
    private var threads = Set<UInt>()

    private func record(_ entry: Entry) {
        lock.lock()
        entries.append(entry)
        threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self())))
        lock.unlock()
    }

    package var all: [Entry] { lock.lock(); defer { lock.unlock() }; return entries }
    package var callbackThreads: Int { lock.lock(); defer { lock.unlock() }; return threads.count }
    package var allStatuses: [AdvancedStatus] { lock.lock(); defer { lock.unlock() }; return statuses }

    /// Entries without tracking data (most tests assert on the rest).
    package var main: [Entry] { all.filter { if case .tracking = $0 { false } else { true } } }

    /// Waits until an entry matches (polling the recording), up to `seconds`.
    @discardableResult
    package func wait(_ seconds: Double = 10, for match: (Entry) -> Bool) async throws -> Entry {
        if try await poll(seconds, until: { all.contains(where: match) }), let entry = all.first(where: match) { return entry }
        throw RecorderTimeout(description: "timed out waiting; recorded: \(all)")
    }

    package func waitCount(_ count: Int, _ seconds: Double = 10, where match: (Entry) -> Bool) async throws {
        if try await poll(seconds, until: { all.filter(match).count >= count }) { return }
        throw RecorderTimeout(description: "timed out waiting for \(count); recorded: \(all)")
    }

    /// Polls `done` every 5 ms for `seconds`, and once more after the deadline: a task that got
    /// no thread until after it still sees what came.
    private func poll(_ seconds: Double, until done: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if done() { return true }
            try await Task.sleep(nanoseconds: 5_000_000)
        } while Date() < deadline
        return done()
    }

    /// Waits until an entry matches, blocking the calling thread (for a test that holds a thread
    /// of Swift's cooperative pool on purpose); false after `seconds`.
    package func waitBlocking(_ seconds: Double = 10, _ match: (Entry) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if all.contains(where: match) { return true }
            usleep(2_000)
        } while Date() < deadline
        return all.contains(where: match)
    }

    package func status(_ id: String) -> AdvancedStatus? { allStatuses.first { $0.errorID == id } }

    package func setRequestorComplete(_ status: Int32) { record(.requestorComplete(status)) }
    package func setAuthenticationStatus(_ status: Int32, errorCode: String) { record(.authenticationStatus(status, errorCode)) }
    package func setToken(_ token: String, forResource resource: String) { record(.token(token, resource)) }
    package func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        record(.tokenFailed(resource, errorCode, errorDescription))
    }
    package func selectedProvider(_ mvpd: MVPD?) { record(.selected(mvpd?.id)) }
    package func displayProviderDialog(_ mvpds: [MVPD]) { record(.dialog(mvpds.map(\.id))) }
    package func navigate(toUrl url: String) { record(.navigate(url)) }
    package func sendTrackingData(_ data: [String], forEventType event: Int32) { record(.tracking(event, data)) }
    package func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int32, andArguments arguments: JSONValue) {
        record(.metadata(metadata, encrypted, key))
    }
    package func preauthorizedResources(_ resources: [String]) { record(.preauthorized(resources)) }
    package func status(_ status: AdvancedStatus) {
        lock.lock()
        statuses.append(status)
        lock.unlock()
        record(.status(status.errorID))
    }
}

extension Recorder.Entry {
    package var isRequestorComplete: Bool { if case .requestorComplete = self { true } else { false } }
    package var isAuthenticationStatus: Bool { if case .authenticationStatus = self { true } else { false } }
    package var isTokenOutcome: Bool {
        switch self {
        case .token, .tokenFailed: true
        default: false
        }
    }
}

/// A wait that ended without the callback it waited for (a test that throws it fails with the recording).
package struct RecorderTimeout: Error, CustomStringConvertible {
    package let description: String
}
