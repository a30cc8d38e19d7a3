#!/usr/bin/env bash
# Lets the kernel run programs of another CPU through qemu-user (binfmt_misc), which an arm64 tree
# needs: its maintainer scripts, its Python starting subprocesses. Mounts binfmt_misc when it is not
# mounted and enables Debian's qemu-user-static entry for the CPU. Needs root; installs
# qemu-user-static and binfmt-support when missing. Usage: scripts/binfmt.sh [aarch64]
set -euo pipefail
cpu=${1:-aarch64}
entry=/proc/sys/fs/binfmt_misc/qemu-$cpu
if [ -f "$entry" ] && head -n 1 "$entry" | grep -q enabled; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
    echo "binfmt.sh: enabling qemu-$cpu in binfmt_misc needs root" >&2
    exit 1
fi
if ! command -v update-binfmts >/dev/null || [ ! -x /usr/bin/qemu-$cpu-static ]; then
    echo "installing: qemu-user-static binfmt-support" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support >/dev/null
fi
if [ ! -f /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || {
        echo "binfmt.sh: cannot mount binfmt_misc (a container without it?): arm64 programs cannot run here" >&2
        exit 1
    }
fi
update-binfmts --enable "qemu-$cpu" >/dev/null 2>&1 || true
if ! head -n 1 "$entry" 2>/dev/null | grep -q enabled; then
    echo "binfmt.sh: qemu-$cpu is not enabled in binfmt_misc (update-binfmts --enable qemu-$cpu failed)" >&2
    exit 1
fi
echo "binfmt.sh: qemu-$cpu enabled ($(/usr/bin/qemu-$cpu-static --version | head -n 1))" >&2
