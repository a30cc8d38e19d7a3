// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point of fuzzIdentityToken (see Sources/AccessEnablerFuzz in the root package).
import AccessEnablerFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIdentityTokenEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.entry(data, size, fuzzIdentityToken)
}
