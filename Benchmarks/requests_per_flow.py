#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Requests per AccessEnabler flow, counted from the emulator's log, next to the protocol minimum.

Drives the release libaccessenabler.so (ctypes) through every flow against one emulator and
returns a row per flow: the API requests the emulator logged, the protocol minimum, the sequential
round trips the minimum needs, and the time from the call to its callback. `Benchmarks/run.py`
uses it twice: on a zero-latency emulator (request counts) and on one that adds 100 ms per request
(end-to-end times). Standalone: python3 Benchmarks/requests_per_flow.py (build the .so first).
"""
from __future__ import annotations

import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "python"))
from harness import SOFTWARE_STATEMENT, Emulator, Recorder, ae  # noqa: E402

from accessenabler.partner import PartnerSimulator  # noqa: E402

REQUESTOR = "REF30"
DEVICE = "bench-device"
PREAUTHORIZE_LIMIT = 5        # Adobe's default resources per decisions/preauthorize request
POLL_INTERVAL_MS = 1000       # the SDK's smallest second-screen polling interval
MAX_HOST_CONNECTIONS = 8      # the SDK's libcurl limit per host (CurlTransport: CURLMOPT_MAX_HOST_CONNECTIONS)
PREAUTHORIZE_SIZES = (1, 100, 1000)


@dataclass
class Flow:
    name: str
    minimum: int              # protocol minimum of API requests
    round_trips: int          # sequential round trips that minimum needs (the latency floor)
    requests: int = 0         # API requests the emulator logged
    elapsed_ms: float = 0.0   # call -> its terminal callback, measured from Python
    operations: list[str] = field(default_factory=list)
    waits_ms: int = 0         # time the flow waits by design (the second-screen poll interval)
    reaches_minimum: bool = True  # False where the SDK is not expected to reach the minimum
    note: str = ""


APIS = ("v2", "v1")


def client(emulator: Emulator, store: str, delegate: Recorder, device: str = DEVICE, api: str = "v2",
           **options) -> ae.Client:
    """A client as the benchmarks configure it: shared store, no client-side pacing."""
    return ae.Client(SOFTWARE_STATEMENT, delegate, base_url=emulator.url, storage_path=store, device_id=device,
                     poll_interval_ms=POLL_INTERVAL_MS, max_requests_per_second=-1,
                     api_generation=ae.AE_API_V1 if api == "v1" else ae.AE_API_V2, **options)


def log_in(first: ae.Client, recorder: Recorder, emulator: Emulator) -> None:
    """getAuthentication on the second screen; the viewer logs in as soon as the code shows."""
    first.get_authentication()
    recorder.wait("display_provider_dialog")
    first.set_selected_provider("Cablevision")
    code = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]["code"]
    emulator.login(code)
    recorder.wait("set_authentication_status", lambda s, c: s == 1)


def prepare_store(emulator: Emulator, directory: str) -> str:
    """A store with a fresh registration, token, configuration and profile (REF30, DEVICE)."""
    store = str(Path(directory) / "store.sqlite")
    recorder = Recorder()
    with client(emulator, store, recorder) as first:
        first.set_requestor(REQUESTOR)
        assert recorder.wait("set_requestor_complete") == (1,)
        log_in(first, recorder, emulator)
    return store


def measure_flows(emulator: Emulator, sizes=PREAUTHORIZE_SIZES, api: str = "v2") -> list[Flow]:
    """Every flow once, in the order an app meets them; the emulator's log is cleared before each.
    `api`: the REST API generation ("v2" or "v1"); the protocol minimum is that generation's."""
    v1 = api == "v1"
    directory = tempfile.mkdtemp(prefix="ae-bench-")
    # Devices of their own per run: V1 keeps a device's tokens at Adobe whichever client asks, so a
    # device of an earlier run (same emulator) would start authenticated.
    run = uuid.uuid4().hex[:8]
    device, partner_device, temppass_device = (f"{DEVICE}-{run}", f"bench-partner-{run}", f"bench-temppass-{run}")
    store = str(Path(directory) / "store.sqlite")
    flows: list[Flow] = []

    def measure(flow: Flow, action) -> None:
        emulator.clear_log()
        started = time.monotonic()
        action()
        flow.elapsed_ms = (time.monotonic() - started) * 1000
        flow.operations = emulator.operations()
        flow.requests = len(flow.operations)
        flows.append(flow)

    recorder = Recorder()
    with client(emulator, store, recorder, device=device, api=api) as first:
        def cold():
            first.set_requestor(REQUESTOR)
            recorder.wait("set_requestor_complete")
        measure(Flow("setRequestor, cold (never registered)", 4, 3,
                     note="register → token → " + ("MVPD list ∥ tokens/authn" if v1 else "configuration ∥ profiles")),
                cold)

        def check():
            first.check_authentication()
            recorder.wait("set_authentication_status")
        measure(Flow("checkAuthentication", 0, 0), check)

        measure(Flow("getAuthentication, second screen", 2, 2, waits_ms=POLL_INTERVAL_MS,
                     note=("regcode, then one tokens/authn poll" if v1 else "sessions, then one poll")
                     + " (the viewer logged in before it)"),
                lambda: log_in(first, recorder, emulator))

        def authorize(count=[0]):
            count[0] += 1
            first.get_authorization("LIVE")
            recorder.wait("set_token", count=count[0])
        measure(Flow("getAuthorization (valid profile)", 2 if v1 else 1, 2 if v1 else 1,
                     note="authorize → tokens/media" if v1 else "decisions/authorize"), authorize)
        measure(Flow("getAuthorization, same resource again", 1, 1,
                     note="V1: Adobe holds the authorization: tokens/media alone" if v1 else "decisions/authorize"),
                authorize)

        for count in sizes:
            resources = [f"R{count}-{i}" for i in range(count)]
            answers = []

            def preauthorize(resources=resources, answers=answers):
                first.preauthorize({"resources": resources}, answers.append)
                deadline = time.monotonic() + 60
                while not answers and time.monotonic() < deadline:
                    time.sleep(0.002)
                assert answers and len(answers[0]["decisions"]) == len(resources), "preauthorize did not answer"
            measure(Flow(f"preauthorize, {count:,} resource{'s' if count > 1 else ''}",
                         -(-count // PREAUTHORIZE_LIMIT), 1,
                         note=f"⌈N / {PREAUTHORIZE_LIMIT}⌉ requests, sent together"), preauthorize)

    warm = Recorder()
    with client(emulator, store, warm, device=device, api=api) as second:
        def warm_requestor():
            second.set_requestor(REQUESTOR)
            warm.wait("set_requestor_complete")
        measure(Flow("setRequestor, warm (new client on a fresh store)", 0, 0,
                     note="target: at most 1 round trip; 0 when nothing is stale"), warm_requestor)

        def logout():
            second.logout()
            warm.wait("set_authentication_status")
        measure(Flow("logout", 1, 1, note="DELETE logout" if v1 else "logout/{mvpd}"), logout)

    partner_store = str(Path(directory) / "partner.sqlite")
    picker = Recorder()
    simulator = PartnerSimulator(signed_in=False, picker="Cablevision")
    with client(emulator, partner_store, picker, device=partner_device, partner=simulator, api=api) as third:
        third.set_requestor(REQUESTOR)
        assert picker.wait("set_requestor_complete") == (1,)

        def partner_login():
            third.get_authentication()
            picker.wait("set_authentication_status")
        measure(Flow("getAuthentication, partner SSO (platform picker)", 4 if v1 else 2, 3 if v1 else 2,
                     note="profile request → token exchange → tokens/authn ∥ usermetadata" if v1
                     else "sessions/sso → profiles/sso"), partner_login)

    temp_store = str(Path(directory) / "temppass.sqlite")
    temp = Recorder()
    with client(emulator, temp_store, temp, device=temppass_device, api=api) as fourth:
        fourth.set_requestor(REQUESTOR)
        assert temp.wait("set_requestor_complete") == (1,)
        fourth.get_authentication()
        temp.wait("display_provider_dialog")

        def temp_pass():
            fourth.set_selected_provider("TempPass_TEST40")
            temp.wait("set_authentication_status")
        measure(Flow("TempPass (setSelectedProvider)", 2 if v1 else 1, 2 if v1 else 1,
                     note="freepreview → tokens/authn" if v1 else "profiles/{mvpd}"), temp_pass)
    return flows


def requests_table(flows: list[Flow]) -> list[str]:
    lines = ["| flow | requests | protocol minimum | round trips | ms (loopback) | operations |",
             "|---|---:|---:|---:|---:|---|"]
    for flow in flows:
        mark = "" if flow.requests == flow.minimum else " ⚠"
        operations = ", ".join(f"{op} ×{flow.operations.count(op)}" if flow.operations.count(op) > 1 else op
                               for op in dict.fromkeys(flow.operations))
        lines.append(f"| {flow.name} | {flow.requests}{mark} | {flow.minimum} | {flow.round_trips} "
                     f"| {flow.elapsed_ms:.1f} | {operations or '—'} |")
    return lines


def main() -> None:
    emulator = Emulator("--throttle", "off")
    try:
        for api in APIS:
            print(f"\nREST API {api.upper()}\n")
            print("\n".join(requests_table(measure_flows(emulator, api=api))))
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
