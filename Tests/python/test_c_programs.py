# SPDX-License-Identifier: Apache-2.0
"""C programs against the real .so and the emulator: the event-loop flow from one poll() loop,
the thread-safety stress test (16 threads × 1,000 mixed calls), and a client's lifetime and
bounds as a firmware host sees them (Tests/c/lifetime.c: a host transport after destroy, its
cancel, preauthorize completions at destroy, the dispatch and queue bounds; issue 28)."""
import os
import subprocess
from pathlib import Path

import pytest

from harness import ROOT

LIBRARY = Path(os.environ.get("AE_LIBRARY", ROOT / ".build/release/libaccessenabler.so")).resolve()


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    out = tmp_path_factory.mktemp("c-programs")

    def compile_program(name, *libraries):
        binary = out / name
        if not binary.exists():
            subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-pthread",
                            f"-I{ROOT / 'Include'}", str(ROOT / f"Tests/c/{name}.c"), "-o", str(binary),
                            f"-L{LIBRARY.parent}", f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler", *libraries],
                           check=True)
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


@pytest.mark.parametrize("mode", ["log-destroy", "race", "cancel", "preauthorize", "dispatch", "queue"])
def test_lifetime_in_c(build, emulator, mode):
    """Issue 28 items 1, 2, 5, 6, 7, each failing on 1.2.0: no host function after destroy (a log sink
    destroying its client, destroy racing the first requests), the transport's cancel at destroy,
    every preauthorize completion exactly once, ae_client_dispatch() bounded, the queue bounded."""
    result = subprocess.run([str(build("lifetime", "-lcurl")), emulator.url, mode], capture_output=True, text=True,
                            timeout=240)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{mode}: ok" in result.stdout


def readme_c_program():
    """The C program of the README's "Using it from C", as written there."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Using it from C"):]
    return section[section.index("```c\n") + len("```c\n"):section.index("```\n", section.index("```c\n") + 4)]


def test_the_readmes_c_program_runs_as_written(emulator, tmp_path):
    """Issue 31 item 7: the README's C program is Examples/minimal/minimal.c (its block is the program's
    core: each line of it, but the `/* ... */` elisions, is in the program, in that order), built with
    every warning on and run against the emulator: setRequestor, a second-screen login (the emulator's
    simulated viewer logs in), a media token, logout, "done"; and its likely mistake is loud: with
    Adobe's refusal of the software statement it prints the refusal by name and exits 1."""
    program = (ROOT / "Examples/minimal/minimal.c").read_text()
    lines, position = program.split("\n"), 0
    for line in readme_c_program().split("\n"):
        if not line.strip() or line.strip().startswith("/* ..."):
            continue
        assert line in lines[position:], f"README line not in minimal.c (after line {position}): {line!r}"
        position = lines.index(line, position) + 1
    assert len(lines) < 150
    binary = tmp_path / "minimal"
    subprocess.run(["gcc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    f"-I{ROOT / 'Include'}", str(ROOT / "Examples/minimal/minimal.c"), "-o", str(binary),
                    f"-L{LIBRARY.parent}", f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler"], check=True)
    emulator.config(auto_login_ms=300)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    result = subprocess.run([str(binary), emulator.url], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    for expected in ("setRequestor: done", "enter the code", "media token for LIVE", "authenticated: 0", "done"):
        assert expected in result.stdout, result.stdout
    assert (tmp_path / "ae-minimal" / "store.sqlite").exists()
    refused = subprocess.run([str(binary), emulator.url], env={**env, "AE_SOFTWARE_STATEMENT": "not-a-statement"},
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "setRequestor: failed" in refused.stdout, refused.stdout + refused.stderr
    assert "status " in refused.stdout  # the status callback named the refusal


def test_the_c_players_prometheus_exporter(emulator, tmp_path):
    """Examples/CPlayer as a metrics exporter (docs/METRICS.md): SIGUSR1 while the code is shown prints
    the Prometheus text then, --metrics prints it at the end; prometheus_client's parser reads both."""
    import re
    import signal
    import time

    from prometheus_client.parser import text_string_to_metric_families

    player = tmp_path / "c-player"
    subprocess.run(["gcc", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-O2", f"-I{ROOT / 'Include'}",
                    f"-I{ROOT / 'Examples/CPlayer'}", str(ROOT / "Examples/CPlayer/player.c"),
                    str(ROOT / "Examples/CPlayer/terminal_qr.c"), "-o", str(player), f"-L{LIBRARY.parent}",
                    f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler", "-lqrencode"], check=True)
    process = subprocess.Popen([str(player), "--base-url", emulator.url, "--no-qr", "--poll-ms", "1000", "--metrics",
                                "--storage", str(tmp_path / "store.db"), "--timeout", "60"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = []
    try:
        for line in process.stdout:
            out.append(line)
            code = re.search(r"activation code\s+([A-Z0-9]+)", line)
            if code:
                process.send_signal(signal.SIGUSR1)  # while the code is shown: the metrics so far
                time.sleep(0.5)
                emulator.login(code.group(1))
                break
        rest, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    text = "".join(out) + rest
    assert process.returncode == 0, text + errors
    dumps = re.findall(r"(# HELP http_client_request_duration_seconds .*?# TYPE ae_outage_state gauge\n(?:ae_outage_state [^\n]*\n)?)",
                       text, re.DOTALL)
    assert len(dumps) == 2, text
    first, last = ({f.name: f for f in text_string_to_metric_families(dump)} for dump in dumps)

    def calls(families):
        return {(s.labels["ae_call"], s.labels["ae_outcome"]): s.value for s in families["ae_calls"].samples}
    assert calls(first) == {("setRequestor", "success"): 1, ("checkAuthentication", "not_authenticated"): 1}
    assert calls(last) == {("setRequestor", "success"): 1, ("checkAuthentication", "not_authenticated"): 1,
                           ("getAuthentication", "success"): 1, ("getAuthorization", "success"): 1,
                           ("logout", "success"): 1}
    login = [s.value for s in last["ae_login_duration_seconds"].samples if s.name.endswith("_count")]
    assert login == [1]
    requests = sum(s.value for s in last["ae_http_requests"].samples)
    assert requests == len([e for e in emulator.log() if e["method"] != "HEAD"])
