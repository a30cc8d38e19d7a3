# SPDX-License-Identifier: Apache-2.0
"""Power loss during writes: scripts/store-crash.py kills a writer with SIGKILL at random points
200 times and checks the store after each kill (SQLite integrity check, every sealed record old or
new and never torn, and ae_client_create on the file says AE_STORE_OPENED). For 1,000+ runs:
`python3 scripts/store-crash.py --runs 1000`. AE_STORE_CRASH_RUNS sets the count (scripts/cross-test.sh
runs fewer under emulation), AE_STORE_CRASH_TIME_SCALE the delays before the kills (slower there),
AE_STORE_CRASH_TOOL a writer built already."""
import os
import subprocess
import sys

from harness import ROOT


RUNS = int(os.environ.get("AE_STORE_CRASH_RUNS", "200"))


def test_kill_9_during_writes_200_times():
    result = subprocess.run([sys.executable, str(ROOT / "scripts/store-crash.py"), "--runs", str(RUNS)],
                            capture_output=True, text=True, timeout=1200)
    print(result.stdout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    row = result.stdout.strip().splitlines()[-1].split("|")
    runs, kills, records, failures = int(row[1]), int(row[2]), int(row[3]), int(row[5])
    assert (runs, kills, failures) == (RUNS, RUNS, 0) and records >= RUNS * 10
