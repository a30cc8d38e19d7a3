# SPDX-License-Identifier: Apache-2.0
"""A missing test dependency fails the run instead of skipping tests silently: the platform SSO tests
need `cryptography` (pinned in .ci/run, installed by `scripts/deps.sh test`)."""
import os
import subprocess
import sys

from harness import ROOT


def test_without_cryptography_the_platform_sso_tests_fail_instead_of_being_skipped(tmp_path):
    # A `cryptography` package that cannot be imported, first on the path of a pytest run of its own.
    hidden = tmp_path / "cryptography"
    hidden.mkdir()
    (hidden / "__init__.py").write_text('raise ImportError("cryptography hidden by the test")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p))
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          str(ROOT / "Tests/python/test_platform_sso.py")],
                         cwd=ROOT / "Tests/python", env=env, capture_output=True, text=True, timeout=120)
    output = run.stdout + run.stderr
    # 2: errors during collection (0 or 5 would be "all skipped" or "nothing collected").
    assert run.returncode == 2, output
    assert "needs the Python package cryptography" in output and "skipped" not in output, output
