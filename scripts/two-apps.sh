#!/usr/bin/env bash
# Platform-identity SSO shown with two apps on one box (scripts/demo.sh --player c --platform-sso):
# runs PLAYER ARGS... twice, each with its own store and device id (so no regular profile of the
# first can serve the second), both with the same platform token. The first
# logs in (the emulator's simulated viewer does) and keeps its session; the second is signed in at
# setRequestor with no login, then logs out: a single logout (status SSO200).
#   scripts/two-apps.sh PLAYER [ARGS...]
set -euo pipefail
stores=$(mktemp -d)
trap 'rm -rf "$stores"' EXIT
echo "=== first app: logs in while sending the platform's token"
"$@" --storage "$stores/first.sqlite" --device-id demo-app-1 --keep-session
echo
echo "=== second app (another store, another device id): the same platform token, no login"
"$@" --storage "$stores/second.sqlite" --device-id demo-app-2
