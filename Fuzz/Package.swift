// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// libFuzzer executables, one per fuzz function of the AccessEnablerFuzz library (root package).
// Build and run them with scripts/fuzz.sh (it has the flags and why); they only link with the
// fuzzer sanitizer: swift build -c release --package-path Fuzz --sanitize=fuzzer
//   -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// Seed corpora: Corpus/<target>/; saved crash inputs: Regressions/<target>/ (see README.md).
import Foundation
import PackageDescription

/// The root package's identity: the name of the directory that holds it (a path dependency).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let targets = [
    "server-answer", "headers", "saml", "host-json", "flow-answers", "c-boundary", "struct-versions", "identity-token",
    "json",
]

let package = Package(
    name: "AccessEnablerFuzzers",
    dependencies: [.package(path: "..")],
    targets: targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: [.product(name: "AccessEnablerFuzz", package: root.lastPathComponent)],
            path: "Sources/fuzz-\(name)"
        )
    }
)
