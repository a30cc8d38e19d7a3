# SPDX-License-Identifier: Apache-2.0
"""C programs against the real .so and the emulator: the event-loop flow from one poll() loop,
and the thread-safety stress test (16 threads × 1,000 mixed calls)."""
import os
import subprocess
from pathlib import Path

import pytest

from harness import ROOT, ae

LIBRARY = Path(os.environ.get("AE_LIBRARY", ROOT / ".build/release/libaccessenabler.so")).resolve()


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    out = tmp_path_factory.mktemp("c-programs")

    def compile_program(name):
        binary = out / name
        subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-pthread",
                        f"-I{ROOT / 'Include'}", str(ROOT / f"Tests/c/{name}.c"), "-o", str(binary),
                        f"-L{LIBRARY.parent}", f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler"], check=True)
        return binary
    return compile_program


def test_event_loop_flow_in_c(build, emulator):
    emulator.config(auto_login_ms=300)
    result = subprocess.run([str(build("event_loop")), emulator.url], capture_output=True, text=True, timeout=60)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 on another thread" in result.stdout


def test_stress_16_threads_by_1000_calls(build, emulator):
    result = subprocess.run([str(build("stress")), emulator.url, "16", "1000"], capture_output=True, text=True,
                            timeout=300)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 unexpected statuses" in result.stdout
