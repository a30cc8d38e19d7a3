#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Crash test of the token store: kills a writer with SIGKILL at random points, many times, and
checks the store after each kill.

    python3 scripts/store-crash.py [--runs N] [--seed S]      (CI: 200 runs; try 1000+ locally)

Each run starts `StoreCrashWriter write` (Tests/tools/StoreCrashWriter: sealed profiles replaced
five at a time, an access token, authorization expiries; it reports each committed write on
stdout, unbuffered), kills it with SIGKILL after a random delay (one run in ten while it is still
opening the store), then checks that:
  1. SQLite's own `PRAGMA integrity_check` (Python's sqlite3) says "ok";
  2. `StoreCrashWriter check` opens the store with its key (full integrity check), every sealed
     value opens (nothing torn), the five profiles hold one generation, and each record holds the
     last value the writer reported or the one it was writing;
  3. through the C API, ae_client_create() on that file with that key returns AE_OK and
     ae_client_store_status() says AE_STORE_OPENED (not RECOVERED: the file was never damaged).
Prints a Markdown table; exits 1 on any failure. Needs the release .so (AE_LIBRARY) and the tool,
both built by this script when missing (`swift build`), or given: AE_LIBRARY and --tool
(AE_STORE_CRASH_TOOL), for a cross-built pair run under qemu-user (scripts/cross-test.sh).
"""
import argparse
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Python"))
STATEMENT = "crash.test.statement"  # the tool's software statement (same app scope)
KEY = bytes(range(32))


def build(configuration):
    subprocess.run(["swift", "build", "-c", configuration, "--product", "StoreCrashWriter"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    path = subprocess.run(["swift", "build", "-c", configuration, "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    return os.path.join(path, "StoreCrashWriter")


def run_writer(tool, path, rng, scale=1.0):
    """Starts the writer, kills it at a random point; returns the last generation it reported
    per record ({"profiles": g, "token": g, "r3": g, ...})."""
    # Unbuffered: readline() below must take "ready" only. A buffered reader may read the lines
    # after it too, and communicate() (reading the pipes' descriptors directly) never sees them:
    # the generations they report were lost, and the check then refused what the writer did write.
    writer = subprocess.Popen([tool, "write", path, KEY.hex()], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              bufsize=0)
    if rng.random() < 0.1:
        time.sleep(rng.uniform(0, 0.01) * scale)  # while it opens, recovers the WAL, migrates
    else:
        writer.stdout.readline()  # "ready"
        time.sleep(rng.uniform(0, 0.03) * scale)
    writer.send_signal(signal.SIGKILL)
    output, errors = writer.communicate()
    if writer.returncode != -signal.SIGKILL:
        raise AssertionError(f"the writer ended by itself ({writer.returncode}): {errors.decode()[-500:]}")
    reported = {}
    for line in output.decode().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("profiles", "token"):
            reported[parts[0]] = int(parts[1])
        elif len(parts) == 3 and parts[0] == "authorization":
            reported[parts[1]] = int(parts[2])
    return reported


def check(tool, path, reported, known):
    """Checks the store after a kill against `known` (each record's value before the run) and
    what the writer reported; returns the store's values (the next run's `known`)."""
    with sqlite3.connect(path) as database:
        verdict = database.execute("PRAGMA integrity_check").fetchall()
    if verdict != [("ok",)]:
        raise AssertionError(f"PRAGMA integrity_check: {verdict[:3]}")
    result = subprocess.run([tool, "check", path, KEY.hex()], capture_output=True, text=True)
    line = result.stdout.strip()
    if result.returncode != 0 or not line.startswith("ok "):
        raise AssertionError(f"check: {line or result.stderr[-500:]}")
    found = {name: (None if value == "none" else int(value))
             for name, value in (item.split("=") for item in line[3:].split())}
    before = dict(known, **reported)  # the last value each record was known to hold
    # The write in flight when the writer died belongs to the generation after the last one it
    # finished (or, if it reported nothing, the one after the profiles it started from).
    if reported:
        in_flight = {max(reported.values()), max(reported.values()) + 1}
    else:
        in_flight = {(known.get("profiles") or 0) + 1}
    for record in set(before) | set(found):
        value = found.get(record)
        allowed = {before.get(record)} | {g for g in in_flight if not record.startswith("r") or g % 10 == int(record[1:])}
        if value not in allowed:
            raise AssertionError(f"{record} holds {value}; allowed: the old value {before.get(record)} "
                                 f"or the one being written {sorted(in_flight)}")
    return found


def check_c_api(path):
    import accessenabler as ae

    class Quiet:
        pass

    client = ae.Client(STATEMENT, Quiet(), base_url="http://127.0.0.1:9", storage_path=path, store_key=KEY)
    try:
        status = client.store_status()
        if status != ae.AE_STORE_OPENED:
            raise AssertionError(f"ae_client_store_status: {status}, expected AE_STORE_OPENED")
    finally:
        client.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--configuration", default="debug", choices=["debug", "release"])
    parser.add_argument("--tool", default=os.environ.get("AE_STORE_CRASH_TOOL"),
                        help="a StoreCrashWriter built already (another CPU's: scripts/cross.sh --tools); "
                             "default: built here with swift build")
    parser.add_argument("--time-scale", type=float, default=float(os.environ.get("AE_STORE_CRASH_TIME_SCALE", "1")),
                        help="multiplies the random delays before each kill: a writer run by qemu-user writes "
                             "about 20 times slower (scripts/cross-test.sh), and killed as early as natively it "
                             "would be killed before its first write")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    tool = arguments.tool or build(arguments.configuration)
    os.environ.setdefault("AE_LIBRARY", os.path.join(ROOT, ".build/release/libaccessenabler.so"))
    if not os.path.exists(os.environ["AE_LIBRARY"]):
        # As scripts/test.sh builds it: the trimmed static runtime (scripts/trim-swift-runtime.py).
        trim = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/trim-swift-runtime.py"),
                               os.path.join(ROOT, ".build/swift-static-trimmed")],
                              check=True, capture_output=True, text=True).stdout.split()
        subprocess.run(["swift", "build", "-c", "release", "-Xswiftc", "-static-stdlib", "--experimental-lto-mode=full",
                        "--product", "accessenabler"] + trim,
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    failures, records, started, known, run = [], 0, time.monotonic(), {}, 0
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "store.sqlite")
        for run in range(arguments.runs):
            try:
                reported = run_writer(tool, path, rng, arguments.time_scale)
                known = check(tool, path, reported, known)
                records += 4 + sum(1 for value in known.values() if value is not None)  # 5 profiles count once
                check_c_api(path)
            except AssertionError as error:
                failures.append(f"run {run}: {error}")
                print(f"FAIL run {run}: {error}", file=sys.stderr)
                break  # the store is now suspect; later runs would report the same damage
    elapsed = time.monotonic() - started
    print(f"\nstore crash test: seed {seed}")
    print("| runs | kills | records checked | generations written | failures | time |")
    print("|---:|---:|---:|---:|---:|---:|")
    kills = arguments.runs if not failures else run + 1
    print(f"| {arguments.runs} | {kills} | {records} | {known.get('profiles') or 0} | {len(failures)} | {elapsed:.1f} s |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
