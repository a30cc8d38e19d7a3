"""The pytest plugin (`aepass/pytest_plugin.py`) from the source tree: scratch projects run by a pytest
subprocess with `-p aepass.pytest_plugin` and Emulator/ on PYTHONPATH — the fixtures, the markers,
the options, the request check, the restart of a session emulator a test took down, the start-up
error. (test_package.py runs it installed, loaded through its entry point.)
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from emulator_testkit import EMULATOR_DIR, SOFTWARE_STATEMENT, device_info

README = EMULATOR_DIR / "README.md"

COMMON = '''
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

STATEMENT = {statement!r}
DEVICE_INFO = {device_info!r}


def call(base, method, path, headers=None, body=None):
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers or {{}})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def register(base, extra_headers=None, **body):
    headers = {{"Content-Type": "application/json", "Accept": "application/json", "X-Device-Info": DEVICE_INFO,
               **(extra_headers or {{}})}}
    return call(base, "POST", "/o/client/register", headers, json.dumps(body).encode())
'''

PASSING = '''
def test_fixtures_share_one_reset_emulator(aepass_emulator, aepass_control, aepass_server, aepass_requests):
    assert aepass_control is aepass_emulator is aepass_server
    assert aepass_emulator.get_config()["throttle"] is False  # the default --aepass-args: --throttle off
    assert register(aepass_emulator.url, software_statement=STATEMENT)[0] == 201
    aepass_emulator.config(authorize_limit=2)
    assert aepass_requests()[0]["operation"] == "processSoftwareStatementUsingPOST"


def test_the_next_test_starts_from_a_reset(aepass_emulator, aepass_requests):
    assert aepass_emulator.state()["clients"] == 0
    assert aepass_emulator.get_config()["authorize_limit"] == 5
    assert aepass_requests() == []


def test_the_session_emulator_logs_to_a_file(aepass_server):
    assert aepass_server.log_file.name == "requests.jsonl" and aepass_server.log_file.exists()


@pytest.mark.aepass_args("--strict")
def test_a_marker_gives_a_process_of_its_own(aepass_emulator, aepass_server):
    assert aepass_emulator is not aepass_server and aepass_emulator.url != aepass_server.url
    config = aepass_emulator.get_config()
    assert (config["strictness"], config["throttle"]) == ("strict", False)  # the configured args too


@pytest.mark.parametrize("aepass_isolated_emulator", ["--auto-login-ms 0", ["--latency-ms", "1"]], indirect=True)
def test_indirect_parameters(aepass_isolated_emulator, aepass_requests):
    config = aepass_isolated_emulator.get_config()
    assert config["auto_login_ms"] == 0 or config["latency_ms"] == 1
    register(aepass_isolated_emulator.url, software_statement=STATEMENT)
    assert len(aepass_requests()) == 1  # the isolated emulator's log


@pytest.mark.aepass_validate
def test_requests_marked_invalid_are_not_checked(aepass_emulator):
    status, _ = register(aepass_emulator.url, {{"X-Test-Invalid": "1"}}, redirect_uri="x")
    assert status == 400
    assert register(aepass_emulator.url, software_statement=STATEMENT)[0] == 201


def test_a_test_takes_the_session_emulator_down(aepass_server):
    assert aepass_server.stop() == 0


def test_the_next_test_gets_it_back(aepass_emulator, aepass_server):
    assert aepass_emulator is aepass_server and aepass_server.alive()
    assert register(aepass_emulator.url, software_statement=STATEMENT)[0] == 201
'''

FAILING = '''
def test_an_invalid_request_fails_the_test(aepass_emulator):
    assert register(aepass_emulator.url, redirect_uri="adobepass://app")[0] == 400  # no software_statement


@pytest.mark.aepass_args("--config", "/nonexistent/config.json")
def test_an_emulator_that_cannot_start(aepass_emulator):
    pass


def test_valid_requests_pass(aepass_emulator):
    assert register(aepass_emulator.url, software_statement=STATEMENT)[0] == 201
'''


def run_pytest(tmp_path: Path, body: str, *options: str, common: bool = True) -> subprocess.CompletedProcess[str]:
    """pytest on a scratch project holding `body` (after COMMON's helpers), with the plugin from this
    source tree."""
    project = tmp_path / "project"
    project.mkdir(parents=True)
    source = textwrap.dedent(COMMON).format(statement=SOFTWARE_STATEMENT, device_info=device_info()) if common else ""
    (project / "test_scratch.py").write_text(source + textwrap.dedent(body).replace("{{", "{").replace("}}", "}"))
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EMULATOR_DIR), env.get("PYTHONPATH")]))
    try:  # installed too: pytest loads it through its entry point (a second -p would register it twice)
        importlib.metadata.distribution("aepass-emulator")
        plugin: list[str] = []
    except importlib.metadata.PackageNotFoundError:
        plugin = ["-p", "aepass.pytest_plugin"]
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *plugin, *options],
                          cwd=project, env=env, capture_output=True, text=True, timeout=120)


def outcomes(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """test name -> PASSED / FAILED / ERROR, from the -rA summary (a test with a teardown error
    appears twice: the error wins)."""
    found: dict[str, str] = {}
    for line in result.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and "::" in rest:
            name = rest.split("::", 1)[1].split(" ", 1)[0]
            found[name] = word if found.get(name) != "ERROR" else "ERROR"
    return found


def test_the_fixtures_markers_and_options(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, PASSING)
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(outcomes(result).values()) == {"PASSED"} and len(outcomes(result)) == 9, result.stdout


def test_request_check_and_start_up_errors(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, FAILING, "-o", "aepass_validate=true")
    assert outcomes(result) == {"test_an_invalid_request_fails_the_test": "ERROR",
                                "test_an_emulator_that_cannot_start": "ERROR",
                                "test_valid_requests_pass": "PASSED"}, result.stdout
    assert "break Adobe's OpenAPI files" in result.stdout, result.stdout
    assert "'software_statement' is a required property" in result.stdout, result.stdout
    assert "exited with status 2 before listening" in result.stdout, result.stdout
    assert "bad configuration" in result.stdout, result.stdout


@pytest.mark.parametrize("option", [["--aepass-args=--strict --throttle on"],
                                    ["-o", "aepass_args=--strict --throttle on"]])
def test_the_session_emulators_options(tmp_path: Path, option: list[str]) -> None:
    body = """
    def test_options(aepass_server):
        config = aepass_server.get_config()
        assert (config["strictness"], config["throttle"]) == ("strict", True)
    """
    result = run_pytest(tmp_path, body, *option)
    assert result.returncode == 0, result.stdout + result.stderr


def test_options_are_listed_in_help(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, "", "--help")
    assert "--aepass-args=ARGS" in result.stdout and "--aepass-validate" in result.stdout, result.stdout
    assert "aepass_args" in result.stdout and "aepass_validate" in result.stdout
    markers = run_pytest(tmp_path / "markers", "", "--markers")
    assert "@pytest.mark.aepass_args(*args)" in markers.stdout and "@pytest.mark.aepass_validate" in markers.stdout


def test_the_readme_example_passes(tmp_path: Path) -> None:
    """The complete test of README "The pytest plugin", as written there."""
    section = README.read_text(encoding="utf-8").split("## The pytest plugin", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    result = run_pytest(tmp_path, example.replace("{", "{{").replace("}", "}}"), common=False)
    assert result.returncode == 0 and outcomes(result) == {
        "test_second_screen_login": "PASSED", "test_in_strict_mode": "PASSED"}, result.stdout + result.stderr
