#!/usr/bin/env bash
# Debian packages (and, for `test`, Python packages) the build and the tests need beyond the Swift
# toolchain. Installs the missing Debian packages when run as root (CI, containers); otherwise prints
# the command and fails.
# Usage: scripts/deps.sh [build|test|c-player]
#   build     the library and the Swift and Python players
#   c-player  + the CMake package and the C player (cmake, ninja, pkg-config, libqrencode)
#   test      + everything scripts/test.sh runs (valgrind, abidiff, doxygen, the TLS front nghttpx, openssl,
#             curl, and for the Debian packages dpkg-dev, file, lintian, python3-kconfiglib too, and mmdebstrap
#             unless AE_SKIP_LIBCURL8=1); .ci/run installs the same list, and the Python packages below
set -euo pipefail
packages=(libcurl4-openssl-dev libsqlite3-dev libssl-dev libjansson-dev)
case ${1:-build} in
    build) ;;
    c-player) packages+=(cmake ninja-build pkg-config libqrencode-dev) ;;
    test) packages+=(cmake ninja-build pkg-config valgrind libqrencode-dev faketime abigail-tools doxygen nghttp2-proxy openssl curl
                     dpkg-dev file lintian python3-kconfiglib) ;;
    *) echo "usage: scripts/deps.sh [build|test|c-player]" >&2; exit 2 ;;
esac
# test.sh's libcurl 8 step makes a Debian 13 tree with mmdebstrap (scripts/debian13-tree.sh).
[ "${1:-build}" != test ] || [ "${AE_SKIP_LIBCURL8:-}" = 1 ] || packages+=(mmdebstrap)
# Python packages of the tests, pinned as in .ci/run (requirement:module): a missing one is installed
# with pip; one already installed is left as it is. cryptography: the emulator's SSO token checks and
# Tests/tools/sso_tokens.py.
python_packages=("pytest==9.0.3:pytest" "jsonschema==4.26.0:jsonschema" "pytest-xdist==3.6.1:xdist"
                 "cryptography==48.0.0:cryptography")
if [ "${1:-build}" = test ]; then
    python_missing=()
    for entry in "${python_packages[@]}"; do
        python3 -c "import ${entry##*:}" 2>/dev/null || python_missing+=("${entry%%:*}")
    done
    if [ ${#python_missing[@]} -gt 0 ]; then
        echo "installing Python packages: ${python_missing[*]}"
        python3 -m pip install --quiet "${python_missing[@]}"
    fi
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
