// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Foundation
import Testing

/// The JSON layer (Jansson + JSONValueDecoder/Encoder) against Foundation's JSONDecoder/JSONEncoder,
/// which the tests may still use as an independent oracle.
@Suite struct JSONLayerTests {
    struct Model: Codable, Equatable {
        var text: String
        var count: Int64
        var ratio: Double
        var flag: Bool
        var optional: String?
        var list: [Int]
        var nested: [String: [String]]
    }

    @Test func modelsDecodeAsJSONDecoderDecodesThem() throws {
        let text =
            #"{"text":"a/é\u00e9\n","count":1700000000000,"ratio":2,"flag":true,"optional":null,"list":[1,2.0,3],"nested":{"k":["v"]},"extra":{"deep":[{}]}}"#
        let ours = try JSON.decode(Model.self, from: Array(text.utf8))
        let foundation = try JSONDecoder().decode(Model.self, from: Data(text.utf8))
        #expect(ours == foundation)
        #expect(ours.text == "a/éé\n" && ours.optional == nil && ours.list == [1, 2, 3])
    }

    @Test func encodingIsCompactSortedAndReadsBackTheSame() throws {
        let model = Model(text: "x/\"y\"\u{1}", count: -5, ratio: 0.5, flag: false, optional: nil, list: [], nested: ["b": [], "a": ["1"]])
        let text = JSON.text(model)
        #expect(text == #"{"count":-5,"flag":false,"list":[],"nested":{"a":["1"],"b":[]},"ratio":0.5,"text":"x/\"y\"\u0001"}"#)
        #expect(try JSONDecoder().decode(Model.self, from: Data(text.utf8)) == model)
    }

    @Test func numbersFollowTheirTypes() throws {
        struct Numbers: Decodable { var small: Int32; var big: Int64; var real: Double }
        let numbers = try JSON.decode(Numbers.self, from: Array(#"{"small":7.0,"big":9223372036854775807,"real":3}"#.utf8))
        #expect(numbers.small == 7 && numbers.big == Int64.max && numbers.real == 3)
        for text in [#"{"small":2147483648,"big":1,"real":1}"#, #"{"small":1.5,"big":1,"real":1}"#] {
            #expect(throws: DecodingError.self) { try JSON.decode(Numbers.self, from: Array(text.utf8)) }
        }
        // A string is not a number, nor a number a string: the models read both forms themselves.
        #expect(throws: DecodingError.self) { try JSON.decode(Numbers.self, from: Array(#"{"small":"1","big":1,"real":1}"#.utf8)) }
    }

    @Test func anIntegerBeyond64BitsReadsAsARealAndNeverFailsTheDocument() throws {
        let tree = try JSON.parse(Array(#"{"huge":123456789012345678901234567890,"ok":"yes"}"#.utf8))
        #expect(tree["ok"] == "yes")
        guard case .double(let huge)? = tree["huge"] else { Issue.record("not a real: \(tree)"); return }
        #expect(huge > 1.2e29 && huge < 1.3e29)
        struct Huge: Decodable { var huge: Int64 }
        #expect(throws: DecodingError.self) { try JSON.decode(Huge.self, from: Array(#"{"huge":1e30}"#.utf8)) }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1}x", "NaN", "[Infinity]", "{'a':1}", "\"\u{1}\"", "[\"\\ud800\"]", "01",
    ])
    func malformedTextIsNamedWithoutQuotingIt(text: String) {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(Array(text.utf8)) }
    }

    @Test func whatFoundationToleratedAndJSONDoesNotIsRefused() {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(Array(#"{"a":1,"a":2}"#.utf8)) }  // a key twice
        #expect(throws: JSON.ParseError.self) { try JSON.parse(Array(#"{"a":1,}"#.utf8)) }  // a trailing comma
        #expect(throws: JSON.ParseError.self) { try JSON.parse(Array("[1,]".utf8)) }
        // Found by the json fuzz target: Jansson skips a raw NUL after a number ("[1\0,2]" read as [1,2]).
        #expect(throws: JSON.ParseError.nulByte(offset: 2)) { try JSON.parse([0x5B, 0x31, 0x00, 0x2C, 0x32, 0x5D]) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSON.ParseError.self) { try JSON.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSON.ParseError.self) { try JSON.parse([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    }

    @Test func theErrorNeverCarriesTheText() throws {
        let secret = "eyJhbGciOiJSUzI1NiJ9-SECRET"
        do {
            _ = try JSON.parse(Array("{\"token\": \(secret)}".utf8))
            Issue.record("parsed")
        } catch {
            #expect(!error.description.contains(secret) && !error.description.contains("SECRET"))
            #expect(error.description.hasPrefix("invalid JSON at line 1"))
        }
    }

    @Test func depthAndSizeAreLimited() throws {
        let deep = String(repeating: "[", count: JSON.maxDepth) + String(repeating: "]", count: JSON.maxDepth)
        #expect(try JSON.parse(Array(deep.utf8)) != .null)
        let deeper = "[" + deep + "]"
        #expect(throws: JSON.ParseError.tooDeep) { try JSON.parse(Array(deeper.utf8)) }
        // Brackets inside strings are text, not nesting.
        let quoted = "[\"" + String(repeating: "[{", count: 500) + "\\\"\"]"
        #expect(try JSON.parse(Array(quoted.utf8)).arrayValue?.count == 1)
        let huge = [UInt8](repeating: 0x20, count: JSON.maxBytes + 1)
        #expect(throws: JSON.ParseError.tooLarge(JSON.maxBytes + 1)) { try JSON.parse(huge) }
    }

    @Test func toleranceKeptFromTheEarlierParser() throws {
        #expect(try JSON.parse(Array("\"top\"".utf8)) == "top")  // any value at the top
        #expect(try JSON.parse(Array(#"["a\u0000b"]"#.utf8)).arrayValue?.first == .string("a\u{0}b"))
        #expect(try JSON.parse(Array(" \n{ } \t".utf8)) == .object([:]))
    }

    @Test func aNonFiniteNumberIsNotWritten() {
        #expect(JSON.text(JSONValue.array([.double(.nan)])) == "null")
        #expect(JSON.text(["x": Double.infinity]) == "null")
    }
}

@Suite struct Base64Tests {
    @Test(arguments: ["", "f", "fo", "foo", "foob", "fooba", "foobar", "é\u{0}\u{FF}"])
    func encodesAsFoundationDoes(text: String) {
        #expect(Base64.encode(text) == Data(text.utf8).base64EncodedString())
        #expect(Base64.decode(Base64.encode(text)) == Array(text.utf8))
    }

    @Test func largeInputsCrossTheChunks() {
        let bytes = (0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let text = Base64.encode(bytes)
        #expect(text == Data(bytes).base64EncodedString())
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Zm9v ", " Zm9v", "Zm9", "Z===", "Zm9v\n", "Zm-v", "Zm_v", "é===", "Zg"])
    func decodingIsStrict(text: String) {
        #expect(Base64.decode(text) == nil)
        #expect(Data(base64Encoded: text) == nil)  // as Foundation was
    }

    /// Stricter than Foundation: padding that is not the end of a whole quantum.
    @Test(arguments: ["Zm9v=", "Zg=a", "Zm9v===="])
    func paddingOnlyEndsTheLastQuantum(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func base64URLIsUnpaddedWithItsOwnAlphabet() {
        #expect(Base64.decodeURL(Array("-_8".utf8)) == [0xFB, 0xFF])
        #expect(Base64.decodeURL(Array("+_8".utf8)) == nil)
        #expect(Base64.decodeURL(Array("Zg==".utf8)) == nil)
        #expect(Base64.decodeURL(Array("Z".utf8)) == nil)
        #expect(Base64.decodeURL(Array("Zg".utf8)) == Array("f".utf8))
    }
}

@Suite struct TextSearchTests {
    @Test func findsReplacesAndSplits() {
        #expect("abc".contains(text: "bc") && !"abc".contains(text: "cd") && "abc".contains(text: ""))
        #expect("a<x>b</x>".range(ofText: "</x>").map { "a<x>b</x>"[$0] } == "</x>")
        #expect("a&amp;b&amp;".replacing(text: "&amp;", with: "&") == "a&b&")
        #expect("aaa".replacing(text: "aa", with: "b") == "ba")
        let parts = "http://h:1".split(atFirst: "://")
        #expect(parts.before == "http" && parts.after == "h:1")
        #expect("nothing".split(atFirst: "://").after == nil)
        #expect("ééa".contains(text: "éa"))
    }
}
