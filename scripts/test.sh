#!/usr/bin/env bash
# Runs every test: Swift (flows, decoders, store, the emulator over HTTP), the C header/export
# and smoke checks, the Python ctypes suite on the release .so against the emulator, the
# emulator's own suite, the example player, the CMake package, and finally the OpenAPI check of
# every request the SDK sent to an emulator during the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
export AE_EMULATOR_LOG_DIR="$logs"  # every emulator the SDK talks to logs its requests here

step() { printf '\n==== %s\n' "$*"; }

step "Swift tests (swift test)"
swift build --build-tests
swift test --skip-build

step "release library (static Swift runtime)"
swift build -c release -Xswiftc -static-stdlib --product accessenabler
export AE_LIBRARY="$PWD/.build/release/libaccessenabler.so"

step "C header, exports, ldd, smoke test"
bash Tests/c/check-header.sh

step "Python ctypes tests against the emulator"
python3 -m pytest -q Tests/python

step "example player against the emulator"
out=$(bash scripts/demo.sh)
echo "$out" | tail -3
grep -q "getAuthentication: authenticated" <<<"$out"
grep -q "short media token" <<<"$out"
grep -q "logout: done" <<<"$out"
for partner in signed-in:Comcast picker:Cablevision; do
    out=$(bash scripts/demo.sh --partner "$partner")
    grep -q "tokenSource: Apple" <<<"$out"
    grep -q "short media token" <<<"$out"
    echo "partner $partner: ok"
done
for tempPass in "TempPass_TEST40" "flexibleTempPass --identity viewer@example.com"; do
    # shellcheck disable=SC2086  # the option and its value
    out=$(bash scripts/demo.sh --mvpd $tempPass)
    grep -q "status N011 info" <<<"$out"
    grep -q "status Z011 info" <<<"$out"
    grep -q "short media token" <<<"$out"
    grep -q "tokenSource: Adobe" <<<"$out"
    grep -q "logout: done" <<<"$out"
    if grep -q "activation code" <<<"$out"; then echo "a TempPass must not show a code" >&2; exit 1; fi
    echo "TempPass ${tempPass%% *}: ok"
done

step "OpenAPI conformance of every request the SDK sent"
python3 Tests/emulator/validate_requests.py "$logs"/*.jsonl

step "emulator tests (its answers against the OpenAPI files)"
AE_EMULATOR_LOG_DIR= python3 -m pytest -q Tests/emulator

step "CMake package (find_package, pkg-config)"
AE_EMULATOR_LOG_DIR= bash Tests/c/check-cmake-package.sh

step "all tests passed"
