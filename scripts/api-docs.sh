#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# api-docs.sh — the API reference: HTML from Include/accessenabler.h with doxygen (Debian package
# doxygen), grouped by topic (docs/api/mainpage.md). Warnings are errors: every public symbol must
# be documented and every @param must name a parameter. The HTML is not committed.
#
#   scripts/api-docs.sh [OUTPUT_DIR]     default .build/api-docs (open OUTPUT_DIR/html/index.html)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v doxygen >/dev/null || { echo "api-docs: doxygen not found (apt-get install doxygen)" >&2; exit 2; }
out=${1:-.build/api-docs}
mkdir -p "$out"
version=$(awk '/^#define AE_VERSION_(MAJOR|MINOR|PATCH) / { printf "%s%s", sep, $3; sep = "." }' Include/accessenabler.h)
log=$out/warnings.log
status=0
{ cat docs/api/Doxyfile; echo "PROJECT_NUMBER = $version"; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $log"; } |
    doxygen - || status=$?
if [ -s "$log" ] || [ "$status" -ne 0 ]; then
    cat "$log" >&2 2>/dev/null || true
    echo "api-docs: $(grep -cE '(warning|error):' "$log" 2>/dev/null || true) doxygen warnings (exit $status): the reference must build with none" >&2
    exit 1
fi
echo "api-docs: $out/html/index.html ($(ls "$out/html" | wc -l) files, 0 warnings)"
