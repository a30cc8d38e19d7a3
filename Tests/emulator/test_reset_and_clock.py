"""`POST /_emulator/reset` takes the emulator back to the state it started in (the harnesses share
one emulator between tests and reset it before each), and `POST /_emulator/clock` moves the
emulator's now forward (virtual time): what has a lifetime expires without waiting for it."""

from __future__ import annotations

import email.utils
import http.client
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from emulator_testkit import ALL_SESSION_PARAMS, Api, b64  # first: it puts Tests/tools (sso_tokens) on sys.path
from sso_tokens import Issuer  # noqa: E402
from test_partner_sso import pfs, sign_in_with_partner, sso_session
from test_v1 import device_query, free_preview, signed_in, v1

BASIC = "TempPass_TEST40"
DAY_MS = 86400 * 1000


def snapshot(api: Api) -> dict[str, Any]:
    """Everything the control API shows about the emulator's state (the clock's now excepted)."""
    clock = api.control("GET", "clock")
    return {
        "state": api.control("GET", "state"),
        "config": api.control("GET", "config"),
        "faults": api.control("GET", "faults"),
        "refusal": api.control("GET", "partner/refuse-next"),
        "sso_refusal": api.control("GET", "sso/refuse-next"),
        "sso_profiles": api.control("GET", "sso/profiles"),
        "clock_offset_ms": clock["offset_ms"],
        "log": api.log(),
    }


def change_everything(api: Api) -> None:
    """Leaves something behind in every part of the state a client or a test can change."""
    api.control("POST", "config", {
        "code_ttl_s": 99, "profile_ttl_s": 3600, "latency_ms": 1,
        "denied_resources": {"X": "no"}, "auto_login_ms": 600000, "revoked_software_statements": ["a.b.c"],
        "partner_sso_disabled": [], "temppass_ttl_s": {BASIC: 30}, "temppass_resources": {"flexibleTempPass": 2},
        "degradation": {"Spectrum": "AuthZAll"}, "configuration_device_headers": "optional",
        "configuration_platforms": [{"match": {"osName": "Linux"}, "platform_sso": False}]})
    idp = Issuer("idp.example")
    api.control("POST", "config", {"service_token_keys": idp.config(), "sso_invalid_token": "refuse",
                                   "service_token_sso_disabled": ["Dish"]})
    token = api.new_access_token()  # a client and an access token
    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])  # a session and a profile
    sso_code = api.v2("POST", "/sessions", token, "tv-sso", headers={"AD-Service-Token": idp.service_token()},
                      form=ALL_SESSION_PARAMS).json["code"]
    api.login(sso_code)  # a serviceTokenSSO profile
    sign_in_with_partner(api, token, device="tv-partner")  # a partner request answered: an appleSSO profile
    assert sso_session(api, token, pfs(), device="tv-pending").json["actionName"] == "partner_profile"  # one pending
    assert api.v2("GET", f"/profiles/{BASIC}", token).status == 200  # a TempPass use
    v1_token = signed_in(api)  # V1: a registration code and an authN token
    assert v1(api, "GET", "/api/v1/authorize", v1_token, query=device_query(resource="REF30")).status == 200
    assert free_preview(api, v1_token, device="tv-preview").status == 204  # a V1 TempPass
    api.control("POST", "invalidate-client", {"client_id": api.register().json["client_id"]})
    api.control("POST", "config", {"throttle": True})
    statuses = {api.v2("GET", "/configuration", token, device="burst").status for _ in range(12)}
    assert 429 in statuses  # the throttle bucket of device "burst" is empty
    api.control("POST", "expire-access-tokens")
    api.control("POST", "partner/refuse-next", {"code": "invalid_parameter_saml_response", "count": 2})
    api.control("POST", "sso/refuse-next", {"header": "AD-Service-Token", "count": 2})
    api.control("POST", "faults", {"faults": [{"operation": "getLogoutForMvpdUsingGET", "kind": "html_error"}]})
    api.control("POST", "clock", {"advance_ms": 5000})


def test_reset_with_config_returns_to_the_initial_state(api: Api) -> None:
    initial = snapshot(api)  # the fixture has just reset the emulator
    assert initial["log"] == [] and initial["clock_offset_ms"] == 0 and initial["faults"] == {"faults": []}
    assert initial["refusal"] == {"code": None, "remaining": 0, "details": None}
    assert initial["sso_refusal"] == {"header": None, "remaining": 0, "code": None, "details": None}
    assert initial["sso_profiles"] == {"profiles": []}
    counts = {k: v for k, v in initial["state"].items() if k != "config"}
    assert set(counts.values()) == {0}, counts
    change_everything(api)
    changed = snapshot(api)
    assert all(changed["state"][key] > 0 for key in counts if key != "clock_offset_ms"), changed["state"]
    assert changed["clock_offset_ms"] == 5000
    assert changed["config"] != initial["config"] and changed["faults"] != initial["faults"]
    assert changed["refusal"] != initial["refusal"] and changed["log"]
    assert changed["sso_refusal"] != initial["sso_refusal"] and changed["sso_profiles"] != initial["sso_profiles"]

    assert api.control("POST", "reset", {"config": True}) == {"reset": True}
    assert snapshot(api) == initial
    api.control("POST", "config", {"throttle": True})  # the bucket of "burst" is full again
    token = api.new_access_token()
    assert {api.v2("GET", "/configuration", token, device="burst").status for _ in range(10)} == {200}


def test_reset_keeps_the_settings_unless_asked(api: Api) -> None:
    settings = api.control("POST", "config", {"code_ttl_s": 99, "degradation": {"Spectrum": "AuthZAll"}})
    api.new_access_token()
    api.control("POST", "clock", {"advance_ms": 1000})
    assert api.control("POST", "reset") == {"reset": True}  # no body: as before, the settings stay
    state = api.control("GET", "state")
    assert (state["clients"], state["clock_offset_ms"], state["config"]) == (0, 0, settings)
    assert api.control("POST", "reset", {}) == {"reset": True}
    assert api.control("GET", "config") == settings
    for bad in ({"config": "yes"}, {"config": 1}, {"everything": True}, [True]):
        assert api.request("POST", "/_emulator/reset", json_body=bad).status == 400
    assert api.control("POST", "reset", {"config": False}) == {"reset": True}
    assert api.control("GET", "config") == settings


def test_a_request_in_progress_during_a_reset_is_neither_run_nor_logged(api: Api) -> None:
    """A previous test's client may still have a request on its way (a slow answer it gave up on):
    after the reset it must not create anything nor show up in the log."""
    api.control("POST", "config", {"latency_ms": 600})
    answers: list[int] = []

    def register() -> None:  # raw http.client: the 503 is not an answer of the OpenAPI files
        connection = http.client.HTTPConnection(urlsplit(api.base_url).netloc, timeout=10)
        connection.request("POST", "/o/client/register", body='{"software_statement": "a.b.c"}',
                           headers={"Content-Type": "application/json", "X-Device-Info": b64("{}")})
        answers.append(connection.getresponse().status)
        connection.close()

    slow = threading.Thread(target=register)
    slow.start()
    time.sleep(0.2)  # the request is waiting out its latency
    api.control("POST", "reset", {"config": True})
    slow.join(10)
    assert answers == [503]
    assert api.control("GET", "state")["clients"] == 0 and api.log() == []
    api.register()
    assert [e["operation"] for e in api.log()] == ["processSoftwareStatementUsingPOST"]


def test_clock_advances_what_the_emulator_calls_now(api: Api) -> None:
    assert api.control("GET", "clock")["offset_ms"] == 0
    before = api.control("GET", "clock")["now_ms"]
    assert abs(before - time.time() * 1000) < 5000
    moved = api.control("POST", "clock", {"advance_ms": DAY_MS})
    assert moved["offset_ms"] == DAY_MS and moved["now_ms"] >= before + DAY_MS
    assert api.control("POST", "clock", {"advanceMs": 500})["offset_ms"] == DAY_MS + 500  # the spelling
    assert api.control("GET", "state")["clock_offset_ms"] == DAY_MS + 500
    reply = api.v2("GET", "/configuration", api.new_access_token())
    date = email.utils.parsedate_to_datetime(reply.headers["date"]).timestamp()
    assert abs(date - (time.time() + DAY_MS / 1000)) < 5  # answers carry the emulator's clock
    issued = api.log()[-1]["t_ms"]
    assert abs(issued - (time.time() * 1000 + DAY_MS)) < 5000  # so does the log
    for bad in ({"advance_ms": -1}, {"advance_ms": 1.5}, {"advance_ms": True}, {"advance_ms": "5"}, {},
                {"advance_ms": 1, "advanceMs": 1}, {"advance_ms": 1, "x": 1}, {"advance_ms": 10**20}):
        assert api.request("POST", "/_emulator/clock", json_body=bad).status == 400, bad
    assert api.control("GET", "clock")["offset_ms"] == DAY_MS + 500  # refusals change nothing
    api.control("POST", "reset")
    assert api.control("GET", "clock")["offset_ms"] == 0


def test_lifetimes_end_when_the_clock_passes_them(api: Api) -> None:
    """Default lifetimes (code 30 min, access token 6 h, profile 24 h, basic TempPass 3 min):
    an advance ends them, no configuration or wait needed."""
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    api.control("POST", "clock", {"advance_ms": 1800 * 1000 - 2000})
    assert api.v2("GET", f"/sessions/{code}", token, device=None).status == 200
    api.control("POST", "clock", {"advance_ms": 2000})
    assert api.v2("GET", f"/sessions/{code}", token, device=None).status == 400
    assert api.request("POST", "/_emulator/login", json_body={"code": code}).status == 410

    token = api.new_access_token()
    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])
    assert list(api.v2("GET", "/profiles", token).json["profiles"]) == ["Cablevision"]
    assert api.v2("GET", f"/profiles/{BASIC}", token).status == 200  # starts the device's TempPass
    api.control("POST", "clock", {"advance_ms": 180 * 1000})
    expired = api.v2("GET", f"/profiles/{BASIC}", token)
    assert (expired.status, expired.json["code"]) == (403, "temporary_access_duration_limit_exceeded")
    api.control("POST", "clock", {"advance_ms": 21600 * 1000})
    assert api.v2("GET", "/configuration", token).status == 401  # the access token's 6 h are over
    token = api.new_access_token()
    assert api.v2("GET", "/profiles", token).json["profiles"] == {}  # another client: nothing to see
    api.control("POST", "clock", {"advance_ms": 86400 * 1000})
    v1_token = signed_in(api)
    assert v1(api, "GET", "/api/v1/tokens/authn", v1_token, query=device_query()).status == 200
    api.control("POST", "clock", {"advance_ms": 86400 * 1000})  # V1 keeps tokens per device, whatever the client
    assert v1(api, "GET", "/api/v1/tokens/authn", api.new_access_token(), query=device_query()).status == 410


def test_the_simulated_viewer_and_the_throttle_follow_the_clock(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"auto_login_ms": 60000})
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    assert api.v2("GET", f"/profiles/code/{code}", token, device=None).json == {"profiles": {}}
    api.control("POST", "clock", {"advance_ms": 60000})
    assert list(api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]) == ["Cablevision"]

    api.control("POST", "config", {"throttle": True})
    statuses = [api.v2("GET", "/configuration", token, device="burst").status for _ in range(12)]
    assert statuses[:10] == [200] * 10 and statuses[-1] == 429
    api.control("POST", "clock", {"advance_ms": 3000})  # 1 request/s refill: three more
    assert [api.v2("GET", "/configuration", token, device="burst").status for _ in range(3)] == [200] * 3
