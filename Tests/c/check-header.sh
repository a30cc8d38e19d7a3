#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# check-header.sh — checks the C contract (Include/accessenabler.h) against the compilers and
# against the built library:
#   1. the header compiles alone (and twice: include guard) under strict C99 and C++17 with gcc/g++,
#      and with clang/clang++ when present; every AE_API function has a Doxygen block (threads, @return);
#   2. the .so exports every AE_API function of the header as a text symbol, no ae_* function the
#      header lacks, and no other global symbol;
#   3. ldd of the .so shows no Swift runtime (libswift*, libFoundation, libdispatch): static stdlib;
#   4. Tests/c/smoke.c (no network) builds with -Wall -Wextra -Werror -pedantic and passes, and again
#      under valgrind when valgrind is installed.
#
# Usage (from anywhere):  Tests/c/check-header.sh
#   AE_LIBRARY=path/to/libaccessenabler.so   library to check (default .build/release/libaccessenabler.so)
# Exits 0 when every check passed, 1 otherwise.
set -euo pipefail

caller_dir=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
header=Include/accessenabler.h

# AE_LIBRARY is relative to the caller's directory; the default is relative to the repo root.
if [ -n "${AE_LIBRARY:-}" ]; then
    case $AE_LIBRARY in /*) lib=$AE_LIBRARY ;; *) lib=$caller_dir/$AE_LIBRARY ;; esac
else
    lib=$root/.build/release/libaccessenabler.so
fi
if [ ! -f "$lib" ]; then
    echo "check-header: $lib not found. Build it first:" >&2
    echo "  swift build -c release -Xswiftc -static-stdlib --product accessenabler" >&2
    echo "or point AE_LIBRARY at a built libaccessenabler.so." >&2
    exit 1
fi
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ae-check-header.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "  ok    $*"; }
bad() { failed=$((failed + 1)); echo "  FAIL  $*"; }

# ------------------------------------------------------------------------------------------------
echo "== header compiles alone ($header)"
printf '#include "accessenabler.h"\n#include "accessenabler.h" /* the include guard */\n' >"$tmp/header.c"
cp "$tmp/header.c" "$tmp/header.cpp"

compile() { # compile NAME COMPILER FLAGS... SOURCE
    local name=$1
    shift
    if "$@" -I"$root/Include" -c -o "$tmp/$name.o" 2>"$tmp/$name.log"; then
        ok "$name"
    else
        bad "$name:"
        head -n 20 "$tmp/$name.log" | sed 's/^/        /'
    fi
}
c_flags=(-std=c99 -Wall -Wextra -pedantic -Werror -Wstrict-prototypes)
cxx_flags=(-std=c++17 -Wall -Wextra -pedantic -Werror)
compile gcc-c99 gcc "${c_flags[@]}" "$tmp/header.c"
compile g++-c++17 g++ "${cxx_flags[@]}" "$tmp/header.cpp"
if command -v clang >/dev/null; then
    compile clang-c99 clang "${c_flags[@]}" "$tmp/header.c"
else
    echo "  skip  clang (not installed)"
fi
if command -v clang++ >/dev/null; then
    compile clang++-c++17 clang++ "${cxx_flags[@]}" "$tmp/header.cpp"
else
    echo "  skip  clang++ (not installed)"
fi

# ------------------------------------------------------------------------------------------------
echo "== documentation"
# Every AE_API function has a Doxygen block (/** ... */) right above it that states its threads,
# and an @return when it returns something.
undocumented=$(awk '
    /^\/\*\*/ { block = ""; in_block = 1 }
    in_block { block = block "\n" $0 }
    in_block && /\*\// { in_block = 0; closed = NR }
    /^AE_API[[:space:]]/ {
        name = $0; sub(/\(.*/, "", name); n = split(name, word, /[^A-Za-z0-9_]+/)
        if (closed != NR - 1 || block !~ /Thread/ || ($2 != "void" && block !~ /@return/)) print word[n]
    }' "$header" | tr '\n' ' ')
if [ -z "$undocumented" ]; then
    ok "every AE_API function has a Doxygen block with its threads (and @return)"
else
    bad "AE_API functions without a Doxygen block naming Thread and @return: $undocumented"
fi

# ------------------------------------------------------------------------------------------------
echo "== exports of $lib"
# The header's functions: every declaration starts a line with `AE_API`; the name is the last
# identifier before the first `(` (joined across lines, in case a declaration is ever wrapped).
awk '
    /^[[:space:]]*AE_API[[:space:]]/ { decl = ""; collecting = 1 }
    collecting {
        decl = decl " " $0
        if (index(decl, "(")) {
            sub(/[[:space:]]*\(.*/, "", decl)
            n = split(decl, word, /[^A-Za-z0-9_]+/)
            print word[n]
            collecting = 0
        }
    }' "$header" | sort >"$tmp/declared"
declared_count=$(wc -l <"$tmp/declared")
# A parser that silently finds nothing (or garbage) must not pass.
if [ "$declared_count" -ge 22 ] && ! grep -qv '^ae_[a-z0-9_]*$' "$tmp/declared" &&
    [ -z "$(uniq -d "$tmp/declared")" ]; then
    ok "header declares $declared_count AE_API functions (>= 22, all ae_*, unique)"
else
    bad "header parse gave $declared_count names (want >= 22 unique ae_* names):"
    sed 's/^/        /' "$tmp/declared"
fi

nm -D --defined-only "$lib" >"$tmp/nm"
awk '$2 == "T" { print $3 }' "$tmp/nm" | sort >"$tmp/exported"
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
if [ -z "$missing" ]; then
    ok "every declared function is exported (T)"
else
    bad "declared but not exported as T: $missing"
fi
# The header is the contract: an exported ae_* function it does not declare is not API.
undeclared=$(grep '^ae_' "$tmp/exported" | comm -13 "$tmp/declared" - | tr '\n' ' ' || true)
if [ -z "$undeclared" ]; then
    ok "no exported ae_* function missing from the header"
else
    bad "exported but not declared in the header: $undeclared"
fi
# Global (upper-case type) symbols other than ae_* and the linker's own leak implementation names.
others=$(awk '$2 ~ /^[A-Z]$/ && $3 !~ /^ae_/ && $3 !~ /^(_init|_fini|_edata|_end|__bss_start)$/ { print $2 " " $3 }' \
    "$tmp/nm")
if [ -z "$others" ]; then
    ok "no global symbol other than ae_* ($(wc -l <"$tmp/exported") text symbols)"
else
    bad "global symbols outside ae_*:"
    echo "$others" | head -20 | sed 's/^/        /'
fi

# ------------------------------------------------------------------------------------------------
echo "== dependencies (ldd)"
ldd "$lib" >"$tmp/ldd"
if ! grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' "$tmp/ldd" >"$tmp/swift-deps"; then
    ok "no libswift*/libFoundation/libdispatch (static Swift stdlib)"
else
    bad "Swift runtime libraries are dynamic dependencies:"
    sed 's/^/        /' "$tmp/swift-deps"
fi
if grep -q 'not found' "$tmp/ldd"; then
    bad "unresolved dependencies:"
    grep 'not found' "$tmp/ldd" | sed 's/^/        /'
else
    ok "every dependency resolves"
fi

# ------------------------------------------------------------------------------------------------
echo "== smoke test (Tests/c/smoke.c)"
# smoke.c must list every code of the header's status enum.
sed -n '/^enum {/,/^};/p' "$header" | grep -oE '\bAE_(OK|E_[A-Z_]+)\b' | sort -u >"$tmp/codes.header"
sed -n '/codes\[\] = {/,/};/p' Tests/c/smoke.c | grep -oE '\bAE_(OK|E_[A-Z_]+)\b' | sort -u >"$tmp/codes.smoke"
if [ -s "$tmp/codes.header" ] && cmp -s "$tmp/codes.header" "$tmp/codes.smoke"; then
    ok "smoke.c covers the $(wc -l <"$tmp/codes.header") status codes of the header"
else
    bad "status codes of the header vs smoke.c's codes[]:"
    diff "$tmp/codes.header" "$tmp/codes.smoke" | sed 's/^/        /' || true
fi

# Link with -L/-l as a consumer would; the file must be called libaccessenabler.so for -l.
libdir=$(dirname "$lib")
if [ "$(basename "$lib")" != libaccessenabler.so ]; then
    mkdir "$tmp/lib" && ln -s "$lib" "$tmp/lib/libaccessenabler.so" && libdir=$tmp/lib
fi
if gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$root/Include" Tests/c/smoke.c \
    -L"$libdir" -Wl,-rpath,"$libdir" -laccessenabler -o "$tmp/smoke" 2>"$tmp/smoke.log"; then
    ok "smoke.c builds (gcc -std=c99 -Wall -Wextra -Werror -pedantic)"
    if "$tmp/smoke" >"$tmp/smoke.out" 2>&1; then
        ok "$(tail -n 1 "$tmp/smoke.out" | sed 's/^smoke: //')"
    else
        bad "smoke test:"
        sed 's/^/        /' "$tmp/smoke.out"
    fi
    if command -v valgrind >/dev/null; then
        # Debian 12's valgrind (3.19) cannot read the DWARF 5 the Swift toolchain emits and gives
        # up on the whole run, so it gets a copy without debug info (LD_LIBRARY_PATH beats RUNPATH).
        # Leak checking is off: the Swift runtime keeps "possibly lost" allocations by design.
        # The copy goes under the name the program asks for: the SONAME when the library has one.
        soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
        mkdir -p "$tmp/vg"
        objcopy --strip-debug "$lib" "$tmp/vg/${soname:-libaccessenabler.so}"
        if LD_LIBRARY_PATH=$tmp/vg valgrind -q --error-exitcode=9 --leak-check=no "$tmp/smoke" \
            >"$tmp/vg.out" 2>&1; then
            ok "smoke test under valgrind: no invalid reads/writes"
        else
            bad "smoke test under valgrind:"
            tail -n 40 "$tmp/vg.out" | sed 's/^/        /'
        fi
    else
        echo "  skip  valgrind (not installed)"
    fi
else
    bad "smoke.c does not build:"
    head -n 20 "$tmp/smoke.log" | sed 's/^/        /'
fi

# ------------------------------------------------------------------------------------------------
echo "== check-header: $passed passed, $failed failed ($lib)"
[ "$failed" -eq 0 ]
