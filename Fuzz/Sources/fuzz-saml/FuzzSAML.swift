// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point of fuzzSAML (see Sources/AccessEnablerFuzz in the root package).
import AccessEnablerFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSAMLEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.entry(data, size, fuzzSAML)
}
