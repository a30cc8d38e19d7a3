// SPDX-License-Identifier: Apache-2.0

/// Substring search without Swift's string-processing module: the library is built without its
/// implicit import (Package.swift `noStringProcessing`), which keeps Regex and its parser (1.1 MB,
/// BENCHMARKS.md "Size") out of the `.so`. Byte-wise on UTF-8, which is exact for the SDK's uses:
/// ASCII needles in protocol text.
extension StringProtocol {
    /// True when `needle` occurs in the text (an empty needle occurs everywhere).
    package func contains(text needle: some StringProtocol) -> Bool { range(ofText: needle) != nil }

    /// The first occurrence of `needle`, as a range of the text's indices.
    package func range(ofText needle: some StringProtocol) -> Range<Index>? {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty else { return startIndex..<startIndex }
        var start = utf8.startIndex
        while start != utf8.endIndex {
            var here = start
            var matched = 0
            while matched < pattern.count, here != utf8.endIndex, utf8[here] == pattern[matched] {
                matched += 1
                here = utf8.index(after: here)
            }
            if matched == pattern.count { return start..<here }
            start = utf8.index(after: start)
        }
        return nil
    }

    /// The text before the first occurrence of `separator`, and after it (nil when it does not occur).
    package func split(atFirst separator: some StringProtocol) -> (before: SubSequence, after: SubSequence?) {
        guard let found = range(ofText: separator) else { return (self[...], nil) }
        return (self[..<found.lowerBound], self[found.upperBound...])
    }

    /// The text with every occurrence of `needle` (non-empty) replaced, left to right.
    package func replacing(text needle: some StringProtocol, with replacement: some StringProtocol) -> String {
        var result = ""
        var rest = self[...]
        while !needle.isEmpty, let found = rest.range(ofText: needle) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}
