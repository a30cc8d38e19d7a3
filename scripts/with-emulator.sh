#!/usr/bin/env bash
# Runs a command against a fresh Adobe Pass emulator (Emulator/emulator.py) on a free
# loopback port, then stops the emulator.
#   scripts/with-emulator.sh [emulator options] -- COMMAND [ARGS...]
# Each `{url}` in the command's arguments becomes the emulator's base URL (also exported as
# AE_EMULATOR_URL). Example: scripts/with-emulator.sh --auto-login-ms 3000 -- c-player --base-url {url}
# Exit status: the command's (1 when the emulator does not start, 2 on bad usage).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

emulator_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    emulator_args+=("$1")
    shift
done
if [ $# -lt 2 ]; then
    echo "usage: scripts/with-emulator.sh [emulator options] -- COMMAND [ARGS...]" >&2
    exit 2
fi
shift

output=$(mktemp)
python3 "$root/Emulator/emulator.py" --port 0 --quiet "${emulator_args[@]}" >"$output" &
emulator=$!
trap 'kill $emulator 2>/dev/null || true; wait $emulator 2>/dev/null || true; rm -f "$output"' EXIT
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

command=()
for argument in "$@"; do command+=("${argument//\{url\}/$url}"); done
"${command[@]}"
