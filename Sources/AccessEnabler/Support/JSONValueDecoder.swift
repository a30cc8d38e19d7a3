// SPDX-License-Identifier: Apache-2.0

/// A `Decoder` over a `JSONValue` tree: the SDK's `Decodable` models read Jansson's parse
/// (`JSON.decode`). It follows JSONDecoder's rules where the models rely on them: a number reads
/// as any numeric type it fits exactly (2.0 as an Int, 3 as a Double), never as a String or Bool;
/// `null` and a missing key are nil for an Optional; errors are `DecodingError`s with the coding
/// path (never the value: it may be a secret).
package struct JSONValueDecoder: Decoder {
    let value: JSONValue
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder(value: value, codingPath: []).decodeValue(type)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self { return value as! T }  // the tree itself: no walk through Codable
        switch type {
        case is String.Type: return try decode(String.self) as! T
        case is Bool.Type: return try decode(Bool.self) as! T
        case is Int64.Type: return try decode(Int64.self) as! T
        case is Int.Type: return try decode(Int.self) as! T
        case is Double.Type: return try decode(Double.self) as! T
        default: return try T(from: self)
        }
    }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        let found =
            switch value {
            case .null: "null"
            case .bool: "a boolean"
            case .int, .double: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        return .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(found)"))
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let number):
            if let exact = T(exactly: number) { return exact }
        case .double(let number):
            if let exact = T(exactly: number) { return exact }
        default: throw mismatch(type)
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number does not fit in \(type)"))
    }

    func real<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let number): return T(number)
        case .double(let number): return T(number)
        default: throw mismatch(type)
        }
    }

    func child(_ value: JSONValue, _ key: any CodingKey) -> JSONValueDecoder {
        JSONValueDecoder(value: value, codingPath: codingPath + [key])
    }
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    package func decodeNil() -> Bool { value == .null }
    package func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type) }
        return flag
    }
    package func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type) }
        return text
    }
    package func decode(_ type: Double.Type) throws -> Double { try real(type) }
    package func decode(_ type: Float.Type) throws -> Float { try real(type) }
    package func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    package func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    package func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

extension JSONValueDecoder {
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        func member(_ key: Key) throws -> JSONValueDecoder {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
            }
            return JSONValueDecoder(value: value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decodeValue(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        { try member(key).container(keyedBy: type) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try member(key).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(value: .object(members), codingPath: codingPath)
        }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        mutating func next() throws -> JSONValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    JSONValue.self, .init(codingPath: codingPath + [Index(currentIndex)], debugDescription: "no more items"))
            }
            defer { currentIndex += 1 }
            return JSONValueDecoder(value: items[currentIndex], codingPath: codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        { try next().container(keyedBy: type) }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    /// The coding key of an array item.
    struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}
