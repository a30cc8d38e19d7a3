// SPDX-License-Identifier: Apache-2.0

/// Adobe's Enhanced Error Code object, top-level (the whole body) or item-level (in a decision).
/// `status` 0 marks errors the SDK produced itself (as AccessEnabler's preauthorize does).
public struct EnhancedError: Error, Sendable, Hashable, Codable {
    public var status: Int
    public var code: String
    public var action: String?
    public var message: String?
    public var details: String?
    public var helpUrl: String?
    public var trace: String?

    public init(
        status: Int, code: String, action: String? = nil, message: String? = nil, details: String? = nil,
        helpUrl: String? = nil, trace: String? = nil
    ) {
        self.status = status
        self.code = code
        self.action = action
        self.message = message
        self.details = details
        self.helpUrl = helpUrl
        self.trace = trace
    }

    private enum CodingKeys: String, CodingKey { case status, code, action, message, details, helpUrl, trace }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        status = Int(try container.decodeIfPresent(JSONValue.self, forKey: .status)?.int64Value ?? 0)
        action = try container.decodeIfPresent(String.self, forKey: .action)
        // The OpenAPI file types `message` as an object (erratum E2); every documented error has a string.
        message = try container.decodeIfPresent(JSONValue.self, forKey: .message).map { $0.stringValue ?? $0.jsonText }
        details = try? container.decodeIfPresent(String.self, forKey: .details)
        helpUrl = try? container.decodeIfPresent(String.self, forKey: .helpUrl)
        trace = try? container.decodeIfPresent(String.self, forKey: .trace)
    }

    /// Adobe's codes for a TempPass that is over: its duration or its resources are used up (403).
    package static let tempPassOverCodes: Set<String> = [
        "temporary_access_duration_limit_exceeded", "temporary_access_resources_limit_exceeded",
    ]

    /// Adobe says a TempPass is over.
    package var endsTempPass: Bool { Self.tempPassOverCodes.contains(code) }

    /// SDK-side failures, named as AccessEnabler's preauthorize API names them.
    static func sdk(_ code: String, action: String, message: String) -> EnhancedError {
        EnhancedError(status: 0, code: code, action: action, message: message)
    }
}
