// SPDX-License-Identifier: Apache-2.0
internal import CJansson
internal import Glibc

/// JSON text in and out, through the system's Jansson (docs/DECISIONS.md "JSON": why Jansson,
/// measured against cJSON). Jansson parses and prints; `JSONValue` is the tree the SDK keeps, and
/// `JSONValueDecoder` / `JSONValueEncoder` bridge it to the `Codable` models.
///
/// Limits, checked before Jansson sees the text: at most `maxBytes` and `maxDepth` levels of
/// arrays and objects (a deeper document is refused by name, never recursed into). Jansson refuses
/// invalid UTF-8, unpaired surrogates, control characters (a raw NUL anywhere), NaN and Infinity, trailing
/// commas and trailing garbage, and a key twice in one object (RFC 8259 leaves the meaning open:
/// JSONDecoder kept the first, Jansson would keep the last; refusing leaves no two readings).
/// Tolerances kept from the earlier parser: any value at the top, `\u0000` in strings, and an
/// integer beyond 64 bits reads as a real (the whole document is then read with integers as reals:
/// a hostile number never fails a document that is otherwise well formed).
package enum JSON {
    /// Adobe's answers nest six levels at most; hosts' options a few more.
    package static let maxDepth = 64
    /// The largest answer the transport accepts (`Defaults.maxBodyBytes`) and then some.
    package static let maxBytes = 8 << 20

    /// Why a text is not JSON (never quotes the text: it may hold secrets).
    package enum ParseError: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case tooDeep
        /// A raw NUL byte, which JSON text never holds (Jansson would skip one after a number).
        case nulByte(offset: Int)
        case invalid(line: Int, column: Int, reason: String)

        package var description: String {
            switch self {
            case .tooLarge(let count): "JSON text of \(count) bytes is over \(JSON.maxBytes)"
            case .tooDeep: "JSON nested deeper than \(JSON.maxDepth) levels"
            case .nulByte(let offset): "invalid JSON: a NUL byte at offset \(offset)"
            case .invalid(let line, let column, let reason): "invalid JSON at line \(line), column \(column): \(reason)"
            }
        }
    }

    /// Parses JSON text into a tree.
    package static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JSONValue {
        do {
            return try withParsed(bytes) { value(of: $0) }
        } catch let error as ParseError {
            throw error
        } catch {
            throw .invalid(line: 0, column: 0, reason: "malformed")  // not reached: the tree conversion does not throw
        }
    }

    /// Runs `body` on Jansson's parse of `bytes` (valid only inside `body`). Throws `ParseError`
    /// when the text is not JSON, else what `body` throws.
    static func withParsed<T>(_ bytes: some Collection<UInt8>, _ body: (UnsafeMutablePointer<json_t>) throws -> T) throws -> T {
        let bytes = Array(bytes)
        guard bytes.count <= maxBytes else { throw ParseError.tooLarge(bytes.count) }
        let scan = prescan(bytes)
        if let nul = scan.nul { throw ParseError.nulByte(offset: nul) }
        guard !scan.tooDeep else { throw ParseError.tooDeep }
        let flags = JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES
        var error = json_error_t()
        var root = bytes.withUnsafeBufferPointer { json_loadb($0.baseAddress, $0.count, Int(flags), &error) }
        if root == nil, json_error_code(&error) == json_error_numeric_overflow {
            root = bytes.withUnsafeBufferPointer {
                json_loadb($0.baseAddress, $0.count, Int(flags | JSON_DECODE_INT_AS_REAL), &error)
            }
        }
        guard let root else { throw Self.invalid(error) }
        defer { json_decref(root) }
        return try body(root)
    }

    /// Parses JSON text into a tree; nil when it is not JSON.
    package static func parse(_ text: String) -> JSONValue? { try? parse(Array(text.utf8)) }

    /// Decodes a model from JSON text. Throws `DecodingError` (`.dataCorrupted` with the parser's
    /// reason when the text is not JSON).
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let tree: JSONValue
        do {
            tree = try parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
        return try JSONValueDecoder.decode(type, from: tree)
    }

    /// `decode` for a model read straight from Jansson's nodes (chosen at compile time: a dynamic
    /// cast to the protocol would scan every conformance of the binary the first time per type).
    package static func decode<T: JSONNodeDecodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        do {
            return try withParsed(bytes) { try T(node: JSONNode($0, path: [])) }
        } catch let error as ParseError {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
    }

    /// Compact JSON text with sorted keys (deterministic), `/` unescaped; "null" when the value
    /// cannot be written (a non-finite number).
    package static func text(_ value: some Encodable) -> String { String(decoding: data(value), as: UTF8.self) }

    /// `text(_:)` as bytes.
    package static func data(_ value: some Encodable) -> [UInt8] {
        guard let tree = try? JSONValueEncoder.encode(value), let root = node(of: tree) else { return Array("null".utf8) }
        defer { json_decref(root) }
        let flags = JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS  // reals: Jansson's 17 digits, exact
        guard let text = json_dumps(root, Int(flags)) else { return Array("null".utf8) }
        defer { free(text) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
    }

    // MARK: Jansson's tree ↔ JSONValue

    static func value(of node: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch node.pointee.type {
        case JSON_OBJECT:
            var object = [String: JSONValue](minimumCapacity: json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                let key = String(
                    decoding: UnsafeRawBufferPointer(start: json_object_iter_key(current), count: json_object_iter_key_len(current)),
                    as: UTF8.self)
                if let child = json_object_iter_value(current) { object[key] = value(of: child) }
                iterator = json_object_iter_next(node, current)
            }
            return .object(object)
        case JSON_ARRAY:
            return .array((0..<json_array_size(node)).map { json_array_get(node, $0).map(value(of:)) ?? .null })
        case JSON_STRING:
            return .string(
                String(decoding: UnsafeRawBufferPointer(start: json_string_value(node), count: json_string_length(node)), as: UTF8.self))
        case JSON_INTEGER: return .int(Int64(json_integer_value(node)))
        case JSON_REAL: return .double(json_real_value(node))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }

    /// A new reference (the caller owns it), or nil for a value JSON cannot carry.
    private static func node(of value: JSONValue) -> UnsafeMutablePointer<json_t>? {
        switch value {
        case .null: return json_null()
        case .bool(let flag): return flag ? json_true() : json_false()
        case .int(let number): return json_integer(json_int_t(number))
        case .double(let number): return number.isFinite ? json_real(number) : nil
        case .string(let text):
            var text = text
            return text.withUTF8 { json_stringn_nocheck(cText($0), $0.count) }
        case .array(let items):
            guard let array = json_array() else { return nil }
            for item in items {
                guard let child = node(of: item), json_array_append_new(array, child) == 0 else {
                    json_decref(array)
                    return nil
                }
            }
            return array
        case .object(let members):
            guard let object = json_object() else { return nil }
            for (key, member) in members {
                var key = key
                let added = node(of: member).map { child in
                    key.withUTF8 { json_object_setn_new_nocheck(object, cText($0), $0.count, child) }
                }
                guard added == 0 else {
                    json_decref(object)
                    return nil
                }
            }
            return object
        }
    }

    /// UTF-8 bytes as the `const char *` Jansson takes with a length (an empty text: a valid pointer).
    private static func cText(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(bytes.baseAddress ?? emptyText.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    private static let emptyText: StaticString = ""

    fileprivate static func invalid(_ error: json_error_t) -> ParseError {
        var error = error
        let reason = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }).prefix(Int(JSON_ERROR_TEXT_LENGTH) - 1), as: UTF8.self)
        }
        // Jansson's texts name the problem, then often quote the text ("… near 'xyz'"): the quote is dropped.
        let problem = String(reason.split(atFirst: " near ").before)
        let unfit = problem.isEmpty || problem.utf8.count > 80 || problem.containsControlCharacter
        return .invalid(line: Int(error.line), column: Int(error.column), reason: unfit ? "malformed" : problem)
    }

    /// The first raw NUL byte, and whether arrays and objects nest deeper than `maxDepth` outside
    /// strings (the text need not be valid): one pass, in C (`ae_json_prescan`).
    package static func prescan(_ bytes: [UInt8]) -> (nul: Int?, tooDeep: Bool) {
        var tooDeep: Int32 = 0
        let nul = bytes.withUnsafeBufferPointer { ae_json_prescan($0.baseAddress, $0.count, Int32(maxDepth), &tooDeep) }
        return (nul >= 0 ? Int(nul) : nil, tooDeep != 0)
    }
}
