// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation

/// The Python emulator (Emulator/emulator.py) as a subprocess on port 0.
final class EmulatorProcess: @unchecked Sendable {
    let url: String
    private let process: Process

    init(_ arguments: [String] = ["--throttle", "off"]) throws {
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
