// SPDX-License-Identifier: Apache-2.0
internal import CJansson

/// A model read straight from Jansson's parse (`JSON.decode` takes this path for it): for the
/// answers of the per-call path (the decisions), where building a `JSONValue` tree and walking it
/// through `Decoder` cost more than the request's own work. Same rules and the same
/// `DecodingError`s (kind and coding path) as `JSONValueDecoder`.
package protocol JSONNodeDecodable: Decodable {
    init(node: JSONNode) throws
}

/// One node of Jansson's parse and its coding path; valid only inside `JSON.decode`.
package struct JSONNode {
    private let node: UnsafeMutablePointer<json_t>
    package let path: [any CodingKey]

    init(_ node: UnsafeMutablePointer<json_t>, path: [any CodingKey]) {
        self.node = node
        self.path = path
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The member `key` of this object (a missing key or a non-object is an error).
    package func member(_ key: String) throws -> JSONNode {
        guard let found = try optionalMemberOrNull(key) else {
            throw DecodingError.keyNotFound(
                Key(stringValue: key), .init(codingPath: path, debugDescription: "no value for \(key)"))
        }
        return found
    }

    /// The member `key`, or nil when it is missing or null (`decodeIfPresent`).
    package func optionalMember(_ key: String) throws -> JSONNode? {
        guard let found = try optionalMemberOrNull(key), !found.isNull else { return nil }
        return found
    }

    private func optionalMemberOrNull(_ key: String) throws -> JSONNode? {
        guard node.pointee.type == JSON_OBJECT else { throw mismatch([String: JSONValue].self) }
        let child = key.withCString { json_object_get(node, $0) }  // the models' keys hold no NUL
        return child.map { JSONNode($0, path: path + [Key(stringValue: key)]) }
    }

    package var isNull: Bool { node.pointee.type == JSON_NULL }

    package func string() throws -> String {
        guard node.pointee.type == JSON_STRING else { throw mismatch(String.self) }
        return String(
            decoding: UnsafeRawBufferPointer(start: json_string_value(node), count: json_string_length(node)), as: UTF8.self)
    }

    package func bool() throws -> Bool {
        switch node.pointee.type {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: throw mismatch(Bool.self)
        }
    }

    /// The items of this array, with their index in the coding path.
    package func array() throws -> [JSONNode] {
        guard node.pointee.type == JSON_ARRAY else { throw mismatch([JSONValue].self) }
        return (0..<json_array_size(node)).map { index in
            JSONNode(json_array_get(node, index)!, path: path + [JSONValueDecoder.Index(index)])
        }
    }

    /// This node as the SDK's tree, for a model read through `Decoder` (a rare part of an answer).
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder(value: JSON.value(of: node), codingPath: path).decodeValue(type)
    }

    /// The tree of this node (`JSONValue.int64Value` and the like apply to it).
    package var value: JSONValue { JSON.value(of: node) }

    private func mismatch(_ expected: Any.Type) -> DecodingError {
        JSONValueDecoder(value: scalarKind, codingPath: path).mismatch(expected)
    }

    /// A value of this node's kind (for the error message; containers are not copied).
    private var scalarKind: JSONValue {
        switch node.pointee.type {
        case JSON_OBJECT: .object([:])
        case JSON_ARRAY: .array([])
        case JSON_STRING: .string("")
        case JSON_INTEGER, JSON_REAL: .int(0)
        case JSON_TRUE, JSON_FALSE: .bool(false)
        default: .null
        }
    }
}
