#!/usr/bin/env bash
# Builds the Swift example player and runs it against the bundled Adobe Pass emulator.
#   scripts/demo.sh                 unattended: the emulator's simulated viewer logs in after 3 s
#   scripts/demo.sh --interactive   you choose the MVPD and log in with a browser at the printed URL
#   scripts/demo.sh --partner signed-in:Comcast    a simulated platform SSO already signed in
#   scripts/demo.sh --partner picker:Cablevision   the simulated platform picker, where the viewer picks
#   scripts/demo.sh --mvpd TempPass_TEST40         TempPass: the free preview starts at once, no login
#   scripts/demo.sh --mvpd flexibleTempPass --identity viewer@example.com   promotional TempPass
# Other options go to the player (Examples/SwiftPlayer/main.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build

swift build -c release --product example-player
player=$(swift build -c release --show-bin-path)/example-player

interactive=false
if [ "${1:-}" = --interactive ]; then
    interactive=true
    shift
fi
emulator_args=(--port 0 --quiet)
$interactive || emulator_args+=(--auto-login-ms 3000)
output=$(mktemp)
python3 Tests/emulator/emulator.py "${emulator_args[@]}" >"$output" &
emulator=$!
trap 'kill $emulator 2>/dev/null; rm -f "$output"' EXIT
for _ in $(seq 50); do grep -q LISTENING "$output" && break; sleep 0.1; done
url=$(awk '/LISTENING/ {print $2}' "$output")
[ -n "$url" ] || { echo "the emulator did not start" >&2; exit 1; }

storage=$(mktemp -d)/store.sqlite
if $interactive; then
    "$player" --base-url "$url" --storage "$storage" "$@"
else
    "$player" --base-url "$url" --storage "$storage" --unattended "$@"
fi
