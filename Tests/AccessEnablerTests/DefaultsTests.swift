// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
@testable import AccessEnablerCABI
import CAccessEnabler
import Foundation
import Testing

/// Defaults are defined once (`Defaults`): Swift's Settings, the C config as `ae_config_init`
/// leaves it, and the header's documentation all say the same.
@Suite struct DefaultsTests {
    @Test func theCConfigsDefaultsAreSwifts() throws {
        var config = ae_config()
        #expect(ae_config_init(&config, UInt32(AE_CONFIG_VERSION)) == AE_OK)
        let statement = strdup("a.b.c")
        defer { free(statement) }
        config.software_statement = UnsafePointer(statement)
        let fromC = try ConfigReader.settings(config)
        let swift = Settings(softwareStatement: "a.b.c")
        #expect(fromC.apiGeneration == swift.apiGeneration && swift.apiGeneration == Defaults.apiGeneration)
        #expect(fromC.baseURL == swift.baseURL && swift.baseURL == Defaults.baseURLV2)
        #expect(fromC.redirectURL == swift.redirectURL && swift.redirectURL == Defaults.redirectURL)
        #expect(fromC.loginMode == swift.loginMode && swift.loginMode == Defaults.loginMode)
        #expect(fromC.pollIntervalMillis == swift.pollIntervalMillis && swift.pollIntervalMillis == Defaults.pollIntervalMillis)
        #expect(fromC.preauthorizeLimit == swift.preauthorizeLimit && swift.preauthorizeLimit == Defaults.preauthorizeLimit)
        #expect(fromC.connectTimeoutMillis == swift.connectTimeoutMillis && swift.connectTimeoutMillis == Defaults.connectTimeoutMillis)
        #expect(fromC.requestTimeoutMillis == swift.requestTimeoutMillis && swift.requestTimeoutMillis == Defaults.requestTimeoutMillis)
        #expect(fromC.requestsPerSecond == swift.requestsPerSecond && swift.requestsPerSecond == Defaults.requestsPerSecond)
        #expect(fromC.cacheMaxAgeMillis == swift.cacheMaxAgeMillis && swift.cacheMaxAgeMillis == Defaults.cacheMaxAgeMillis)
        #expect(fromC.callbackMode == swift.callbackMode && swift.callbackMode == Defaults.callbackMode)
        #expect(fromC.logLevel == swift.logLevel && swift.logLevel == Defaults.logLevel)
        #expect(fromC.storeCheck == swift.storeCheck && swift.storeCheck == Defaults.storeCheck)
        #expect(fromC.storagePath == nil && fromC.deviceID == nil && fromC.deviceInfo == nil && fromC.domainName == nil)
        #expect(fromC.partner == nil && fromC.transport == nil && fromC.storeKey == nil)
        var v1 = Settings(softwareStatement: "a.b.c")
        v1.apiGeneration = .v1
        #expect(v1.baseURL == Defaults.baseURLV1)
        #expect(CurlTransport.Options().maxBodyBytes == Defaults.maxBodyBytes)
        #expect(CurlTransport.Options().connectTimeoutMs == Defaults.connectTimeoutMillis)
        #expect(CurlTransport.Options().totalTimeoutMs == Defaults.requestTimeoutMillis)
        #expect(TokenBucket(perSecond: 1).capacity == Double(Defaults.requestBurst))
        #expect(Defaults.partnerTimeoutMillis(interactive: true) == 60_000 && Defaults.partnerTimeoutMillis(interactive: false) == 10_000)
    }

    /// The header documents each default in the words of its field's comment.
    @Test func theHeaderDocumentsTheSameDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let header = try String(contentsOf: root.appendingPathComponent("Include/accessenabler.h"), encoding: .utf8)
        let documented = [
            "poll_interval_ms;       /**< Second-screen polling interval. 0: \(Defaults.pollIntervalMillis).",
            "preauthorize_limit;     /**< Resources per preauthorization request. 0: \(Defaults.preauthorizeLimit) ",
            "connect_timeout_ms;     /**< 0: \(Defaults.connectTimeoutMillis).",
            "request_timeout_ms;     /**< Whole request. 0: \(Defaults.requestTimeoutMillis).",
            "after a burst of \(Defaults.requestBurst) (Adobe's throttle is",
            "1/s). 0: \(Int(Defaults.requestsPerSecond)). -1: no pacing",
            "Default \"\(Defaults.baseURLV2)\" (V2) or",
            "\"\(Defaults.baseURLV1)\" (V1)",
            "NULL: \"\(Defaults.redirectURL)\"",
            "0: \(Defaults.partnerTimeoutInteractiveMillis) for requests that may show UI, \(Defaults.partnerTimeoutSilentMillis) for the others",
            "NULL: \"\(Defaults.partnerName)\"",
            "> \(Defaults.maxBodyBytes), SIZE_MAX included",
            "0 means the default, AE_API_V\(Defaults.apiGeneration.rawValue).",
            "AE_LOGIN_SECOND_SCREEN = \(Defaults.loginMode.rawValue), /**< default",
            "AE_CALLBACKS_THREAD = \(Defaults.callbackMode.rawValue), /**< default",
            "AE_STORE_CHECK_QUICK = \(Defaults.storeCheck.rawValue), /**< default",
        ]
        for text in documented { #expect(header.contains(text), "\(text)") }
    }
}
