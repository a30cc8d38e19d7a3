# SPDX-License-Identifier: Apache-2.0
"""Benchmarks/run.py --quick works end to end, and the request counts (deterministic, unlike the
times, which are measured and never asserted) equal the protocol minimum where the SDK is meant to
reach it."""
import json
import subprocess
import sys

import pytest

from harness import ROOT


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
