#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# check-cmake-package.sh — the CMake build as a consumer sees it:
#   1. configure (with the C example player), build (SwiftPM inside), ctest (smoke, header checks, the
#      C player's flow against the emulator), and install the root CMakeLists.txt into a temp prefix:
#      the header, the library with its SONAME and its two links, the CMake package, the .pc file, the
#      diagnostics tool accessenabler-diag (it runs) and its man page;
#   2. build and run Tests/c/consumer (find_package(AccessEnabler CONFIG REQUIRED)) against it: it
#      compiles with the installed header and records the SONAME, not a path;
#   3. pkg-config --cflags --libs accessenabler, and a program built with just that; Examples/minimal
#      (the README's C program) built the same way and run against the emulator;
#   4. move the installed tree and build the consumer again (the package config is relocatable).
#
# Needs: a Swift toolchain (swift on PATH or in /opt/swift), the library's -dev packages
# (libcurl, sqlite3, openssl), and: apt-get install cmake ninja-build pkg-config libqrencode-dev
#
# Usage (from anywhere):  Tests/c/check-cmake-package.sh
#   AE_CMAKE_BUILD_DIR=dir   reuse (and keep) this CMake build directory instead of a fresh temp one
#                            (the SwiftPM build takes minutes the first time, seconds afterwards)
set -euo pipefail

caller_dir=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)

for tool in cmake pkg-config cc readelf; do
    if ! command -v "$tool" >/dev/null; then
        echo "check-cmake-package: $tool not found (apt-get install cmake ninja-build pkg-config gcc binutils)" >&2
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ae-check-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${AE_CMAKE_BUILD_DIR:-}" ]; then
    case $AE_CMAKE_BUILD_DIR in /*) build=$AE_CMAKE_BUILD_DIR ;; *) build=$caller_dir/$AE_CMAKE_BUILD_DIR ;; esac
else
    build=$tmp/build
fi
prefix=$tmp/prefix

# Ninja when available; a build directory that exists keeps the generator it was made with.
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi

steps=0
# run LABEL COMMAND...: quiet when it works, the end of its output when it fails (then exit 1).
run() {
    local label=$1
    shift
    if "$@" >"$tmp/log" 2>&1; then
        steps=$((steps + 1))
        echo "  ok    $label"
    else
        echo "  FAIL  $label: $*"
        tail -n 60 "$tmp/log" | sed 's/^/        /'
        exit 1
    fi
}
# expect LABEL ACTUAL WANTED: string equality.
expect() {
    if [ "$2" = "$3" ]; then
        steps=$((steps + 1))
        echo "  ok    $1"
    else
        echo "  FAIL  $1: got '$2', want '$3'"
        exit 1
    fi
}

version=$(sed -n 's/^#define AE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' Include/accessenabler.h | paste -sd.)  # the header's
# SOVERSION: MAJOR.MINOR while MAJOR is 0, else MAJOR (CMakeLists.txt).
case $version in 0.*) soversion=${version%.*} ;; *) soversion=${version%%.*} ;; esac
soname=libaccessenabler.so.$soversion
# soname_of FILE / needed_of FILE: the DT_SONAME / the DT_NEEDED entries naming accessenabler.
soname_of() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p'; }
needed_of() { readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*accessenabler.*\)\].*/\1/p'; }

echo "== build, test and install ($build -> $prefix)"
run "configure (BUILD_EXAMPLES=ON)" cmake -S "$root" -B "$build" "${generator[@]}" -DBUILD_EXAMPLES=ON -DCPLAYER_WERROR=ON
echo "  ...   build (swift build -c release: a few minutes the first time)"
run "build" cmake --build "$build"
run "ctest (smoke, check-header, c-player)" ctest --test-dir "$build" --output-on-failure
run "install" cmake --install "$build" --prefix "$prefix"

# GNUInstallDirs picks the library directory (lib, lib64 or lib/<triple>): find it from the config.
config=$(find "$prefix" -name AccessEnablerConfig.cmake | head -n 1)
[ -n "$config" ] || { echo "  FAIL  no AccessEnablerConfig.cmake under $prefix"; exit 1; }
libdir=$(cd "$(dirname "$config")/../.." && pwd)
for file in "$prefix/include/accessenabler.h" "$libdir/libaccessenabler.so.$version" \
    "$libdir/cmake/AccessEnabler/AccessEnablerConfigVersion.cmake" "$libdir/pkgconfig/accessenabler.pc"; do
    run "installed ${file#"$prefix"/}" test -f "$file"
done
expect "SONAME of libaccessenabler.so.$version" "$(soname_of "$libdir/libaccessenabler.so.$version")" "$soname"
expect "$soname is a link to the library" "$(readlink "$libdir/$soname")" "libaccessenabler.so.$version"
expect "libaccessenabler.so is a link to the SONAME" "$(readlink "$libdir/libaccessenabler.so")" "$soname"
# The diagnostics tool (BUILD_TOOLS, on by default) and its man page; it finds the installed library by its
# SONAME (installed programs carry no RPATH: the loader's path here).
for file in "$prefix/bin/accessenabler-diag" "$prefix/share/man/man1/accessenabler-diag.1"; do
    run "installed ${file#"$prefix"/}" test -f "$file"
done
expect "the installed accessenabler-diag runs" "$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$prefix/bin/accessenabler-diag" --version)" "accessenabler-diag $version (libaccessenabler $version)"

echo "== CMake consumer (Tests/c/consumer: find_package(AccessEnabler CONFIG REQUIRED))"
run "configure" cmake -S Tests/c/consumer -B "$tmp/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
run "build" cmake --build "$tmp/consumer"
# It must compile against the installed header, not the source tree's.
run "uses the installed header" grep -q -- "$prefix/include" "$tmp/consumer/compile_commands.json"
run "does not use the source tree's Include/" bash -c "! grep -q -- '$root/Include' '$tmp/consumer/compile_commands.json'"
expect "consumer runs" "$("$tmp/consumer/consumer")" "accessenabler $version"
expect "consumer records the SONAME" "$(needed_of "$tmp/consumer/consumer")" "$soname"
# The exports carry the version node (exports.map) and the program binds to it: ae_version_string@AE_1.
expect "the installed library's exports are all in a version node AE_1 or AE_1.x" \
    "$(readelf --dyn-syms -W "$libdir/libaccessenabler.so.$version" | awk '$7 != "UND" && $8 ~ /^ae_/' |
        grep -vcE '@@AE_1(\.[0-9]+)?$' || true)" "0"
expect "consumer binds ae_version_string@AE_1" \
    "$(readelf --dyn-syms -W "$tmp/consumer/consumer" | awk '$8 ~ /^ae_version_string@/ { print $8 }')" \
    "ae_version_string@AE_1"

echo "== pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
expect "modversion" "$(pkg-config --modversion accessenabler)" "$version"
expect "--cflags --libs" "$(pkg-config --cflags --libs accessenabler | sed 's/ *$//')" \
    "-I$prefix/include -L$libdir -laccessenabler"
# shellcheck disable=SC2046 # word splitting of pkg-config's output is intended
run "build with pkg-config flags" cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/c/consumer/main.c \
    $(pkg-config --cflags accessenabler) $(pkg-config --libs accessenabler) -Wl,-rpath,"$libdir" -o "$tmp/pc-consumer"
expect "pkg-config consumer runs" "$("$tmp/pc-consumer")" "accessenabler $version"
expect "pkg-config consumer records the SONAME" "$(needed_of "$tmp/pc-consumer")" "$soname"

echo "== Examples/minimal (the README's C program), built as its comment says, run against the emulator"
# shellcheck disable=SC2046 # word splitting of pkg-config's output is intended
run "cc minimal.c \$(pkg-config --cflags --libs accessenabler)" cc -Wall -Wextra -Werror -o "$tmp/minimal" \
    Examples/minimal/minimal.c $(pkg-config --cflags --libs accessenabler) -Wl,-rpath,"$libdir"
run "minimal.c: setRequestor, second-screen login, a media token, logout" \
    env TMPDIR="$tmp" bash scripts/with-emulator.sh --auto-login-ms 1000 -- "$tmp/minimal" "{url}"
for line in "setRequestor: done" "enter the code" "media token for LIVE" "authenticated: 0" "done"; do
    grep -q -- "$line" "$tmp/log" || { echo "  FAIL  minimal.c printed no \"$line\":"; sed 's/^/        /' "$tmp/log"; exit 1; }
done
steps=$((steps + 1))
echo "  ok    minimal.c printed each step ($(wc -l <"$tmp/log") lines)"

echo "== relocated install"
mv "$prefix" "$tmp/moved"
run "configure" cmake -S Tests/c/consumer -B "$tmp/consumer-moved" "${generator[@]}" -DCMAKE_PREFIX_PATH="$tmp/moved"
run "build" cmake --build "$tmp/consumer-moved"
expect "consumer runs" "$("$tmp/consumer-moved/consumer")" "accessenabler $version"

echo "== check-cmake-package: $steps steps passed"
