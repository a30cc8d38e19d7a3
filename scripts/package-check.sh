#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# package-check.sh — the Debian packages as a firmware team gets them (scripts/test.sh runs it in CI):
#   1. build them (scripts/package.sh: CMake, CPack DEB) and lint them: lintian reports no error and no
#      warning but those packaging/debian/*.lintian-overrides accept (docs/PACKAGING.md says why);
#   2. their contents: control fields, file lists, modes and owners, the library stripped with no RUNPATH,
#      shlibs/symbols/triggers, and a Depends entry for the package of every library the .so NEEDS; the
#      API reference in the -dev package (built with AE_API_DOCS=ON: doxygen is needed): its HTML, and a
#      man page for every function of the header;
#   3. the recipes' layout (packaging/yocto, packaging/buildroot) against the .debs' (scripts/check-recipes.py);
#   4. as root: dpkg -i all three, run accessenabler-diag, build Examples/CPlayer against the INSTALLED package twice (pkg-config, and
#      CMake's find_package(AccessEnabler)), run both against the emulator, dpkg --purge all, and check
#      that nothing of them is left. Not root: says so and stops after step 3.
#
# Usage: scripts/package-check.sh [--prebuilt LIB] [--shared-runtime]
#   --prebuilt LIB     package this library, built already with its SONAME (scripts/test.sh passes the one
#                      its CMake package step built: <build>/lib/libaccessenabler.so.<version>); default:
#                      CMake builds one with SwiftPM (minutes)
#   --shared-runtime   the library links the Swift runtime dynamically (AE_STATIC_SWIFT_RUNTIME=OFF): the
#                      players run with LD_LIBRARY_PATH=<the toolchain's lib/swift/linux>
# Needs: cmake, dpkg-dev, file, lintian, pkg-config, libqrencode-dev, gcc, python3, doxygen (scripts/deps.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."

# xz takes 3 times as long here (lintian checks the same); the API reference is required, not AUTO.
package_args=(-- -DAE_DEB_COMPRESSION=gzip -DAE_API_DOCS=ON)
shared=false
while [ $# -gt 0 ]; do
    case $1 in
        --prebuilt) package_args=(--prebuilt "$2" "${package_args[@]}"); shift 2 ;;
        --shared-runtime) shared=true; package_args=(--shared-runtime "${package_args[@]}"); shift ;;
        *) echo "usage: scripts/package-check.sh [--prebuilt LIB] [--shared-runtime]" >&2; exit 2 ;;
    esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ae-package-check.XXXXXX")
installed=false
cleanup() {
    local status=$?
    if $installed; then dpkg --purge accessenabler-tools libaccessenabler-dev libaccessenabler1 >/dev/null 2>&1 || true; fi
    rm -rf "$tmp"
    return $status
}
trap cleanup EXIT

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
        echo "  FAIL  $1:"
        diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") | sed 's/^/        /' || true
        exit 1
    fi
}

version=$(sed -n 's/^#define AE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' Include/accessenabler.h | paste -sd.)  # the header's
case $version in 0.*) soversion=${version%.*} ;; *) soversion=${version%%.*} ;; esac
soname=libaccessenabler.so.$soversion
runtime=libaccessenabler$soversion
dev=libaccessenabler-dev
tools=accessenabler-tools
revision=$(sed -n '1s/^accessenabler ([0-9.]*-\([^)]*\)).*/\1/p' packaging/debian/changelog)
debversion=$version-$revision
multiarch=$(gcc -print-multiarch)
libdir=usr/lib/$multiarch

echo "== build and lint (scripts/package.sh)"
run "cpack, lintian (0 errors, 0 warnings not accepted)" bash scripts/package.sh --build-dir "$tmp/build" "${package_args[@]}"
sed -n 's/^lintian: /        lintian: /p' "$tmp/log"
deb_runtime=$(sed -n "s|^deb: \(.*/${runtime}_.*\.deb\)$|\1|p" "$tmp/log")
deb_dev=$(sed -n "s|^deb: \(.*/${dev}_.*\.deb\)$|\1|p" "$tmp/log")
deb_tools=$(sed -n "s|^deb: \(.*/${tools}_.*\.deb\)$|\1|p" "$tmp/log")
arch=$(dpkg --print-architecture)
expect "the packages" "$(basename "$deb_runtime") $(basename "$deb_dev") $(basename "$deb_tools")" \
    "${runtime}_${debversion}_$arch.deb ${dev}_${debversion}_$arch.deb ${tools}_${debversion}_$arch.deb"

echo "== contents"
field() { dpkg-deb -f "$1" "$2"; }
for deb in "$deb_runtime" "$deb_dev" "$deb_tools"; do
    name=$(field "$deb" Package)
    expect "$name: Version, Priority, Maintainer, Homepage, Source" \
        "$(field "$deb" Version) $(field "$deb" Priority) $(field "$deb" Source) $(field "$deb" Homepage | cut -c1-8)" \
        "$debversion optional accessenabler https://"
    run "$name: a Maintainer" test -n "$(field "$deb" Maintainer)"
    # Every entry root-owned; files 0644 (programs in usr/bin/ 0755), directories 0755, links 0777 (ls shows lrwxrwxrwx).
    expect "$name: owners and modes" \
        "$(dpkg-deb -c "$deb" | awk '$2 != "root/root" || ($1 !~ /^(-rw-r--r--|drwxr-xr-x|lrwxrwxrwx)$/ &&
            !($1 == "-rwxr-xr-x" && $6 ~ /^\.\/usr\/bin\//)) { print }')" ""
done
expect "$runtime: Section" "$(field "$deb_runtime" Section)" libs
expect "$dev: Section" "$(field "$deb_dev" Section)" libdevel
expect "$dev: Depends on the exact runtime version" "$(field "$deb_dev" Depends)" "$runtime (= $debversion)"
expect "$tools: Section" "$(field "$deb_tools" Section)" utils
# dpkg-shlibdeps' libc6, and the runtime that has the AE_1.5 functions the tool calls.
expect "$tools: Depends on libc6 and this runtime or a later one" \
    "$(field "$deb_tools" Depends | tr ',' '\n' | sed 's/^ *//; s/ (.*//' | sort | paste -sd' ')" "libaccessenabler$soversion libc6"
expect "$tools: the runtime's version in Depends" "$(field "$deb_tools" Depends | grep -o "$runtime (>= [0-9.]*)")" \
    "$runtime (>= $version)"
# The file lists (links as name -> target), directories left out.
files_of() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); $1 = $2 = $3 = $4 = $5 = ""; print }' | sed 's/^ *//' | sort; }
expect "$runtime: files" "$(files_of "$deb_runtime")" "$(printf '%s\n' \
    "$libdir/$soname -> libaccessenabler.so.$version" "$libdir/libaccessenabler.so.$version" \
    "usr/share/doc/$runtime/changelog.Debian.gz" "usr/share/doc/$runtime/copyright" \
    "usr/share/lintian/overrides/$runtime" | sort)"
expect "$tools: files" "$(files_of "$deb_tools")" "$(printf '%s\n' usr/bin/accessenabler-diag \
    usr/share/man/man1/accessenabler-diag.1.gz "usr/share/doc/$tools/changelog.Debian.gz" \
    "usr/share/doc/$tools/copyright" "usr/share/lintian/overrides/$tools" | sort)"
# The API reference (html/ and the man pages) is checked on its own below: its files follow doxygen and the header.
reference="^(usr/share/doc/$dev/html/|usr/share/man/man3/)"
expect "$dev: files" "$(files_of "$deb_dev" | grep -Ev "$reference")" "$(printf '%s\n' usr/include/accessenabler.h \
    "$libdir/cmake/AccessEnabler/AccessEnablerConfig.cmake" "$libdir/cmake/AccessEnabler/AccessEnablerConfigVersion.cmake" \
    "$libdir/libaccessenabler.so -> $soname" "$libdir/pkgconfig/accessenabler.pc" \
    usr/share/doc/$dev/{ABI,CROSS,ERRORS,PACKAGING,PLUGGING,README,THREADING}.md \
    "usr/share/doc/$dev/changelog.Debian.gz" "usr/share/doc/$dev/copyright" "usr/share/lintian/overrides/$dev" | sort)"
# The API reference: the HTML's index and a page per topic (the header's @defgroups); the man pages gzip'd
# (Debian), a page per topic (accessenabler-<group>), the header's page and its link accessenabler.3, and
# for every AE_API function of the header a link to its topic's page.
topics=$(sed -n 's|^/\*\* @defgroup \([a-z]*\) .*|\1|p' Include/accessenabler.h)
html=$(files_of "$deb_dev" | sed -n "s|^usr/share/doc/$dev/html/||p")
expect "$dev: the HTML reference (index.html, group__<topic>.html)" \
    "$(grep -xE 'index\.html|group__[a-z]+\.html' <<<"$html" | sort)" \
    "$(printf '%s\n' index.html $(printf 'group__%s.html\n' $topics) | sort)"
man3=$(files_of "$deb_dev" | sed -n 's|^usr/share/man/man3/||p')
# The reference's own pages (docs/api/*.md but the main page): accessenabler-<anchor>.3 (scripts/api-docs.sh).
pages=$(sed -n 's/^# .*{#\([a-z_]*\)}$/\1/p' docs/api/*.md | grep -vx mainpage | tr '_' '-')
expect "$dev: man pages of the topics and of the header (the structs' are ae_*)" \
    "$(grep -v -- ' -> ' <<<"$man3" | grep -Ev '^ae_[a-z0-9_]+\.3\.gz$')" \
    "$(printf '%s\n' $(printf 'accessenabler-%s.3.gz\n' $topics deprecated $pages) accessenabler.h.3.gz | sort)"
missing=""
grep -qxF "accessenabler.3.gz -> accessenabler.h.3.gz" <<<"$man3" || missing+=" accessenabler"
for function in $(sed -n 's/^AE_API [^(]*[ *]\(ae_[a-z0-9_]*\)(.*/\1/p' Include/accessenabler.h); do
    grep -Eq "^$function\.3\.gz -> accessenabler-[a-z]+\.3\.gz\$" <<<"$man3" || missing+=" $function"
done
expect "$dev: a man page (a link to its topic's) for every function, and man accessenabler" "${missing# }" ""
dangling=$(awk '$2 == "->" { print $1, $3 }' <<<"$man3" | while read -r link target; do
    grep -qxF -- "$target" <<<"$man3" || echo "$link -> $target"; done)
expect "$dev: every man page link has its page" "$dangling" ""
dpkg-deb -x "$deb_runtime" "$tmp/runtime"
dpkg-deb -e "$deb_runtime" "$tmp/runtime-control"
library=$tmp/runtime/$libdir/libaccessenabler.so.$version
run "the library is stripped (no .symtab, no .comment)" bash -c "! readelf -S -W '$library' | grep -qE ' \\.(symtab|comment) '"
run "the library has no RPATH or RUNPATH" bash -c "! readelf -d '$library' | grep -qE 'R(UN)?PATH'"
expect "the library's SONAME" "$(readelf -d "$library" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')" "$soname"
expect "control files" "$(find "$tmp/runtime-control" -type f -printf '%f ' | tr ' ' '\n' | sort | tr '\n' ' ')" "control md5sums postinst postrm shlibs symbols triggers "
# shlibs asks for the release that brought the newest exported symbol (a release that adds none, as 1.3,
# keeps the previous one: a program built against it runs with that library), from the symbols file.
newest=$(sed -n 's/^ ae_[a-z0-9_]*@AE_[0-9.]* \([0-9.]*\)$/\1/p' "$tmp/runtime-control/symbols" | sort -V | tail -1)
expect "shlibs" "$(cat "$tmp/runtime-control/shlibs")" "libaccessenabler $soversion $runtime (>= $newest)"
exported=$(readelf --dyn-syms -W "$library" | awk '$7 != "UND" && $8 ~ /^ae_/' | wc -l)
expect "symbols: every exported function, with the release that brought it" \
    "$(grep -cE '^ ae_[a-z0-9_]+@AE_[0-9.]+ [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/runtime-control/symbols")" "$exported"
expect "triggers" "$(cat "$tmp/runtime-control/triggers")" "activate-noawait ldconfig"
# Computed dependencies: the package of every library the .so NEEDS is in Depends (the Swift runtime of a
# shared-runtime build belongs to no Debian package here: the package says so in its Description).
depends=$(field "$deb_runtime" Depends)
missing=""
ldd "$library" >"$tmp/ldd" || true
for needed in $(readelf -d "$library" | sed -n 's/.*Shared library: \[\(.*\)\].*/\1/p'); do
    if $shared && [[ $needed =~ ^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime) ]]; then continue; fi
    # "libcurl.so.4 => /lib/.../libcurl.so.4 (0x...)", or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    path=$(awk -v lib="$needed" '$1 == lib && $2 == "=>" { print $3 } $1 ~ "/" lib "$" { print $1 }' "$tmp/ldd" | head -n 1)
    owner=$( (dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null || echo "?:") | head -n 1 | cut -d: -f1)
    tr ',|' '\n' <<<"$depends" | awk '{ print $1 }' | grep -qxF -- "$owner" || missing+=" $needed($owner)"
done
expect "Depends ($depends) has the package of every NEEDED library" "${missing# }" ""

echo "== recipes (packaging/yocto, packaging/buildroot)"
run "syntax, and their install layout against the .debs" python3 scripts/check-recipes.py "$deb_runtime" "$deb_dev"
sed 's/^/        /' "$tmp/log"

if [ "$(id -u)" != 0 ]; then
    echo "== install, build against, remove: SKIPPED (dpkg -i needs root; CI runs as root)"
    echo "== package-check: $steps steps passed (not root: install steps skipped)"
    exit 0
fi

echo "== install (dpkg -i)"
for package in "$runtime" "$dev" "$tools"; do
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
        echo "  FAIL  $package is installed already: remove it first (dpkg --purge $package)"
        exit 1
    fi
done
installed=true
run "dpkg -i" dpkg -i "$deb_runtime" "$deb_dev" "$deb_tools"
expect "all three installed" "$(dpkg-query -W -f='${Package} ${Status}\n' "$runtime" "$dev" "$tools" | sort)" \
    "$(printf '%s install ok installed\n' "$runtime" "$dev" "$tools" | sort)"
run "ldconfig knows $soname (the trigger ran)" bash -c "ldconfig -p | grep -q '$soname '"
expect "pkg-config: version, prefix" "$(pkg-config --modversion accessenabler) $(pkg-config --variable=prefix accessenabler)" \
    "$version /usr"
swift_env=()
if $shared; then
    swift_env=("LD_LIBRARY_PATH=$(pkg-config --variable=swift_runtime_dir accessenabler)")
    expect "pkg-config: the Swift runtime is shared, libswiftCore.so among the libraries it NEEDS" \
        "$(pkg-config --variable=swift_runtime accessenabler) $(pkg-config --variable=swift_runtime_libraries accessenabler |
            grep -ow libswiftCore.so)" "shared libswiftCore.so"
else
    expect "pkg-config: the Swift runtime is linked in" "$(pkg-config --variable=swift_runtime accessenabler)" static
fi
expect "accessenabler-diag runs with the installed library" "$(env "${swift_env[@]}" accessenabler-diag --version)" \
    "accessenabler-diag $version (libaccessenabler $version)"
expect "man accessenabler-diag finds its page" "$(man -w accessenabler-diag)" /usr/share/man/man1/accessenabler-diag.1.gz

echo "== Examples/CPlayer against the installed package"
# shellcheck disable=SC2046 # word splitting of pkg-config's output is intended
run "build with pkg-config --cflags --libs accessenabler" cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -pedantic -Werror \
    Examples/CPlayer/player.c Examples/CPlayer/terminal_qr.c \
    $(pkg-config --cflags --libs accessenabler libqrencode) -o "$tmp/player-pkg-config"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
run "configure with find_package(AccessEnabler)" cmake -S Examples/CPlayer -B "$tmp/player-cmake" "${generator[@]}" \
    -DCPLAYER_WERROR=ON
expect "CMake found the installed package" "$(sed -n 's/^AccessEnabler_DIR:PATH=//p' "$tmp/player-cmake/CMakeCache.txt")" \
    "/$libdir/cmake/AccessEnabler"
run "build with find_package(AccessEnabler)" cmake --build "$tmp/player-cmake"
for player in "$tmp/player-pkg-config" "$tmp/player-cmake/c-player"; do
    label=${player#"$tmp"/}
    expect "$label loads the installed library" \
        "$(env "${swift_env[@]}" ldd "$player" | awk -v so="$soname" '$1 == so { print $3 }' | xargs realpath)" \
        "/$libdir/libaccessenabler.so.$version"
    # The viewer logs in on the second screen 1 s after the code shows; the player exits 0 after logout.
    if env "${swift_env[@]}" scripts/with-emulator.sh --auto-login-ms 1000 -- "$player" --base-url '{url}' \
        --poll-ms 1000 >"$tmp/player.out" 2>&1 && grep -q "short media token" "$tmp/player.out" &&
        grep -q "logout: done" "$tmp/player.out"; then
        steps=$((steps + 1))
        echo "  ok    $label against the emulator: short media token, logout"
    else
        echo "  FAIL  $label against the emulator:"
        tail -n 40 "$tmp/player.out" | sed 's/^/        /'
        exit 1
    fi
done

echo "== remove (dpkg --purge)"
run "dpkg --purge" dpkg --purge "$tools" "$dev" "$runtime"
installed=false
expect "none is installed" "$(dpkg-query -W -f='${db:Status-Abbrev}' "$runtime" "$dev" "$tools" 2>/dev/null | tr -d ' ')" ""
left=""
for path in /usr/include/accessenabler.h "/$libdir/libaccessenabler.so"* "/$libdir/cmake/AccessEnabler" \
    "/$libdir/pkgconfig/accessenabler.pc" "/usr/share/doc/$runtime" "/usr/share/doc/$dev" \
    /usr/share/man/man3/accessenabler*.3.gz /usr/share/man/man3/ae_set_requestor.3.gz /usr/bin/accessenabler-diag \
    /usr/share/man/man1/accessenabler-diag.1.gz "/usr/share/doc/$tools"; do
    [ ! -e "$path" ] && [ ! -L "$path" ] || left+=" $path"
done
expect "no file of theirs is left" "${left# }" ""
run "ldconfig no longer knows $soname" bash -c "! ldconfig -p | grep -q '$soname '"

echo "== package-check: $steps steps passed"
