// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point of fuzzFlowAnswers (see Sources/AccessEnablerFuzz in the root package).
import AccessEnablerFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlowAnswersEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.entry(data, size, fuzzFlowAnswers)
}
