#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs a command inside a Debian 13 tree (scripts/debian13-tree.sh) the way the project's scripts do:
# in a private mount namespace (every mount ends with the command), with /proc, /dev, a fresh /tmp, the
# project at /project (read-only unless --project-rw), more read-only mounts given as --mount SRC=DST,
# and no variable of the caller's but PATH, HOME, LANG, PYTHONDONTWRITEBYTECODE=1,
# SWIFT_BACKTRACE=enable=no and the VAR=value words before the command (env's syntax).
# Used by scripts/cross.sh, cross-test.sh, cross-bench.sh and libcurl8-check.sh. Needs root (chroot).
# Usage: scripts/in-tree.sh TREE [--project-rw] [--mount SRC=DST]... -- [VAR=value]... COMMAND [ARG]...
set -euo pipefail
usage="usage: scripts/in-tree.sh TREE [--project-rw] [--mount SRC=DST]... -- [VAR=value]... COMMAND [ARG]..."
tree=${1:?$usage}
shift
project=$(cd "$(dirname "$0")/.." && pwd)
mode=ro
mounts=()
while [ $# -gt 0 ]; do
    case $1 in
        --project-rw) mode=rw; shift ;;
        --mount) mounts+=("$2"); shift 2 ;;
        --) shift; break ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
[ -d "$tree/usr" ] || { echo "in-tree.sh: $tree is not a tree (scripts/debian13-tree.sh makes them)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "in-tree.sh: needs root (a chroot into $tree)" >&2; exit 1; }
# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare --mount --propagation private -- bash -euc '
    tree=$1 project=$2 mode=$3 count=$4
    shift 4
    mount -t proc proc "$tree/proc"
    mount --bind /dev "$tree/dev"
    mount -t tmpfs tmpfs "$tree/tmp"
    mkdir -p "$tree/project"
    mount --bind "$project" "$tree/project"
    [ "$mode" = rw ] || mount -o remount,bind,ro "$tree/project"
    while [ "$count" -gt 0 ]; do
        pair=$1
        shift
        count=$((count - 1))
        mkdir -p "$tree${pair#*=}"
        mount --bind "${pair%%=*}" "$tree${pair#*=}"
        mount -o remount,bind,ro "$tree${pair#*=}"
    done
    exec chroot "$tree" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/tmp LANG=C.UTF-8 \
        PYTHONDONTWRITEBYTECODE=1 SWIFT_BACKTRACE=enable=no "$@"
' bash "$tree" "$project" "$mode" "${#mounts[@]}" "${mounts[@]}" "$@"
