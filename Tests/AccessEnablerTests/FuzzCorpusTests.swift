// SPDX-License-Identifier: Apache-2.0
// The fuzz targets' seed corpora and saved crash inputs, run through the same harness functions
// in a normal `swift test` (no libFuzzer): regression protection for every input that ever broke
// a parser. Fuzz/README.md describes the targets and the folders.
import AccessEnablerFuzz
import Foundation
import Testing

@Suite struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The regular files of Fuzz/<folder>/<target>, sorted (none when the folder does not exist).
    static func inputs(_ folder: String, _ target: String) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Runs `files` through the target's harness function; returns "file: failure" per failure.
    /// The harness blocks its thread while the SDK's async calls run, so it runs on a thread of
    /// its own, never on one of the (few) threads of Swift's cooperative pool.
    static func run(_ target: String, _ files: [URL]) async throws -> [String] {
        let inputs = try files.map { ($0.lastPathComponent, [UInt8](try Data(contentsOf: $0))) }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var failures: [String] = []
                for (name, bytes) in inputs {
                    do {
                        try FuzzTargets.run(target, bytes)
                    } catch {
                        failures.append("\(target) \(name): \(error)")
                    }
                }
                continuation.resume(returning: failures)
            }
        }
    }

    /// A failure the harness names with the id of an open finding (`[F4] ...`): a known issue.
    static func isOpenFinding(_ failure: String) -> Bool {
        OpenFindings.ids.contains { failure.contains(": [\($0)] ") }
    }

    /// Every seed. Seeds with numbers at their extremes may reproduce an open finding: those
    /// failures are known issues until it is fixed.
    /// make-seeds.py writes the flow-answers seeds by endpoint number: its FLOW_ENDPOINTS list must be
    /// the harness's numbering (FlowEndpoint), or every seed answers another endpoint than it says.
    @Test func makeSeedsNumbersTheFlowEndpointsAsTheHarnessDoes() throws {
        let script = try String(contentsOf: Self.fuzz.appendingPathComponent("make-seeds.py"), encoding: .utf8)
        let start = try #require(script.range(of: "FLOW_ENDPOINTS = ["))
        let end = try #require(script.range(of: "]", range: start.upperBound..<script.endIndex))
        let names = script[start.upperBound..<end.lowerBound].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }.filter { !$0.isEmpty }
        #expect(names == FuzzTargets.flowEndpointNames)
    }

    @Test(arguments: FuzzTargets.names)
    func seedCorpus(_ target: String) async throws {
        let files = Self.inputs("Corpus", target)
        #expect(!files.isEmpty, "Fuzz/Corpus/\(target) has no seeds")
        let failures = try await Self.run(target, files)
        for failure in failures where !Self.isOpenFinding(failure) { Issue.record(Comment(rawValue: failure)) }
        let known = failures.filter(Self.isOpenFinding)
        if !known.isEmpty {
            withKnownIssue("seeds that reproduce open findings (Fuzz/FINDINGS.md)") {
                for failure in known { Issue.record(Comment(rawValue: failure)) }
            }
        }
    }

    /// Inputs a fuzz run found (scripts/fuzz.sh saves them). Files named `open-*` reproduce a
    /// finding not fixed yet (listed in Fuzz/FINDINGS.md): they run as known issues, and the test
    /// fails once they pass, so that they get renamed.
    @Test(arguments: FuzzTargets.names)
    func regressions(_ target: String) async throws {
        let files = Self.inputs("Regressions", target)
        for failure in try await Self.run(target, files.filter { !$0.lastPathComponent.hasPrefix("open-") }) {
            Issue.record(Comment(rawValue: failure))
        }
        for file in files where file.lastPathComponent.hasPrefix("open-") {
            let failures = try await Self.run(target, [file])
            withKnownIssue("open finding (Fuzz/FINDINGS.md): \(file.lastPathComponent)") {
                for failure in failures { Issue.record(Comment(rawValue: failure)) }
            }
        }
    }
}
