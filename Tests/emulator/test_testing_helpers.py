"""`aepass.testing`: EmulatorProcess's life cycle, every Control call against a real emulator, the
request and answer checks, and the partner SSO helpers (a whole Apple SSO flow over plain HTTP)."""

from __future__ import annotations

import os

import pytest

from emulator_testkit import ALL_SESSION_PARAMS, INVALID_MARK, Api

from aepass import serve
from aepass.testing import (
    Control, ControlError, EmulatorProcess, EmulatorStartError, Headers, answer_problems, assert_valid_requests,
    partner_framework_status, partner_saml_response, request_problems,
)
from aepass.testing import process as process_module

PFS = "AP-Partner-Framework-Status"


def test_the_process_life_cycle() -> None:
    assert process_module.LISTENING == serve.LISTENING
    emulator = EmulatorProcess("--throttle", "off")
    first = emulator.url
    assert emulator.alive() and repr(emulator) == f"EmulatorProcess({first!r})"
    emulator.restart()  # stops the running one
    assert emulator.alive() and emulator.url != first and emulator.get_config()["throttle"] is False
    assert emulator.stop() == 0 and not emulator.alive()
    assert emulator.stop() == 0  # already stopped: its status again


def test_a_process_that_cannot_start_says_why() -> None:
    with pytest.raises(EmulatorStartError) as raised:
        EmulatorProcess("--throttle", "sideways")
    assert "exited with status 2 before listening" in str(raised.value)
    assert "invalid choice: 'sideways'" in str(raised.value)


def test_a_silent_process_times_out() -> None:
    env = {**os.environ, "PYTHONSTARTUP": ""}
    original = process_module.BOOT
    process_module.BOOT = "import time; time.sleep(30)"
    try:
        with pytest.raises(EmulatorStartError, match=r"said nothing within 0.5 s"):
            EmulatorProcess(env=env, start_timeout=0.5)
    finally:
        process_module.BOOT = original


def test_stderr_marks_count_lines_past_the_kept_tail() -> None:
    """`stderr_since(mark)`: the lines after the mark that the last-200 tail still holds."""
    emulator = EmulatorProcess("--throttle", "off")
    try:
        emulator.stop()
        emulator._stderr.clear()  # the stopped process's reader has ended: feed lines as it does
        emulator._stderr_lines = 0
        for n in range(250):
            emulator._stderr.append(f"line {n}\n")
            emulator._stderr_lines += 1
            if n == 9:
                early = emulator.stderr_mark()
        late = emulator.stderr_mark() - 3
        assert emulator.stderr_since(late) == "line 247\nline 248\nline 249\n"
        assert emulator.stderr_since(emulator.stderr_mark()) == ""
        kept = emulator.stderr_since(early)  # 240 lines after the mark; the tail keeps 200
        assert kept.startswith("line 50\n") and kept.count("\n") == 200
    finally:
        emulator._reap()


def test_control_calls(api: Api, emulator_process: EmulatorProcess) -> None:
    control = Control(emulator_process.url + "/")
    assert control.url == emulator_process.url
    assert control.config(authorize_limit=3)["authorize_limit"] == 3 and control.get_config()["authorize_limit"] == 3
    with pytest.raises(ControlError) as raised:
        control.config(no_such_key=1)
    assert raised.value.status == 400 and raised.value.error == "unknown configuration key 'no_such_key'"
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    assert control.login(code)["mvpd"] == "Cablevision"
    with pytest.raises(ControlError, match="404: unknown code 'nope'"):
        control.login("nope")
    assert control.state()["profiles"] == 1
    assert control.operations() == ["processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST",
                                    "createSessionUsingPOST"]
    entry = control.log()[0]
    assert isinstance(entry["headers"], Headers)
    assert entry["headers"]["x-device-info"] == entry["headers"]["X-Device-Info"] and "x-DEVICE-info" in entry["headers"]
    assert [e["seq"] for e in control.raw_log(since=control.raw_log()[0]["seq"])] == [
        e["seq"] for e in control.log()[1:]]
    assert control.advance_clock(1500)["offset_ms"] == 1500 and control.clock()["offset_ms"] == 1500
    faults = control.faults({"operation": "getLogoutForMvpdUsingGET", "kind": "status", "status": 503})
    assert faults[0]["kind"] == "status" and control.fault_counts() == [(0, 0)] and len(control.get_faults()) == 1
    assert control.faults() == []
    assert control.expire_profiles(type="regular") == {"expired": 1}
    assert control.temppass_reset(mvpd="TempPass_TEST40") == {"reset": 0}
    assert control.temppass_expire(device="tv-1") == {"expired": 0}
    assert control.partner_refuse_next("invalid_parameter_saml_response", count=2)["remaining"] == 2
    assert control.partner_refusal()["code"] == "invalid_parameter_saml_response"
    assert control.partner_refuse_next(None)["remaining"] == 0
    assert control.sso_refuse_next("AD-Service-Token", code="invalid_header_service_token")["remaining"] == 1
    assert control.sso_refusal()["header"] == "AD-Service-Token" and control.sso_refuse_next(None)["header"] is None
    assert control.sso_profiles() == []
    assert control.sso_verify("AD-Service-Token", "not-a-token")["valid"] is False
    client_id = next(e["client_id"] for e in control.raw_log() if e.get("client_id"))
    assert control.expire_access_tokens()["expired"] == 1
    assert control.invalidate_client(client_id) == {"invalidated": client_id}
    control.clear_log()
    assert control.log() == []
    control.reset(config=True)
    assert control.get_config()["authorize_limit"] == 5 and control.clock()["offset_ms"] == 0


def test_the_partner_helpers_complete_an_apple_sso_flow(api: Api) -> None:
    token = api.new_access_token()
    status = partner_framework_status("Comcast")  # Comcast_SSO's platformMappingId
    answer = api.v2("POST", "/sessions/sso/Apple", token, headers={PFS: status},
                    form={"domainName": "adobe.com", "redirectUrl": "https://adobe.com/done"}).json
    assert answer["actionName"] == "partner_profile", answer
    saml_response = partner_saml_response(answer["authenticationRequest"], "Comcast")
    created = api.v2("POST", "/profiles/sso/Apple", token, body=f"SAMLResponse={saml_response}",
                     headers={PFS: status, "Content-Type": "application/x-www-form-urlencoded"})
    assert created.status == 201, created.json
    assert created.json["profiles"]["Comcast_SSO"]["type"] == "appleSSO"
    expired = partner_framework_status("Comcast", expires_in_s=-60)
    fallback = api.v2("POST", "/sessions/sso/Apple", token, headers={PFS: expired},
                      form={"domainName": "adobe.com", "redirectUrl": "https://adobe.com/done"}).json
    assert fallback["actionName"] != "partner_profile"
    with pytest.raises(ValueError, match="no SAML request id"):
        partner_saml_response({"request": "bm90IHNhbWw=", "attributesNames": []}, "Comcast")


def test_request_and_answer_checks(api: Api) -> None:
    api.register()
    api.request("POST", "/o/client/register", json_body={"redirect_uri": "x"}, invalid=True)
    entries = api.log()
    assert request_problems(entries) == []  # the marked request is skipped
    problems = request_problems(entries, skip_marked=False)
    assert "'software_statement' is a required property" in problems[-1], problems
    with pytest.raises(AssertionError, match=f"{len(problems)} request problem"):
        assert_valid_requests(entries, skip_marked=False)
    assert INVALID_MARK == "X-Test-Invalid"
    good = api.register()
    assert answer_problems("POST", "/o/client/register", good.status, good.headers, good.body) == []
    assert answer_problems("POST", "/o/client/register?x=1", 201, {"Content-Type": "application/json;charset=UTF-8"},
                           '{"client_id": 1}') != []

