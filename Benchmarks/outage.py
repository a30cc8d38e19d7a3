#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fleet of set-top players in an Adobe outage: the request rate before, during and after it.

    python3 Benchmarks/outage.py [--library PATH] [--clients 200] [--processes 4] [--period 10]
        [--host-retry 5] [--steady 60] [--outage-503 30] [--outage-refused 30] [--after 90]
        [--retry-after SECONDS] [--out Benchmarks/outage-results] [--json FILE] [--label TEXT] [--quick]

Runs `--clients` real SDK clients (the Python module over the C library: --library, else
$AE_LIBRARY, else .build/release/libaccessenabler.so) in `--processes` worker processes, each
client with its own store file and device id, against the emulator (throttling off: every client
comes from 127.0.0.1, where Adobe would see one device per address) through a switch proxy on
loopback (plain http). Every client is logged in first; then each behaves as a naive player:
getAuthorization every `--period` s (random phase), `--host-retry` s after a failed call.

Timeline: `--steady` s; then `--outage-503` s in which the emulator answers every Adobe request
HTTP 503 (fault list: operation "*", kind "status"); then `--outage-refused` s in which the proxy
stops listening and drops its connections (the kernel refuses connections: ECONNREFUSED); then the
proxy listens again, the fault list is cleared, and `--after` s are measured.

Counted per second: requests that reached the emulator (its request log file, `t_ms` = arrival:
a fault's 503 is logged, a refused connection never arrives); connection attempts (connect() calls
to the proxy's port, counted inside the client processes by Benchmarks/connect_counter.c, an
LD_PRELOAD shim built here with cc); calls started, failed and succeeded (the workers' records).

Writes to `--out`: outage.csv (one row per second), outage.png (matplotlib; skipped with a warning
if it is not installed), outage.json (the summary, as `--json`); prints the summary as Markdown.
`--quick` (about 80 s: 20 clients, 2 processes, 10 + 5 + 5 + 40 s: 40 s after recovery outlast the
breaker's longest draw, 30 s, plus a host retry) is the smoke test's run.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fleet import analysis, plot, shim  # noqa: E402
from fleet.cpu import CORES, CpuSampler  # noqa: E402
from fleet.proxy import SwitchProxy  # noqa: E402
from fleet.timeline import Timeline  # noqa: E402

DEFAULTS = {"clients": 200, "processes": 4, "steady": 60, "outage_503": 30, "outage_refused": 30, "after": 90}
QUICK = {"clients": 20, "processes": 2, "steady": 10, "outage_503": 5, "outage_refused": 5, "after": 40}
OUTAGE_FAULT = {"operation": "*", "kind": "status", "status": 503}
READY_TIMEOUT_S = 300
DRAIN_S = 10


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", help="libaccessenabler.so to load (default: $AE_LIBRARY, else the release build)")
    parser.add_argument("--clients", type=int, help=f"SDK clients (default {DEFAULTS['clients']})")
    parser.add_argument("--processes", type=int, help=f"worker processes (default {DEFAULTS['processes']})")
    parser.add_argument("--period", type=float, default=10.0, help="seconds between a player's authorizations")
    parser.add_argument("--host-retry", type=float, default=5.0, help="seconds from a failed call to the next")
    parser.add_argument("--steady", type=float, help=f"seconds before the outage (default {DEFAULTS['steady']})")
    parser.add_argument("--outage-503", type=float, help=f"seconds of HTTP 503 (default {DEFAULTS['outage_503']})")
    parser.add_argument("--outage-refused", type=float,
                        help=f"seconds of refused connections (default {DEFAULTS['outage_refused']})")
    parser.add_argument("--after", type=float, help=f"seconds measured after recovery (default {DEFAULTS['after']})")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: " + ", ".join(f"{k.replace('_', '-')} {v}" for k, v in QUICK.items()))
    parser.add_argument("--out", type=Path, default=HERE / "outage-results", help="directory of the CSV, PNG, JSON")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument("--retry-after", type=int, default=None,
                        help="seconds of Retry-After on the 503 answers (default: none, as the worst case)")
    parser.add_argument("--label", default="", help="added to the plot's title (e.g. the library's name)")
    parser.add_argument("--resource", default="LIVE", help="the resource the players ask for")
    parser.add_argument("--call-timeout", type=float, default=120.0,
                        help="seconds without an answer after which a call counts as a silent hang")
    parser.add_argument("--seed", type=int, default=17, help="random phases of the players")
    args = parser.parse_args(argv)
    for name, default in DEFAULTS.items():  # explicit options win over --quick
        if getattr(args, name) is None:
            setattr(args, name, QUICK[name] if args.quick else default)
    if args.clients < 1 or not 1 <= args.processes <= args.clients:
        parser.error("--clients must be at least 1 and --processes between 1 and --clients")
    positive = (args.period, args.host_retry, args.steady, args.after)
    if min(positive) <= 0 or min(args.outage_503, args.outage_refused) < 0:
        parser.error("durations must be positive (the outage phases may be 0)")
    return args


def find_library(option: str | None) -> Path:
    path = Path(option or os.environ.get("AE_LIBRARY") or ROOT / ".build/release/libaccessenabler.so").resolve()
    if not path.is_file():
        raise SystemExit(f"outage.py: no library at {path}: pass --library PATH or set AE_LIBRARY")
    return path


def say(message: str) -> None:
    print(f"outage: {message}", file=sys.stderr, flush=True)


class Worker:
    """A worker process (Benchmarks/fleet/worker.py) and the protocol lines it prints."""

    def __init__(self, number: int, settings: dict, directory: Path, environment: dict):
        self.number = number
        self.settings_path = directory / f"worker-{number}.json"
        self.result_path = Path(settings["result"])
        self.settings_path.write_text(json.dumps(settings))
        self.process = subprocess.Popen([sys.executable, str(HERE / "fleet" / "worker.py"), str(self.settings_path)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, **environment})
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put("EXIT")

    def expect(self, word: str, timeout: float) -> str:
        """The rest of the next protocol line, which must start with `word`."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"worker {self.number}: no {word} within {timeout:.0f} s") from None
        if not line.startswith(word):
            raise RuntimeError(f"worker {self.number}: expected {word}, got {line!r} "
                               f"(exit status {self.process.poll()})")
        return line[len(word):].strip()

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def sleep_until(moment: float, emulator) -> None:
    """Sleeps until Unix time `moment`, emptying the emulator's in-memory log every 30 s on the way
    (the figures come from its log file; the in-memory copy would only grow)."""
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 30))
        if left > 30:
            emulator.clear_log()


def run(args: argparse.Namespace, library: Path, directory: Path) -> dict:
    os.environ["AE_LIBRARY"] = str(library)  # before the harness imports accessenabler
    sys.path.insert(0, str(ROOT / "Tests" / "python"))
    from harness import Emulator

    timeline = Timeline(args.steady, args.outage_503, args.outage_refused, args.after)
    counter_library = shim.build(directory)
    log_file = directory / "emulator.jsonl"
    emulator = Emulator("--throttle", "off", "--log-file", str(log_file))
    proxy = SwitchProxy(int(emulator.url.rsplit(":", 1)[1]))
    workers: list[Worker] = []
    try:
        proxy.listen()
        environment = {"AE_LIBRARY": str(library), **shim.environment(counter_library, proxy.port, int(time.time()))}
        stores = directory / "stores"
        stores.mkdir()
        share, extra = divmod(args.clients, args.processes)
        first = 0
        for number in range(args.processes):
            count = share + (number < extra)
            settings = {"first": first, "count": count, "proxy_url": proxy.url, "emulator_url": emulator.url,
                        "store_dir": str(stores), "period": args.period, "host_retry": args.host_retry,
                        "call_timeout": args.call_timeout, "resource": args.resource, "seed": args.seed + number,
                        "drain": DRAIN_S, "result": str(directory / f"result-{number}.json")}
            workers.append(Worker(number, settings, directory, environment))
            first += count
        began = time.monotonic()
        setups = [json.loads(worker.expect("READY", READY_TIMEOUT_S)) for worker in workers]
        say(f"{args.clients} clients registered and logged in, {args.processes} processes, "
            f"in {time.monotonic() - began:.1f} s")

        t0 = math.ceil(time.time()) + 2  # a whole second: the series' bins are Unix seconds
        end = t0 + timeline.end
        for worker in workers:
            worker.send({"t0": t0, "end": end})
        sampler = CpuSampler({**{f"worker-{w.number}": w.process.pid for w in workers},
                              "emulator": emulator.process.pid, "proxy and orchestrator": os.getpid()})
        sampler.start()
        switches = {}
        say(f"steady for {timeline.steady:g} s")
        sleep_until(t0 + timeline.outage_start, emulator)
        emulator.faults(dict(OUTAGE_FAULT, **({} if args.retry_after is None
                                               else {"retry_after": args.retry_after})))
        switches["503"] = time.time() - t0
        say(f"outage: HTTP 503 for {timeline.outage_503:g} s")
        sleep_until(t0 + timeline.refused_start, emulator)
        dropped = proxy.refuse()
        switches["refused"] = time.time() - t0
        say(f"outage: connections refused for {timeline.outage_refused:g} s ({dropped} open connections dropped)")
        sleep_until(t0 + timeline.recovery, emulator)
        emulator.faults()
        proxy.listen()
        switches["recovery"] = time.time() - t0
        say(f"recovered; measuring {timeline.after:g} s more")
        sleep_until(end, emulator)
        for worker in workers:
            worker.expect("DONE", DRAIN_S + 60)
        sampler.stop()

        clients, connects = [], {}
        for worker in workers:
            result = json.loads(worker.result_path.read_text())
            clients += result["clients"]
            for second, count in result["connects"].items():
                connects[int(second)] = connects.get(int(second), 0) + count
        log = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        log = [entry for entry in log if entry.get("operation") != "page"]
        rows = analysis.series(timeline, t0, clients, connects, log)
        summary = analysis.summarize(timeline, t0, rows, clients, log)
        summary["cpu"] = analysis.cpu_summary(
            sampler.samples, t0, end, CORES,
            {"workers (all)": [f"worker-{w.number}" for w in workers], "emulator": ["emulator"],
             "proxy and orchestrator": ["proxy and orchestrator"]})
        summary["settings"] = {"library": str(library), "clients": args.clients, "processes": args.processes,
                               "period_s": args.period, "host_retry_s": args.host_retry,
                               "steady_s": timeline.steady, "outage_503_s": timeline.outage_503,
                               "outage_refused_s": timeline.outage_refused, "after_s": timeline.after,
                               "resource": args.resource, "seed": args.seed, "quick": args.quick}
        refused = range(t0 + math.ceil(timeline.refused_start), t0 + math.ceil(timeline.recovery))
        summary["cross_check"] = {  # outside the refused phase every attempt reaches the proxy
            "proxy_accepted_outside_refused": sum(n for s, n in proxy.accepted.items() if t0 <= s < end
                                                  and s not in refused),
            "attempts_outside_refused": sum(n for s, n in connects.items() if t0 <= s < end and s not in refused)}
        summary["switches_s"] = {name: round(value, 3) for name, value in switches.items()}
        summary["setup_s"] = {"requestor_max": round(max(s["requestor_s"] for s in setups), 2),
                              "login_max": round(max(s["login_s"] for s in setups), 2)}
        return {"rows": rows, "summary": summary, "timeline": timeline}
    finally:
        for worker in workers:
            worker.kill()
        proxy.stop()
        emulator.stop()


def main(argv: list[str]) -> int:
    args = parse(argv)
    library = find_library(args.library)
    if not plot.available():
        say("warning: matplotlib is not installed (pip install matplotlib): the PNG is skipped, the CSV is written")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ae-outage-") as directory:
        result = run(args, library, Path(directory))
    rows, summary, timeline = result["rows"], result["summary"], result["timeline"]
    csv_path, json_path, png_path = args.out / "outage.csv", args.out / "outage.json", args.out / "outage.png"
    analysis.write_csv(rows, csv_path)
    for path in filter(None, [json_path, args.json]):
        path.write_text(json.dumps(summary, indent=2) + "\n")
    written = [csv_path, json_path] + ([args.json] if args.json else [])
    if plot.available():
        title = (f"{args.clients} AccessEnabler clients in {args.processes} processes, getAuthorization every "
                 f"{args.period:g} s, host retry {args.host_retry:g} s" + (f" — {args.label}" if args.label else ""))
        plot.plot(rows, timeline, summary, png_path, title)
        written.append(png_path)
    print(analysis.markdown(summary, timeline, summary["cpu"]))
    print("\nWritten: " + ", ".join(str(path) for path in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
