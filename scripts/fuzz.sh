#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (AddressSanitizer + libFuzzer coverage) and runs each one
# for a bounded time from its seed corpus, then prints a Markdown table of the runs.
#
#   scripts/fuzz.sh [seconds-per-target] [options]      (default 60 s; CI uses 20)
#     --targets a,b        only these targets (server-answer, headers, saml, host-json, flow-answers,
#                          c-boundary, struct-versions, identity-token, json)
#     --report FILE        also append the table (with date and commit) to FILE
#     --update-corpus      merge the inputs that added coverage into Fuzz/Corpus/<target> (-merge=1)
#     --jobs N             libFuzzer workers per target (default 1; long runs on big machines)
#     --strict             also stop at the open findings of Fuzz/FINDINGS.md (skipped by default)
#
# The table gives each target's inputs run (libFuzzer's executions, summed over workers) and speed,
# and the total over the targets.
#
# Each target starts from a temporary copy of Fuzz/Corpus/<target> (the seeds stay as committed).
# A crash, sanitizer report, broken invariant, timeout (-timeout, 30 s per input) or memory blow-up
# (-rss_limit_mb) stops that target; its input is saved as Fuzz/Regressions/<target>/<kind>-<sha1>,
# which `swift test` (FuzzCorpusTests) then runs on every test run. Exit status: 0 when no target
# found anything, 1 otherwise, 2 on a usage or build error.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
targets="server-answer,headers,saml,host-json,flow-answers,c-boundary,struct-versions,identity-token,json"
report=""
update_corpus=0
jobs=1
skip_open=1
while (($#)); do
    case "$1" in
        --targets) targets="$2"; shift 2 ;;
        --report) report="$2"; shift 2 ;;
        --update-corpus) update_corpus=1; shift ;;
        --jobs) jobs="$2"; shift 2 ;;
        --strict) skip_open=0; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        [0-9]*) seconds="$1"; shift ;;
        *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# SwiftPM's --sanitize=fuzzer links libFuzzer's main (the Swift flag alone makes SwiftPM rename
# main and the link fails); -Xswiftc -sanitize=fuzzer,address comes last on each swiftc command,
# so it wins over --sanitize's single value: every Swift module (the SDK included) gets coverage
# instrumentation and ASan. -parse-as-library: the entry files have no top-level code.
# The fuzz executables link with no version script (the library's exports.map belongs to the
# libaccessenabler.so product only), so the ASan runtime's interceptors stay visible to the shared
# libraries (the Swift runtime, libcurl, SQLite), as the clang driver exports them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build_flags=(-c release --package-path Fuzz --sanitize=fuzzer
             -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)

echo "==== building the fuzz targets (swift build ${build_flags[*]})"
build_start=$SECONDS
set +e
swift build "${build_flags[@]}" >"$work/build.log" 2>&1
build_status=$?
set -e
grep -v "Cannot export local symbol" "$work/build.log" | grep -vE "^\[[0-9]+/[0-9]+\]" || true
if ((build_status != 0)); then echo "fuzz.sh: build failed" >&2; exit 2; fi
bin=$(swift build "${build_flags[@]}" --show-bin-path)
echo "build: $((SECONDS - build_start)) s"

rows=()
found=0
total_inputs=0
IFS=, read -r -a target_list <<<"$targets"
for target in "${target_list[@]}"; do
    exe="$bin/fuzz-$target"
    [[ -x "$exe" ]] || { echo "fuzz.sh: no fuzz target $target ($exe)" >&2; exit 2; }
    corpus="$work/corpus-$target" artifacts="$work/artifacts-$target/" log="$work/$target.log"
    mkdir -p "$corpus" "$artifacts"
    cp Fuzz/Corpus/"$target"/* "$corpus"/ 2>/dev/null || true
    seeds=$(find "$corpus" -type f | wc -l)
    echo "==== fuzz-$target: ${seconds} s from $seeds seeds"
    args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1
          -artifact_prefix="$artifacts")
    ((jobs > 1)) && args+=(-jobs="$jobs" -workers="$jobs")
    # host-json, flow-answers and c-boundary create and destroy clients: their objects are freed a
    # moment later on the SDK's threads, and LeakSanitizer takes the weak-reference side table of
    # a live object (CurlTransport, the callback sink's owner; the address is kept shifted in the
    # object's refcount word) for a leak. Leaks of create/destroy are measured by
    # scripts/sanitizers.sh (valgrind, growth over 10 vs 100 iterations).
    # The same holds for the check LeakSanitizer makes when the process exits (ASAN_OPTIONS): it took
    # the last clients' objects for leaks and stopped every c-boundary run as a "crash" on the empty
    # input (crash-da39a3ee…, also at commit 68bffed: Fuzz/FINDINGS.md, observations).
    asan_options=""
    if [[ $target == host-json || $target == flow-answers || $target == c-boundary ]]; then
        args+=(-detect_leaks=0)
        asan_options=detect_leaks=0
    fi
    set +e
    # SWIFT_BACKTRACE: Swift's crash backtracer would take the crash signal from libFuzzer (which
    # saves the input) and keep the output pipe open long after the process died.
    SWIFT_BACKTRACE=enable=no AE_FUZZ_SKIP_OPEN_FINDINGS="$skip_open" ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_options}" \
        "$exe" "${args[@]}" "$corpus" >"$log" 2>&1
    status=$?
    set -e
    ((jobs > 1)) && cat fuzz-*.log >>"$log" 2>/dev/null && rm -f fuzz-*.log
    # Final stats (summed over workers) and the last status line.
    executions=$(awk '/stat::number_of_executed_units:/ {s += $2} END {print s + 0}' "$log")
    speed=$(awk '/stat::average_exec_per_sec:/ {s += $2} END {print s + 0}' "$log")
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
    rss=$(awk '/stat::peak_rss_mb:/ {if ($2 > m) m = $2} END {print m + 0}' "$log")
    crashes=0
    for file in "$artifacts"*; do
        [[ -f "$file" ]] || continue
        crashes=$((crashes + 1))
        name=$(basename "$file")
        mkdir -p "Fuzz/Regressions/$target"
        cp "$file" "Fuzz/Regressions/$target/$name"
        echo "fuzz-$target: saved Fuzz/Regressions/$target/$name"
    done
    if ((status != 0 || crashes > 0)); then
        found=1
        echo "fuzz-$target: FOUND SOMETHING (exit $status). The report:"
        grep -nE "==ERROR|SUMMARY|fuzz invariant broken|Fatal error|Deadly signal|ALARM|out-of-memory|LeakSanitizer|Test unit written" \
            "$log" | head -20 || true
        grep -A25 -m1 -E "==ERROR|Fatal error|fuzz invariant broken" "$log" | head -40 || true
        mkdir -p Fuzz/.build/logs
        cp "$log" "Fuzz/.build/logs/$target-failure.log"
        echo "(full log: Fuzz/.build/logs/$target-failure.log)"
    fi
    if ((update_corpus)); then
        before=$(find "Fuzz/Corpus/$target" -type f | wc -l)
        "$exe" -merge=1 "Fuzz/Corpus/$target" "$corpus" >"$work/merge-$target.log" 2>&1 || true
        echo "fuzz-$target: Fuzz/Corpus/$target $before -> $(find "Fuzz/Corpus/$target" -type f | wc -l) files"
    fi
    total_inputs=$((total_inputs + executions))
    rows+=("| $target | ${executions} | ${speed} | ${cov:-?} | ${ft:-?} | ${corp:-?} | ${rss} | ${crashes} |")
done

table=$(
    echo "| target | inputs run | exec/s | coverage (cov) | features (ft) | corpus (files/bytes) | peak RSS MB | crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
    echo "| total | ${total_inputs} | | | | | | |"
)
echo
echo "fuzzing: ${seconds} s per target, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "$table"
if [[ -n "$report" ]]; then
    {
        echo
        echo "### $(date -u +%Y-%m-%d) — ${seconds} s per target, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores"
        echo
        echo "$table"
    } >>"$report"
fi
exit "$found"
