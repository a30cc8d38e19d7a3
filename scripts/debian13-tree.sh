#!/usr/bin/env bash
# A Debian 13 (trixie) tree made with mmdebstrap from the machine's own Debian mirror, in the
# git-ignored .build-debian13/<name>; reused when it is there and complete (a stamp written last
# records what it was made with: a change remakes it). Prints the tree's path on stdout (progress: stderr).
# Installs mmdebstrap on the host when it is missing (as root; else prints the apt-get line and fails).
# Usage: scripts/debian13-tree.sh [NAME]
#   check   (default) amd64: python3, pytest (and xdist) and the libraries libaccessenabler.so needs (libcurl 8.14,
#           sqlite, OpenSSL 3, jansson), for scripts/libcurl8-check.sh
# A new tree (for example an arm64 cross tree, docs/CROSS.md) is one more case below: its architectures,
# variant, packages and customize hooks.
# Environment: AE_DEBIAN_MIRROR (default: the first Debian URI of /etc/apt/sources.list{,.d/*}, never
# changed), AE_DEBIAN13_DIR (default .build-debian13).
set -euo pipefail
cd "$(dirname "$0")/.."

name=${1:-check}
suite=trixie
hooks=()  # mmdebstrap options such as --customize-hook=...
case $name in
    check)
        architectures=amd64
        variant=essential
        packages=(python3 python3-pytest python3-pytest-xdist libcurl4t64 libsqlite3-0 libssl3t64 libjansson4 libstdc++6 ca-certificates)
        ;;
    *) echo "usage: scripts/debian13-tree.sh [check]" >&2; exit 2 ;;
esac

dir=${AE_DEBIAN13_DIR:-$PWD/.build-debian13}
tree=$dir/$name
stamp=$dir/$name.complete
recipe="suite=$suite architectures=$architectures variant=$variant packages=${packages[*]} hooks=${hooks[*]}"

complete() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ] && [ -d "$tree/usr" ]; }
if complete; then
    echo "$tree"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "debian13-tree.sh: making the Debian 13 tree needs root (mmdebstrap, then chroot)" >&2
    command -v mmdebstrap >/dev/null || echo "install mmdebstrap with: sudo apt-get update && sudo apt-get install -y mmdebstrap" >&2
    exit 1
fi
if ! command -v mmdebstrap >/dev/null; then
    echo "installing: mmdebstrap" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
fi

# One maker at a time (two test runs at once): the second waits, then finds the tree complete.
mkdir -p "$dir"
exec 9>"$dir/$name.lock"
flock 9
if complete; then
    echo "$tree"
    exit 0
fi

# The machine's Debian mirror: the first URI of its apt sources (one-line or deb822) that ends in
# /debian, read only.
mirror=${AE_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -nE -e 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
            -e 's/^[[:space:]]*URIs:[[:space:]]*(.*)/\1/p' |
        tr ' ' '\n' | grep -E '^(https?|file)://[^[:space:]]*/debian/?$' | head -n 1) || true
fi
if [ -z "$mirror" ]; then
    echo "debian13-tree.sh: no Debian mirror in /etc/apt/sources.list{,.d}: set AE_DEBIAN_MIRROR" >&2
    exit 1
fi

# Never delete a tree something is still mounted in (a bind mount of the project would go with it).
if grep -qF " $tree/" /proc/self/mountinfo || grep -qF " $tree.partial/" /proc/self/mountinfo; then
    echo "debian13-tree.sh: something is mounted under $tree: unmount it first" >&2
    exit 1
fi
rm -rf "$tree" "$tree.partial" "$stamp"
echo "making the Debian 13 tree $tree ($architectures, $variant) from $mirror" >&2
include=$(IFS=,; echo "${packages[*]}")
mmdebstrap --quiet --mode=root --variant="$variant" --architectures="$architectures" --include="$include" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"' \
    "${hooks[@]}" "$suite" "$tree.partial" "$mirror" >&2
mv "$tree.partial" "$tree"
echo "$recipe" >"$stamp"
echo "$tree"
