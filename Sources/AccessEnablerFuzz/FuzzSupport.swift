// SPDX-License-Identifier: Apache-2.0
// Fuzzing harness support: the failure type, the target table, an input reader and the bridge
// from libFuzzer's synchronous callback to the SDK's async calls.
//
// Every fuzz function takes untrusted bytes, runs one parser of the SDK on them and checks
// invariants. A broken invariant throws `FuzzFailure` (libFuzzer entry points turn it into a
// crash; FuzzCorpusTests turns it into a test failure). A crash inside the SDK is a crash in both.
import Dispatch
import Glibc
import AccessEnabler

/// An invariant the fuzzed code broke (not a crash: a wrong answer).
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Throws a `FuzzFailure` unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}

/// Throws a `FuzzFailure` for a known finding unless `condition` holds, or unless the finding is
/// still open and AE_FUZZ_SKIP_OPEN_FINDINGS is set (scripts/fuzz.sh sets it, so that a long run
/// looks for new problems instead of stopping at a reported one; `swift test` keeps it unset and
/// runs the `open-*` reproducers as known issues).
func check(_ condition: Bool, finding id: String, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if condition || (OpenFindings.skip && OpenFindings.ids.contains(id)) { return }
    throw FuzzFailure("[\(id)] \(message())")
}

/// Findings reported and not fixed yet (Fuzz/FINDINGS.md). Remove an id once its fix is in, and
/// rename its reproducer in Fuzz/Regressions from `open-*`.
public enum OpenFindings {
    public static let ids: Set<String> = []  // F1–F8 are fixed (Fuzz/FINDINGS.md)
    static let skip = getenv("AE_FUZZ_SKIP_OPEN_FINDINGS").map { String(cString: $0) != "0" } ?? false
}

/// The fuzz targets by name (the executables of Fuzz/Package.swift, the folders of Fuzz/Corpus
/// and Fuzz/Regressions).
public enum FuzzTargets {
    public typealias Body = @Sendable (UnsafeRawBufferPointer) throws(FuzzFailure) -> Void

    public static let all: [(name: String, run: Body)] = [
        ("server-answer", fuzzServerAnswer),
        ("headers", fuzzHeaders),
        ("saml", fuzzSAML),
        ("host-json", fuzzHostJSON),
        ("flow-answers", fuzzFlowAnswers),
        ("c-boundary", fuzzCBoundary),
        ("struct-versions", fuzzStructVersions),
        ("identity-token", fuzzIdentityToken),
        ("json", fuzzJSON),
    ]

    public static var names: [String] { all.map(\.name) }

    public static func run(_ name: String, _ bytes: [UInt8]) throws(FuzzFailure) {
        guard let target = all.first(where: { $0.name == name }) else { throw FuzzFailure("no fuzz target \(name)") }
        // withUnsafeBytes is rethrows (untyped): keep the typed error by carrying it out.
        var failure: FuzzFailure?
        bytes.withUnsafeBytes { raw in
            do throws(FuzzFailure) { try target.run(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// libFuzzer's `LLVMFuzzerTestOneInput` body: a broken invariant becomes a crash (libFuzzer
    /// saves the input as crash-<sha1>), with the message on stderr.
    public static func entry(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: Body) -> Int32 {
        do {
            try body(UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size))
        } catch {
            fatalError("fuzz invariant broken: \(error.description)")
        }
        return 0
    }
}

/// Reads a fuzz input front to back: selector bytes first, the rest as payload.
struct FuzzInput {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ raw: UnsafeRawBufferPointer) { bytes = Array(raw)[...] }

    /// The next byte (0 when the input is exhausted).
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// One of `choices`, chosen by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}

/// Runs an async body to completion from a synchronous caller (libFuzzer's thread or a test), on
/// a thread of its own: never on Swift's cooperative pool, which the tests running beside it may
/// keep busy for seconds.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = ClientExecutor(ownThread: true)
    Task(executorPreference: thread) {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return withExtendedLifetime(thread) { result.withLock { $0! } }
}

/// AE_FUZZ_TRACE=1: the harnesses that run whole flows print what each input did (requests and
/// callbacks) on stderr, for reading a reproducer (`Fuzz/.build/release/fuzz-flow-answers FILE`).
enum FuzzTrace {
    static let enabled = getenv("AE_FUZZ_TRACE").map { String(cString: $0) != "0" } ?? false
    static let start = DispatchTime.now().uptimeNanoseconds

    static func print(_ line: @autoclosure () -> String, if condition: Bool = true) {
        guard condition else { return }
        let begin = start
        let micros = (DispatchTime.now().uptimeNanoseconds - begin) / 1_000
        let text = "[\(micros / 1000).\(micros % 1000 / 100) ms] " + line() + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}
