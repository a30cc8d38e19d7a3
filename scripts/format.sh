#!/usr/bin/env bash
# Formats the Swift code with the toolchain's swift-format (`swift format`, shipped with Swift 6)
# and the repository's .swift-format: Sources, Tests (its Swift files), Examples, Fuzz and
# Package.swift.
#   bash scripts/format.sh           formats them in place
#   bash scripts/format.sh --check   lints them (--strict): prints every finding and exits 1 if
#                                    there is any (scripts/test.sh runs this; nothing is changed)
# Why .swift-format says what it says: CONTRIBUTING.md ("Formatting").
set -euo pipefail
cd "$(dirname "$0")/.."

paths=(Sources Tests Examples Fuzz Package.swift)  # directories: their .swift files, recursively
if swift format --version >/dev/null 2>&1; then
    format=(swift format)
elif command -v swift-format >/dev/null; then
    format=(swift-format)
else
    echo "format.sh: no swift-format (it ships with the Swift 6 toolchain: swift format --version)" >&2
    exit 2
fi
options=(--configuration .swift-format --recursive --parallel)

case "${1:-}" in
"")
    "${format[@]}" format "${options[@]}" --in-place "${paths[@]}"
    ;;
--check)
    if ! "${format[@]}" lint "${options[@]}" --strict "${paths[@]}"; then
        echo "format.sh --check: the findings above; 'bash scripts/format.sh' fixes most (the rest by hand)" >&2
        exit 1
    fi
    echo "format.sh --check: ok"
    ;;
*)
    echo "usage: bash scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac
