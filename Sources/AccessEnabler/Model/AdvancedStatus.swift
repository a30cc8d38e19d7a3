// SPDX-License-Identifier: Apache-2.0

/// The advanced status (`status:` dictionary on iOS): `errorId`, `level`, `message`, optional
/// `details`, extra keys of some statuses (REGCODE's `code`, `url`, ...), and the Adobe enhanced
/// error it came from, if any.
public struct AdvancedStatus: Sendable, Hashable {
    public enum Level: String, Sendable { case info, warning, error }

    public var errorID: String
    public var level: Level
    public var message: String
    public var details: String?
    public var extras: [String: JSONValue]
    public var enhancedError: EnhancedError?

    public init(
        _ errorID: String, _ level: Level, _ message: String, details: String? = nil,
        extras: [String: JSONValue] = [:], enhancedError: EnhancedError? = nil
    ) {
        self.errorID = errorID
        self.level = level
        self.message = message
        self.details = details
        self.extras = extras
        self.enhancedError = enhancedError
    }

    /// The dictionary as the host sees it.
    public var dictionary: [String: JSONValue] {
        var result = extras
        result["errorId"] = .string(errorID)
        result["level"] = .string(level.rawValue)
        result["message"] = .string(message)
        if let details { result["details"] = .string(details) }
        if let enhancedError, let value = try? JSON.decode(JSONValue.self, from: JSON.data(enhancedError)) {
            result["enhancedError"] = value
        }
        return result
    }

    public var jsonText: String { JSONValue.object(dictionary).jsonText }
}
