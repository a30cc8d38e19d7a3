// SPDX-License-Identifier: Apache-2.0
// fuzzJSON: the SDK's JSON layer (Jansson under JSON.parse / JSON.text, JSONValueDecoder) on any
// bytes, judged against Foundation's JSONDecoder as an independent oracle (differential fuzzing).
import FoundationEssentials
import AccessEnabler

/// Input: the bytes are the JSON text.
///
/// Checks: nothing crashes or hangs; a refusal is a named `JSON.ParseError`; what the SDK parses
/// it writes back (`JSON.text`) as text that parses to the same tree; the SDK and Foundation agree on
/// whether the text is JSON and on its value, except where docs/DECISIONS.md "JSON" says they differ:
/// over `JSON.maxDepth` levels, a key twice in an object and a raw NUL byte (the SDK refuses), an integer beyond 64
/// bits (the SDK reads a real), and what Foundation accepts beyond RFC 8259 (a byte-order mark,
/// trailing commas: the SDK must then read the text without them as Foundation read it).
public func fuzzJSON(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
    let bytes = Array(data)
    let ours: JSONValue?
    var refusal = ""
    do {
        ours = try JSON.parse(bytes)
    } catch {
        ours = nil
        refusal = error.description
        try check(!refusal.isEmpty, "a refusal without a reason")
    }
    if let ours {
        let text = JSON.text(ours)
        let again = JSON.parse(text)
        try check(again.map { JSONText.same($0, ours) } ?? false, "JSON.text wrote text that does not parse to the same tree")
    }
    guard !JSON.prescan(bytes).tooDeep, bytes.first != 0xEF else { return }
    let theirs = try? JSONDecoder().decode(JSONText.Oracle.self, from: Data(bytes)).value
    switch (ours, theirs) {
    case (nil, nil): return
    case (let ours?, let theirs?):
        try check(JSONText.same(ours, theirs), "the SDK and Foundation read different values")
    case (nil, let theirs?):
        if JSONText.refusedOnPurpose(refusal) { return }
        let strict = JSONText.withoutTrailingCommas(bytes)
        try check(strict != bytes, "Foundation reads JSON the SDK refuses (\(refusal))")
        do {
            let again = try JSON.parse(strict)
            try check(JSONText.same(again, theirs), "without its trailing commas the SDK reads it otherwise")
        } catch let error as JSON.ParseError {
            try check(JSONText.refusedOnPurpose(error.description), "without its trailing commas the SDK refuses it (\(error))")
        } catch {
            throw error as! FuzzFailure
        }
    case (_?, nil):
        // Foundation refuses an integer beyond 64 bits that it cannot read as a Double either;
        // the SDK reads every such number as a real.
        try check(JSONText.hasHugeInteger(bytes), "the SDK reads text Foundation refuses")
    }
}

enum JSONText {
    /// What the SDK refuses on purpose where Foundation reads: a key twice; a raw NUL byte
    /// (Foundation skips one before a value, e.g. "\01").
    static func refusedOnPurpose(_ refusal: String) -> Bool {
        refusal.contains("duplicate object key") || refusal.contains("NUL byte")
    }

    /// Foundation's reading of any JSON value (its own JSONDecoder, not the SDK's Decodable path).
    struct Oracle: Decodable {
        let value: JSONValue
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let flag = try? container.decode(Bool.self) {
                value = .bool(flag)
            } else if let number = try? container.decode(Int64.self) {
                // Foundation reads a number with a fraction as Int64 when its Double is integral
                // (beyond 2^53 every Double is): `9200000000203941.913` gives 9200000000203941, the
                // digits cut, not the number rounded. Its Double reading is then the value (the
                // SDK reads such a number as a real): `Fuzz/Regressions/json/fixed-oracle-int64-fraction`.
                if let real = try? container.decode(Double.self), Double(number) != real {
                    value = .double(real)
                } else {
                    value = .int(number)
                }
            } else if let number = try? container.decode(Double.self) {
                value = .double(number)
            } else if let text = try? container.decode(String.self) {
                value = .string(text)
            } else if let items = try? container.decode([Oracle].self) {
                value = .array(items.map(\.value))
            } else {
                value = .object(try container.decode([String: Oracle].self).mapValues(\.value))
            }
        }
    }

    /// Equal trees, numbers compared by value (2 and 2.0 are the same number).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): x == y
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): Double(x) == y
        case (.double(let x), .double(let y)): x == y
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default: a == b
        }
    }

    /// The text without the commas that come right before a `]` or `}` (outside strings).
    static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        var pendingComma: Int?
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                out.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let comma = pendingComma { out.remove(at: comma) }
                pendingComma = nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): break
            case UInt8(ascii: ","):
                pendingComma = out.count
                out.append(byte)
                continue
            default:
                pendingComma = nil
                if byte == UInt8(ascii: "\"") { inString = true }
            }
            out.append(byte)
        }
        return out
    }

    /// A run of more than 18 digits outside strings (an integer that may not fit in 64 bits).
    static func hasHugeInteger(_ bytes: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        var digits = 0
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            digits = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? digits + 1 : 0
            if digits > 18 { return true }
        }
        return false
    }
}
