#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the Debian packages (docs/PACKAGING.md): configures CMake for /usr, builds the library (SwiftPM,
# or takes one built already), runs CPack's DEB generator and lintian, and prints the .deb paths.
#   libaccessenabler1      the library (its SONAME link, shlibs, symbols, the ldconfig trigger)
#   libaccessenabler-dev   the header, the libaccessenabler.so link, the CMake package, the .pc file, docs,
#                          and the API reference (HTML, man pages) when doxygen is installed (AE_API_DOCS)
#
# Usage: scripts/package.sh [--prebuilt LIB] [--shared-runtime] [--build-dir DIR] [-- CMAKE_ARGS...]
#   --prebuilt LIB     package this library instead of building one (CMake's AE_PREBUILT_LIBRARY: it must
#                      carry the SONAME, e.g. <cmake build>/lib/libaccessenabler.so.1.3.0)
#   --shared-runtime   AE_STATIC_SWIFT_RUNTIME=OFF: the library NEEDS the Swift runtime (not packaged)
#   --build-dir DIR    the CMake build directory (default build/deb; kept, so a second run is quick)
#   CMAKE_ARGS         more -D options, e.g. -DAE_PACKAGE_MAINTAINER="Name <mail>" -DAE_DEB_REVISION=2,
#                      -DAE_API_DOCS=ON (the API reference required: fails without doxygen)
# The last lines of the output are "deb: <path>", one per package. Exit status 1 when lintian reports
# an error or a warning that packaging/debian/*.lintian-overrides does not accept.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build=build/deb
cmake_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --prebuilt) cmake_args+=("-DAE_PREBUILT_LIBRARY=$(realpath "$2")"); shift 2 ;;
        --shared-runtime) cmake_args+=(-DAE_STATIC_SWIFT_RUNTIME=OFF); shift ;;
        --build-dir) build=$2; shift 2 ;;
        --) shift; cmake_args+=("$@"); break ;;
        *) echo "usage: scripts/package.sh [--prebuilt LIB] [--shared-runtime] [--build-dir DIR] [-- CMAKE_ARGS...]" >&2
           exit 2 ;;
    esac
done
for tool in cmake cpack dpkg-deb dpkg-shlibdeps file lintian readelf strip gzip; do
    if ! command -v "$tool" >/dev/null; then
        echo "package.sh: $tool not found (apt-get install cmake dpkg-dev file lintian binutils gzip)" >&2
        exit 1
    fi
done

generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
mkdir -p "$build"
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
    -DBUILD_EXAMPLES=OFF "${cmake_args[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build"
rm -f "$build"/*.deb
(cd "$build" && cpack) >"$build/cpack.log" 2>&1 || { cat "$build/cpack.log" >&2; exit 1; }
grep -E "Debian files|package: " "$build/cpack.log"
debs=("$build"/*.deb)

echo "lintian ${debs[*]}"
# Overridden tags are shown (O:) with their reasons; E: and W: fail the run.
lintian --show-overrides "${debs[@]}" 2>&1 | grep -v 'running with root privileges' | tee "$build/lintian.log" || true
if grep -qE '^[EW]: ' "$build/lintian.log"; then
    echo "package.sh: lintian: $(grep -c '^E: ' "$build/lintian.log") errors, $(grep -c '^W: ' "$build/lintian.log") warnings" >&2
    exit 1
fi
echo "lintian: 0 errors, 0 warnings ($(grep -c '^O: ' "$build/lintian.log" || true) accepted: packaging/debian/*.lintian-overrides)"
for deb in "${debs[@]}"; do echo "deb: $(realpath "$deb")"; done
