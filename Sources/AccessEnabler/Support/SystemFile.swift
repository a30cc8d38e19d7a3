// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Reading the system's own small files.
package enum SystemFile {
    /// The first line of a small system file (/proc, /sys, /etc), without its line end; nil when
    /// the file is missing or empty.
    package static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let trimmed = line.filter { $0 != "\n" && $0 != "\r" && $0 != "\0" }
        return trimmed.isEmpty ? nil : trimmed
    }
}
