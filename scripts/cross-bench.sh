#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The aarch64 figures of BENCHMARKS.md ("aarch64"): the stripped size of the aarch64 library (static and
# shared Swift runtime, as scripts/cross.sh built them), and its per-call overhead and startup under
# qemu-user, each as a ratio against the same run's bare libcurl exchange (absolute times under
# emulation mean nothing), next to the same sections run natively on x86-64 in the same run.
#
# Benchmarks/bench.c is built for aarch64 with the cross tree's clang against the aarch64 library and
# libcurl, and run by qemu-user (binfmt_misc; QEMU_LD_PREFIX = the cross tree, which holds the arm64
# libraries); Benchmarks/run.py drives it from the host's Python with the host's emulator (native, so the
# server side is not emulated), preparing the store with the host's x86-64 library (.build/release).
# Usage: scripts/cross-bench.sh   (root; after scripts/cross.sh and a release build of the host library)
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
out=$project/.build-cross/bench
fail() { echo "cross-bench.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (a chroot into the cross tree)"
version=$(sed -n 's/^#define AE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' Include/accessenabler.h | paste -sd.)  # the header's
for runtime in static shared; do
    [ -f ".build-cross/aarch64-unknown-linux-gnu-$runtime/lib/libaccessenabler.so.$version" ] ||
        fail "no aarch64 $runtime-runtime library: run scripts/cross.sh first"
done
host_library=${AE_LIBRARY:-$project/.build/release/libaccessenabler.so}
[ -f "$host_library" ] || fail "no $host_library: swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler"
tree=$(bash scripts/debian13-tree.sh cross)
bash scripts/binfmt.sh aarch64
mkdir -p "$out"

in_tree() { bash scripts/in-tree.sh "$tree" --project-rw -- "$@"; }

# Sizes: stripped as the packages strip (--strip-all here: the size of the code and data that load).
declare -A size
for runtime in static shared; do
    in_tree aarch64-linux-gnu-strip --strip-all -o "/project/.build-cross/bench/libaccessenabler-$runtime.so" \
        "/project/.build-cross/aarch64-unknown-linux-gnu-$runtime/lib/libaccessenabler.so.$version"
    size[$runtime]=$(stat -c %s "$out/libaccessenabler-$runtime.so")
done
# x86-64 with the same compiler (scripts/cross.sh --triple x86_64-unknown-linux-gnu): the difference is the CPU's.
x86_603=.build-cross/x86_64-unknown-linux-gnu-static/lib/libaccessenabler.so.$version
[ -f "$x86_603" ] || fail "no $x86_603: run scripts/cross.sh --triple x86_64-unknown-linux-gnu --runtime static first"
strip --strip-all -o "$out/libaccessenabler-x86_64.so" "$x86_603"
size[x86_64]=$(stat -c %s "$out/libaccessenabler-x86_64.so")

# bench for aarch64, against the static-runtime library (its RUNPATH: the host's path of that library).
libdir=.build-cross/aarch64-unknown-linux-gnu-static/lib
in_tree /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu -fuse-ld=lld -std=c11 -O2 -pthread -Wall -Wextra \
    -Werror -I/project/Include /project/Benchmarks/bench.c -o /project/.build-cross/bench/bench-aarch64 \
    -L"/project/$libdir" -Wl,-rpath,"$project/$libdir" -laccessenabler -lcurl
file -b "$out/bench-aarch64" | grep -q aarch64 || fail "bench-aarch64 is not an aarch64 program"

echo "== x86-64, native (the same sections, the same run)"
AE_LIBRARY=$host_library python3 Benchmarks/run.py --no-build --quick --only overhead startup --json "$out/x86_64.json"
echo "== aarch64 under qemu-user"
AE_LIBRARY=$host_library QEMU_LD_PREFIX=$tree python3 Benchmarks/run.py --no-build --quick --only overhead startup \
    --bench "$out/bench-aarch64" --json "$out/aarch64.json"

python3 - "$out" "${size[static]}" "${size[shared]}" "${size[x86_64]}" <<'EOF'
import json
import sys
out, static, shared, native = sys.argv[1], *map(int, sys.argv[2:])
runs = {cpu: json.load(open(f"{out}/{cpu}.json")) for cpu in ("x86_64", "aarch64")}
def ratios(run):
    bare = run["overhead"]["curl_median_ms"]
    return run["overhead"]["sdk_median_ms"] / bare, run["startup"]["first_ms"] / bare, run["startup"]["again_ms"] / bare
native_r, arm_r = ratios(runs["x86_64"]), ratios(runs["aarch64"])
print("\n| aarch64 figure | aarch64 (qemu-user) | x86-64 (native), same run |")
print("|---|---|---|")
print(f"| stripped size, static Swift runtime (both built with Swift 6.0.3) | {static / 1e6:.2f} MB | {native / 1e6:.2f} MB |")
print(f"| stripped size, shared Swift runtime | {shared / 1e6:.2f} MB | |")
print(f"| getAuthorization → setToken / bare libcurl exchange (medians) | {arm_r[0]:.2f} × | {native_r[0]:.2f} × |")
print(f"| create + setRequestor (warm store, first) / bare exchange | {arm_r[1]:.1f} × | {native_r[1]:.1f} × |")
print(f"| create + setRequestor (again, same process) / bare exchange | {arm_r[2]:.1f} × | {native_r[2]:.1f} × |")
for cpu in ("aarch64", "x86_64"):
    run = runs[cpu]
    print(f"\n{cpu}: bare libcurl {run['overhead']['curl_median_ms']:.3f} ms, SDK {run['overhead']['sdk_median_ms']:.3f} ms, "
          f"startup first {run['startup']['first_ms']:.2f} ms, again {run['startup']['again_ms']:.2f} ms")
EOF
