"""The conformance report (`aepass-emulator report`, aepass/report.py) on the log of a real run.

A second-screen flow is sent to an emulator of its own that logs to a file; the report on that log
must count each operation, find no violation, mark the steps covered, and answer the exit statuses
another project's CI relies on: 0, 1 (a request breaks the contract), 3 (a required step missing),
2 (no API request, or a bad argument).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

import pytest

from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api

from aepass import report
from aepass.testing import EmulatorProcess

from test_cli import aepass_command

SECOND_SCREEN = ("register", "token", "configuration", "session", "code-check", "poll", "profiles",
                 "preauthorize", "authorize", "logout")


@pytest.fixture(scope="module")
def flow_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The log of one whole REST API V2 flow: every step of the registration, second-screen and
    decisions groups, each once, except the poll (twice: no profile yet, then the profile)."""
    log = tmp_path_factory.mktemp("report") / "requests.jsonl"
    process = EmulatorProcess("--throttle", "off", "--log-file", str(log))
    try:
        api = Api(process.url)
        token = api.new_access_token()
        assert api.v2("GET", "/configuration", token).status == 200
        code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
        assert api.v2("GET", f"/sessions/{code}", token).status == 200
        assert api.v2("GET", "/profiles/code/" + code, token, device=None).json == {"profiles": {}}  # not logged in yet
        api.login(code)
        assert api.v2("GET", "/profiles/code/" + code, token, device=None).status == 200
        assert api.v2("GET", "/profiles", token).status == 200
        decisions = {"json_body": {"resources": ["REF30"]}}
        assert api.v2("POST", "/decisions/preauthorize/Cablevision", token, **decisions).status == 200
        assert api.v2("POST", "/decisions/authorize/Cablevision", token, **decisions).status == 200
        assert api.v2("GET", "/logout/Cablevision", token, query={"redirectUrl": REDIRECT_URL}).status == 200
    finally:
        assert process.stop() == 0
    yield log


def run(*args: str) -> tuple[int, str]:
    result = aepass_command("report", *args)
    assert not result.stderr or result.returncode == 2, result.stderr
    return result.returncode, result.stdout + result.stderr


def test_a_whole_flow_is_reported_valid_and_covered(flow_log: Path) -> None:
    status, text = run(str(flow_log), "--require", "registration,second-screen,decisions")
    assert status == 0, text
    assert re.search(r"^\| generateAccessTokenUsingPOST \| 1 \| 2xx 1 \| 0 \|$", text, re.MULTILINE), text
    assert re.search(r"^\| getProfileForCodeUsingGET_1 \| 2 \| 2xx 2 \| 0 \|$", text, re.MULTILINE), text
    assert "OpenAPI violations: 0 (errata applied: E8 " in text
    for step in SECOND_SCREEN:
        assert re.search(rf"^ \* \S+ +{re.escape(step)} +[12]  covered ", text, re.MULTILINE), (step, text)
    assert f"10 of {len(report.STEPS)} steps exercised" in text


def test_a_required_step_that_was_not_exercised_is_exit_3(flow_log: Path) -> None:
    status, text = run(str(flow_log), "--require", "partner-sso,logout")
    assert status == 3, text
    assert re.search(r"^ \* partner-sso +partner-session +0  MISSING ", text, re.MULTILINE), text
    assert re.search(r"^ \* decisions +logout +1  covered ", text, re.MULTILINE), text
    assert re.search(r"^   token-sso +platform-sso +0  not exercised ", text, re.MULTILINE), text


def test_the_json_form_is_the_same_report(flow_log: Path) -> None:
    status, text = run(str(flow_log), "--json", "--require", "all")
    data = json.loads(text)
    assert status == 3 and data["required"] == [step.id for step in report.STEPS]
    assert data["violations"] == [] and data["requests"] == 11
    assert {step: data["coverage"][step] > 0 for step in SECOND_SCREEN} == dict.fromkeys(SECOND_SCREEN, True)
    assert data["coverage"]["poll"] == 2 and data["coverage"]["platform-sso"] == 0
    assert data["operations"]["retrieveAuthorizeDecisionsForMvpdUsingPOST"] == {
        "requests": 1, "invalid": 0, "statuses": {"2xx": 1}}


def test_a_request_that_breaks_the_contract_is_exit_1(flow_log: Path, tmp_path: Path) -> None:
    entries = [json.loads(line) for line in flow_log.read_text().splitlines()]
    register = next(e for e in entries if e.get("operation") == "processSoftwareStatementUsingPOST")
    broken = {**register, "seq": 10_000, "body": json.dumps({"redirect_uri": "adobepass://app"})}
    log = tmp_path / "broken.jsonl"
    log.write_text(flow_log.read_text() + json.dumps(broken) + "\n")
    status, text = run(str(log), "--require", "second-screen")
    assert status == 1, text
    row = re.search(r"^\| processSoftwareStatementUsingPOST \| 2 \| 2xx 2 \| 1 \|$", text, re.MULTILINE)
    assert row, text
    assert re.search(r"^OpenAPI violations: 1 ", text, re.MULTILINE), text
    assert "software_statement" in text.split("OpenAPI violations:", 1)[1].split("Flow coverage", 1)[0], text


def test_no_api_request_and_bad_arguments_are_exit_2(tmp_path: Path) -> None:
    only_control = tmp_path / "control.jsonl"
    only_control.write_text(json.dumps({"seq": 1, "method": "POST", "path": "/_emulator/reset", "status": 200}) + "\n")
    assert run(str(only_control))[0] == 2
    status, text = run(str(only_control), "--require", "sideways")
    assert status == 2 and "unknown step or group 'sideways'" in text, text
    status, text = run(str(tmp_path / "missing.jsonl"))
    assert status == 2 and "missing.jsonl" in text, text


def test_the_readme_lists_every_step() -> None:
    """Emulator/README.md "Conformance report": its step table is `report.STEPS`, row for row."""
    readme = (Path(report.__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Conformance report (`aepass.report`)", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| (.+?) \| (.+?) \|$", section, re.MULTILINE)
    assert rows == [(s.group, s.id, s.title, s.source) for s in report.STEPS]
