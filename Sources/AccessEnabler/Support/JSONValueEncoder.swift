// SPDX-License-Identifier: Apache-2.0

/// An `Encoder` that builds a `JSONValue` tree from an `Encodable` model (`JSON.text` prints it
/// with Jansson). Optionals that are nil are left out (`encodeIfPresent`); a non-finite number
/// is an `EncodingError.invalidValue`, as JSONEncoder has it.
package final class JSONValueEncoder: Encoder {
    /// Where an encoded value goes: a slot the parent container reads when the tree is assembled.
    final class Slot {
        var value: JSONValue?
        var members: [String: Slot]?
        var items: [Slot]?

        var tree: JSONValue {
            if let members { return .object(members.mapValues(\.tree)) }
            if let items { return .array(items.map(\.tree)) }
            return value ?? .object([:])  // an Encodable that wrote nothing: JSONEncoder writes {}
        }
    }

    let slot: Slot
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(slot: Slot, codingPath: [any CodingKey]) {
        self.slot = slot
        self.codingPath = codingPath
    }

    package static func encode(_ value: some Encodable) throws -> JSONValue {
        if let tree = value as? JSONValue { return tree }
        let slot = Slot()
        try JSONValueEncoder(slot: slot, codingPath: []).encodeValue(value)
        return slot.tree
    }

    func encodeValue(_ value: some Encodable) throws {
        switch value {
        case let tree as JSONValue: slot.value = tree
        case let text as String: slot.value = .string(text)
        case let flag as Bool: slot.value = .bool(flag)
        case let number as Int: slot.value = .int(Int64(number))
        case let number as Int64: slot.value = .int(number)
        case let number as Double: try put(number)
        default: try value.encode(to: self)
        }
    }

    func put(_ number: Double) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(number, .init(codingPath: codingPath, debugDescription: "not a finite number"))
        }
        slot.value = .double(number)
    }

    func put<T: FixedWidthInteger>(_ number: T) throws {
        guard let value = Int64(exactly: number) else {
            throw EncodingError.invalidValue(number, .init(codingPath: codingPath, debugDescription: "beyond 64 bits"))
        }
        slot.value = .int(value)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.members == nil { slot.members = [:] }
        return KeyedEncodingContainer(Keyed<Key>(encoder: self))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.items == nil { slot.items = [] }
        return Unkeyed(encoder: self)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func child(_ key: any CodingKey, slot: Slot) -> JSONValueEncoder {
        JSONValueEncoder(slot: slot, codingPath: codingPath + [key])
    }
}

extension JSONValueEncoder: SingleValueEncodingContainer {
    package func encodeNil() { slot.value = .null }
    package func encode(_ value: Bool) { slot.value = .bool(value) }
    package func encode(_ value: String) { slot.value = .string(value) }
    package func encode(_ value: Double) throws { try put(value) }
    package func encode(_ value: Float) throws { try put(Double(value)) }
    package func encode(_ value: Int) throws { try put(value) }
    package func encode(_ value: Int8) throws { try put(value) }
    package func encode(_ value: Int16) throws { try put(value) }
    package func encode(_ value: Int32) throws { try put(value) }
    package func encode(_ value: Int64) throws { try put(value) }
    package func encode(_ value: UInt) throws { try put(value) }
    package func encode(_ value: UInt8) throws { try put(value) }
    package func encode(_ value: UInt16) throws { try put(value) }
    package func encode(_ value: UInt32) throws { try put(value) }
    package func encode(_ value: UInt64) throws { try put(value) }
    package func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

extension JSONValueEncoder {
    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: JSONValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        func member(_ key: any CodingKey) -> JSONValueEncoder {
            let slot = Slot()
            encoder.slot.members?[key.stringValue] = slot
            return encoder.child(key, slot: slot)
        }

        mutating func encodeNil(forKey key: Key) { member(key).encodeNil() }
        mutating func encode(_ value: Bool, forKey key: Key) { member(key).encode(value) }
        mutating func encode(_ value: String, forKey key: Key) { member(key).encode(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try member(key).encode(value) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try member(key).encodeValue(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        { member(key).container(keyedBy: keyType) }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            member(key).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { member(SuperKey()) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { member(key) }
    }

    /// The key JSONEncoder gives a superclass's encoding.
    struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { nil }
        init?(intValue: Int) { nil }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: JSONValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.slot.items?.count ?? 0 }

        func next() -> JSONValueEncoder {
            let slot = Slot()
            let index = count
            encoder.slot.items?.append(slot)
            return encoder.child(JSONValueDecoder.Index(index), slot: slot)
        }

        mutating func encodeNil() { next().encodeNil() }
        mutating func encode(_ value: Bool) { next().encode(value) }
        mutating func encode(_ value: String) { next().encode(value) }
        mutating func encode(_ value: Double) throws { try next().encode(value) }
        mutating func encode(_ value: Float) throws { try next().encode(value) }
        mutating func encode(_ value: Int) throws { try next().encode(value) }
        mutating func encode(_ value: Int8) throws { try next().encode(value) }
        mutating func encode(_ value: Int16) throws { try next().encode(value) }
        mutating func encode(_ value: Int32) throws { try next().encode(value) }
        mutating func encode(_ value: Int64) throws { try next().encode(value) }
        mutating func encode(_ value: UInt) throws { try next().encode(value) }
        mutating func encode(_ value: UInt8) throws { try next().encode(value) }
        mutating func encode(_ value: UInt16) throws { try next().encode(value) }
        mutating func encode(_ value: UInt32) throws { try next().encode(value) }
        mutating func encode(_ value: UInt64) throws { try next().encode(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        { next().container(keyedBy: keyType) }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { next() }
    }
}
