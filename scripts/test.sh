#!/usr/bin/env bash
# Runs every test: Swift (flows, decoders, store, the callback and async APIs over HTTP against the
# emulator), the C header/export and smoke checks, the Python package (pip-installed) and its
# ctypes suite on the release .so against the emulator, the three example players (Swift, Python,
# and C built against the installed CMake package), the CMake package itself, the emulator's own
# suite, and the OpenAPI check of every request the SDK sent to an emulator during the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AE_EMULATOR_LOG_DIR="$work/logs"  # every emulator the SDK talks to logs its requests here
mkdir -p "$AE_EMULATOR_LOG_DIR"

step() { printf '\n==== %s\n' "$*"; }
# expect_output LABEL OUTPUT PATTERN...: each pattern is in the output (else the output and exit 1).
expect_output() {
    local label=$1 output=$2 pattern
    shift 2
    for pattern in "$@"; do
        if ! grep -q -- "$pattern" <<<"$output"; then
            printf '%s\n%s: no "%s" in the output above\n' "$output" "$label" "$pattern" >&2
            exit 1
        fi
    done
    echo "$label: ok"
}

step "Swift tests (swift test)"
swift build --build-tests
# Bounded (about 10 s normally): a hung test process fails the run instead of stalling CI.
timeout --kill-after=30 1200 swift test --skip-build

step "release library (static Swift runtime)"
swift build -c release -Xswiftc -static-stdlib --product accessenabler
export AE_LIBRARY="$PWD/.build/release/libaccessenabler.so"

step "C header, exports, ldd, smoke test"
bash Tests/c/check-header.sh

step "Python package (pip install ./Python) and the ctypes tests against the emulator"
python3 -m pip install --quiet --disable-pip-version-check --target "$work/python" ./Python
rm -rf Python/build Python/*.egg-info  # setuptools' leftovers of the in-tree build
export PYTHONPATH="$work/python"       # the tests and the Python player import the installed package
# Each test has its own emulator, store and client, and mostly waits: with pytest-xdist (installed
# by .ci/run) four workers share the two cores (7 min → 2 min); without it, one after another.
parallel=()
python3 -c "import xdist" 2>/dev/null && parallel=(-n 4)
python3 -m pytest -q "${parallel[@]}" Tests/python

step "example players against the emulator: Swift, Python"
out=$(bash scripts/demo.sh)
expect_output "Swift player" "$out" "getAuthentication: authenticated" "short media token" "logout: done"
for partner in signed-in:Comcast picker:Cablevision; do
    out=$(bash scripts/demo.sh --partner "$partner")
    expect_output "Swift player, partner $partner" "$out" "tokenSource: Apple" "short media token"
done
for tempPass in "TempPass_TEST40" "flexibleTempPass --identity viewer@example.com"; do
    # shellcheck disable=SC2086  # the option and its value
    out=$(bash scripts/demo.sh --mvpd $tempPass)
    expect_output "Swift player, TempPass ${tempPass%% *}" "$out" "status N011 info" "status Z011 info" \
        "short media token" "tokenSource: Adobe" "logout: done"
    if grep -q "activation code" <<<"$out"; then echo "a TempPass must not show a code" >&2; exit 1; fi
done
out=$(bash scripts/demo.sh --player python)
expect_output "Python player" "$out" "activation code" "short media token" "logout: done"

step "example players on the legacy REST API V1 (--api v1): Swift (second screen, partner, TempPass), Python"
out=$(bash scripts/demo.sh --api v1)
expect_output "Swift player, V1" "$out" "REST API V1" "/api/v1/authenticate?reg_code=" "getAuthentication: authenticated" \
    "short media token" "logout: done"
out=$(bash scripts/demo.sh --api v1 --partner signed-in:Comcast)
expect_output "Swift player, V1, partner" "$out" "tokenSource: Apple" "short media token" "sign out of it"
out=$(bash scripts/demo.sh --api v1 --mvpd TempPass_TEST40)
expect_output "Swift player, V1, TempPass" "$out" "status N011 info" "status Z011 info" "short media token" \
    "tokenSource: Adobe" "logout: done"
out=$(bash scripts/demo.sh --player python --api v1)
expect_output "Python player, V1" "$out" "REST API V1" "activation code" "short media token" "logout: done"

step "CMake package (build, ctest, install, find_package, pkg-config, SONAME)"
AE_CMAKE_BUILD_DIR="$work/cmake" bash Tests/c/check-cmake-package.sh

step "C example player, built against the installed package, against the emulator"
out=$(AE_CMAKE_BUILD_DIR="$work/cmake" AE_DEMO_DIR="$work/demo" bash scripts/demo.sh --player c)
expect_output "C player" "$out" "activation code" "scan the QR code" "short media token" "logout: done"
out=$(AE_CMAKE_BUILD_DIR="$work/cmake" AE_DEMO_DIR="$work/demo" bash scripts/demo.sh --player c --api v1)
expect_output "C player, V1" "$out" "REST API V1" "activation code" "short media token" "logout: done"

step "conformance of every request the SDK sent: OpenAPI files (V2, DCR), the V1 endpoint table"
python3 Emulator/validate_requests.py "$AE_EMULATOR_LOG_DIR"/*.jsonl

step "emulator tests (its answers against the OpenAPI files)"
AE_EMULATOR_LOG_DIR= python3 -m pytest -q Tests/emulator

step "all tests passed"
