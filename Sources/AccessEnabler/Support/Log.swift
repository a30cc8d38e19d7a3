// SPDX-License-Identifier: Apache-2.0

/// Log levels; the values are the header's AE_LOG_*.
public enum LogLevel: Int32, Sendable, Comparable {
    case error = 0, warning = 1, info = 2, debug = 3
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The host's log sink. Calls are serialized (one at a time). Messages never carry secrets:
/// callers log ids, codes and sizes, never credentials, tokens, attributes or SAML.
package final class Logger: Sendable {
    package typealias Sink = @Sendable (LogLevel, String) -> Void
    private let sink: Sink?
    private let maxLevel: LogLevel
    /// Not `Locked<Void>`: ThreadSanitizer reports a race on the zero-sized value.
    private let serial = Locked(0)

    package init(maxLevel: LogLevel, sink: Sink?) {
        self.maxLevel = maxLevel
        self.sink = sink
    }

    package static let silent = Logger(maxLevel: .error, sink: nil)

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard let sink, level <= maxLevel else { return }
        let text = message()
        serial.withLock { _ in sink(level, text) }
    }

    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
