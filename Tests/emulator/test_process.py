"""The emulator as a process: CLI flags, --config, log files, clean shutdown, and the
validator run over a real log file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator_testkit import (
    ALL_SESSION_PARAMS, DEPRECATED_EMULATOR, EMULATOR, EMULATOR_DIR, HERE, Api, start_emulator, stop_emulator,
)

VALIDATOR = EMULATOR_DIR / "validate_requests.py"
DEPRECATED_VALIDATOR = HERE / "validate_requests.py"  # the old path, kept as an alias


def test_log_file_config_file_and_clean_exit(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"authorize_limit": 2, "throttle": True}))
    log_file = tmp_path / "run.jsonl"
    process, base_url = start_emulator("--config", str(config), "--throttle", "off",
                                       "--auto-login-ms", "0", "--log-file", str(log_file))
    try:
        api = Api(base_url)
        settings = api.control("GET", "config")
        assert (settings["authorize_limit"], settings["throttle"], settings["auto_login_ms"]) == (2, False, 0)
        token = api.new_access_token()
        code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
        profiles = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
        assert list(profiles) == ["Cablevision"]  # auto_login_ms 0: the viewer signs in at once
        api.control("POST", "reset")  # forgets the in-memory log, not the file
    finally:
        assert stop_emulator(process) == 0
    lines = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert [e["operation"] for e in lines] == [
        "processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST",
        "createSessionUsingPOST", "getProfileForCodeUsingGET_1"]
    assert [e["seq"] for e in lines] == [1, 2, 3, 4]
    result = subprocess.run([sys.executable, str(VALIDATOR), str(log_file)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_log_dir_from_environment(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    process, base_url = start_emulator(env={**os.environ, "AE_EMULATOR_LOG_DIR": str(log_dir)})
    try:
        Api(base_url).register()
    finally:
        assert stop_emulator(process) == 0
    written = log_dir / f"emulator-{process.pid}.jsonl"
    assert [json.loads(line)["status"] for line in written.read_text().splitlines()] == [201]


def test_bad_config_file_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"no_such_key": 1}))
    result = subprocess.run(
        [sys.executable, str(EMULATOR), "--config", str(config)],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "no_such_key" in result.stderr


@pytest.mark.parametrize("lives_s", [2, 0])
def test_exit_with_parent_stops_when_the_starter_ends(tmp_path: Path, lives_s: int) -> None:
    """A test process that dies must not leave an emulator holding its pipes: with
    --exit-with-parent the emulator notices it was re-parented and exits cleanly; also when the parent
    ends at once, while the emulator is still starting (`lives_s` 0: on a loaded machine the emulator
    read its parent only after the parent had gone, and served on for ever)."""
    pid_file = tmp_path / "pid"
    emulator = EMULATOR
    # sh starts the emulator in the background, records its pid, lets it start, and exits.
    subprocess.run(["sh", "-c", f'"{sys.executable}" "{emulator}" --port 0 --quiet --exit-with-parent '
                                f'>/dev/null 2>&1 & echo $! > "{pid_file}"; sleep {lives_s}'], check=True, timeout=30)
    pid = int(pid_file.read_text())
    if lives_s:
        os.kill(pid, 0)  # it was serving while sh lived
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError("the emulator outlived its parent by 10 s")


def test_without_exit_with_parent_the_emulator_outlives_its_starter(tmp_path: Path) -> None:
    """The flag is what makes the difference (a daemon started from a shell keeps serving)."""
    pid_file = tmp_path / "pid"
    emulator = EMULATOR
    subprocess.run(["sh", "-c", f'"{sys.executable}" "{emulator}" --port 0 --quiet '
                                f'>/dev/null 2>&1 & echo $! > "{pid_file}"'], check=True, timeout=30)
    pid = int(pid_file.read_text())
    try:
        time.sleep(1.5)
        os.kill(pid, 0)  # still there: raises ProcessLookupError otherwise
    finally:
        os.kill(pid, signal.SIGTERM)


def test_the_deprecated_tests_emulator_path_still_runs_the_emulator(tmp_path: Path) -> None:
    """`python3 Tests/emulator/emulator.py ARGS` (the emulator's old home) is an alias: the same
    process (exec), the same flags, the same exit statuses."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"authorize_limit": 3}))
    process = subprocess.Popen([sys.executable, str(DEPRECATED_EMULATOR), "--port", "0", "--quiet",
                                "--config", str(config), "--throttle", "off"], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline().strip() if process.stdout else ""
        assert line.startswith("AE_EMULATOR_LISTENING http://127.0.0.1:"), line
        settings = Api(line.split(" ", 1)[1]).control("GET", "config")
        assert (settings["authorize_limit"], settings["throttle"]) == (3, False)
    finally:
        assert stop_emulator(process) == 0  # SIGTERM reaches the emulator itself: the alias is gone
    config.write_text(json.dumps({"no_such_key": 1}))
    refused = subprocess.run([sys.executable, str(DEPRECATED_EMULATOR), "--config", str(config)],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "no_such_key" in refused.stderr


def test_the_deprecated_tests_validator_path_still_validates(tmp_path: Path) -> None:
    """`python3 Tests/emulator/validate_requests.py LOG...` runs Emulator/validate_requests.py; imported
    by that name from Tests/emulator it is the moved module itself."""
    log_file = tmp_path / "empty.jsonl"
    log_file.write_text("")
    result = subprocess.run([sys.executable, str(DEPRECATED_VALIDATOR), str(log_file)],
                            capture_output=True, text=True, timeout=60)
    direct = subprocess.run([sys.executable, str(VALIDATOR), str(log_file)], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (direct.returncode, direct.stdout, direct.stderr)
    assert result.returncode == 2  # no API request at all
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import validate_requests; "
             "print(validate_requests.__file__, validate_requests.validate_entries([]))")
    imported = subprocess.run([sys.executable, "-c", probe, str(HERE)], capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == [str(VALIDATOR), "[]"]
