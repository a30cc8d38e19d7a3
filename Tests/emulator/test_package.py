"""The emulator as an installable package: `pip install ./Emulator` in a fresh virtual environment,
then its console script (`aepass-emulator serve`, `validate`) and its pytest plugin, in a scratch
project that uses nothing but the plugin's fixtures and urllib.

Slow-ish (a venv, and pip fetching setuptools, pytest and jsonschema from the package index: about
30 s); skipped when pip cannot reach an index. The package is built from a copy of the files it
needs, so that setuptools' in-tree build leaves nothing in the worktree.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

from emulator_testkit import EMULATOR_DIR, SOFTWARE_STATEMENT, device_info

import aepass

REPO = EMULATOR_DIR.parent
# What `pip install ./Emulator` reads: the folder, and the targets of its two symbolic links.
LINK_TARGETS = ("LICENSE", "Python/accessenabler/simulated_saml.py")
SCRATCH_TEST = '''
"""A project's test against aepass-emulator, with the plugin's fixtures only."""
import json
import urllib.parse
import urllib.request

import pytest

STATEMENT = {statement!r}
DEVICE = {{"AP-Device-Identifier": "fingerprint dHYtMQ==", "X-Device-Info": {device_info!r}}}


def call(base, method, path, headers=None, form=None, body=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else body
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers or {{}})
    if form is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.mark.aepass_validate
def test_second_screen_login(aepass_emulator, aepass_control, aepass_requests):
    import aepass
    assert "site-packages" in aepass.__file__, aepass.__file__  # the installed package
    base = aepass_emulator.url
    client = call(base, "POST", "/o/client/register",
                  {{"Content-Type": "application/json", "Accept": "application/json", **DEVICE}},
                  body=json.dumps({{"software_statement": STATEMENT}}).encode())
    token = call(base, "POST", "/o/client/token", form={{
        "client_id": client["client_id"], "client_secret": client["client_secret"],
        "grant_type": "client_credentials"}})["access_token"]
    v2 = {{"Authorization": "Bearer " + token, "Accept": "application/json", **DEVICE}}
    session = call(base, "POST", "/api/v2/REF30/sessions", v2, form={{
        "mvpd": "Cablevision", "domainName": "adobe.com", "redirectUrl": "https://adobe.com/done"}})
    aepass_control.login(session["code"])
    profiles = call(base, "GET", "/api/v2/REF30/profiles/code/" + session["code"], v2)["profiles"]
    assert list(profiles) == ["Cablevision"]
    assert [e["operation"] for e in aepass_requests()] == [
        "processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST", "createSessionUsingPOST",
        "getProfileForCodeUsingGET_1"]
'''


def run(command: list[str], timeout: float = 120, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,  # type: ignore[call-overload]
                          **options)


def clean_environment() -> dict[str, str]:
    """This environment without what would point the venv's Python or pytest elsewhere."""
    return {name: value for name, value in os.environ.items()
            if name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV") and not name.startswith("PYTEST_")}


def source_copy(root: Path) -> Path:
    """A copy of Emulator/ (symbolic links kept) and of what its links point to, under `root`."""
    ignored = shutil.ignore_patterns("__pycache__", "build", "*.egg-info", "*.pyc")
    shutil.copytree(EMULATOR_DIR, root / "Emulator", symlinks=True, ignore=ignored)
    for name in LINK_TARGETS:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, root / name)
    return root / "Emulator"


def pip_install(venv: Path, project: Path, env: dict[str, str], scratch: Path) -> None:
    """`pip install 'project[pytest]'`, or a skip when no package index is reachable."""
    installed = run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{project}[pytest]"],
                    timeout=240, env=env)
    if installed.returncode == 0:
        return
    probe = run([str(venv / "bin" / "python"), "-m", "pip", "download", "--no-deps", "--quiet", "-d",
                 str(scratch / "probe"), "setuptools>=77"], timeout=120, env=env)
    if probe.returncode != 0:
        pytest.skip(f"pip cannot reach a package index (setuptools>=77 to build, pytest and jsonschema): "
                    f"{probe.stderr.strip().splitlines()[-1:]}")
    raise AssertionError(f"pip install {project}[pytest] failed:\n{installed.stdout}\n{installed.stderr}")


def test_pip_install_gives_the_console_script_and_the_pytest_plugin(tmp_path: Path) -> None:
    env = clean_environment()
    project = source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    created = run([sys.executable, "-m", "venv", str(venv)], env=env)
    if created.returncode != 0:
        pytest.skip(f"python3 -m venv does not work here: {created.stderr.strip()}")
    pip_install(venv, project, env, tmp_path)
    script = venv / "bin" / "aepass-emulator"

    version = run([str(script), "--version"], env=env)
    assert version.stdout.strip() == f"aepass-emulator {aepass.__version__}", version

    log_file = tmp_path / "requests.jsonl"
    server = subprocess.Popen([str(script), "serve", "--port", "0", "--quiet", "--log-file", str(log_file)],
                              stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = server.stdout.readline().strip() if server.stdout else ""
        assert line.startswith("AE_EMULATOR_LISTENING http://127.0.0.1:"), line
        url = line.split(" ", 1)[1]
        with urllib.request.urlopen(f"{url}/_emulator/config", timeout=10) as answer:
            assert json.loads(answer.read())["throttle"] is True  # the defaults
        register = urllib.request.Request(
            f"{url}/o/client/register", method="POST",
            data=json.dumps({"software_statement": SOFTWARE_STATEMENT}).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json", "X-Device-Info": device_info()})
        with urllib.request.urlopen(register, timeout=10) as answer:
            assert answer.status == 201
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
    # The validator reads the OpenAPI files installed with the package.
    validated = run([str(script), "validate", str(log_file)], env=env)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.splitlines()[-1].startswith("1 API requests checked"), validated.stdout

    scratch = tmp_path / "project"
    scratch.mkdir()
    (scratch / "test_against_the_emulator.py").write_text(textwrap.dedent(SCRATCH_TEST).format(
        statement=SOFTWARE_STATEMENT, device_info=device_info()))
    tested = run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                 timeout=120, env=env, cwd=scratch)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "1 passed" in tested.stdout, tested.stdout
