#!/usr/bin/env bash
# The ctypes tests most sensitive to libcurl's version, on Debian 13's libcurl 8 (the machine and CI
# have Debian 12's 7.88): the release library built here, loaded by the Python of a Debian 13 tree
# (scripts/debian13-tree.sh, made once in .build-debian13/check), with its emulator on loopback.
# The tests: hostile input (dot segments such as a session code `..` sent as `%2E%2E`, which libcurl 8
# removes unless CURLOPT_PATH_AS_IS is set), the C contract over the wire, and the default transport's
# network policy. First prints the libcurl the library loaded in the tree, and fails unless it is 8.x.
# Needs root (chroot; the mounts live in a private mount namespace and end with it). scripts/test.sh
# runs it after the release build; AE_SKIP_LIBCURL8=1 skips that step there.
# Usage: scripts/libcurl8-check.sh [pytest arguments instead of the default's, paths relative to the project]
# Environment: AE_LIBRARY (default .build/release/libaccessenabler.so, which must be inside the project).
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
library=${AE_LIBRARY:-$project/.build/release/libaccessenabler.so}
if [ ! -f "$library" ]; then
    echo "libcurl8-check.sh: no $library: swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler" >&2
    exit 1
fi
library=$(realpath "$library")
case $library in
    "$project"/*) ;;
    *) echo "libcurl8-check.sh: $library is outside the project ($project), which is all the tree sees" >&2; exit 1 ;;
esac
if [ "$(id -u)" != 0 ]; then
    echo "libcurl8-check.sh: needs root (a chroot into the Debian 13 tree); scripts/test.sh skips it with AE_SKIP_LIBCURL8=1" >&2
    exit 1
fi
tree=$(bash scripts/debian13-tree.sh check)

# Four pytest-xdist workers: the tests mostly wait (about 20 s instead of 37 s on two busy cores).
arguments=(-n 4 Tests/python/test_hostile_input.py Tests/python/test_contract.py Tests/python/test_transport.py)
[ $# -eq 0 ] || arguments=("$@")

# First, in the tree: the libcurl the library loaded (harness.libcurl_loaded: the file mapped into the
# process and its curl_version()), 8.x or a failure.
precheck='
import sys
sys.path.insert(0, "Tests/python")
from harness import ae, libcurl_loaded
version, path = libcurl_loaded()
print(f"libcurl8-check: {ae.LIBRARY_PATH} loaded {path}: {version}", flush=True)
sys.exit(0 if (version or "").startswith("libcurl/8.") else "libcurl8-check: that is not libcurl 8")
'
# The tree sees the project read-only at /project, a fresh /tmp, and no variable of the host's but these
# (scripts/in-tree.sh).
inner_library=/project/${library#"$project"/}
# shellcheck disable=SC2016  # expanded by the inner shell
bash scripts/in-tree.sh "$tree" -- AE_LIBRARY="$inner_library" PYTHONPATH=/project/Python \
    /bin/bash -euc 'cd /project && python3 -c "$0" && exec python3 -m pytest -q -p no:cacheprovider "$@"' \
    "$precheck" "${arguments[@]}"
