// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

/// The Python emulator (Emulator/emulator.py) as a subprocess on port 0. A suite that talks to it
/// shares one (`@Suite(.serialized, .sharedEmulator)`) and its tests take it as
/// `EmulatorProcess.shared`, reset before each test.
final class EmulatorProcess: @unchecked Sendable {
    /// The emulator of the suite running (SharedEmulator).
    @TaskLocal static var suite: EmulatorProcess?

    /// The running suite's emulator (reset before each of its tests); an error outside a suite
    /// with the `.sharedEmulator` trait.
    static var shared: EmulatorProcess {
        get throws {
            guard let suite else {
                throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the suite has no .sharedEmulator trait"])
            }
            return suite
        }
    }

    let url: String
    private let process: Process

    /// Starts an emulator on a thread of its own: the launch waits for the emulator's first line,
    /// which must not hold one of the (few) threads of Swift's cooperative pool.
    static func start(_ arguments: [String] = ["--throttle", "off"]) async throws -> EmulatorProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try EmulatorProcess(arguments) }) }
        }
    }

    private init(_ arguments: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", root.appendingPathComponent("Emulator/emulator.py").path,
                "--port", "0", "--quiet", "--exit-with-parent",
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("AE_EMULATOR_LISTENING ") else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "emulator did not start: \(text)"])
        }
        self.url = String(text.dropFirst("AE_EMULATOR_LISTENING ".count))
        self.process = process
    }

    deinit {
        // SIGTERM; the emulator exits at once. (waitUntilExit would spin a run loop here.)
        process.terminate()
    }

    /// Calls the control API over the SDK's own libcurl transport.
    func control(_ method: String, _ name: String, _ body: [String: Any]? = nil) async throws -> Any {
        let transport = CurlTransport(options: .init())
        defer { transport.shutdown() }
        let data = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let response = try await transport.send(
            HTTPRequest(
                method: method, url: "\(url)/_emulator/\(name)", headers: [("Content-Type", "application/json")], body: data))
        return try JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
    }

    /// OpenAPI operation ids of the API requests answered so far.
    func operations() async throws -> [String] {
        let log = try await control("GET", "log") as? [String: Any]
        return (log?["requests"] as? [[String: Any]] ?? []).compactMap { $0["operation"] as? String }.filter { $0 != "page" }
    }

    func clearLog() async throws { _ = try await control("POST", "log/clear") }
}

/// One emulator for a whole suite: started before the suite's first test, stopped after its last,
/// and reset before each test (each case of a parameterized one) to a just-started emulator with
/// `POST /_emulator/reset {"config": true}` (no client, token, session, profile, fault or log
/// entry of an earlier test; its starting config; its clock at real time), as the ctypes suite's
/// `emulator` fixture does. Tests that share one run one at a time: `.serialized` goes with it.
struct SharedEmulator: SuiteTrait, TestTrait, TestScoping {
    var arguments = ["--throttle", "off"]
    /// Applies to the suite's tests too: they get their reset. (A recursive suite trait must be a
    /// test trait as well: Swift Testing traps while planning otherwise.)
    var isRecursive: Bool { true }

    /// The suite (start, stop) and each test case (reset); not the function of a parameterized test.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? self : nil
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if test.isSuite {
            let emulator = try await EmulatorProcess.start(arguments)
            try await EmulatorProcess.$suite.withValue(emulator) { try await function() }
        } else {
            _ = try await EmulatorProcess.shared.control("POST", "reset", ["config": true])
            try await function()
        }
    }
}

extension Trait where Self == SharedEmulator {
    /// One emulator for the suite, reset before each test (SharedEmulator).
    static var sharedEmulator: Self { SharedEmulator() }
}
