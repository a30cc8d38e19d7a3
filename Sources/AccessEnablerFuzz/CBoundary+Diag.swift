// SPDX-License-Identifier: Apache-2.0
// fuzzCBoundary's diagnostics part (ABI 1.5): ae_diag_store_status, ae_diag_bundle, ae_diag_logout
// and ae_diag_doctor on a store file whose bytes are the input's (the first config string), with the
// input's second config string as the requestor id and its third as a store key; every format and a
// few that are not, NULL arguments. Checked: the documented status, `*out_report` NULL on a refusal
// and UTF-8 (JSON for the JSON format) otherwise, `*out_problem` one of the documented problems, and
// no byte of the file changed, nor a -wal or -shm written, unless a logout reported success.
import Glibc
import CAccessEnabler
import AccessEnabler

extension CBoundaryFuzz.Calls {
    /// Part of call 14. It reads no byte of the input (the config strings were read before the
    /// calls), so earlier corpora keep their meaning.
    func diagCalls() throws(FuzzFailure) {
        typealias Fuzz = CBoundaryFuzz
        let (invalidArg, json) = (Fuzz.invalidArg, Int32(AE_DIAG_FORMAT_JSON))
        var template = Array("/tmp/ae-fuzz-diag-XXXXXX".utf8CString)
        guard let directoryPointer = mkdtemp(&template) else { throw FuzzFailure("mkdtemp failed: errno \(errno)") }
        let directory = String(cString: directoryPointer)
        let path = directory + "/store.sqlite"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            rmdir(directory)
        }
        FuzzTrace.print("  diagnostics on \(path)", if: FuzzTrace.enabled)
        let strings = diagInputs + Array(repeating: nil, count: max(0, 3 - diagInputs.count))
        let requestor = strings[1]
        let key = strings[2]

        // No file: every reading call reports the missing store and creates nothing.
        try withDiagConfig(path: path, key: nil) { config throws(FuzzFailure) in
            for format in Self.diagFormats {
                let (status, report, problem) = Self.report { ae_diag_store_status(config, format, $0, $1) }
                try Self.checkReport("ae_diag_store_status(no file, \(format))", status, report, problem, format: format)
                if status == Fuzz.ok {
                    try check(problem == Int32(AE_DIAG_STORE_MISSING), "ae_diag_store_status(no file): problem \(problem)")
                }
            }
            try check(access(path, F_OK) != 0, "ae_diag_store_status created the store")
            try Fuzz.expect("ae_diag_store_status(NULL config)", ae_diag_store_status(nil, json, nil, nil), documented: [invalidArg])
            var report: UnsafeMutablePointer<CChar>?
            try Fuzz.expect(
                "ae_diag_store_status(NULL problem)", ae_diag_store_status(config, json, &report, nil), documented: [invalidArg])
            try check(report == nil, "ae_diag_store_status(NULL problem) set *out_report")
            try Fuzz.expect("ae_diag_bundle(-1)", Self.report { ae_diag_bundle(config, -1, $0, $1) }.0, documented: [invalidArg])
        }

        // The input's bytes as the store.
        let content = strings[0] ?? []
        guard let file = fopen(path, "wb") else { throw FuzzFailure("cannot write \(path): errno \(errno)") }
        _ = content.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        let keyBytes = key.map { Array($0.prefix(Int(AE_STORE_KEY_LENGTH))) }
        try withDiagConfig(path: path, key: keyBytes) { config throws(FuzzFailure) in
            for format in Self.diagFormats {
                let (status, report, problem) = Self.report { ae_diag_store_status(config, format, $0, $1) }
                try Self.checkReport("ae_diag_store_status(input, \(format))", status, report, problem, format: format)
            }
            for failures: Int32 in [0, 3, 1_000] {
                let (status, report, problem) = Self.report { ae_diag_bundle(config, failures, $0, $1) }
                try Self.checkReport("ae_diag_bundle(input, \(failures))", status, report, problem, format: json)
            }
            try check(SystemFile.read(path) == content, "a reading diagnostic changed the store's bytes")
            try check(access(path + "-wal", F_OK) != 0 && access(path + "-shm", F_OK) != 0, "a reading diagnostic wrote a -wal or -shm")

            let (status, report, problem) = Fuzz.withCStrings([requestor]) { p in
                Self.report { ae_diag_logout(config, p[0], json, $0, $1) }
            }
            try Self.checkReport("ae_diag_logout(input)", status, report, problem, format: json)
            if requestor == nil || requestor?.isEmpty == true {
                try check(status == invalidArg, "ae_diag_logout(NULL or empty requestor) returned \(status)")
            }
            if !(status == Fuzz.ok && problem == Int32(AE_DIAG_OK)) {
                try check(SystemFile.read(path) == content, "a refused ae_diag_logout changed the store's bytes")
            }
        }

        // Doctor without a network: a missing base URL, and a port nothing listens on.
        for url: [UInt8]? in [nil, Fuzz.b("http://127.0.0.1:1/")] {
            let (status, report, problem) = Fuzz.withCStrings([url]) { p in
                var config = ae_config()
                ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
                config.base_url = p[0]
                config.connect_timeout_ms = 1_000
                config.request_timeout_ms = 1_000
                return Self.report { ae_diag_doctor(&config, nil, json, $0, $1) }
            }
            try Self.checkReport("ae_diag_doctor(\(url == nil ? "no base_url" : "a closed port"))", status, report, problem, format: json)
            if status == Fuzz.ok {
                let expected = url == nil ? Int32(AE_DIAG_CONFIGURATION) : Int32(AE_DIAG_TCP)
                try check(problem == expected, "ae_diag_doctor: problem \(problem), expected \(expected)")
            }
        }
    }

    static let diagFormats: [Int32] = [Int32(AE_DIAG_FORMAT_TEXT), Int32(AE_DIAG_FORMAT_JSON), 2, -1]

    static let diagProblems: Set<Int32> = Set([0, 1] + (3...15).map { Int32($0) })

    private func withDiagConfig(
        path: String, key: [UInt8]?, _ body: (UnsafePointer<ae_config>) throws(FuzzFailure) -> Void
    ) throws(FuzzFailure) {
        var config = ae_config()
        ae_config_init(&config, UInt32(AE_CONFIG_VERSION))
        let keyCopy = key ?? []
        try CBoundaryFuzz.withCStrings([Array(path.utf8)]) { p throws(FuzzFailure) in
            config.storage_path = p[0]
            try keyCopy.withUnsafeBufferPointer { buffer throws(FuzzFailure) in
                if key != nil {
                    config.store_key = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)
                    config.store_key_length = buffer.count
                }
                try withUnsafePointer(to: &config) { pointer throws(FuzzFailure) in try body(pointer) }
            }
        }
    }

    /// Calls `call` with an out_report preset to a non-NULL sentinel and an out_problem of -1.
    static func report(
        _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int32>) -> Int32
    ) -> (Int32, UnsafeMutablePointer<CChar>?, Int32) {
        var report: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(bitPattern: 0x1)
        var problem: Int32 = -1
        let status = call(&report, &problem)
        return (status, report, problem)
    }

    /// The status is documented; a refusal leaves NULL; a report is UTF-8 (a JSON object for the
    /// JSON format) with a documented problem. Frees the report.
    static func checkReport(
        _ name: String, _ status: Int32, _ report: UnsafeMutablePointer<CChar>?, _ problem: Int32, format: Int32
    ) throws(FuzzFailure) {
        let valid = format == Int32(AE_DIAG_FORMAT_TEXT) || format == Int32(AE_DIAG_FORMAT_JSON)
        try CBoundaryFuzz.expect(
            name, status, documented: [CBoundaryFuzz.ok, CBoundaryFuzz.invalidArg],
            predicted: valid ? nil : CBoundaryFuzz.invalidArg)
        guard status == CBoundaryFuzz.ok else {
            return try check(report == nil, "\(name) refused (\(status)) without setting *out_report to NULL")
        }
        defer { ae_string_free(report) }
        guard let report, let text = String(validatingCString: report) else { throw FuzzFailure("\(name): a NULL or non-UTF-8 report") }
        try check(diagProblems.contains(problem), "\(name): problem \(problem) is not an AE_DIAG_* value")
        if format == Int32(AE_DIAG_FORMAT_JSON) {
            try check(JSONValue.parse(text)?.objectValue != nil, "\(name): the JSON report is not an object")
        }
    }
}
