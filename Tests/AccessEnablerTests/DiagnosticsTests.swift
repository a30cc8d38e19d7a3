// SPDX-License-Identifier: Apache-2.0
import CCurl
import Foundation
import Testing

@testable import AccessEnabler

/// The pure parts of the diagnostics (accessenabler-diag): the store's recent failures and its
/// summary without secrets, times and spans, the doctor's step of a libcurl outcome, the redacted
/// configuration. The tool on real stores and networks: Tests/python/test_diag_*.py.
@Suite struct DiagnosticsTests {
    let scope = StoreScope(softwareStatement: "a.b.c", api: "v2")

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ae-diag-\(UUID().uuidString).sqlite").path
    }

    @Test func theStoreKeepsTheNewestTwentyFailuresAndTheSummaryReadsThem() throws {
        let path = temporaryPath()
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try TokenStore(path: path, app: scope.app)
        for index in 0..<25 {
            try store.recordFailure(scope, level: "error", errorID: "E\(index)", message: String(repeating: "m", count: 900), at: 1000)
        }
        try store.saveDiagnostic(scope, key: TokenStore.metricsKey, value: #"{"requests":1}"#, at: 2000)
        store.close()
        let snapshot = try StoreSnapshot.open(path: path)
        let summary = try StoreSummary.read(snapshot, app: nil, sealer: nil, now: 5000)
        #expect(summary.failures.map(\.errorID) == (5..<25).reversed().map { "E\($0)" })
        #expect(summary.failures.allSatisfy { $0.message.count == TokenStore.maxFailureMessageLength })
        #expect(summary.diagnostics.map(\.key) == ["metrics"] && summary.diagnostics[0].value == #"{"requests":1}"#)
        #expect(snapshot.schemaVersion == StoreSchema.version && !snapshot.inUse)
    }

    @Test func aStoreOfAnotherSchemaOrNoneIsNamed() throws {
        #expect(throws: DiagnosticFailure.self) { try StoreSnapshot.open(path: temporaryPath()) }
        do {
            _ = try StoreSnapshot.open(path: temporaryPath())
        } catch {
            #expect(error.problem == .storeMissing)
        }
    }

    @Test func timesAndSpans() {
        #expect(Timestamp.iso(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.iso(1_796_000_000_000) == "2026-11-30T00:53:20Z")
        #expect(Timestamp.span(800) == "800 ms")
        #expect(Timestamp.span(61_000) == "1 min 1 s")
        #expect(Timestamp.span(3 * 86_400_000 + 7_200_000) == "3 d 2 h")
        #expect(Timestamp.signedSeconds(-1_250) == "-1.3 s" && Timestamp.signedSeconds(2_000) == "+2.0 s")
    }

    @Test func theCertificateDateOfOpenSSL() {
        #expect(DoctorExchange.parseCertificateDate("Nov 30 00:53:20 2026 GMT") == 1_796_000_000_000)
        #expect(DoctorExchange.parseCertificateDate("Dec  1 00:00:00 2027 GMT") != nil)
        #expect(DoctorExchange.parseCertificateDate("yesterday") == nil)
    }

    @Test func theFailingStepOfALibcurlOutcome() {
        var timings = DoctorExchange.Timings()
        #expect(Doctor.failedStep(CURLE_COULDNT_RESOLVE_HOST, timings: timings, https: true) == "dns")
        #expect(Doctor.failedStep(CURLE_OPERATION_TIMEDOUT, timings: timings, https: true) == "dns")
        timings.resolved = 3
        #expect(Doctor.failedStep(CURLE_OPERATION_TIMEDOUT, timings: timings, https: true) == "tcp")
        timings.connected = 5
        #expect(Doctor.failedStep(CURLE_OPERATION_TIMEDOUT, timings: timings, https: true) == "tls")
        #expect(Doctor.failedStep(CURLE_PEER_FAILED_VERIFICATION, timings: timings, https: true) == "tls")
        timings.handshaken = 9
        #expect(Doctor.failedStep(CURLE_OPERATION_TIMEDOUT, timings: timings, https: true) == "adobe")
        #expect(Doctor.failedStep(CURLE_OK, timings: timings, https: true) == nil)
        timings.firstByte = 12
        timings.total = 20
        #expect((0..<4).map(timings.step) == [3, 2, 4, 3])
    }

    @Test func theBundleNamesNoSecretOfTheConfiguration() {
        var config = DiagnosticConfig()
        config.softwareStatement = "header.payload.signature"
        config.storeKey = Array(repeating: 7, count: 32)
        config.tls.proxy = "http://user:p@ss:word@proxy.example:3128"
        let text = JSON.text(config.redacted)
        #expect(!text.contains("payload") && !text.contains("word") && !text.contains("user"))
        #expect(text.contains(#""proxy":"http://***@proxy.example:3128""#) && text.contains(#""store_key_given":true"#))
        #expect(DiagnosticConfig.withoutUserInfo("socks5h://proxy:1080") == "socks5h://proxy:1080")
        #expect(StoreSnapshot.uriEscaped("/a?b#c%d") == "/a%3fb%23c%25d")
    }
}
