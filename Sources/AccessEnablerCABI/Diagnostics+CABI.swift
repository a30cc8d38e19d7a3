// SPDX-License-Identifier: Apache-2.0
// ae_diag_*: the diagnostics of accessenabler-diag (since 1.5). Each thunk reads the fields of the
// host's ae_config that the diagnostic uses, runs it (Diagnostics, in the library) and hands the
// report over as an owned string.
public import CAccessEnabler
import AccessEnabler
import Glibc

enum DiagnosticInput {
    /// The fields of `config` a diagnostic reads; the software statement is optional here.
    static func config(_ pointer: UnsafePointer<ae_config>?) throws(AccessEnablerError) -> DiagnosticConfig {
        guard let pointer else { throw .invalidArgument("config is NULL") }
        let config = try Layouts.config.copy(pointer)
        var result = DiagnosticConfig()
        result.storagePath = try CInput.optionalString(config.storage_path, "storage_path")
        result.softwareStatement = try CInput.optionalString(config.software_statement, "software_statement")
        result.baseURL = try CInput.optionalString(config.base_url, "base_url")
        switch config.api_generation {
        case 0: result.apiGeneration = Defaults.apiGeneration
        case Int32(AE_API_V2): result.apiGeneration = .v2
        case Int32(AE_API_V1): result.apiGeneration = .v1
        default: throw .invalidArgument("api_generation \(config.api_generation) is unknown")
        }
        result.connectTimeoutMillis = try ConfigReader.positive(
            config.connect_timeout_ms, "connect_timeout_ms", default: Defaults.connectTimeoutMillis)
        result.requestTimeoutMillis = try ConfigReader.positive(
            config.request_timeout_ms, "request_timeout_ms", default: Defaults.requestTimeoutMillis)
        result.tls = try ConfigReader.tls(config)
        result.storeKey = try ConfigReader.storeKey(config)
        return result
    }

    static func json(_ format: Int32) throws(AccessEnablerError) -> Bool {
        switch format {
        case Int32(AE_DIAG_FORMAT_TEXT): return false
        case Int32(AE_DIAG_FORMAT_JSON): return true
        default: throw .invalidArgument("format \(format) is unknown")
        }
    }

    /// Checks the out-parameters, runs `body` and hands its report over; the key's copy is wiped.
    static func run(
        _ pointer: UnsafePointer<ae_config>?, _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ outProblem: UnsafeMutablePointer<Int32>?, _ body: (DiagnosticConfig) throws(AccessEnablerError) -> DiagnosticReport
    ) -> Int32 {
        outReport?.pointee = nil
        outProblem?.pointee = DiagnosticProblem.failed.rawValue
        return status { () throws(AccessEnablerError) in
            guard let outReport else { throw .invalidArgument("out_report is NULL") }
            guard let outProblem else { throw .invalidArgument("out_problem is NULL") }
            var config = try config(pointer)
            defer { if config.storeKey != nil { Sealer.wipe(&config.storeKey!) } }
            let report = try body(config)
            guard let text = strdup(report.text) else { throw .internalError("out of memory") }
            outReport.pointee = text
            outProblem.pointee = report.problem.rawValue
        }
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_diag_store_status")
#endif
public func ae_diag_store_status(
    _ config: UnsafePointer<ae_config>?, _ format: Int32, _ out_report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ out_problem: UnsafeMutablePointer<Int32>?
) -> Int32 {
    DiagnosticInput.run(config, out_report, out_problem) { settings throws(AccessEnablerError) in
        Diagnostics.status(settings, json: try DiagnosticInput.json(format))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_diag_logout")
#endif
public func ae_diag_logout(
    _ config: UnsafePointer<ae_config>?, _ requestor_id: UnsafePointer<CChar>?, _ format: Int32,
    _ out_report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ out_problem: UnsafeMutablePointer<Int32>?
) -> Int32 {
    DiagnosticInput.run(config, out_report, out_problem) { settings throws(AccessEnablerError) in
        let requestor = try CInput.string(requestor_id, "requestor_id")
        guard !requestor.isEmpty else { throw .invalidArgument("requestor_id is empty") }
        return Diagnostics.logout(settings, requestor: requestor, json: try DiagnosticInput.json(format))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_diag_doctor")
#endif
public func ae_diag_doctor(
    _ config: UnsafePointer<ae_config>?, _ requestor_id: UnsafePointer<CChar>?, _ format: Int32,
    _ out_report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ out_problem: UnsafeMutablePointer<Int32>?
) -> Int32 {
    DiagnosticInput.run(config, out_report, out_problem) { settings throws(AccessEnablerError) in
        let requestor = try CInput.optionalString(requestor_id, "requestor_id")
        return Diagnostics.doctor(settings, requestor: requestor, json: try DiagnosticInput.json(format))
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_diag_bundle")
#endif
public func ae_diag_bundle(
    _ config: UnsafePointer<ae_config>?, _ max_failures: Int32, _ out_report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ out_problem: UnsafeMutablePointer<Int32>?
) -> Int32 {
    DiagnosticInput.run(config, out_report, out_problem) { settings throws(AccessEnablerError) in
        guard max_failures >= 0 else { throw .invalidArgument("max_failures must not be negative") }
        return Diagnostics.bundle(settings, maxFailures: min(Int(max_failures), TokenStore.maxRecentFailures))
    }
}
