#!/usr/bin/env bash
# A Debian 13 (trixie) tree made with mmdebstrap from the machine's own Debian mirror, in the
# git-ignored .build-debian13/<name>; reused when it is there and complete (a stamp written last
# records what it was made with: a change remakes it). Prints the tree's path on stdout (progress: stderr).
# Installs mmdebstrap on the host when it is missing (as root; else prints the apt-get line and fails).
# Usage: scripts/debian13-tree.sh [NAME]
#   check   (default) amd64: python3, pytest (and xdist) and the libraries libaccessenabler.so needs (libcurl 8.14,
#           sqlite, OpenSSL 3, jansson), for scripts/libcurl8-check.sh
#   cross   amd64+arm64: Debian 13's Swift 6.0.3 and both sysroots, for scripts/cross.sh (about 5 GB)
#   arm64   arm64, unpacked, run under qemu-user: Python, the run-time libraries, gcc, for scripts/cross-test.sh
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
        # gcc, g++: Tests/c/check-header.sh against the x86-64 library built with Swift 6.0.3 (scripts/cross-test.sh).
        packages=(python3 python3-pytest python3-pytest-xdist python3-jsonschema python3-cryptography libcurl4t64 libsqlite3-0 libssl3t64
            libjansson4 libstdc++6 ca-certificates gcc g++ libc6-dev binutils file)
        ;;
    cross)
        # Debian 13's Swift 6.0.3 (amd64 compiler) with two sysroots in one multiarch tree: amd64 (the
        # x86-64 library built with 6.0.3, its tests) and arm64 (the aarch64 library); the arm64 Swift
        # runtime and module files unpacked from swiftlang:arm64 into /opt/swift-aarch64 (it is not
        # Multi-Arch: same, so it cannot be installed beside the amd64 compiler). scripts/cross.sh.
        architectures=amd64,arm64
        variant=apt
        packages=(swiftlang libc6-dev libgcc-14-dev libstdc++-14-dev pkgconf file binutils-aarch64-linux-gnu cmake ninja-build dpkg-dev fakeroot
            libcurl4-openssl-dev libsqlite3-dev libssl-dev libjansson-dev python3 python3-pytest python3-pytest-xdist
            python3-jsonschema ca-certificates lintian
            libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64 libcurl4-openssl-dev:arm64
            libsqlite3-dev:arm64 libssl-dev:arm64 libjansson-dev:arm64 libqrencode-dev:arm64)
        # shellcheck disable=SC2016  # expanded by mmdebstrap's hook shell
        hooks=('--customize-hook=chroot "$1" sh -ec "cd /tmp && apt-get download swiftlang:arm64 libswiftlang:arm64 && mkdir -p /opt/swift-aarch64 && for d in ./*.deb; do dpkg-deb -x \$d /opt/swift-aarch64; done && rm -f ./*.deb"'
            '--customize-hook=ln -sfn / "$1/sysroot"')
        ;;
    arm64)
        # An arm64 Debian 13 whose programs run under qemu-user (scripts/cross-test.sh): Python for the ctypes
        # tests, the libraries the aarch64 library loads, gcc/g++ and binutils for Tests/c/check-header.sh.
        # Unpacked, not installed (variant extract): no maintainer script runs under emulation, so the tree
        # takes seconds instead of the twenty minutes of configuring it under qemu on two cores. The
        # .debs are installed into the cross tree instead, which knows arm64 as a dpkg architecture.
        architectures=arm64
        variant=extract
        packages=(python3 python3-pytest python3-pytest-xdist python3-jsonschema python3-cryptography libcurl4t64 libsqlite3-0 libssl3t64
            libjansson4 libstdc++6 libc-bin gcc g++ libc6-dev binutils file base-files
            bash dash coreutils sed grep mawk findutils diffutils)
        # base-files has the merged-/usr links (/lib/ld-linux-aarch64.so.1 is the loader); the directories
        # to mount /proc and /sys on. (mmdebstrap runs no customize hook for this variant: an extract hook.)
        # shellcheck disable=SC2016  # expanded by mmdebstrap's hook shell
        hooks=('--extract-hook=mkdir -p "$1/proc" "$1/sys"')
        ;;
    *) echo "usage: scripts/debian13-tree.sh [check|cross|arm64]" >&2; exit 2 ;;
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
# A foreign tree runs its maintainer scripts under qemu-user: binfmt_misc must know the architecture.
if [ "$architectures" = arm64 ] && [ "$variant" != extract ]; then bash scripts/binfmt.sh aarch64 >&2; fi
free_kb=$(df -Pk "$dir" | awk 'NR == 2 {print $4}')
if [ "${free_kb:-0}" -lt $((6 * 1024 * 1024)) ]; then
    echo "debian13-tree.sh: less than 6 GB free in $dir ($((free_kb / 1024)) MB): free some space, then run again" >&2
    exit 1
fi
echo "making the Debian 13 tree $tree ($architectures, $variant) from $mirror" >&2
include=$(IFS=,; echo "${packages[*]}")
mmdebstrap --quiet --mode=root --variant="$variant" --architectures="$architectures" --include="$include" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"' \
    "${hooks[@]}" "$suite" "$tree.partial" "$mirror" >&2 || {
    echo "debian13-tree.sh: mmdebstrap failed making $tree (download or disk): nothing was kept; run again" >&2
    rm -rf "$tree.partial"
    exit 1
}
# Python's bytecode, compiled once here: an unpacked tree has none (Debian compiles it when a package is
# configured), and each Python process under qemu would compile its modules again (a minute per import
# of pytest and jsonschema).
# The links update-alternatives makes when a package is configured, which an unpacked tree lacks.
if [ "$variant" = extract ] && [ -x "$tree.partial/usr/bin/mawk" ] && [ ! -e "$tree.partial/usr/bin/awk" ]; then
    ln -s mawk "$tree.partial/usr/bin/awk"
fi
# Bytecode does not depend on the CPU: the amd64 Python 3.13 of a complete cross tree (the same Debian
# release and Python version) compiles it natively in seconds; without one, the tree's own Python under
# qemu does (about two minutes on two cores).
compile_bytecode() {
    local python_dirs=(/usr/lib/python3.13 /usr/lib/python3/dist-packages)
    if [ "$name" != cross ] && [ -f "$dir/cross.complete" ] && [ -x "$dir/cross/usr/bin/python3.13" ] &&
        [ -x "$tree.partial/usr/bin/python3.13" ]; then
        # shellcheck disable=SC2016  # expanded by the inner shell
        unshare --mount --propagation private -- bash -euc '
            cross=$1 target=$2
            shift 2
            mkdir -p "$cross/mnt/target"
            mount --bind "$target" "$cross/mnt/target"
            exec chroot "$cross" /usr/bin/python3.13 -m compileall -q -j 0 -s /mnt/target -p / "${@/#//mnt/target}"
        ' bash "$dir/cross" "$tree.partial" "${python_dirs[@]}"
    else
        [ "$architectures" = amd64 ] || bash scripts/binfmt.sh aarch64 >&2
        chroot "$tree.partial" /usr/bin/python3 -m compileall -q -j 0 "${python_dirs[@]}"
    fi
}
if [ "$variant" = extract ] && [ -x "$tree.partial/usr/bin/python3" ]; then
    compile_bytecode >"$dir/$name.compileall.log" 2>&1 || {
        echo "debian13-tree.sh: compiling Python's bytecode in $tree failed ($dir/$name.compileall.log); nothing was kept" >&2
        rm -rf "$tree.partial"
        exit 1
    }
fi
mv "$tree.partial" "$tree"
echo "$recipe" >"$stamp"
echo "$tree"
