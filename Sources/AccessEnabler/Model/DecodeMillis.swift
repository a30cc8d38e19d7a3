// SPDX-License-Identifier: Apache-2.0
// The lenient decoding the answers share: timestamps come as JSON numbers or strings.

extension KeyedDecodingContainer {
    /// Epoch milliseconds sent as a number or as a string of digits, clamped to `Limits.epochMillis`
    /// (a negative time is past, a later one than year 9999 is far away: neither traps arithmetic).
    /// A fraction, an exponent beyond Int64 or a non-number is an error (the answer is malformed).
    func decodeMillis(_ key: Key) throws -> Int64? {
        guard let value = try decodeIfPresent(JSONValue.self, forKey: key), value != .null else { return nil }
        guard let millis = value.int64Value else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a timestamp")
        }
        return millis.clamped(to: Limits.epochMillis)
    }
}

extension JSONNode {
    /// `decodeMillis` for a model read from Jansson's nodes (JSONNodeDecodable): the same rules.
    func millis(_ key: String) throws -> Int64? {
        guard let member = try optionalMember(key) else { return nil }
        guard let millis = member.value.int64Value else {
            throw DecodingError.dataCorrupted(.init(codingPath: member.path, debugDescription: "not a timestamp"))
        }
        return millis.clamped(to: Limits.epochMillis)
    }
}
