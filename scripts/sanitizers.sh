#!/usr/bin/env bash
# Memory and thread checks of the SDK, each in its own scratch directory (gitignored .build-*/):
#
#   1. swift test under ThreadSanitizer (.build-tsan) and AddressSanitizer (.build-asan);
#   2. libaccessenabler.so built with TSan / ASan (.build-tsan-lib, .build-asan-lib), then
#      Tests/c/smoke.c, a C create → set_requestor → check_authentication → destroy loop and
#      Tests/c/abi/old_hosts.c (hosts of every earlier struct layout), against the emulator,
#      compiled with the matching -fsanitize= and run against it;
#      Tests/c/stress.c too when it exists (built the same way, run with the emulator URL), and
#      Tests/c/lifetime.c's destroy modes (log-destroy, race, cancel, preauthorize: a host transport
#      on libcurl, destroy against its threads and the log sink's);
#   3. valgrind memcheck on that loop with the shipped library (release, static Swift runtime,
#      .build-valgrind), at N=10 and N=100 iterations: "definitely lost" must not grow with N.
#
#   scripts/sanitizers.sh [--only tsan|asan|c|valgrind]... [--iterations SMALL,LARGE]
#
# Prints a summary table; exits 1 on any sanitizer report, failed run or growing leak.
# Each swift test run is bounded by AE_SWIFT_TEST_TIMEOUT_S seconds (default 1200); a failed run
# prints its sanitizer reports, ✘ lines, crash lines and the last 40 lines of its log.
#
# Notes (why the flags below):
# * The test executables link with no version script: the library's (exports.map: "local: *", lld)
#   belongs to the libaccessenabler.so product only (Sources/AccessEnablerLink). Until 1.0 it applied
#   to every executable that linked the C thunks and hid the sanitizer runtime's interceptors and
#   __tsan_*/__asan_* entry points, which made TSan report false races (swift_once initialisers);
#   a second version script exported them again. lld, which now links the library product of the
#   same build, refuses a version script naming symbols it does not define, so that script is gone.
# * LeakSanitizer is off for `swift test` under ASan: it reports ~11 KB of reference cycles in
#   test helpers (InMemoryAdobe, EmulatorProcess) once per run. Leaks of the library itself are
#   what the valgrind step measures (growth per iteration), and LSan stays on for the C programs.
# * The TSan runtime of the Swift toolchain carries libdispatch interceptors: C programs linked
#   with -fsanitize=thread need -ldispatch -lBlocksRuntime from the toolchain.
# * SWIFT_BACKTRACE=enable=no: Swift's crash backtracer would otherwise take a crash signal first.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

only=()
small=10 large=100
while (($#)); do
    case "$1" in
        --only) only+=("$2"); shift 2 ;;
        --iterations) IFS=, read -r small large <<<"$2"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "sanitizers.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
wanted() { ((${#only[@]} == 0)) || [[ " ${only[*]} " == *" $1 "* ]]; }

swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
clang="$swift_bin/clang"
swift_libs=$(readlink -f "$swift_bin/../lib/swift/linux")
export SWIFT_BACKTRACE=enable=no

work=$(mktemp -d)
emulator_pid=""
cleanup() {
    [[ -n "$emulator_pid" ]] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

rows=()
failed=0
row() { rows+=("| $1 | $2 | $3 |"); [[ "$2" == ok* ]] || failed=1; }
step() { printf '\n==== %s\n' "$*"; }
seconds() { echo "$(($(date +%s) - $1)) s"; }

# The emulator, for the C loop and the stress test (throttle off: the loop registers each time).
start_emulator() {
    [[ -n "$emulator_pid" ]] && return 0
    python3 Emulator/emulator.py --port 0 --quiet --throttle off >"$work/emulator.out" 2>"$work/emulator.err" &
    emulator_pid=$!
    for _ in $(seq 100); do grep -q AE_EMULATOR_LISTENING "$work/emulator.out" && break; sleep 0.1; done
    emulator_url=$(awk '/AE_EMULATOR_LISTENING/ {print $2}' "$work/emulator.out")
    [[ -n "$emulator_url" ]] || { echo "the emulator did not start" >&2; cat "$work/emulator.err" >&2; exit 2; }
    echo "emulator: $emulator_url"
}

# The create → set_requestor → check_authentication → destroy loop (C, through the header).
cat >"$work/flowloop.c" <<'EOF'
/* flowloop URL N: N times: create a client (in-memory store), ae_set_requestor("REF30") against
   the emulator at URL, ae_check_authentication, wait for both callbacks, destroy. */
#define _POSIX_C_SOURCE 200809L
#include "accessenabler.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int requestor_status = -1, authentication_status = -1;

static void on_requestor(int32_t status, void *user_data) {
    (void)user_data;
    pthread_mutex_lock(&mutex);
    requestor_status = status;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
}

static void on_authentication(int32_t status, const char *code, void *user_data) {
    (void)code, (void)user_data;
    pthread_mutex_lock(&mutex);
    authentication_status = status;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
}

/* Waits (up to 120 s: valgrind is slow) until *value is set; returns it, or -1. */
static int wait_for(int *value) {
    struct timespec deadline;
    int result;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 120;
    pthread_mutex_lock(&mutex);
    while (*value < 0 && pthread_cond_timedwait(&changed, &mutex, &deadline) == 0) {}
    result = *value;
    pthread_mutex_unlock(&mutex);
    return result;
}

int main(int argc, char **argv) {
    int n, i;
    if (argc != 3) { fprintf(stderr, "usage: flowloop URL N\n"); return 2; }
    n = atoi(argv[2]);
    for (i = 0; i < n; i++) {
        ae_config config;
        ae_delegate delegate;
        ae_client *client = NULL;
        int32_t status;
        ae_config_init(&config, AE_CONFIG_VERSION);
        config.software_statement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImZsb3dsb29wIn0.c2ln";
        config.base_url = argv[1];
        config.device_id = "flowloop-device";
        config.max_requests_per_second = -1;
        ae_delegate_init(&delegate, AE_DELEGATE_VERSION);
        delegate.set_requestor_complete = on_requestor;
        delegate.set_authentication_status = on_authentication;
        requestor_status = authentication_status = -1;
        if ((status = ae_client_create(&config, &delegate, &client)) != AE_OK) {
            fprintf(stderr, "flowloop: ae_client_create: %s\n", ae_status_string(status));
            return 1;
        }
        if ((status = ae_set_requestor(client, "REF30", NULL)) != AE_OK) {
            fprintf(stderr, "flowloop: ae_set_requestor: %s\n", ae_status_string(status));
            return 1;
        }
        if (wait_for(&requestor_status) != AE_ACCESS_ENABLER_STATUS_SUCCESS) {
            fprintf(stderr, "flowloop: iteration %d: set_requestor_complete %d\n", i, requestor_status);
            return 1;
        }
        if ((status = ae_check_authentication(client)) != AE_OK) {
            fprintf(stderr, "flowloop: ae_check_authentication: %s\n", ae_status_string(status));
            return 1;
        }
        if (wait_for(&authentication_status) < 0) {
            fprintf(stderr, "flowloop: iteration %d: no set_authentication_status\n", i);
            return 1;
        }
        ae_client_destroy(client);
    }
    printf("flowloop: %d iterations ok\n", n);
    return 0;
}
EOF

# Builds the C programs against the library in $2 with the compiler flags of c_flags and the
# libraries of c_libs (arrays set by the caller), and runs them.
run_c_programs() {
    local kind=$1 libdir=$2
    local flags=(-std=gnu11 -g -Wall -Wextra -IInclude "${c_flags[@]}")
    local libs=(-L"$libdir" -Wl,-rpath,"$libdir" -laccessenabler -lpthread "${c_libs[@]}")
    local name status
    for program in smoke flowloop stress old_hosts lifetime-log-destroy lifetime-race lifetime-cancel lifetime-preauthorize; do
        local source="Tests/c/$program.c" args=() extra=()
        [[ $program == flowloop ]] && source="$work/flowloop.c" && args=("$emulator_url" "$small")
        [[ $program == stress ]] && { [[ -f $source ]] || continue; args=("$emulator_url"); }
        # A client's lifetime (issue 28): destroy against the host transport's and the log sink's threads.
        [[ $program == lifetime-* ]] && source="Tests/c/lifetime.c" && args=("$emulator_url" "${program#lifetime-}") && extra=(-lcurl)
        # Hosts of every earlier struct layout: with the library built with ASan too, a read or write
        # past an old, shorter struct inside the library is a report.
        [[ $program == old_hosts ]] && source="Tests/c/abi/old_hosts.c" && args=("$emulator_url")
        name="$kind C $program"
        if ! "$clang" "${flags[@]}" "$source" "${libs[@]}" "${extra[@]}" -o "$work/$program-$kind" \
            >"$work/$program-$kind.build.log" 2>&1; then
            grep -v "Cannot export local symbol" "$work/$program-$kind.build.log" | head -20
            row "$name" "FAILED (build)" "-"
            continue
        fi
        local start=$(date +%s)
        AE_EMULATOR_URL="$emulator_url" "$work/$program-$kind" "${args[@]}" >"$work/$program-$kind.log" 2>&1
        status=$?
        local reports
        reports=$(grep -cE "WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer" "$work/$program-$kind.log")
        if ((status == 0 && reports == 0)); then
            row "$name" "ok ($(tail -1 "$work/$program-$kind.log"))" "$(seconds "$start")"
        else
            grep -A30 -m3 -E "WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer" "$work/$program-$kind.log" | head -80
            tail -5 "$work/$program-$kind.log"
            row "$name" "FAILED (exit $status, $reports sanitizer reports)" "$(seconds "$start")"
        fi
    done
}

# ---------------------------------------------------------------------------------- swift test
swift_test() {
    local kind=$1 sanitizer=$2 scratch=$3
    step "swift test --sanitize=$sanitizer ($scratch)"
    local start=$(date +%s) flags=(--sanitize="$sanitizer" --scratch-path "$scratch")
    if ! swift build --build-tests "${flags[@]}" >"$work/$kind-build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$work/$kind-build.log" | tail -30
        row "swift test ($kind)" "FAILED (build)" "$(seconds "$start")"
        return
    fi
    local built=$(seconds "$start")
    start=$(date +%s)
    # Bounded: a test process that hangs must fail this run, not stall CI until its own limit.
    timeout --kill-after=30 "${AE_SWIFT_TEST_TIMEOUT_S:-1200}" \
        swift test --skip-build "${flags[@]}" >"$work/$kind-test.log" 2>&1
    local status=$? reports
    reports=$(grep -cE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$work/$kind-test.log")
    local summary
    summary=$(grep -E "Test run with" "$work/$kind-test.log" | tail -1 | sed -E 's/^[^A-Za-z]*//')
    if ((status == 0 && reports == 0)); then
        row "swift test ($kind)" "ok ($summary)" "build $built, run $(seconds "$start")"
    else
        grep -A40 -m3 -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$work/$kind-test.log" | head -120
        grep -E "✘" "$work/$kind-test.log" | head -20
        # A crash (a Swift runtime trap, a signal) names itself in the last lines, not in a ✘ line.
        grep -E "Fatal error|fatal error|Assertion failed|Precondition failed|signal|Crash" "$work/$kind-test.log" | head -20
        ((status == 124)) && echo "swift test ($kind): timed out after ${AE_SWIFT_TEST_TIMEOUT_S:-1200} s"
        tail -40 "$work/$kind-test.log"
        row "swift test ($kind)" "FAILED (exit $status, $reports sanitizer reports)" "build $built, run $(seconds "$start")"
    fi
}

if wanted tsan; then
    swift_test tsan thread .build-tsan
fi
if wanted asan; then
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        swift_test asan address .build-asan
fi

# ------------------------------------------------------------------------- C against the library
if wanted c; then
    start_emulator
    for sanitizer in address thread; do
        kind=${sanitizer:0:1}san scratch=.build-${sanitizer:0:1}san-lib
        step "libaccessenabler.so with --sanitize=$sanitizer ($scratch), C programs with -fsanitize=$sanitizer"
        start=$(date +%s)
        if ! swift build -c release --product accessenabler --sanitize="$sanitizer" --scratch-path "$scratch" \
            >"$work/$kind-lib.log" 2>&1; then
            grep -v "Cannot export local symbol" "$work/$kind-lib.log" | tail -30
            row "libaccessenabler.so ($kind)" "FAILED (build)" "$(seconds "$start")"
            continue
        fi
        row "libaccessenabler.so ($kind)" "ok (built)" "$(seconds "$start")"
        c_flags=(-fsanitize="$sanitizer" -fno-omit-frame-pointer)
        c_libs=(-fsanitize="$sanitizer")
        [[ $sanitizer == thread ]] && c_libs+=(-L"$swift_libs" -Wl,-rpath,"$swift_libs" -ldispatch -lBlocksRuntime)
        # LeakSanitizer with the Swift side-table suppression (Tests/c/lsan-swift.supp says why).
        ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
            LSAN_OPTIONS="suppressions=$root/Tests/c/lsan-swift.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
            run_c_programs "$kind" "$root/$scratch/release"
    done
fi

# ------------------------------------------------------------------------------------- valgrind
if wanted valgrind; then
    start_emulator
    step "valgrind memcheck: the C loop at N=$small and N=$large (release .so, static Swift runtime)"
    start=$(date +%s)
    if ! swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler --scratch-path .build-valgrind \
        >"$work/valgrind-lib.log" 2>&1; then
        tail -30 "$work/valgrind-lib.log"
        row "valgrind" "FAILED (build)" "$(seconds "$start")"
    else
        # Valgrind 3.19 cannot read the DWARF 5 of this toolchain ("Possibly corrupted debuginfo
        # file. I can't recover."): it gets a copy without debug info (symbols stay).
        libdir=$work/valgrind-lib
        mkdir -p "$libdir"
        cp .build-valgrind/release/libaccessenabler.so "$libdir/"
        strip --strip-debug "$libdir/libaccessenabler.so"
        gcc -std=c99 -g -O1 -Wall -Wextra -IInclude "$work/flowloop.c" -L"$libdir" -Wl,-rpath,"$libdir" \
            -laccessenabler -lpthread -o "$work/flowloop"
        declare -A lost possibly_at
        for n in "$small" "$large"; do
            start=$(date +%s)
            valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
                --num-callers=40 --log-file="$work/valgrind-$n.log" "$work/flowloop" "$emulator_url" "$n" \
                >"$work/valgrind-$n.out" 2>&1
            status=$?
            lost[$n]=$(sed -nE 's/.*definitely lost: ([0-9,]+) bytes in ([0-9,]+) blocks.*/\1/p' "$work/valgrind-$n.log" | tr -d , | tail -1)
            blocks=$(sed -nE 's/.*definitely lost: ([0-9,]+) bytes in ([0-9,]+) blocks.*/\2/p' "$work/valgrind-$n.log" | tr -d , | tail -1)
            lost[$n]=${lost[$n]:-0} blocks=${blocks:-0}
            indirect=$(sed -nE 's/.*indirectly lost: ([0-9,]+) bytes.*/\1/p' "$work/valgrind-$n.log" | tr -d , | tail -1)
            possibly=$(sed -nE 's/.*possibly lost: ([0-9,]+) bytes.*/\1/p' "$work/valgrind-$n.log" | tr -d , | tail -1)
            possibly_at[$n]=${possibly:-0}
            detail="definitely lost ${lost[$n]} B in $blocks blocks, indirectly ${indirect:-0} B, possibly ${possibly:-0} B"
            if ((status == 0)) && grep -q "iterations ok" "$work/valgrind-$n.out"; then
                row "valgrind N=$n" "ok ($detail)" "$(seconds "$start")"
            else
                tail -5 "$work/valgrind-$n.out"
                row "valgrind N=$n" "FAILED (exit $status; $detail)" "$(seconds "$start")"
            fi
        done
        growth=$((lost[$large] - lost[$small]))
        possibly_growth=$((possibly_at[$large] - possibly_at[$small]))
        if ((possibly_growth > 0)); then
            row "valgrind possibly lost (info)" "ok (+$possibly_growth B from N=$small to N=$large: not a failure)" "-"
        fi
        if ((growth > 0)); then
            grep -B2 -A40 "definitely lost in" "$work/valgrind-$large.log" | head -150
            row "valgrind leak growth" "FAILED (+$growth B definitely lost from N=$small to N=$large)" "-"
        else
            row "valgrind leak growth" "ok (${lost[$small]} B at N=$small, ${lost[$large]} B at N=$large)" "-"
        fi
    fi
fi

echo
echo "| check | result | time |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
exit "$failed"
