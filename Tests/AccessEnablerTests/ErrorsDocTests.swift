// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// docs/ERRORS.md lists every advanced status id (errorId) the SDK can emit: the ids are read from
/// the sources (the first argument of every `AdvancedStatus(` in Sources/), so the next status added
/// without its row fails here on its own.
@Suite struct ErrorsDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// An id as the sources write it: a literal (`"N003"`), or a prefix before an interpolation
    /// (`"CFG\(status)"`: prefix "CFG", computed).
    struct EmittedID: Hashable, CustomStringConvertible {
        var text: String
        var computed: Bool
        var description: String { computed ? text + "\\(…)" : text }
    }

    /// Every `AdvancedStatus(` of the sources with the ids its first argument can give, and where.
    /// A first argument without a string literal (an id from a variable) is a failure: its ids
    /// cannot be checked.
    static func emitted() throws -> [EmittedID: [String]] {
        var found: [EmittedID: [String]] = [:]
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files.sorted() where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            var rest = text[...]
            while let call = rest.range(of: "AdvancedStatus(") {
                let argument = firstArgument(rest[call.upperBound...])
                let line = text[..<call.lowerBound].filter { $0 == "\n" }.count + 1
                let ids = literals(argument).map { literal -> EmittedID in
                    if let interpolation = literal.range(of: "\\(") {
                        return EmittedID(text: String(literal[..<interpolation.lowerBound]), computed: true)
                    }
                    return EmittedID(text: literal, computed: false)
                }
                // `struct AdvancedStatus(` never occurs; a call with a non-literal id does.
                if ids.isEmpty, !argument.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    Issue.record("Sources/\(file):\(line): AdvancedStatus(\(argument), …): an errorId that is no string literal")
                }
                for id in ids { found[id, default: []].append("Sources/\(file):\(line)") }
                rest = rest[call.upperBound...]
            }
        }
        return found
    }

    /// The text of a call's first argument: up to the first comma (or closing parenthesis) outside
    /// a string literal and outside nested parentheses.
    static func firstArgument(_ text: Substring) -> String {
        var depth = 0
        var inString = false
        var escaped = false
        var end = text.endIndex
        for index in text.indices {
            let character = text[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            if character == "\"" {
                inString = true
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                if depth == 0 {
                    end = index
                    break
                }
                depth -= 1
            } else if character == ",", depth == 0 {
                end = index
                break
            }
        }
        return String(text[..<end])
    }

    /// The string literals of `text` (their contents, escapes as written).
    static func literals(_ text: String) -> [String] {
        var result: [String] = []
        var current: String?
        var escaped = false
        for character in text {
            guard var literal = current else {
                if character == "\"" { current = "" }
                continue
            }
            if escaped {
                literal.append(character)
                escaped = false
            } else if character == "\\" {
                literal.append(character)
                escaped = true
            } else if character == "\"" {
                result.append(literal)
                current = nil
                continue
            } else {
                literal.append(character)
            }
            current = literal
        }
        return result
    }

    /// The ids of docs/ERRORS.md's table "Advanced status ids": the backticked words of each row's
    /// first cell (`CFG5xx`: any three digits after CFG5; `CFG<status>`: CFG and a computed part).
    static func documented() throws -> [String] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/ERRORS.md"), encoding: .utf8)
        guard let start = doc.range(of: "## Advanced status ids") else { return [] }
        let table = String(doc[start.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        var ids: [String] = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            let parts = cell.split(separator: "`", omittingEmptySubsequences: false)
            ids += stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
        }
        return ids
    }

    static func covers(_ documented: String, _ id: EmittedID) -> Bool {
        if id.computed { return documented.hasPrefix(id.text) && documented.contains("<") }
        if documented == id.text { return true }
        if documented.hasSuffix("xx") {
            let prefix = documented.dropLast(2)
            return id.text.hasPrefix(prefix) && id.text.count == documented.count
                && id.text.dropFirst(prefix.count).allSatisfy(\.isNumber)
        }
        if let open = documented.firstIndex(of: "<") {
            let prefix = documented[..<open]
            return id.text.hasPrefix(prefix) && id.text.count > prefix.count && id.text.dropFirst(prefix.count).allSatisfy(\.isNumber)
        }
        return false
    }

    @Test func everyErrorIdTheSDKCanEmitIsInErrorsMD() throws {
        let emitted = try Self.emitted()
        let documented = try Self.documented()
        // The scan works: the catalogue's ids are found (a broken scan would pass vacuously).
        #expect(emitted.count >= 30, "\(emitted.keys)")
        for known in ["R400", "N003", "SSO400", "Z500", "APPL_ERROR", "REGCODE"] {
            #expect(emitted[EmittedID(text: known, computed: false)] != nil, "\(known) not found in Sources/")
        }
        #expect(emitted[EmittedID(text: "CFG", computed: true)] != nil)
        #expect(documented.count >= 30, "\(documented)")
        for (id, places) in emitted.sorted(by: { $0.key.text < $1.key.text }) {
            #expect(
                documented.contains { Self.covers($0, id) },
                "errorId \(id) (\(places.joined(separator: ", "))) is not in docs/ERRORS.md's table of advanced status ids")
        }
    }

    /// The other way: a row whose id the SDK no longer emits is stale.
    @Test func everyIdInErrorsMDIsEmitted() throws {
        let emitted = Array(try Self.emitted().keys)
        for id in try Self.documented() {
            #expect(
                emitted.contains { Self.covers(id, $0) || ($0.computed && id.hasPrefix($0.text)) },
                "docs/ERRORS.md lists \(id), which no source emits")
        }
    }
}
