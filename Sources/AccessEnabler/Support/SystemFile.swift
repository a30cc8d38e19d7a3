// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Reading the system's own small files.
package enum SystemFile {
    /// The system's text for `code` (an errno) with its number: "No such file or directory (errno 2)".
    /// Messages name the cause as the system says it, not as a bare number (issue 28).
    package static func errorText(_ code: Int32 = errno) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

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

    /// A whole file of at most `limit` bytes (CA bundles: a system's is about 200 KB); nil when it
    /// cannot be opened or read, or is larger (errno tells why, EFBIG for the size).
    package static func read(_ path: String, limit: Int = 16 << 20) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk.prefix(count))
            if bytes.count > limit {
                errno = EFBIG
                return nil
            }
            if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }

    /// Writes `bytes` to a new file `path` (O_EXCL: never an existing file or a link) with `mode`;
    /// false (errno set) when it cannot.
    static func write(_ path: String, _ bytes: [UInt8], mode: mode_t) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
