#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The benchmarks of the SDK, one Markdown table per section, with DESIGN.md's targets alongside.

    python3 Benchmarks/run.py [--quick] [--no-build] [--only SECTION ...] [--json FILE]

Builds what it needs (the release libaccessenabler.so with the static Swift runtime, and
Benchmarks/bench.c against Include/ and that .so), starts emulators on loopback (port 0,
throttling off) and runs:

  requests  requests per flow from the emulator's log, next to the protocol minimum
  e2e       each flow with the emulator adding 100 ms to every request, next to requests × 100 ms
  overhead  ae_get_authorization → set_token against a zero-latency emulator, next to a bare
            libcurl replay of the same request from C in the same process (median, p99)
  size      the stripped .so, and (full run) what each linked part costs, from a link map
  startup   RSS added by create + setRequestor; create → set_requestor_complete on a warm store
  load      100 getAuthorization released at once from 16 threads; RSS over 100,000 calls

--quick (about a minute: fewer samples and calls, no link map) is the CI smoke check. Times on a
shared machine are noisy: medians are reported, and the test suite asserts request counts only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import requests_per_flow as flows  # noqa: E402
from requests_per_flow import DEVICE, SOFTWARE_STATEMENT, Emulator  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".build"
LIBRARY = Path(os.environ.get("AE_LIBRARY", BUILD / "release" / "libaccessenabler.so")).resolve()
SECTIONS = ("requests", "e2e", "overhead", "size", "startup", "load")
LATENCY_MS = 100
MB = 1_000_000

# DESIGN.md "Targets"
TARGET_OVERHEAD_MS = 0.3
TARGET_SIZE_MB = 8  # issue 32 (issue 21 set 12, with 8 as the stretch)
TARGET_RSS_MB = 15
TARGET_STARTUP_MS = 5
TARGETS = {
    "setRequestor, cold (never registered)": "4 requests in 3 sequential round trips",
    "setRequestor, warm (new client on a fresh store)": "at most 1 round trip",
    "checkAuthentication": "0",
    "getAuthorization (valid profile)": "1",
}
# The shipped library's link (scripts/test.sh, CMake): the static runtime trimmed by scripts/trim-swift-runtime.py.
TRIMMED_RUNTIME = BUILD / "swift-static-trimmed"
SWIFT_BUILD = ["swift", "build", "-c", "release", "-Xswiftc", "-static-stdlib", "--experimental-lto-mode=full",
               "--product", "accessenabler"]


def swift_build() -> list[str]:
    """SWIFT_BUILD with the trimmed runtime's arguments (made on first use)."""
    trim = subprocess.run([sys.executable, str(ROOT / "scripts/trim-swift-runtime.py"), str(TRIMMED_RUNTIME)],
                          check=True, capture_output=True, text=True).stdout.split()
    return SWIFT_BUILD + trim


# --- building -----------------------------------------------------------------------------------

def build_library() -> None:
    subprocess.run(swift_build(), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def build_bench() -> Path:
    out = BUILD / "bench"
    out.mkdir(parents=True, exist_ok=True)
    binary = out / "bench"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-pthread",
                    f"-I{ROOT / 'Include'}", str(ROOT / "Benchmarks/bench.c"), "-o", str(binary),
                    f"-L{LIBRARY.parent}", f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler", "-lcurl"], check=True)
    return binary


def bench(binary: Path, mode: str, emulator: Emulator, store: str, *args, timeout=1800) -> dict:
    command = [str(binary), mode, emulator.url, store, SOFTWARE_STATEMENT, DEVICE, *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode not in (0, 1) or not result.stdout.strip():
        raise RuntimeError(f"bench {mode} failed ({result.returncode}): {result.stderr}")
    return json.loads(result.stdout)


# --- figures --------------------------------------------------------------------------------------

def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def mb(size: float) -> str:
    return f"{size / MB:.2f} MB"


class Emulators:
    """Emulators started on demand and stopped at the end (throttling off: load, not pacing)."""

    def __init__(self):
        self.running: dict[int, Emulator] = {}

    def get(self, latency_ms: int = 0) -> Emulator:
        if latency_ms not in self.running:
            self.running[latency_ms] = Emulator("--throttle", "off", "--latency-ms", str(latency_ms))
        return self.running[latency_ms]

    def stop(self):
        for emulator in self.running.values():
            emulator.stop()


# --- sections -------------------------------------------------------------------------------------

def section_requests(ctx) -> list[str]:
    measured = {api: flows.measure_flows(ctx.emulators.get(0), api=api) for api in flows.APIS}
    ctx.results["requests"] = {api: [{"flow": f.name, "requests": f.requests, "minimum": f.minimum,
                                      "round_trips": f.round_trips, "reaches_minimum": f.reaches_minimum,
                                      "operations": f.operations} for f in rows]
                               for api, rows in measured.items()}
    v2, v1 = measured["v2"], measured["v1"]
    lines = ["### Requests per flow, REST API V2 and V1", "",
             "Counted from the emulator's request log (API requests only), each flow driven through the .so "
             "(ctypes) on each generation; ⚠ marks a count above the protocol minimum.", "",
             "| flow | V2 requests | V2 minimum | V2 round trips | V1 requests | V1 minimum | V1 round trips |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for a, b in zip(v2, v1):
        mark = lambda f: "" if f.requests == f.minimum else " ⚠"  # noqa: E731
        lines.append(f"| {a.name} | {a.requests}{mark(a)} | {a.minimum} | {a.round_trips} "
                     f"| {b.requests}{mark(b)} | {b.minimum} | {b.round_trips} |")
    lines += ["", "Targets (DESIGN.md): " + "; ".join(f"{name}: {target}" for name, target in TARGETS.items())
              + "; preauthorization of N resources: ⌈N / 5⌉.", ""]
    for api, rows in measured.items():
        lines += [f"REST API {api.upper()}, the operations of each flow:", ""]
        lines += flows.requests_table(rows) + [""]
    return lines[:-1]


def section_e2e(ctx) -> list[str]:
    lines = [f"### End to end, {LATENCY_MS} ms added to every request", ""]
    ctx.results["e2e"] = {}
    for api in flows.APIS:
        runs = [flows.measure_flows(ctx.emulators.get(LATENCY_MS), api=api) for _ in range(1 if ctx.quick else 3)]
        rows = runs[0]
        for index, flow in enumerate(rows):  # the median of the runs
            flow.elapsed_ms = statistics.median(run[index].elapsed_ms for run in runs)
        ctx.results["e2e"][api] = [{"flow": f.name, "requests": f.requests, "ms": round(f.elapsed_ms, 1),
                                    "floor_ms": f.round_trips * LATENCY_MS + f.waits_ms} for f in rows]
        lines += [f"REST API {api.upper()}: call → terminal callback, measured from Python (median of {len(runs)} "
                  f"run{'s' if len(runs) > 1 else ''}).", "",
                  "| flow | requests | measured | requests × 100 ms | floor: round trips × 100 ms (+ waits) "
                  "| over floor | note |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for f in rows:
            floor = f.round_trips * LATENCY_MS + f.waits_ms
            wait = f" (+{f.waits_ms} ms poll interval)" if f.waits_ms else ""
            note = ""
            if f.requests > flows.MAX_HOST_CONNECTIONS:
                rounds = -(-f.requests // flows.MAX_HOST_CONNECTIONS)
                note = (f"{flows.MAX_HOST_CONNECTIONS} connections per host (HTTP/1.1): {rounds} rounds = "
                        f"{rounds * LATENCY_MS} ms")
            lines.append(f"| {f.name} | {f.requests} | {f.elapsed_ms:.0f} ms | {f.requests * LATENCY_MS} ms "
                         f"| {floor} ms{wait} | {f.elapsed_ms - floor:+.0f} ms | {note} |")
        lines.append("")
    return lines[:-1]


def section_overhead(ctx) -> list[str]:
    emulator = ctx.emulators.get(0)
    directory = tempfile.mkdtemp(prefix="ae-bench-overhead-")
    store = flows.prepare_store(emulator, directory)
    replay = Path(directory) / "authorize.request"
    write_replay(emulator, store, replay)
    calls = 300 if ctx.quick else 2000
    result = bench(ctx.bench, "overhead", emulator, store, replay, calls)
    sdk, bare = [s / 1000 for s in result["sdk_us"]], [s / 1000 for s in result["curl_us"]]
    multi = [s / 1000 for s in result["multi_us"]]
    sdk_median, bare_median, multi_median = statistics.median(sdk), statistics.median(bare), statistics.median(multi)
    over = sdk_median - bare_median
    ctx.results["overhead"] = {"calls": calls, "sdk_median_ms": sdk_median, "sdk_p99_ms": percentile(sdk, 0.99),
                               "curl_median_ms": bare_median, "curl_p99_ms": percentile(bare, 0.99),
                               "multi_median_ms": multi_median, "multi_p99_ms": percentile(multi, 0.99),
                               "overhead_median_ms": over, "failures": result["failures"],
                               "curl_errors": result["curl_errors"]}
    return [
        "### SDK overhead per call (zero-latency emulator, loopback)", "",
        f"{calls:,} `ae_get_authorization(\"LIVE\")` → `set_token` one at a time, interleaved in blocks of 25 with "
        f"{calls:,} bare libcurl replays (one reused easy handle, keep-alive) of the SDK's own "
        "`decisions/authorize` request, in one C process.", "",
        "| | median | p99 |", "|---|---:|---:|",
        f"| SDK: `ae_get_authorization` → `set_token` | {sdk_median:.3f} ms | {percentile(sdk, 0.99):.3f} ms |",
        f"| bare libcurl, same request | {bare_median:.3f} ms | {percentile(bare, 0.99):.3f} ms |",
        f"| ratio SDK / bare | {sdk_median / bare_median:.2f} × | {percentile(sdk, 0.99) / percentile(bare, 0.99):.2f} × |",
        f"| **SDK overhead** (difference) | **{over:.3f} ms** | |", "",
        f"Target: ≤ {TARGET_OVERHEAD_MS} ms median over the HTTP exchange — {verdict(over <= TARGET_OVERHEAD_MS)}. "
        f"Errors: {result['failures']} token failures, {result['curl_errors']} bare-curl errors.", "",
        "The design's floor, measured the same way: the same request through a plain C `curl_multi` loop on a "
        "thread of its own, woken with `curl_multi_wakeup` and answering through a semaphore (the SDK's two "
        "hand-offs and its transfer loop, without the SDK):", "",
        "| | median | p99 |", "|---|---:|---:|",
        f"| C `curl_multi` loop, same request | {multi_median:.3f} ms | {percentile(multi, 0.99):.3f} ms |",
        f"| floor over the bare exchange | {multi_median - bare_median:.3f} ms | |",
        f"| the SDK's own work (SDK − C loop) | {sdk_median - multi_median:.3f} ms | |",
    ]


def write_replay(emulator: Emulator, store: str, path: Path) -> None:
    """Has the SDK send one decisions/authorize request and writes it down for bench.c to replay."""
    recorder = flows.Recorder()
    with flows.client(emulator, store, recorder) as one:
        one.set_requestor(flows.REQUESTOR)
        assert recorder.wait("set_requestor_complete") == (1,)
        emulator.clear_log()
        one.get_authorization("LIVE")
        recorder.wait("set_token")
    entry = next(e for e in emulator.log() if e["operation"] == "retrieveAuthorizeDecisionsForMvpdUsingPOST")
    skip = {"host", "content-length", "connection", "expect", "transfer-encoding"}
    headers = [f"{k}: {v}" for k, v in entry["headers"].items() if k.lower() not in skip]
    url = emulator.url + entry["path"] + (f"?{entry['query']}" if entry["query"] else "")
    path.write_text("\n".join([entry["method"], url, *headers, "", entry["body"] or ""]))


def section_size(ctx) -> list[str]:
    stripped = Path(tempfile.mkdtemp(prefix="ae-bench-size-")) / "libaccessenabler.so"
    subprocess.run(["strip", "--strip-all", "-o", str(stripped), str(LIBRARY)], check=True)
    size = stripped.stat().st_size
    ctx.results["size"] = {"unstripped": LIBRARY.stat().st_size, "stripped": size}
    lines = ["### Size", "",
             "| | size | target |", "|---|---:|---|",
             f"| `libaccessenabler.so` as built (symbols, no debug info) | {mb(LIBRARY.stat().st_size)} | |",
             f"| stripped (`strip --strip-all`), self-contained | **{mb(size)}** | ≤ {TARGET_SIZE_MB} MB: "
             f"{verdict(size <= TARGET_SIZE_MB * MB)} |"]
    if ctx.quick:
        return lines + ["", "(`--quick`: no link map, so no breakdown)"]
    parts = size_breakdown()
    ctx.results["size"]["parts"] = parts
    total = sum(parts.values())
    lines += ["", "What each part costs (bytes the linker placed in the file's loaded sections, from a link map "
              "of the same release build; `.bss` excluded):", "",
              "| part | size | share |", "|---|---:|---:|"]
    for name, part in sorted(parts.items(), key=lambda item: -item[1]):
        lines.append(f"| {name} | {mb(part)} | {part / total:.0%} |")
    lines.append(f"| total | {mb(total)} | |")
    return lines


PART_NAMES = {
    "AccessEnabler": "SDK: Swift core (`Sources/AccessEnabler`)",
    "AccessEnablerCABI": "SDK: C thunks (`Sources/AccessEnablerCABI`)",
    "libswiftCore.a": "Swift runtime and standard library",
    "libswift_Concurrency.a": "Swift Concurrency runtime",
    "libFoundationEssentials.a": "FoundationEssentials (JSON coding, Data, Date…)",
    "lib_FoundationCShims.a": "FoundationEssentials' C shims",
    "lib_FoundationCollections.a": "FoundationEssentials' collections",
    "libdispatch.a": "libdispatch (Concurrency's executor)",
    "libBlocksRuntime.a": "libdispatch (BlocksRuntime)",
    "libswiftDispatch.a": "libdispatch (Swift overlay)",
    "libswiftSynchronization.a": "Swift Synchronization",
    "libswift_StringProcessing.a": "Swift string processing (Regex)",
    "libswift_RegexParser.a": "Swift Regex parser",
    "libswiftGlibc.a": "Glibc overlay",
}
LINKER = "linker-generated: unwind tables (`.eh_frame`), dynamic relocations, symbol tables, PLT/GOT"


def size_breakdown() -> dict[str, int]:
    """Links the same release build once more with a link map and sums each input file's sections."""
    scratch = BUILD / "bench-linkmap"
    link_map = scratch / "accessenabler.map"
    subprocess.run(swift_build() + ["--scratch-path", str(scratch), "-Xlinker", f"-Map={link_map}"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return parse_link_map(link_map.read_text(errors="replace"))


def parse_link_map(text: str) -> dict[str, int]:
    if text.lstrip().startswith("VMA"):
        return parse_lld_map(text)
    parts: dict[str, int] = {}
    output, output_size, attributed, pending = None, 0, 0, None

    def close_output():
        if output is not None:
            parts[LINKER] = parts.get(LINKER, 0) + max(0, output_size - attributed)

    loaded = False
    for line in text.splitlines():
        if not loaded:
            loaded = line.startswith(".dynsym") or line.startswith(".note.gnu.build-id")
            if not loaded:
                continue
        if line and not line[0].isspace():
            close_output()
            fields = line.split()
            name = fields[0]
            skip = name.startswith((".debug", ".comment", ".symtab", ".strtab", ".shstrtab", ".note.gnu.gold"))
            skip = skip or name in (".bss", ".tbss")
            output = None if skip else name
            output_size = int(fields[2], 16) if len(fields) >= 3 and fields[2].startswith("0x") else 0
            attributed, pending = 0, None
            continue
        if output is None:
            continue
        fields = line.split()
        if output_size == 0 and len(fields) == 2 and fields[1].startswith("0x") and fields[0].startswith("0x"):
            output_size = int(fields[1], 16)  # the output section's address and size on their own line
            continue
        if line.startswith(" ") and not line.startswith("  ") and fields and not fields[0].startswith("*"):
            if len(fields) >= 4 and fields[2].startswith("0x"):
                record = (fields[2], fields[3])
            else:
                pending = True
                continue
        elif pending and len(fields) >= 3 and fields[0].startswith("0x") and fields[1].startswith("0x"):
            record = (fields[1], fields[2])
        else:
            continue
        pending = None
        size = int(record[0], 16)
        if size:
            name = part_of_path(record[1])
            parts[name] = parts.get(name, 0) + size
            attributed += size
    close_output()
    return parts


def parse_lld_map(text: str) -> dict[str, int]:
    """lld's map (the library links with lld): "VMA LMA Size Align Out In Symbol" columns; an output
    section starts at the Out column, an input section (path:(section) or <internal>) at the In column,
    symbols further right. lld names the input file of each piece of `.eh_frame` too, so a part's
    unwind tables count with it; "linker-generated" is then what lld itself made (<internal>)."""
    lines = text.splitlines()
    header = lines[0]
    out_col, in_col = header.index("Out"), header.index("In ")
    parts: dict[str, int] = {}
    skip = True
    for line in lines[1:]:
        fields = line.split(None, 4)
        if len(fields) < 5:
            continue
        start = line.index(fields[4], len(" ".join(fields[:4])))  # the column the name starts at
        name, size = fields[4], int(fields[2], 16)
        if start <= out_col:
            skip = name.startswith((".debug", ".comment", ".symtab", ".strtab", ".shstrtab")) or name in (".bss", ".tbss")
            continue
        if skip or start > in_col + 1 or not size:
            continue
        part = LINKER if name.startswith("<internal>") else part_of_path(name.rsplit(":(", 1)[0])
        parts[part] = parts.get(part, 0) + size
    return parts


def part_of_path(path: str) -> str:
    if path.endswith(".lto.o") or "lto.tmp" in path:  # what the link-time optimiser compiled: the SDK's Swift modules, as one unit
        return "SDK: Swift core and C thunks (`Sources/AccessEnabler`, `Sources/AccessEnablerCABI`; LTO)"
    archive = re.match(r".*/([^/(]+\.a)\(", path)
    if archive:
        return PART_NAMES.get(archive.group(1), archive.group(1))
    target = re.search(r"/([^/]+)\.build/", path)
    if target:
        return PART_NAMES.get(target.group(1), f"SDK: C shims ({target.group(1)})")
    return "C runtime start-up files (crt*.o)"


def section_startup(ctx) -> list[str]:
    emulator = ctx.emulators.get(0)
    store = flows.prepare_store(emulator, tempfile.mkdtemp(prefix="ae-bench-startup-"))
    processes, repeats = (3, 10) if ctx.quick else (9, 50)
    emulator.clear_log()
    runs = [bench(ctx.bench, "startup", emulator, store, repeats) for _ in range(processes)]
    warm_requests = len(emulator.log())
    cold_runs = []
    for _ in range(processes):
        empty = str(Path(tempfile.mkdtemp(prefix="ae-bench-cold-")) / "store.sqlite")
        cold_runs.append(bench(ctx.bench, "startup", emulator, empty, 0))
    first = statistics.median(r["first_ms"] for r in runs)
    again = statistics.median(s for r in runs for s in r["again_ms"])
    rss = statistics.median((r["rss_after_kb"] - r["rss_before_kb"]) * 1024 for r in runs)
    cold_rss = statistics.median((r["rss_after_kb"] - r["rss_before_kb"]) * 1024 for r in cold_runs)
    cold_first = statistics.median(r["first_ms"] for r in cold_runs)
    base = statistics.median(r["rss_before_kb"] * 1024 for r in runs)
    parts = {name: statistics.median(r["rss_parts_after_kb"][name] * 1024 for r in runs)
             for name in runs[0]["rss_parts_after_kb"]}
    added = {name: statistics.median((r["rss_parts_after_kb"][name] - r["rss_parts_before_kb"][name]) * 1024
                                     for r in runs) for name in parts}
    ctx.results["startup"] = {"first_ms": first, "again_ms": again, "rss_added": rss, "cold_rss_added": cold_rss,
                              "cold_first_ms": cold_first, "warm_requests": warm_requests,
                              "rss_parts": parts, "rss_parts_added": added}
    labels = {"libaccessenabler": "libaccessenabler.so (the SDK and the Swift runtime in it)", "libcurl": "libcurl",
              "libssl_libcrypto": "libssl + libcrypto (OpenSSL)", "libsqlite3": "libsqlite3",
              "libjansson": "libjansson", "other_libraries": "other libraries (libc, libz, …)",
              "anonymous": "anonymous: heap and thread stacks, every library's allocations"}
    return [
        "### Start-up and memory", "",
        f"Median of {processes} fresh processes each (`bench startup`); VmRSS read from `/proc/self/status` just "
        f"before `ae_client_create` (library loaded: {mb(base)}) and at `set_requestor_complete`.", "",
        "| | measured | target |", "|---|---:|---|",
        f"| RSS added by create + setRequestor, warm store | **{mb(rss)}** | ≤ {TARGET_RSS_MB} MB: "
        f"{verdict(rss <= TARGET_RSS_MB * MB)} |",
        f"| RSS added by create + setRequestor, empty store (registers: 4 requests) | {mb(cold_rss)} | |",
        f"| create → set_requestor_complete, warm store, first client of the process | **{first:.2f} ms** "
        f"| ≤ {TARGET_STARTUP_MS} ms: {verdict(first <= TARGET_STARTUP_MS)} |",
        f"| the same, later clients of the process (median of {processes} × {repeats}) | {again:.2f} ms | |",
        f"| the same, empty store (register → token → configuration ∥ profiles) | {cold_first:.2f} ms | |",
        f"| API requests during the warm start-ups | {warm_requests} | 0 (nothing stale) |",
        "",
        "Resident memory at `set_requestor_complete` (warm store) by mapping, from `/proc/self/smaps` "
        "(median of the same processes): what each library's own pages hold, and what create + setRequestor "
        "added to each. The anonymous memory is shared by all of them (libcurl's and OpenSSL's buffers, "
        "SQLite's page cache, the SDK's objects, three thread stacks).", "",
        "| mapping | resident | added by create + setRequestor |", "|---|---:|---:|",
        *[f"| {labels.get(name, name)} | {mb(parts[name])} | {mb(added[name])} |" for name in parts],
    ]


def section_load(ctx) -> list[str]:
    emulator = ctx.emulators.get(0)
    store = flows.prepare_store(emulator, tempfile.mkdtemp(prefix="ae-bench-load-"))
    total, samples = (5_000, 5) if ctx.quick else (100_000, 20)
    stop = threading.Event()

    def keep_log_small():  # the emulator keeps its log in memory: 100,000 entries would weigh on it
        while not stop.wait(2):
            emulator.clear_log()
    cleaner = threading.Thread(target=keep_log_small, daemon=True)
    cleaner.start()
    try:
        result = bench(ctx.bench, "load", emulator, store, 16, 100, total, 100, samples)
    finally:
        stop.set()
        cleaner.join()
    burst, sustained = result["burst"], result["sustained"]
    rss = sustained["rss_kb"]
    warm = next((kb for calls, kb in rss if calls >= total // 10), rss[0][1])  # after the first 10%
    growth = (rss[-1][1] - warm) * 1024
    flat = growth <= 2 * MB
    ctx.results["load"] = {"burst": burst, "sustained": sustained, "growth_after_10pct": growth}
    curve = ", ".join(f"{calls // 1000}k: {kb / 1024:.1f}" for calls, kb in rss[:: max(1, len(rss) // 10)])
    return [
        "### Load (emulator throttling off, client pacing off)", "",
        "| | measured | target |", "|---|---:|---|",
        f"| {burst['calls']} getAuthorization released at once from {burst['threads']} threads: errors | "
        f"**{burst['errors']}** ({burst['tokens']} tokens, all in {burst['ms']:.0f} ms) | 0: "
        f"{verdict(burst['errors'] == 0 and burst['tokens'] == burst['calls'])} |",
        f"| {total:,} getAuthorization, ≤ {sustained['inflight']} in flight, {burst['threads']} threads: errors "
        f"| {sustained['errors']} ({sustained['calls'] / sustained['seconds']:.0f} calls/s) | 0 |",
        f"| RSS after the first 10% → after the last call | {warm / 1024:.1f} → {rss[-1][1] / 1024:.1f} MiB "
        f"({growth / MB:+.2f} MB) | flat (≤ 2 MB growth): {verdict(flat)} |", "",
        f"RSS (MiB) by calls completed: {curve}, end: {rss[-1][1] / 1024:.1f}.",
    ]


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    curl = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.split("\n")[0] \
        if shutil.which("curl") else "?"
    return (f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, "
            f"{swift[0] if swift else 'swift ?'}; {' '.join(curl.split()[:2])}")


class Context:
    def __init__(self, quick: bool, binary: Path | None):
        self.quick = quick
        self.bench = binary
        self.emulators = Emulators()
        self.results: dict = {}


RUNNERS = {"requests": section_requests, "e2e": section_e2e, "overhead": section_overhead, "size": section_size,
           "startup": section_startup, "load": section_load}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, no link map (about a minute)")
    parser.add_argument("--no-build", action="store_true", help="use the built .so as it is")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run these sections only")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--bench", help="a bench program built already, e.g. for another CPU and run by qemu-user "
                                        "(scripts/cross-bench.sh); the Python side keeps AE_LIBRARY")
    args = parser.parse_args(argv)
    sections = args.only or list(SECTIONS)
    if not args.no_build:
        build_library()
    needs_c = any(s in sections for s in ("overhead", "startup", "load"))
    context = Context(args.quick, (Path(args.bench) if args.bench else build_bench()) if needs_c else None)
    started = time.monotonic()
    print(f"Machine: {machine()}. Run: `python3 Benchmarks/run.py{' --quick' if args.quick else ''}"
          f"{' --bench ' + args.bench if args.bench else ''}`.\n")
    try:
        for name in sections:
            print("\n".join(RUNNERS[name](context)) + "\n", flush=True)
    finally:
        context.emulators.stop()
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(context.results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
