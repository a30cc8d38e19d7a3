#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# check-header.sh — checks the C contract (Include/accessenabler.h) against the compilers and
# against the built library:
#   1. the header compiles alone (and twice: include guard) under strict C99 and C++17 with gcc/g++,
#      and with clang/clang++ when present; every AE_API function has a Doxygen block (@thread, @return);
#   2. the .so's .dynsym defines exactly the header's AE_API functions (nothing else, not even LOCAL),
#      each GLOBAL under the version node AE_1; the version script lists the same; every name follows
#      the naming scheme;
#   3. ldd of the .so shows no Swift runtime (libswift*, libFoundation, libdispatch): static stdlib
#      (AE_SWIFT_RUNTIME=shared, a build with AE_STATIC_SWIFT_RUNTIME=OFF: it does, found on the loader path);
#   4. Tests/c/smoke.c (no network) builds with -Wall -Wextra -Werror -pedantic and passes, and again
#      under valgrind when valgrind is installed.
#
# Usage (from anywhere):  Tests/c/check-header.sh
#   AE_LIBRARY=path/to/libaccessenabler.so   library to check (default .build/release/libaccessenabler.so)
#   AE_SWIFT_RUNTIME=shared                  the library links the Swift runtime dynamically (LD_LIBRARY_PATH
#                                            must find it)
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
    echo "  swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler" >&2
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

# The static initialisers, used as a host would, with every warning on (C99 designated; C++11 and
# later a value-initialised struct: no -Wmissing-field-initializers either way).
cat >"$tmp/init.c" <<'EOF'
#include "accessenabler.h"
int main(void) {
    ae_config config = AE_CONFIG_INIT;
    ae_delegate delegate = AE_DELEGATE_INIT;
    ae_partner_framework partner = AE_PARTNER_FRAMEWORK_INIT;
    ae_http_transport transport = AE_HTTP_TRANSPORT_INIT;
    return config.version == AE_CONFIG_VERSION && delegate.version == AE_DELEGATE_VERSION &&
                   partner.version == AE_PARTNER_FRAMEWORK_VERSION && transport.version == AE_HTTP_TRANSPORT_VERSION &&
                   config.software_statement == NULL && delegate.status == NULL && partner.cancel_request == NULL
               ? 0
               : 1;
}
EOF
cp "$tmp/init.c" "$tmp/init.cpp"
compile gcc-c99-AE_INIT gcc "${c_flags[@]}" "$tmp/init.c"
for standard in c++11 c++17 c++20; do
    compile "g++-$standard-AE_INIT" g++ -std=$standard -Wall -Wextra -pedantic -Werror "$tmp/init.cpp"
done
if command -v clang >/dev/null; then compile clang-c99-AE_INIT clang "${c_flags[@]}" "$tmp/init.c"; fi
if command -v clang++ >/dev/null; then compile clang++-c++17-AE_INIT clang++ "${cxx_flags[@]}" "$tmp/init.cpp"; fi

# A function renamed in a 1.x release (docs/ABI.md, "Deprecation"): its old name still compiles, with a
# warning that names the new one; AE_NO_DEPRECATED hides it.
cat >"$tmp/renamed.c" <<'EOF'
#include "accessenabler.h"
int main(void) { return ae_client_set_identity_token(0, AE_IDENTITY_TOKEN_PLATFORM, 0) == AE_E_INVALID_HANDLE ? 0 : 1; }
EOF
if gcc -std=c99 -Wall -Werror -I"$root/Include" -c -o "$tmp/renamed.o" "$tmp/renamed.c" 2>"$tmp/renamed.log"; then
    bad "ae_client_set_identity_token compiles without a deprecation warning"
elif grep -q 'renamed ae_set_identity_token in 1.4' "$tmp/renamed.log" &&
    gcc -std=c99 -Wall -Werror -Wno-deprecated-declarations -I"$root/Include" -c -o "$tmp/renamed.o" "$tmp/renamed.c"; then
    ok "the 1.2 name ae_client_set_identity_token compiles with a warning naming ae_set_identity_token"
else
    bad "ae_client_set_identity_token: no warning naming ae_set_identity_token:"
    head -n 10 "$tmp/renamed.log" | sed 's/^/        /'
fi
if gcc -std=c99 -Wall -Werror -DAE_NO_DEPRECATED -I"$root/Include" -c -o "$tmp/renamed.o" "$tmp/renamed.c" 2>/dev/null; then
    bad "AE_NO_DEPRECATED does not hide ae_client_set_identity_token"
else
    ok "AE_NO_DEPRECATED hides ae_client_set_identity_token"
fi

# ------------------------------------------------------------------------------------------------
echo "== documentation"
# Every AE_API function has a Doxygen block (/** ... */) right above it that states its threads
# (@thread, docs/api/Doxyfile's alias), and an @return when it returns something (scripts/api-docs.sh
# also wants each @param, @ownership and @callbacks).
undocumented=$(awk '
    /^\/\*\*/ { block = ""; in_block = 1 }
    in_block { block = block "\n" $0 }
    in_block && /\*\// { in_block = 0; closed = NR }
    /^AE_API[[:space:]]/ {
        name = $0; sub(/\(.*/, "", name); n = split(name, word, /[^A-Za-z0-9_]+/)
        if (closed != NR - 1 || block !~ /@thread/ || ($2 != "void" && block !~ /@return/)) print word[n]
    }' "$header" | tr '\n' ' ')
if [ -z "$undocumented" ]; then
    ok "every AE_API function has a Doxygen block with its threads (and @return)"
else
    bad "AE_API functions without a Doxygen block with @thread and @return: $undocumented"
fi

# Doxygen (scripts/api-docs.sh, warnings are errors) checks every function, struct, field and macro;
# it does not see enumerators of anonymous enums, so each gets its own /**< ... */ (or a /** */ block
# right above it) here.
undocumented=$(awk '
    /^enum \{/ { in_enum = 1; block_above = 0; next }
    in_enum && /^\};/ { in_enum = 0 }
    in_enum && /^[[:space:]]*\/\*\*[^<]/ { block_above = 1 }
    in_enum && /^    AE_[A-Z0-9_]+ =/ {
        if ($0 !~ /\/\*\*</ && !block_above) print $1
        block_above = 0
    }' "$header" | tr '\n' ' ')
if [ -z "$undocumented" ]; then
    ok "every enumerator has its own documentation"
else
    bad "enumerators without documentation: $undocumented"
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

# .dynsym, as the dynamic loader sees it: every symbol the .so defines (not UND), of any binding.
readelf --dyn-syms -W "$lib" | awk 'NR > 3 && $7 != "UND" && $8 != "" { print $5, $8 }' >"$tmp/dynsym"
sed 's/@.*//' "$tmp/dynsym" | awk '{ print $2 }' | sort >"$tmp/exported"
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
if [ -z "$missing" ]; then
    ok "every declared function is in .dynsym"
else
    bad "declared but not exported: $missing"
fi
# The header is the contract: nothing else is in .dynsym, not even as a LOCAL symbol (the linker's
# version-script leftovers: the system linker kept 110 Swift symbols there, lld keeps none).
others=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
if [ -z "$others" ]; then
    ok ".dynsym defines the header's $(wc -l <"$tmp/exported") functions and nothing else"
else
    bad "in .dynsym but not declared in the header: $others"
fi
# Each function carries the version node exports.map puts it in (AE_1, then AE_1.2, ...), as the
# default version (@@), GLOBAL.
map=Sources/AccessEnablerLink/exports.map
awk '/^AE_[0-9.]+ *\{/ { node = $1 } /^[[:space:]]+ae_[a-z0-9_]+;$/ { gsub(/[ ;]/, ""); print "GLOBAL", $0 "@@" node }' \
    "$map" | sort >"$tmp/expected-nodes"
sort "$tmp/dynsym" >"$tmp/actual-nodes"
if cmp -s "$tmp/expected-nodes" "$tmp/actual-nodes"; then
    ok "each is GLOBAL with the version node exports.map gives it ($(cut -d@ -f3 "$tmp/expected-nodes" | sort -u | tr '\n' ' '))"
else
    bad "version nodes differ from exports.map (< expected, > .dynsym):"
    diff "$tmp/expected-nodes" "$tmp/actual-nodes" | sed 's/^/        /' || true
fi
# The version script lists the same functions (a function added to the header must be added there,
# in a new node: docs/ABI.md).
grep -E '^[[:space:]]+ae_[a-z0-9_]+;$' "$map" | tr -d ' ;' | sort >"$tmp/mapped"
if cmp -s "$tmp/declared" "$tmp/mapped"; then
    ok "$map lists exactly the header's functions"
else
    bad "$map and the header differ (< header, > map):"
    diff "$tmp/declared" "$tmp/mapped" | sed 's/^/        /' || true
fi

# One naming scheme (docs/DECISIONS.md): AccessEnabler's calls keep AccessEnabler's names; every
# other function is ae_<object>_<verb>, its object one of the header's types or global objects (diag: the
# diagnostics of 1.5, which take a config but make no client).
accessenabler_calls='set_options set_requestor check_authentication get_authentication set_selected_provider
    get_selected_provider check_authorization get_authorization check_preauthorized_resources get_metadata
    logout handle_external_url preauthorize
    set_identity_token
    set_option_string set_option_bool check_preauthorized_resources_list get_metadata_key preauthorize_list'
# (set_identity_token: the SDK's one call of its own, in the calls' form beside set_options; the last
# line: the calls with typed arguments, each named after its call; all 1.4)
objects='client config delegate partner_framework partner_request http_transport http_request identity_provider
    identity_request string status payload callback
    version last_error diag'
misnamed=""
while read -r name; do
    call=${name#ae_} fits=""
    for known in $accessenabler_calls; do [ "$call" = "$known" ] && fits=1; done
    for object in $objects; do case $call in "${object}"_*) fits=1 ;; esac; done
    [ -n "$fits" ] || misnamed="$misnamed $name"
done <"$tmp/declared"
if [ -z "$misnamed" ]; then
    ok "every function is an AccessEnabler call or ae_<object>_<verb>"
else
    bad "names outside the scheme (docs/DECISIONS.md):$misnamed"
fi

# ------------------------------------------------------------------------------------------------
echo "== dependencies (ldd)"
ldd "$lib" >"$tmp/ldd"
if [ "${AE_SWIFT_RUNTIME:-static}" = shared ]; then
    if grep -q 'libswiftCore.so => /' "$tmp/ldd"; then
        ok "the Swift runtime is a dynamic dependency (shared runtime build): $(grep -cE 'libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation' "$tmp/ldd") libraries"
    else
        bad "AE_SWIFT_RUNTIME=shared but libswiftCore.so is not a resolved dependency"
    fi
elif ! grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' "$tmp/ldd" >"$tmp/swift-deps"; then
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
    # A library with a SONAME (CMake's, a package's) is what the program then asks for by that name.
    soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
    [ -z "$soname" ] || [ -e "$tmp/lib/$soname" ] || ln -s "$lib" "$tmp/lib/$soname"
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
        if LD_LIBRARY_PATH=$tmp/vg${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} valgrind -q --error-exitcode=9 --leak-check=no "$tmp/smoke" \
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
