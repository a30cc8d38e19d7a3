// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackageDescription

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

// Strictness applied to every Swift target in one place (swift-log's pattern).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
// The library's modules do without Swift's string-processing module (Regex and its parser: 1.1 MB of
// the .so, BENCHMARKS.md "Size"); Support/TextSearch.swift has the substring search they use.
let noStringProcessing: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])
]

// The C targets go into libaccessenabler.so: position-independent code. SwiftPM 6.0 compiles C for a
// cross-compilation Swift SDK as PIE, whose thread-locals (the exit gate's, the lock depth) use the
// local-exec TLS model that a shared library cannot link (lld: "R_AARCH64_TLSLE_... cannot be used with
// -shared"); docs/CROSS.md.
let pic: [CSetting] = [.unsafeFlags(["-fPIC"])]

// The shipped library's size (BENCHMARKS.md "Size", docs/DECISIONS.md "The size of the library"). Release
// builds of the library's modules are optimised for size, and their public symbols may be made internal
// when the link optimises them (the library exports the header's functions only; the build commands add
// SwiftPM's `--experimental-lto-mode=full`, scripts/check-build-commands.py checks each of them)...
let smallRelease: [SwiftSetting] = [
    .unsafeFlags(["-Osize", "-Xfrontend", "-internalize-at-link"], .when(configuration: .release))
]
// ...and the link packs its 25,000 relative relocations into a bitmap (DT_RELR: glibc 2.36 or later,
// which the library then names in its version needs) and folds identical functions (code only: lld
// folds read-only data only with --ignore-data-address-equality).
let smallLink: [LinkerSetting] = [
    .unsafeFlags(
        ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--icf=all"],
        .when(configuration: .release))
]

let package = Package(
    name: "AccessEnabler",
    products: [
        // The self-contained C library: build with
        //   swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler
        .library(name: "accessenabler", type: .dynamic, targets: ["AccessEnablerCABI", "AccessEnablerLink"]),
        // The Swift API (`import AccessEnabler`).
        .library(name: "AccessEnabler", targets: ["AccessEnabler"]),
        // For hosts' and our tests: the partner simulator, a manual clock, a recording delegate.
        .library(name: "AccessEnablerTesting", targets: ["AccessEnablerTesting"]),
        .executable(name: "example-player", targets: ["ExamplePlayer"]),
        // Fuzz harness functions, for the libFuzzer executables of the separate Fuzz/ package.
        .library(name: "AccessEnablerFuzz", targets: ["AccessEnablerFuzz"]),
    ],
    targets: [
        // The hand-written contract, imported back into Swift so the thunks are checked against it.
        .target(name: "CAccessEnabler", path: "Sources/CAccessEnabler"),
        // Typed wrappers over libcurl's variadic setters (Swift cannot call C varargs).
        .target(
            name: "CCurl", path: "Sources/CCurl", cSettings: pic,
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("crypto"), .linkedLibrary("dl")]),
        .target(name: "CSystem", path: "Sources/CSystem", cSettings: pic),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto"),
        // JSON parsing and printing (Debian libjansson-dev; docs/DECISIONS.md "JSON").
        .systemLibrary(name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson"),
        .target(
            name: "AccessEnabler",
            // CAccessEnabler: the header's values (Version, AccessEnablerError.Kind's codes), never its functions.
            dependencies: ["CAccessEnabler", "CCurl", "CSQLite", "CCrypto", "CJansson", "CSystem"],
            swiftSettings: strict + noStringProcessing + smallRelease
        ),
        .target(name: "AccessEnablerTesting", dependencies: ["AccessEnabler"], swiftSettings: strict),
        .target(
            name: "AccessEnablerCABI", dependencies: ["AccessEnabler", "CAccessEnabler"],
            swiftSettings: strict + noStringProcessing + smallRelease),
        // How libaccessenabler.so is linked (this target is in that product only): the header's functions
        // and nothing else exported, under the version node AE_1 (exports.map), by lld, which leaves no
        // local symbol in .dynsym (the system's linker kept 110 of the Swift code's there). The SONAME is
        // CMake's to set (CMakeLists.txt): a SwiftPM build is for this tree, not for installing.
        .target(
            name: "AccessEnablerLink",
            path: "Sources/AccessEnablerLink",
            exclude: ["exports.map"],
            publicHeadersPath: ".",  // none: the target only links
            linkerSettings: [
                .unsafeFlags([
                    "-use-ld=lld",
                    "-Xlinker", "--version-script=\(root)/Sources/AccessEnablerLink/exports.map",
                ])
            ] + smallLink
        ),
        // Fuzz harness: one function per parser of untrusted input (Fuzz/, scripts/fuzz.sh).
        .target(
            name: "AccessEnablerFuzz",
            dependencies: ["AccessEnabler", "AccessEnablerCABI", "AccessEnablerTesting", "CAccessEnabler"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ExamplePlayer",
            dependencies: ["AccessEnabler", "AccessEnablerTesting"],
            path: "Examples/SwiftPlayer",
            swiftSettings: strict
        ),
        // The crash test's writer and checker (scripts/store-crash.py kills it with SIGKILL).
        .executableTarget(
            name: "StoreCrashWriter",
            dependencies: ["AccessEnabler"],
            path: "Tests/tools/StoreCrashWriter",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AccessEnablerTests",
            dependencies: ["AccessEnabler", "AccessEnablerCABI", "AccessEnablerTesting", "CAccessEnabler", "AccessEnablerFuzz"],
            swiftSettings: strict
        ),
    ]
)
