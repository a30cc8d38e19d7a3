"""The `aepass-emulator` command line (aepass/cli.py), run from the source tree as `python3 -m aepass`:
serve (the default command, options first), --strict, validate, report, help, version, errors."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from emulator_testkit import EMULATOR, EMULATOR_DIR, Api, SOFTWARE_STATEMENT, device_info

import aepass
from aepass import report
from aepass.testing import EmulatorProcess

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(EMULATOR_DIR), os.environ.get("PYTHONPATH")]))}
GOOD = {"seq": 1, "method": "POST", "path": "/o/client/register", "query": "",
        "operation": "processSoftwareStatementUsingPOST",
        "headers": {"Content-Type": "application/json", "Accept": "application/json", "X-Device-Info": device_info()},
        "body": json.dumps({"software_statement": SOFTWARE_STATEMENT}), "status": 201}
BAD = {**GOOD, "seq": 2, "body": json.dumps({"redirect_uri": "adobepass://app"}), "status": 400}


def aepass_command(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aepass", *args], capture_output=True, text=True, timeout=timeout,
                          env=ENV)


def write_log(path: Path, *entries: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def serve_with(*args: str) -> tuple[int, dict[str, object]]:
    """`python3 -m aepass ARGS` started, its config read, SIGTERM: (exit status, config)."""
    process = subprocess.Popen([sys.executable, "-m", "aepass", *args], stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        line = process.stdout.readline().strip() if process.stdout else ""
        assert line.startswith("AE_EMULATOR_LISTENING http://127.0.0.1:"), line
        config = Api(line.split(" ", 1)[1]).control("GET", "config")
    finally:
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=10)
    return status, config


def test_options_first_means_serve() -> None:
    status, config = serve_with("--port", "0", "--quiet", "--throttle", "off", "--strict")
    assert status == 0
    assert (config["throttle"], config["strictness"], config["device_info_header"]) == (False, "strict", "required")


def test_no_command_at_all_serves_with_the_defaults() -> None:
    status, config = serve_with()
    assert status == 0 and config["throttle"] is True and config["strictness"] == "adobe"


def test_serve_strict_applies_after_the_config_file(tmp_path: Path) -> None:
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps({"register_redirect_uri": "optional", "authorize_limit": 2}))
    with EmulatorProcess("--config", str(config_file), "--strict") as emulator:
        config = emulator.get_config()
        assert (config["strictness"], config["register_redirect_uri"], config["authorize_limit"]) == (
            "strict", "required", 2)
        assert emulator.stop() == 0


def test_help_version_and_unknown_commands() -> None:
    helped = aepass_command("--help")
    assert helped.returncode == 0 and "aepass-emulator validate LOG.jsonl" in helped.stdout
    version = aepass_command("--version")
    assert version.stdout.strip() == f"aepass-emulator {aepass.__version__}"
    unknown = aepass_command("serv")
    assert unknown.returncode == 2 and "unknown command 'serv'" in unknown.stderr
    serve_help = aepass_command("serve", "--help")
    assert serve_help.returncode == 0 and "usage: aepass-emulator serve" in serve_help.stdout
    assert "--strict" in serve_help.stdout and "--catalog PATH.json" in serve_help.stdout
    script_help = subprocess.run([sys.executable, str(EMULATOR), "--help"], capture_output=True, text=True, timeout=60)
    assert script_help.stdout.startswith("usage: emulator.py") and "--strict" in script_help.stdout


def test_validate(tmp_path: Path) -> None:
    good = aepass_command("validate", str(write_log(tmp_path / "good.jsonl", GOOD)))
    assert good.returncode == 0 and good.stdout.splitlines()[-1].startswith("1 API requests checked"), good.stdout
    bad = aepass_command("validate", str(write_log(tmp_path / "bad.jsonl", GOOD, BAD)))
    assert bad.returncode == 1 and "'software_statement' is a required property" in bad.stdout, bad.stdout
    usage = aepass_command("validate")
    assert usage.returncode == 2 and "usage: aepass-emulator validate" in usage.stderr


def test_validate_without_jsonschema_says_what_to_install(tmp_path: Path) -> None:
    log = write_log(tmp_path / "log.jsonl", GOOD)
    probe = ("import sys; sys.modules['jsonschema'] = None; from aepass.cli import main; "
             "sys.exit(main(['validate', sys.argv[1]]))")
    result = subprocess.run([sys.executable, "-c", probe, str(log)], capture_output=True, text=True, timeout=60,
                            env=ENV)
    assert result.returncode == 2
    assert "aepass-emulator validate: checking JSON against Adobe's schemas needs jsonschema: " \
           "pip install 'aepass-emulator[validate]'" in result.stderr, result.stderr


def test_report_runs_the_report_module(tmp_path: Path) -> None:
    log = str(write_log(tmp_path / "log.jsonl", GOOD, BAD))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = report.main([log])
    result = aepass_command("report", log)
    assert (result.returncode, result.stdout) == (status, printed.getvalue())
