# SPDX-License-Identifier: Apache-2.0
"""DNS: a client resolves Adobe's host once and reuses the answer for every request within libcurl's
DNS cache time (60 s, CURLOPT_DNS_CACHE_TIMEOUT; docs/DECISIONS.md "DNS"), counted in a real process
by an LD_PRELOAD shim around getaddrinfo (Tests/c/dns_counter.c). IPv4 and IPv6 addresses:
test_tls.py::test_ipv4_and_ipv6_addresses."""
import json
import os
import subprocess
import sys

from harness import ROOT, SOFTWARE_STATEMENT
from test_tls import fronts, pki  # noqa: F401 (fixtures)

CHILD = ROOT / "Tests/python/store_child.py"


def shim(tmp_path):
    library = tmp_path / "dns_counter.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(ROOT / "Tests/c/dns_counter.c"), "-ldl"],
                   check=True)
    return library


def run_child(url, store, actions, library, ca_file):
    env = dict(os.environ, LD_PRELOAD=str(library), AE_TEST_DNS_HOST="adobe.test")
    spec = json.dumps({"url": url, "store": str(store), "key": None, "statement": SOFTWARE_STATEMENT,
                       "actions": actions, "ca_file": str(ca_file)})
    process = subprocess.run([sys.executable, str(CHILD), spec], cwd=CHILD.parent, env=env,
                             capture_output=True, text=True, timeout=90)
    assert process.returncode == 0, process.stderr[-2000:]
    return json.loads(process.stdout.strip().splitlines()[-1])


def test_one_resolution_serves_every_request_of_a_client(emulator, fronts, pki, tmp_path):  # noqa: F811
    front = fronts.start(pki.good)
    url = f"https://adobe.test:{front.port}"  # the shim resolves adobe.test to 127.0.0.1
    result = run_child(url, tmp_path / "store.sqlite",
                       ["lookups", "requestor", "lookups", "check", "preauthorize", "lookups"],
                       shim(tmp_path), pki.ca_file)
    assert result["requestor"] == 1
    requests = len(emulator.log())
    assert requests >= 4  # registration, token, configuration and profiles at least
    assert result["lookups"] == [0, 1, 1], f"{result['lookups']} lookups for {requests} requests"
