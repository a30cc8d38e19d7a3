#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Tests what scripts/cross.sh built, on the system it is for (docs/CROSS.md):
#   x86_64    the x86-64 library built with Swift 6.0.3 against libcurl 8.14, in a Debian 13 amd64 tree
#             (scripts/debian13-tree.sh check): Tests/c/check-header.sh (header = exports, ldd, the C smoke
#             test) and the ctypes tests of scripts/libcurl8-check.sh;
#   aarch64   the aarch64 libraries in an arm64 Debian 13 tree run by qemu-user (binfmt_misc, scripts/binfmt.sh):
#             check-header.sh against the static- and the shared-runtime library, the ABI's old hosts
#             (Tests/c/abi, without AddressSanitizer: it does not run under qemu-user), and the ctypes suite's
#             core flows (V2 and V1 second screen, authorization, preauthorization, partner and platform
#             SSO, TempPass, logout; the store crash test at AE_STORE_CRASH_RUNS, default 20);
#   packages  the arm64 .debs installed with dpkg into the cross tree (amd64 and arm64), Examples/CPlayer built
#             there for aarch64 against them with find_package and with pkg-config, each build run by qemu-user
#             against the emulator.
# The emulator is the project's Python one, started inside the tree by the tests (or here, for the player).
# Usage: scripts/cross-test.sh [x86_64|aarch64|packages]...   (default: all three)
# Needs root (chroot); run scripts/cross.sh --triple x86_64-unknown-linux-gnu --runtime static, and
# scripts/cross.sh --tools (aarch64, both runtimes, packages) first.
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
out=$project/.build-cross
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(x86_64 aarch64 packages)
fail() { echo "cross-test.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (a chroot into the Debian 13 trees)"
version=$(sed -n 's/^#define AE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' Include/accessenabler.h | paste -sd.)  # the header's
library() {  # library TRIPLE RUNTIME: the staged library of that build, or a message naming the build to run
    local file=$out/$1-$2/lib/libaccessenabler.so.$version
    [ -f "$file" ] || fail "no $file: run scripts/cross.sh --triple $1 --runtime $2 first"
    echo "${file#"$project"/}"
}

# Runs a command in a tree as the tests see it (scripts/in-tree.sh): the project read-only at /project,
# more read-only mounts given as SOURCE=TARGET in $MOUNTS.
in_tree() {
    local tree=$1 pair
    shift
    local options=()
    for pair in ${MOUNTS:-}; do options+=(--mount "$pair"); done
    bash scripts/in-tree.sh "$tree" "${options[@]}" -- "$@"
}

# The ctypes tests of the core flows (the ones docs/CROSS.md lists); the store crash test at fewer runs.
flow_tests=(Tests/python/test_flows.py Tests/python/test_v1.py Tests/python/test_partner.py
    Tests/python/test_platform_sso.py Tests/python/test_temporary_access.py)
core_tests=("${flow_tests[@]}" Tests/python/test_store_crash.py)

for part in "${parts[@]}"; do
    case $part in
    x86_64)
        lib=$(library x86_64-unknown-linux-gnu static)
        tree=$(bash scripts/debian13-tree.sh check)
        echo "== x86-64, Swift 6.0.3, libcurl 8: header, exports, smoke test ($lib)"
        in_tree "$tree" AE_LIBRARY="/project/$lib" bash /project/Tests/c/check-header.sh
        echo "== x86-64, Swift 6.0.3, libcurl 8: ctypes tests (scripts/libcurl8-check.sh's and the core flows)"
        # --capture=sys: what the library itself writes to stderr (a Swift runtime's "Fatal error" before an
        # abort) reaches the log instead of a capture file that a crashed worker never shows.
        AE_LIBRARY=$project/$lib bash scripts/libcurl8-check.sh -n 4 --capture=sys Tests/python/test_hostile_input.py \
            Tests/python/test_contract.py Tests/python/test_transport.py "${flow_tests[@]}"
        ;;
    aarch64)
        static=$(library aarch64-unknown-linux-gnu static)
        shared=$(library aarch64-unknown-linux-gnu shared)
        tool=$(find "$out/aarch64-unknown-linux-gnu-static/swiftpm" -path "*/release/StoreCrashWriter" -type f 2>/dev/null | head -n 1)
        [ -n "$tool" ] || fail "no StoreCrashWriter for aarch64: run scripts/cross.sh --tools first"
        cross=$(bash scripts/debian13-tree.sh cross)
        tree=$(bash scripts/debian13-tree.sh arm64)
        bash scripts/binfmt.sh aarch64
        echo "== aarch64 (qemu-user): header, exports, smoke test, static Swift runtime ($static)"
        in_tree "$tree" AE_LIBRARY="/project/$static" bash /project/Tests/c/check-header.sh
        echo "== aarch64 (qemu-user): header, exports, smoke test, shared Swift runtime ($shared)"
        runtime=/opt/swift-aarch64/usr/libexec/swift/lib/swift/linux
        MOUNTS="$cross$runtime=$runtime" in_tree "$tree" AE_LIBRARY="/project/$shared" AE_SWIFT_RUNTIME=shared \
            LD_LIBRARY_PATH="$runtime" bash /project/Tests/c/check-header.sh
        echo "== aarch64 (qemu-user): hosts of every earlier struct layout (Tests/c/abi, without ASan)"
        in_tree "$tree" AE_LIBRARY="/project/$static" AE_SANITIZE=none bash /project/Tests/c/abi/check-old-hosts.sh
        echo "== aarch64 (qemu-user): the ctypes tests of the core flows"
        start=$(date +%s)
        # The emulators start under qemu-user too, four at once with their workers: 30 s was
        # sometimes not enough on a 2-core machine (every worker's session emulator then fails).
        in_tree "$tree" AE_LIBRARY="/project/$static" PYTHONPATH=/project/Python AE_EMULATOR_START_TIMEOUT=180 \
            AE_STORE_CRASH_TOOL="/project/${tool#"$project"/}" AE_STORE_CRASH_RUNS="${AE_STORE_CRASH_RUNS:-20}" AE_STORE_CRASH_TIME_SCALE=20 \
            bash -c 'cd /project && exec python3 -m pytest -q -p no:cacheprovider -n 4 --capture=sys "$@"' bash "${core_tests[@]}"
        echo "ctypes core flows under qemu: $(($(date +%s) - start)) s"
        ;;
    packages)
        debs=()
        for deb in "$out"/aarch64-unknown-linux-gnu-static/*_arm64.deb; do [ -f "$deb" ] && debs+=("/project/${deb#"$project"/}"); done
        [ ${#debs[@]} -eq 3 ] ||
            fail "expected the three arm64 .debs (library, -dev, tools) in .build-cross/aarch64-unknown-linux-gnu-static: run scripts/cross.sh"
        # The cross tree knows arm64 as a dpkg architecture (its arm64 libraries are installed there): the
        # packages install with dpkg as on an arm64 system, the player builds with the arm64 toolchain
        # against what they installed, and runs under qemu-user (binfmt_misc, the tree's arm64 loader).
        tree=$(bash scripts/debian13-tree.sh cross)
        bash scripts/binfmt.sh aarch64
        echo "== arm64 .debs: dpkg -i, the C player built against them (find_package, pkg-config), run under qemu-user; accessenabler-diag"
        # The tree itself is writable (dpkg); the packages are purged again at the end.
        # shellcheck disable=SC2016  # expanded by the inner shell
        in_tree "$tree" bash -euc '
            trap "dpkg --purge accessenabler-tools:arm64 libaccessenabler-dev:arm64 libaccessenabler1:arm64 >/dev/null 2>&1 || true" EXIT
            dpkg -i "$@" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }
            dpkg-query -W -f="installed: \${Package}:\${Architecture} \${Version}\n" libaccessenabler1:arm64 libaccessenabler-dev:arm64 \
                accessenabler-tools:arm64
            python3 /project/Emulator/emulator.py --port 0 --quiet --auto-login-ms 1000 >/tmp/emulator.out 2>/tmp/emulator.err &
            for _ in $(seq 100); do grep -q AE_EMULATOR_LISTENING /tmp/emulator.out && break; sleep 0.1; done
            url=$(awk "/AE_EMULATOR_LISTENING/ { print \$2 }" /tmp/emulator.out)
            [ -n "$url" ] || { echo "the emulator did not start"; cat /tmp/emulator.err; exit 1; }
            echo "-- find_package(AccessEnabler): Examples/CPlayer with CMake and the arm64 toolchain"
            cmake -S /project/Examples/CPlayer -B /tmp/player-cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DCPLAYER_WERROR=ON \
                -DCMAKE_TOOLCHAIN_FILE=/project/.build-cross/aarch64-unknown-linux-gnu.toolchain.cmake >/tmp/cmake.log 2>&1 &&
                cmake --build /tmp/player-cmake >>/tmp/cmake.log 2>&1 || { cat /tmp/cmake.log; exit 1; }
            grep -E "AccessEnabler_DIR|QRENCODE_LINK_LIBRARIES" /tmp/player-cmake/CMakeCache.txt
            echo "-- pkg-config accessenabler libqrencode: the same sources with clang for aarch64"
            export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
            echo "pkg-config: $(pkg-config --cflags --libs accessenabler libqrencode)"
            (cd /project/Examples/CPlayer && /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu -fuse-ld=lld \
                -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o /tmp/player-pc player.c terminal_qr.c \
                $(pkg-config --cflags --libs accessenabler libqrencode))
            for player in /tmp/player-cmake/c-player /tmp/player-pc; do
                echo "-- $player ($(file -b "$player" | cut -d, -f1,2)) against the emulator"
                timeout 300 "$player" --base-url "$url" --storage "/tmp/store-${player##*/}.sqlite" >/tmp/run.log 2>&1 ||
                    { tail -30 /tmp/run.log; exit 1; }
                tail -n 2 /tmp/run.log
            done
            echo "-- accessenabler-diag (the tools package) under qemu-user: --version, doctor, status of a player store"
            accessenabler-diag --version
            accessenabler-diag doctor --base-url "$url" >/tmp/doctor.log 2>&1 || { cat /tmp/doctor.log; exit 1; }
            tail -n 1 /tmp/doctor.log
            accessenabler-diag status --store /tmp/store-player-pc.sqlite >/tmp/status.log 2>&1 || { cat /tmp/status.log; exit 1; }
            head -n 3 /tmp/status.log
        ' bash "${debs[@]}"
        ;;
    *) fail "unknown part $part (x86_64, aarch64, packages)" ;;
    esac
done
