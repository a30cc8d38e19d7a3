#!/usr/bin/env bash
# Runs a command against a fresh Adobe Pass emulator (Emulator/emulator.py) on a free
# loopback port, then stops the emulator.
#   scripts/with-emulator.sh [--https] [emulator options] -- COMMAND [ARGS...]
# Each `{url}` in the command's arguments becomes the emulator's base URL (also exported as
# AE_EMULATOR_URL). Example: scripts/with-emulator.sh --auto-login-ms 3000 -- c-player --base-url {url}
# --https: the emulator behind a TLS front (nghttpx, Tests/python/tlsfront.py: TLS 1.3, HTTP/2 and
# HTTP/1.1, a test root made now); `{url}` is then the front's https URL and `{ca_file}` the test root
# (exported as AE_CA_FILE) for the command's CA option.
# Exit status: the command's (1 when the emulator does not start, 2 on bad usage).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

emulator_args=()
https=false
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    if [ "$1" = --https ]; then https=true; else emulator_args+=("$1"); fi
    shift
done
if [ $# -lt 2 ]; then
    echo "usage: scripts/with-emulator.sh [emulator options] -- COMMAND [ARGS...]" >&2
    exit 2
fi
shift

output=$(mktemp)
front_dir=$(mktemp -d)
front=""
python3 "$root/Emulator/emulator.py" --port 0 --quiet "${emulator_args[@]}" >"$output" &
emulator=$!
trap 'kill $emulator $front 2>/dev/null || true; wait $emulator $front 2>/dev/null || true; rm -rf "$output" "$front_dir"' EXIT
for _ in $(seq 100); do
    grep -q LISTENING "$output" && break
    kill -0 $emulator 2>/dev/null || break
    sleep 0.1
done
url=$(awk '/^AE_EMULATOR_LISTENING / {print $2}' "$output")
if [ -z "$url" ]; then
    echo "with-emulator: the emulator did not start" >&2
    exit 1
fi
export AE_EMULATOR_URL=$url
ca_file=""
if $https; then
    python3 "$root/Tests/python/tlsfront.py" "$url" "$front_dir" >"$front_dir/out" 2>"$front_dir/err" &
    front=$!
    for _ in $(seq 100); do
        grep -q AE_TLS_FRONT "$front_dir/out" 2>/dev/null && break
        kill -0 $front 2>/dev/null || break
        sleep 0.1
    done
    read -r _ url ca_file < <(grep AE_TLS_FRONT "$front_dir/out" || true)
    if [ -z "$ca_file" ]; then
        echo "with-emulator: the TLS front did not start (nghttpx: apt-get install nghttp2-proxy)" >&2
        cat "$front_dir/err" >&2
        exit 1
    fi
    export AE_CA_FILE=$ca_file
    echo "with-emulator: TLS front $url before the emulator $AE_EMULATOR_URL (test root $ca_file)" >&2
fi

command=()
for argument in "$@"; do
    argument=${argument//\{url\}/$url}
    command+=("${argument//\{ca_file\}/$ca_file}")
done
"${command[@]}"
