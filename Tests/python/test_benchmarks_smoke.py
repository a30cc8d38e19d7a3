# SPDX-License-Identifier: Apache-2.0
"""Benchmarks/run.py --quick works end to end, and the request counts (deterministic, unlike the
times, which are measured and never asserted) equal the protocol minimum where the SDK is meant to
reach it. Benchmarks/outage.py --quick works end to end, and what must hold whatever the timing
does: every client is back after the outage, and every call answered during it was a named error."""
import csv
import json
import shutil
import subprocess
import sys

import pytest

from harness import ROOT, ae


@pytest.mark.slow
def test_quick_benchmark_run(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run([sys.executable, str(ROOT / "Benchmarks/run.py"), "--quick", "--no-build",
                             "--json", str(figures)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    for heading in ("### Requests per flow", "### End to end", "### SDK overhead", "### Size",
                    "### Start-up and memory", "### Load"):
        assert heading in result.stdout
    results = json.loads(figures.read_text())

    for api in ("v2", "v1"):
        flows = {row["flow"]: row for row in results["requests"][api]}
        assert len(flows) == 12, api
        for row in flows.values():
            if row["reaches_minimum"]:
                assert row["requests"] == row["minimum"], (api, row)
        assert flows["preauthorize, 1,000 resources"]["minimum"] == 200
        assert flows["setRequestor, cold (never registered)"]["operations"][:2] == [
            "processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST"]
        assert [row["requests"] for row in results["e2e"][api]] == [row["requests"] for row in results["requests"][api]]
    v1 = {row["flow"]: row for row in results["requests"]["v1"]}
    assert v1["getAuthorization (valid profile)"]["operations"] == ["v1InitiateAuthorization", "v1ObtainShortMediaToken"]
    assert v1["getAuthorization, same resource again"]["operations"] == ["v1ObtainShortMediaToken"]

    assert results["startup"]["warm_requests"] == 0
    assert results["overhead"]["failures"] == 0 and results["overhead"]["curl_errors"] == 0
    assert results["load"]["burst"]["errors"] == 0
    assert results["load"]["sustained"]["errors"] == 0


@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")),
                    reason="needs a C compiler (Benchmarks/connect_counter.c)")
def test_quick_outage_run(tmp_path):
    out = tmp_path / "out"
    figures = tmp_path / "outage.json"
    result = subprocess.run([sys.executable, str(ROOT / "Benchmarks/outage.py"), "--quick", "--library",
                             ae.LIBRARY_PATH, "--out", str(out), "--json", str(figures)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "### Fleet in an Adobe outage: 20 clients" in result.stdout

    with (out / "outage.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0]) == ["t", "phase", "requests_received", "connection_attempts", "calls_started",
                             "calls_failed", "calls_succeeded"]
    assert [row["t"] for row in rows] == [str(t) for t in range(60)]  # 10 + 5 + 5 + 40 s
    assert {row["phase"] for row in rows} == {"steady", "503", "refused", "after"}

    summary = json.loads(figures.read_text())
    assert summary == json.loads((out / "outage.json").read_text())
    assert summary["clients"] == 20
    assert summary["clients_never_recovered"] == 0, summary["never_recovered"]
    assert summary["time_to_all_recovered_s"] is not None
    assert summary["clients_called_during_outage"] > 0
    assert summary["clients_named_error_during_outage"] == summary["clients_called_during_outage"]
    assert summary["outage_calls_without_named_error"] == 0
    assert summary["calls_without_answer"] == 0
