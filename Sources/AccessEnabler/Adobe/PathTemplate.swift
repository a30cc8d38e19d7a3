// SPDX-License-Identifier: Apache-2.0

/// Fills and reads the path templates of an operation catalogue (V2Operation,
/// V1Operation: `/api/v2/{serviceProvider}/profiles/{mvpd}`): a request's path from its values, and
/// which operation a path is, with the values of its parameters (the clients build with it; the
/// tests' in-memory Adobe and the fuzzer route with it).
package enum PathTemplate {
    /// The operation of `candidates` (each with its full path template) that `path` fits, with its
    /// parameters by name (as sent: percent-encoded). A literal segment wins over a parameter
    /// (`sessions/sso/{partner}` over `sessions/{code}`).
    package static func match<Operation>(_ path: String, among candidates: [(Operation, String)])
        -> (operation: Operation, parameters: [String: String])?
    {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (operation: Operation, parameters: [String: String], literals: Int)?
        for (operation, template) in candidates {
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            var literals = 0
            var fits = true
            for (part, segment) in zip(parts, segments) {
                if part.hasPrefix("{") && part.hasSuffix("}") {
                    parameters[String(part.dropFirst().dropLast())] = String(segment)
                } else if part == segment {
                    literals += 1
                } else {
                    fits = false
                    break
                }
            }
            if fits, literals > (best?.literals ?? -1) { best = (operation, parameters, literals) }
        }
        return best.map { ($0.operation, $0.parameters) }
    }

    /// `template` with its parameters filled in order by `values`, each one path segment
    /// (Encoding.pathSegment): the path of a request.
    package static func fill(_ template: String, _ values: [String]) -> String {
        var values = values.makeIterator()
        return template.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") ? Encoding.pathSegment(values.next() ?? "") : String(part)
        }.joined(separator: "/")
    }
}
