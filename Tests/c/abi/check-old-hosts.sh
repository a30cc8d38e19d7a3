#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# check-old-hosts.sh — hosts compiled against every earlier layout of the public structs
# (Tests/c/abi/layouts.h) against today's library, under AddressSanitizer: builds old_hosts.c with
# -fsanitize=address and runs it against the emulator (started here on a free port). Against the
# release library, ASan sees the host's side and the library's calls into libc; the guard bytes
# after each struct see the library's own stores (a library that writes a whole current struct
# into an old one fails here: tried). scripts/sanitizers.sh also runs it against an ASan build of
# the library, where every read and write of the library past an old struct is a report.
#
# Usage: Tests/c/abi/check-old-hosts.sh
#   AE_LIBRARY=path/to/libaccessenabler.so   default .build/release/libaccessenabler.so
#   AE_SANITIZE=none                         without AddressSanitizer (under qemu-user, which it does not run in:
#                                            the guard bytes after each struct still see the library's stores)
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
root=$(pwd)
lib=${AE_LIBRARY:-$root/.build/release/libaccessenabler.so}
case $lib in /*) ;; *) lib=$caller_dir/$lib ;; esac
[ -f "$lib" ] || { echo "check-old-hosts: $lib not found (swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ae-old-hosts.XXXXXX")
emulator=""
trap '[ -z "$emulator" ] || kill "$emulator" 2>/dev/null; rm -rf "$tmp"' EXIT

# -l needs the name libaccessenabler.so; a library with a SONAME is also found under that name.
mkdir "$tmp/lib"
ln -s "$lib" "$tmp/lib/libaccessenabler.so"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ -z "$soname" ] || ln -s "$lib" "$tmp/lib/$soname"

sanitize=(-fsanitize=address -fno-omit-frame-pointer)
[ "${AE_SANITIZE:-address}" != none ] || sanitize=()
gcc -std=c11 -g -O1 "${sanitize[@]}" -Wall -Wextra -Werror -pedantic \
    -I"$root/Include" Tests/c/abi/old_hosts.c -L"$tmp/lib" -Wl,-rpath,"$tmp/lib" -laccessenabler -lpthread \
    -o "$tmp/old_hosts"

python3 Emulator/emulator.py --port 0 --quiet --throttle off >"$tmp/emulator.out" 2>"$tmp/emulator.err" &
emulator=$!
for _ in $(seq 600); do grep -q AE_EMULATOR_LISTENING "$tmp/emulator.out" && break; sleep 0.1; done
url=$(awk '/AE_EMULATOR_LISTENING/ { print $2 }' "$tmp/emulator.out")
[ -n "$url" ] || { echo "check-old-hosts: the emulator did not start" >&2; cat "$tmp/emulator.err" >&2; exit 1; }

# Leaks are the valgrind step's (scripts/sanitizers.sh): the Swift runtime keeps allocations by design.
ASAN_OPTIONS="detect_leaks=0:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$tmp/old_hosts" "$url"
