#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Requests per AccessEnabler flow, counted from the emulator's log, next to the protocol minimum.

Runs the release libaccessenabler.so (ctypes) against the bundled emulator and prints a Markdown
table. Usage: python3 Benchmarks/requests_per_flow.py  (build the .so first: scripts/test.sh does)
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "python"))
from harness import SOFTWARE_STATEMENT, Emulator, Recorder, ae  # noqa: E402


def main():
    emulator = Emulator("--throttle", "off")
    store = str(Path(tempfile.mkdtemp()) / "store.sqlite")
    rows = []

    def client(recorder):
        return ae.Client(SOFTWARE_STATEMENT, recorder, base_url=emulator.url, storage_path=store,
                         device_id="bench-device", poll_interval_ms=1000, max_requests_per_second=-1)

    def measure(name, minimum, action):
        emulator.clear_log()
        started = time.monotonic()
        action()
        elapsed = (time.monotonic() - started) * 1000
        operations = emulator.operations()
        rows.append((name, len(operations), minimum, elapsed, ", ".join(sorted(set(operations)))))

    try:
        recorder = Recorder()
        first = client(recorder)

        def cold():
            first.set_requestor("REF30")
            recorder.wait("set_requestor_complete")
        measure("setRequestor, cold (never registered)", "4 (3 round trips)", cold)

        def check():
            first.check_authentication()
            recorder.wait("set_authentication_status")
        measure("checkAuthentication", "0", check)

        def login():
            first.get_authentication()
            recorder.wait("display_provider_dialog")
            first.set_selected_provider("Cablevision")
            code = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]["code"]
            emulator.login(code)
            recorder.wait("set_authentication_status", lambda s, c: s == 1)
        measure("getAuthentication, second screen (login done before the 1st poll)", "2", login)

        def authorize():
            first.get_authorization("LIVE")
            recorder.wait("set_token")
        measure("getAuthorization (valid profile)", "1", authorize)

        for count in (1, 12, 100):
            resources = [f"R{count}-{i}" for i in range(count)]

            def preauthorize(resources=resources):
                first.check_preauthorized_resources(resources, cache=False)
                recorder.wait("preauthorized_resources", lambda r: len(r) == len(resources))
            measure(f"checkPreauthorizedResources, {count} resources", str(-(-count // 5)), preauthorize)
        first.close()

        warm = Recorder()
        second = client(warm)

        def warm_requestor():
            second.set_requestor("REF30")
            warm.wait("set_requestor_complete")
        measure("setRequestor, warm (new process, store fresh)", "0", warm_requestor)

        def logout():
            second.logout()
            warm.wait("set_authentication_status")
        measure("logout", "1", logout)
        second.close()
    finally:
        emulator.stop()

    print("| flow | requests | minimum | ms (loopback) | operations |")
    print("|---|---:|---:|---:|---|")
    for name, count, minimum, elapsed, operations in rows:
        print(f"| {name} | {count} | {minimum} | {elapsed:.1f} | {operations} |")


if __name__ == "__main__":
    main()
