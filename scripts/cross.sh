#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the library for another CPU (and for x86-64 with the oldest Swift supported) with Debian 13's
# Swift 6.0.3, through the same CMake build and CPack packaging as the native packages (SONAME, the
# AE_1 export map, pkg-config and CMake files, lintian): docs/CROSS.md.
#
# The toolchain is a Debian 13 tree made from Debian's archive (scripts/debian13-tree.sh cross, cached in
# the git-ignored .build-debian13/; the machine's apt sources are never changed): the amd64 compiler, the
# amd64 and arm64 -dev libraries as the sysroot, and the arm64 Swift runtime unpacked from swiftlang:arm64.
# For aarch64 this script writes a Swift SDK bundle for that tree (static- and shared-runtime variants),
# and a CMake toolchain file; a triple without a Swift runtime in Debian (armv7) takes the firmware's SDK.
#
# Usage: scripts/cross.sh [--triple TRIPLE] [--runtime static|shared|both] [--swift-sdk DIR] [--no-package] [--tools]
#   --triple     aarch64-unknown-linux-gnu (default), x86_64-unknown-linux-gnu (native, Swift 6.0.3), or
#                armv7-unknown-linux-gnueabihf with --swift-sdk (armv5/armv6 and soft-float are refused)
#   --runtime    the Swift runtime linked statically into the library (the packages' default), shared
#                (AE_STATIC_SWIFT_RUNTIME=OFF), or both (default)
#   --swift-sdk  a Swift SDK for the triple (a directory holding swift-sdk.json, or an .artifactbundle):
#                its sdkRootPath must be visible inside the tree (put it under the project)
#   --no-package build the library only (no .debs)
#   --tools      also the test tools for the target (StoreCrashWriter, static runtime: scripts/cross-test.sh)
# Output (the last lines): "library <runtime>: <path>" and "deb: <path>", under .build-cross/<triple>-<runtime>/.
# Needs root (a chroot into the tree). Each step that fails says which and what to do; a half-made tree
# is never used (debian13-tree.sh keeps it under a .partial name until it is complete).
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
out_host=$project/.build-cross

triple=aarch64-unknown-linux-gnu
runtimes=(static shared)
user_sdk=""
package=1
tools=0
usage="usage: scripts/cross.sh [--triple TRIPLE] [--runtime static|shared|both] [--swift-sdk DIR] [--no-package] [--tools]"
while [ $# -gt 0 ]; do
    case $1 in
        --triple) triple=$2; shift 2 ;;
        --runtime)
            case $2 in static | shared) runtimes=("$2") ;; both) runtimes=(static shared) ;; *) echo "$usage" >&2; exit 2 ;; esac
            shift 2 ;;
        --swift-sdk) user_sdk=$(realpath "$2"); shift 2 ;;
        --no-package) package=0; shift ;;
        --tools) tools=1; shift ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
fail() { echo "cross.sh: $*" >&2; exit 1; }

# The target: the CPU CMake and Debian name, the GNU triplet of the multiarch paths.
case $triple in
    aarch64-unknown-linux-gnu) processor=aarch64 gnu=aarch64-linux-gnu deb_arch=arm64 ;;
    x86_64-unknown-linux-gnu) processor=x86_64 gnu=x86_64-linux-gnu deb_arch=amd64 ;;
    armv7-unknown-linux-gnueabihf | armv7a-unknown-linux-gnueabihf) processor=armv7-a gnu=arm-linux-gnueabihf deb_arch=armhf ;;
    armv5* | armv6* | arm-*)
        fail "$triple: Swift runs on armv7-a with hard float at the least (armv5, armv6 and ARMv4T are refused)" ;;
    *-gnueabi) fail "$triple: soft-float ARM has no Swift runtime; use a hard-float (gnueabihf) armv7 target" ;;
    *) fail "$triple: not a target this script knows (aarch64-unknown-linux-gnu, x86_64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf)" ;;
esac
if [ "$deb_arch" = armhf ] && [ -z "$user_sdk" ]; then
    fail "$triple: Debian has no Swift for armhf: pass the firmware toolchain's Swift SDK, --swift-sdk DIR (docs/CROSS.md, 32-bit ARM)"
fi
case $user_sdk in "" | "$project"/*) ;; *) fail "--swift-sdk $user_sdk is outside the project, which is all the tree sees" ;; esac
[ "$(id -u)" = 0 ] || fail "needs root (a chroot into the Debian 13 tree)"

echo "== the Debian 13 toolchain tree" >&2
tree=$(bash scripts/debian13-tree.sh cross) || fail "step 'toolchain tree' failed (see above): fix it, then run again"

# Runs a command in the tree: the project at /project (read-write: the build directories are in it),
# /proc, /dev and a fresh /tmp, nothing of the host's environment.
in_tree() { bash scripts/in-tree.sh "$tree" --project-rw -- "$@"; }

# The compiler: its version against the minimum (Package.swift's swift-tools-version line).
minimum=$(sed -n '1s|^// swift-tools-version:\([0-9.]*\).*|\1|p' Package.swift)
version=$(in_tree /usr/bin/swift --version 2>&1 | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
[ -n "$version" ] || fail "step 'compiler': the tree's /usr/bin/swift printed no version (remove .build-debian13/cross and run again)"
if [ "$(printf '%s\n%s\n' "$minimum" "$version" | sort -V | head -n 1)" != "$minimum" ]; then
    fail "step 'compiler': Swift $version is older than $minimum, the oldest the sources build with"
fi
echo "Swift $version (the minimum is $minimum), target $triple" >&2

# The sysroot: the target's -dev files of what the library links (pkg-config names, as Package.swift asks).
if [ -z "$user_sdk" ]; then
    for module in libcurl sqlite3 libcrypto jansson; do
        in_tree /usr/bin/env PKG_CONFIG_LIBDIR="/usr/lib/$gnu/pkgconfig:/usr/share/pkgconfig" pkg-config --exists "$module" ||
            fail "step 'sysroot': no $module for $deb_arch in the tree (its -dev package): remove .build-debian13/cross and run again"
    done
fi
free_kb=$(df -Pk "$project" | awk 'NR == 2 {print $4}')
[ "${free_kb:-0}" -ge $((3 * 1024 * 1024)) ] ||
    fail "step 'disk': less than 3 GB free for .build-cross ($((free_kb / 1024)) MB): free some space, then run again"

mkdir -p "$out_host"
inner_out=/project/.build-cross
resources=/opt/swift-aarch64/usr/libexec/swift/lib
sdk_args=()
sysroot=""
runtime_dir=""
if [ -n "$user_sdk" ]; then
    bundle=$(dirname "$(find "$user_sdk" -name swift-sdk.json -print -quit)")
    [ "$bundle" != . ] || fail "--swift-sdk $user_sdk has no swift-sdk.json"
    sdk_args=(--swift-sdks-path "/project/${bundle#"$project"/}/.." --swift-sdk "$(basename "$bundle")")
    # Its sysroot (as the tree sees it) is the C side's and pkg-config's too.
    sysroot=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["targetTriples"]; print(t.get(sys.argv[2], next(iter(t.values())))["sdkRootPath"])' \
        "$bundle/swift-sdk.json" "$triple") || fail "--swift-sdk: $bundle/swift-sdk.json names no sdkRootPath"
    case $sysroot in /*) ;; *) sysroot=/project/${bundle#"$project"/}/$sysroot ;; esac
elif [ "$deb_arch" = arm64 ]; then
    # The Swift SDK bundle for the tree (schema 4.0): sysroot "/sysroot" (a link to the tree's "/",
    # where the arm64 libraries are multiarch), the arm64 runtime and modules, ld.lld. Two variants:
    # SwiftPM 6.0 links a static-runtime library with the shared resource directory unless the
    # variant's swiftResourcesPath is swift_static as well.
    [ -d "$tree$resources/swift/linux/aarch64" ] || fail "step 'Swift SDK': no arm64 Swift runtime in the tree ($resources): remove .build-debian13/cross and run again"
    sdks=$out_host/sdks
    rm -rf "$sdks"
    # The static variant links the trimmed runtime (scripts/trim-swift-runtime.py, as CMake does for a
    # native build; docs/DECISIONS.md "The size of the library"): a copy made here, on the host, whose
    # links point into the tree's swift_static as the tree sees it.
    python3 scripts/trim-swift-runtime.py "$out_host/swift-static-trimmed-$processor" \
        --from "$tree$resources/swift_static" --link-as "$resources/swift_static" >/dev/null ||
        fail "step 'Swift SDK': scripts/trim-swift-runtime.py failed"
    for variant in shared static; do
        id=debian13-$processor-$variant
        swift_dir=$resources/swift
        [ "$variant" = shared ] || swift_dir=$inner_out/swift-static-trimmed-$processor
        dir=$sdks/$id.artifactbundle
        mkdir -p "$dir/$id"
        cat >"$dir/info.json" <<EOF
{"schemaVersion": "1.0", "artifacts": {"$id": {"type": "swiftSDK", "version": "$version",
  "variants": [{"path": "$id", "supportedTriples": ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"]}]}}}
EOF
        cat >"$dir/$id/swift-sdk.json" <<EOF
{"schemaVersion": "4.0", "targetTriples": {"$triple": {
  "sdkRootPath": "/sysroot",
  "swiftResourcesPath": "$swift_dir",
  "swiftStaticResourcesPath": "$inner_out/swift-static-trimmed-$processor",
  "toolsetPaths": ["toolset.json"]}}}
EOF
        cat >"$dir/$id/toolset.json" <<EOF
{"schemaVersion": "1.0", "rootPath": "/usr/libexec/swift/bin", "linker": {"path": "ld.lld"}}
EOF
    done
    runtime_dir=$resources/swift/linux
fi

# The CMake toolchain file: the tree's clang for the target, lld, the target's binutils (strip, readelf).
sysroot_lines=""
if [ -n "$sysroot" ]; then
    sysroot_lines="set(CMAKE_SYSROOT $sysroot)
set(ENV{PKG_CONFIG_SYSROOT_DIR} $sysroot)"
fi
toolchain=$out_host/$triple.toolchain.cmake
if [ "$deb_arch" = amd64 ]; then
    cat >"$toolchain" <<EOF
set(CMAKE_C_COMPILER /usr/libexec/swift/bin/clang)
EOF
else
    cat >"$toolchain" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $processor)
set(CMAKE_C_COMPILER /usr/libexec/swift/bin/clang)
set(CMAKE_C_COMPILER_TARGET $gnu)
set(CMAKE_LIBRARY_ARCHITECTURE $gnu)
set(CMAKE_EXE_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_STRIP /usr/bin/$gnu-strip)
set(CMAKE_READELF /usr/bin/$gnu-readelf)
set(CMAKE_OBJDUMP /usr/bin/$gnu-objdump)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
$sysroot_lines
# pkg-config answers for the target's libraries only (the build's and its consumers', e.g. Examples/CPlayer).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/$gnu/pkgconfig:/usr/share/pkgconfig)
EOF
fi

# SwiftPM's Swift SDK arguments for a runtime variant, in `args`: the given SDK's, or this tree's bundle.
swiftpm_sdk_args() {
    args=("${sdk_args[@]}")
    if [ "$deb_arch" = arm64 ] && [ -z "$user_sdk" ]; then
        args=(--swift-sdks-path "$inner_out/sdks" --swift-sdk "debian13-$processor-$1")
    fi
}

for runtime in "${runtimes[@]}"; do
    build=$triple-$runtime
    echo "== $triple, $runtime Swift runtime (.build-cross/$build)" >&2
    # The multiarch library directory (GNUInstallDirs picks it for a native build only).
    cmake_args=(-DCMAKE_TOOLCHAIN_FILE="$inner_out/$triple.toolchain.cmake" -DSWIFT_EXECUTABLE=/usr/bin/swift
        -DAE_DEB_COMPRESSION=gzip -DCMAKE_INSTALL_LIBDIR="lib/$gnu")
    swiftpm_sdk_args "$runtime"
    if [ ${#args[@]} -gt 0 ]; then cmake_args+=("-DAE_SWIFTPM_ARGS=$(IFS=';'; echo "${args[*]}")"); fi
    package_args=()
    if [ "$runtime" = shared ]; then
        package_args+=(--shared-runtime)
        [ -z "$runtime_dir" ] || cmake_args+=(-DAE_SWIFT_RUNTIME_DIR="$runtime_dir")
    fi
    # A failed configure is not reused: CMake's cache would keep the failed answers.
    [ -f "$out_host/$build/lib/libaccessenabler.so" ] || rm -rf "${out_host:?}/$build"
    log=$out_host/$build.log
    if [ "$package" = 1 ]; then
        step=(bash scripts/package.sh --build-dir "$inner_out/$build" "${package_args[@]}" -- "${cmake_args[@]}")
    else
        [ "$runtime" = static ] || cmake_args+=(-DAE_STATIC_SWIFT_RUNTIME=OFF)
        step=(bash -c 'cmake -S /project -B "$0" -G Ninja -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF "${@}" && cmake --build "$0"'
            "$inner_out/$build" "${cmake_args[@]}")
    fi
    start=$(date +%s)
    if ! in_tree /usr/bin/env PKG_CONFIG_PATH="/usr/lib/$gnu/pkgconfig:/usr/share/pkgconfig" \
        bash -c 'cd /project && exec "$@"' bash "${step[@]}" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        fail "step 'build $build' failed (the whole log: $log)"
    fi
    library=$(realpath "$out_host/$build/lib/libaccessenabler.so")
    file -b "$library" | grep -q "$(case $processor in aarch64) echo aarch64 ;; x86_64) echo x86-64 ;; *) echo ARM ;; esac)" ||
        fail "step 'build $build': $library is not a $processor library: $(file -b "$library")"
    echo "built $build in $(($(date +%s) - start)) s" >&2
    grep -E '^lintian: ' "$log" >&2 || true
    echo "library $runtime: $library"
    sed -n 's|^deb: /project/|deb: '"$project"'/|p' "$log"
done

if [ "$tools" = 1 ]; then
    # In the static-runtime build's SwiftPM directory: the modules they share are compiled once.
    echo "== $triple, the test tools (.build-cross/$triple-static/swiftpm)" >&2
    swiftpm_sdk_args static
    log=$out_host/$triple-tools.log
    if ! in_tree /usr/bin/env PKG_CONFIG_PATH="/usr/lib/$gnu/pkgconfig:/usr/share/pkgconfig" \
        /usr/bin/swift build -c release -Xswiftc -static-stdlib "${args[@]}" --product StoreCrashWriter \
        --package-path /project --scratch-path "$inner_out/$triple-static/swiftpm" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        fail "step 'test tools' failed (the whole log: $log)"
    fi
    tool=$(find "$out_host/$triple-static/swiftpm" -path "*/release/StoreCrashWriter" -type f | head -n 1)
    [ -n "$tool" ] || fail "step 'test tools': no StoreCrashWriter in .build-cross/$triple-static/swiftpm"
    echo "tool: $tool"
fi
