// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point of fuzzHostJSON (see Sources/AccessEnablerFuzz in the root package).
import AccessEnablerFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHostJSONEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.entry(data, size, fuzzHostJSON)
}
