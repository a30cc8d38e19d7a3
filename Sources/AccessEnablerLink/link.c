// SPDX-License-Identifier: Apache-2.0
// This target carries no code: it is in the `accessenabler` product only, so that its linker
// settings (Package.swift: lld and exports.map) shape libaccessenabler.so and nothing
// else that links the library's Swift targets (the test runners, the example player).
typedef int ae_link_target_has_no_code_;
