#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Round trips a viewer waits for, on the wire a set-top box has: the emulator behind a real TLS front
(nghttpx, TLS 1.3) and a user-space latency proxy (Tests/python/tlsfront.py: the kernel here has no
netem) adding RTT/2 each way and one RTT for each new connection's TCP handshake. Prints Markdown tables:
wall time and round trips (wall time / RTT) per flow over HTTP/2 and HTTP/1.1 side by side with the
protocol's minimum, then what each flow put on the wire (requests reaching the emulator, connections,
TLS handshakes full and resumed), and a bare `curl` request through the same proxy in the same run as
the floor (TCP + TLS + request).

    python3 Benchmarks/roundtrips.py [--rtt-ms 100] [--runs 3]

Uses the release library (AE_LIBRARY, default .build/release/libaccessenabler.so) through the Python
package. Times are measured, never asserted; each figure is the median of --runs runs.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/python"))
import tlsfront  # noqa: E402
from harness import SOFTWARE_STATEMENT, Emulator, Recorder, ae  # noqa: E402

# flow → the minimum in round trips over (HTTP/2, HTTP/1.1) on a wire (None: none set). A cold setRequestor:
# TCP, TLS, registration, token, configuration ∥ profiles. Preauthorizing 100 resources is 20 requests at
# once: one round trip as HTTP/2 streams; over HTTP/1.1 libcurl opens more connections (TCP, TLS, request).
MINIMUM = {"cold setRequestor": (5, 5), "warm setRequestor": (0, 0),
           "getAuthorization, warm connection": (1, 1),
           "first getAuthorization right after a warm start": (None, None),
           "first getAuthorization after a warm start, once warmed": (1, 1),
           "getAuthentication to the code": (1, 1), "preauthorize 100 resources, pacing off": (1, 3),
           "preauthorize 1,000 resources, pacing off": (3, None), "logout": (1, 1)}


class Bench:
    def __init__(self, rtt_ms, alpn, directory):
        self.rtt = rtt_ms / 1000
        self.directory = directory
        self.emulator = Emulator("--throttle", "off")
        self.pki = tlsfront.make_pki(directory / "pki")
        self.front = tlsfront.Front(self.emulator.url, self.pki.good, directory, alpn=alpn)
        self.front.start()
        self.proxy = tlsfront.LatencyProxy(self.front.port, rtt_ms / 2)

    def client(self, store, recorder, device="bench-device"):
        return ae.Client(SOFTWARE_STATEMENT, recorder, base_url=self.proxy.url, ca_file=str(self.pki.ca_file),
                         storage_path=str(store), device_id=device, max_requests_per_second=-1, poll_interval_ms=1000)

    def timed(self, start, wait):
        """Seconds from start() until wait() returns; what the flow put on the wire goes to self.wire
        (requests, connections, TLS handshakes, bytes each way: the emulator's log and the proxy's
        counters), keyed by flow in run()."""
        before = dict(self.proxy.counters(), requests=len(self.emulator.log()))
        began = time.perf_counter()
        start()
        wait()
        elapsed = time.perf_counter() - began
        time.sleep(0.05)  # let the proxy count the last chunks
        after = dict(self.proxy.counters(), requests=len(self.emulator.log()))
        self.last = {key: after[key] - before[key] for key in after}
        return elapsed

    def run(self, run):
        store = self.directory / f"store-{run}.sqlite"
        times, wire = {}, {}
        recorder = Recorder()
        client = self.client(store, recorder, device=f"bench-{run}")
        times["cold setRequestor"] = self.timed(lambda: client.set_requestor("REF30"),
                                                lambda: recorder.wait("set_requestor_complete"))
        wire["cold setRequestor"] = self.last
        client.get_authentication()
        recorder.wait("display_provider_dialog")
        began = time.perf_counter()
        client.set_selected_provider("Cablevision")
        regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
        times["getAuthentication to the code"] = time.perf_counter() - began
        self.emulator.login(regcode["code"])
        recorder.wait("set_authentication_status", lambda status, code: status == 1)
        client.get_authorization("LIVE")
        recorder.wait("set_token")
        times["getAuthorization, warm connection"] = self.timed(lambda: client.get_authorization("LIVE"),
                                                                lambda: recorder.wait("set_token", count=2))
        wire["getAuthorization, warm connection"] = self.last
        client.close()
        # A new process on the same store: a warm start, then its first decision.
        warm = Recorder()
        client = self.client(store, warm, device=f"bench-{run}")
        times["warm setRequestor"] = self.timed(lambda: client.set_requestor("REF30"),
                                                lambda: warm.wait("set_requestor_complete"))
        wire["warm setRequestor"] = self.last
        times["first getAuthorization right after a warm start"] = self.timed(
            lambda: client.get_authorization("LIVE"), lambda: warm.wait("set_token"))
        wire["first getAuthorization right after a warm start"] = self.last
        client.close()
        # Again, with a viewer who takes a moment: the preconnect (after setRequestorComplete) is done.
        warm = Recorder()
        client = self.client(store, warm, device=f"bench-{run}")
        client.set_requestor("REF30")
        warm.wait("set_requestor_complete")
        time.sleep(5 * self.rtt)
        times["first getAuthorization after a warm start, once warmed"] = self.timed(
            lambda: client.get_authorization("NEWS"), lambda: warm.wait("set_token"))
        wire["first getAuthorization after a warm start, once warmed"] = self.last
        for count, label in ((100, "100"), (1000, "1,000")):
            flow = f"preauthorize {label} resources, pacing off"
            resources = [f"R{count}-{i}" for i in range(count)]
            seen = warm.names().count("preauthorized_resources")
            times[flow] = self.timed(lambda: client.check_preauthorized_resources(resources, False),
                                     lambda: warm.wait("preauthorized_resources", count=seen + 1, timeout=120))
            wire[flow] = self.last
        times["logout"] = self.timed(client.logout,
                                     lambda: warm.wait("set_authentication_status", lambda s, c: s == 0))
        wire["logout"] = self.last
        client.close()
        return times, wire

    def curl_floor(self):
        """One bare curl request through the same proxy, new connection: TCP + TLS + the request."""
        if not shutil.which("curl"):
            return None
        before = self.proxy.counters()
        result = subprocess.run(["curl", "-s", "-o", "/dev/null", "--cacert", str(self.pki.ca_file), "-w",
                                 "%{time_connect} %{time_appconnect} %{time_total}",
                                 f"{self.proxy.url}/api/v2/REF30/configuration"], capture_output=True, text=True)
        time.sleep(0.05)
        after = self.proxy.counters()
        full = after["handshakes_full"] - before["handshakes_full"]
        resumed = after["handshakes_resumed"] - before["handshakes_resumed"]
        return [float(x) for x in result.stdout.split()] + [f"{full} full + {resumed} resumed handshake"]

    def dns_cost(self):
        """Cold setRequestor in a child process whose resolver (Tests/c/dns_counter.c, LD_PRELOAD)
        answers adobe.test after 0 ms, then after one RTT: returns {delay_ms: (seconds, lookups)}."""
        library = self.directory / "dns_counter.so"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(ROOT / "Tests/c/dns_counter.c"), "-ldl"],
                       check=True)
        url = f"https://adobe.test:{self.proxy.port}"
        costs = {}
        for delay in (0, round(self.rtt * 1000)):
            env = dict(os.environ, LD_PRELOAD=str(library), AE_TEST_DNS_HOST="adobe.test",
                       AE_TEST_DNS_DELAY_MS=str(delay))
            store = self.directory / f"dns-{delay}.sqlite"
            result = subprocess.run([sys.executable, __file__, "--dns-probe", url, str(self.pki.ca_file), str(store)],
                                    env=env, capture_output=True, text=True, timeout=120, check=True)
            seconds, lookups = result.stdout.split()
            costs[delay] = (float(seconds), int(lookups))
        return costs

    def stop(self):
        self.proxy.stop()
        self.front.stop()
        self.emulator.stop()


def dns_probe(url, ca_file, store):
    """The child of Bench.dns_cost: one cold setRequestor; prints its seconds and the lookups made."""
    import ctypes
    recorder = Recorder()
    client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=url, ca_file=ca_file, storage_path=store,
                       device_id="bench-dns", max_requests_per_second=-1)
    began = time.perf_counter()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    print(time.perf_counter() - began, ctypes.CDLL(None).ae_test_dns_lookups())
    client.close()
    return 0


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--dns-probe"]:
        return dns_probe(*args[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtt-ms", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args(argv)
    rtt = options.rtt_ms / 1000
    results, floors, wires = {}, {}, {}
    for alpn, label in (("h2,http/1.1", "TLS 1.3 + HTTP/2"), ("http/1.1", "TLS 1.3 + HTTP/1.1")):
        with tempfile.TemporaryDirectory() as directory:
            bench = Bench(options.rtt_ms, alpn, Path(directory))
            try:
                runs = [bench.run(run) for run in range(options.runs)]
                floors[label] = bench.curl_floor()
                if label.endswith("HTTP/2"):
                    dns = bench.dns_cost()
            finally:
                bench.stop()
        results[label] = {flow: statistics.median(times[flow] for times, _ in runs) for flow in MINIMUM}
        wires[label] = runs[-1][1]  # what each flow put on the wire (the same in every run)
    labels = list(results)
    print(f"### Round trips at {options.rtt_ms} ms RTT over TLS 1.3, a new connection's TCP handshake included "
          f"(median of {options.runs} runs)\n")
    print("| flow | " + " | ".join(f"{label}: wall (RTT)" for label in labels)
          + " | minimum (RTT): HTTP/2, HTTP/1.1 |")
    print("|---|" + "---:|" * len(labels) + "---:|")
    for flow, minimum in MINIMUM.items():
        cells = [f"{results[label][flow] * 1000:.0f} ms ({results[label][flow] / rtt:.2f})" for label in labels]
        print(f"| {flow} | " + " | ".join(cells) + " | " + ", ".join("—" if m is None else str(m) for m in minimum)
              + " |")
    print("\nOn the wire per flow (the last run): requests reaching the emulator (a warm-up's `HEAD /` included), "
          "the proxy's new connections, their TLS handshakes (full + resumed), bytes client → server / server → "
          "client:\n")
    print("| flow | " + " | ".join(f"{label}: requests, connections, handshakes, bytes ↑/↓" for label in labels) + " |")
    print("|---|" + "---|" * len(labels))
    for flow in wires[labels[0]]:
        cells = [f"{w['requests']}, {w['connections']}, {w['handshakes_full']} full + {w['handshakes_resumed']} "
                 f"resumed, {w['bytes_up']:,}/{w['bytes_down']:,}"
                 for w in (wires[label][flow] for label in labels)]
        print(f"| {flow} | " + " | ".join(cells) + " |")
    for label, floor in floors.items():
        if floor:
            connect, tls, total, handshakes = floor
            # curl's connect() returns at once on loopback: the proxy's held TCP round trip shows in TLS.
            print(f"\nFloor, bare `curl` ({label.split(' + ')[1]} offered by the front), one request on a new "
                  f"connection: TCP + TLS {tls / rtt:.2f} RTT ({handshakes}), then the request: total "
                  f"{total * 1000:.0f} ms ({total / rtt:.2f} RTT; the minimum is 3).")
    (fast, fast_lookups), (slow, slow_lookups) = dns.values()
    print(f"\nDNS (HTTP/2): a cold setRequestor to `adobe.test` made {fast_lookups} lookup(s) for its 4 requests; "
          f"with the resolver answering at once it took {fast * 1000:.0f} ms, with the resolver one RTT away "
          f"{slow * 1000:.0f} ms: a lookup adds {(slow - fast) * 1000:.0f} ms ({(slow - fast) / rtt:.2f} RTT), once "
          "per host per minute (libcurl's DNS cache, shared by the client's transfers; the warm start's "
          "preconnect pays it in the background).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
