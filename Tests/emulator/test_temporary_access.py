"""TempPass (basic and promotional) and degradation (AuthNAll, AuthZAll, AuthZNone) on the emulator.

Every answer is compared with the shape of Adobe's documented answer for the same scenario
(`test_doc_examples.assert_shape`), besides the OpenAPI response schemas (conftest.py); every
request not marked `invalid=True` must pass the request validator.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from aepass.simulated import simulated_saml as saml
from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api, Reply, b64
from test_doc_examples import EXAMPLES, assert_shape, example
from test_partner_sso import platform_saml, pfs, sso_profile, sso_session

pytestmark = pytest.mark.skipif(not EXAMPLES.exists(), reason=f"{EXAMPLES} not found")

BASIC, PROMO = "TempPass_TEST40", "flexibleTempPass"
IDENTITY = "AP-TempPass-Identity"
# Adobe's documented header value: Base64 of {"email":"foo@bar.com"}.
DOC_IDENTITY = "eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0="
RESOURCES = {"resources": ["REF30", "apasstest1"]}
QUERY = {"redirectUrl": REDIRECT_URL}


def identity(email: str) -> dict[str, str]:
    return {IDENTITY: b64(json.dumps({"email": email}))}


def profile_of(api: Api, token: str, mvpd: str, device: str = "tv-1", headers: dict[str, str] | None = None,
               invalid: bool = False) -> Reply:
    return api.v2("GET", f"/profiles/{mvpd}", token, device, headers=headers, invalid=invalid)


def decide(api: Api, token: str, kind: str, mvpd: str, resources: dict[str, Any] = RESOURCES,
           headers: dict[str, str] | None = None, device: str = "tv-1") -> list[dict[str, Any]]:
    reply = api.v2("POST", f"/decisions/{kind}/{mvpd}", token, device, headers=headers, json_body=resources)
    assert reply.status == 200, reply.json
    return reply.json["decisions"]


def codes(decisions: list[dict[str, Any]]) -> list[str | None]:
    return [d.get("error", {}).get("code") for d in decisions]


# --- TempPass ---------------------------------------------------------------------------------

def test_configuration_lists_the_temppass_mvpds(api: Api) -> None:
    token = api.new_access_token()
    mvpds = {m["id"]: m for m in api.v2("GET", "/configuration", token).json["requestor"]["mvpds"]}
    documented = next(m for m in example("configuration.get:1")["requestor"]["mvpds"] if m["id"] == BASIC)
    for mvpd in (BASIC, PROMO):
        assert mvpds[mvpd]["isTempPass"] is True
        assert_shape(mvpds[mvpd], "", documented)
    assert not any(m.get("isTempPass") for k, m in mvpds.items() if k not in (BASIC, PROMO))


def test_sessions_for_a_temppass_mvpd_authorize_at_once(api: Api) -> None:
    token = api.new_access_token()
    created = api.create_session(token, **{**ALL_SESSION_PARAMS, "mvpd": BASIC}).json
    assert_shape(created, "sessions.create:4")
    assert (created["actionName"], created["reasonType"], created["mvpd"]) == ("authorize", "temporary", BASIC)
    assert created["url"] == f"/api/v2/REF30/decisions/authorize/{BASIC}"
    code = api.create_session(token).json["code"]
    resumed = api.v2("POST", f"/sessions/{code}", token, device=None, form={**ALL_SESSION_PARAMS, "mvpd": PROMO}).json
    assert_shape(resumed, "sessions.resume:4")
    assert resumed["reasonType"] == "temporary"
    # the session's code answers the TempPass (profiles.by_code:2); no login page for TempPass
    assert_shape(api.v2("GET", f"/profiles/code/{code}", token, device=None, headers=identity("a@b.c")).json,
                 "profiles.by_code:5")
    assert api.control("GET", "state")["profiles"] == 0


def test_basic_temppass_profile_has_a_clock_per_device(api: Api) -> None:
    api.control("POST", "config", {"temppass_ttl_s": {BASIC: 60}})
    token = api.new_access_token()
    first = profile_of(api, token, BASIC).json
    assert_shape(first, "profiles.by_mvpd:4")
    profile = first["profiles"][BASIC]
    assert (profile["issuer"], profile["type"]) == ("Adobe", "temporary")
    assert profile["notAfter"] - profile["notBefore"] == 60_000
    assert profile["attributes"]["expiration_date"]["value"] == profile["notAfter"]
    assert profile["attributes"]["userID"]["value"].startswith("temppass_")
    time.sleep(0.02)
    assert profile_of(api, token, BASIC).json == first  # the clock started with the first request
    other_client = api.new_access_token()
    assert profile_of(api, other_client, BASIC).json["profiles"][BASIC]["notAfter"] == profile["notAfter"]
    other_device = profile_of(api, token, BASIC, device="tv-2").json["profiles"][BASIC]
    assert other_device["notBefore"] > profile["notBefore"]
    # not a profile GET /profiles lists (rest-api-v2.md §4.8), and no profile of a login
    assert api.v2("GET", "/profiles", token).json == {"profiles": {}}
    assert api.control("GET", "state")["temppass_uses"] == 2


def test_basic_temppass_used_up(api: Api) -> None:
    api.control("POST", "config", {"temppass_ttl_s": {BASIC: 0.3}})
    token = api.new_access_token()
    authorized = decide(api, token, "authorize", BASIC, {"resources": ["REF30"]})  # the first request starts it
    assert_shape(authorized, "", example("decisions.authorize:6")["decisions"])
    assert authorized[0]["source"] == "temppass" and authorized[0]["token"]["serializedToken"]
    preauthorized = decide(api, token, "preauthorize", BASIC)
    assert [(d["source"], d["authorized"]) for d in preauthorized] == [("temppass", True)] * 2
    time.sleep(0.35)
    expired = profile_of(api, token, BASIC)
    assert (expired.status, expired.json["code"]) == (403, "temporary_access_duration_limit_exceeded")
    assert_shape(expired.json, "profiles.by_mvpd:5")
    denied = decide(api, token, "authorize", BASIC, {"resources": ["REF30"]})
    assert_shape(denied, "", example("decisions.authorize:7")["decisions"])
    assert codes(denied) == ["temporary_access_duration_limit_exceeded"]
    # logout is not needed and changes nothing: the device's TempPass stays used up
    logout = api.v2("GET", f"/logout/{BASIC}", token, query=QUERY).json
    assert logout == {"logouts": {BASIC: {"actionName": "complete", "actionType": "none", "mvpd": BASIC}}}
    assert_shape(logout, "logout.initiate:7")
    assert profile_of(api, token, BASIC).status == 403
    assert profile_of(api, token, BASIC, device="tv-2").status == 200  # a new device, a new trial
    # Adobe's Reset TempPass API
    assert api.control("POST", "temppass/reset", {"mvpd": BASIC, "device": "tv-1"}) == {"reset": 1}
    assert profile_of(api, token, BASIC).status == 200
    assert api.control("POST", "temppass/expire", {"device": "tv-1"}) == {"expired": 1}
    assert profile_of(api, token, BASIC).status == 403


def test_promotional_temppass_needs_an_identity(api: Api) -> None:
    token = api.new_access_token()
    missing = profile_of(api, token, PROMO)
    assert (missing.status, missing.json["code"]) == (400, "invalid_header_identity_for_temporary_access")
    assert_shape(missing.json, "profiles.by_mvpd:11")
    for bad in ("not base64!", b64("[1]"), b64("{}"), b64("{")):
        reply = profile_of(api, token, PROMO, headers={IDENTITY: bad})
        assert reply.json["code"] == "invalid_header_identity_for_temporary_access", bad
    assert codes(decide(api, token, "authorize", PROMO, {"resources": ["REF30"]})) == [
        "invalid_header_identity_for_temporary_access"]
    assert_shape(decide(api, token, "authorize", PROMO, {"resources": ["REF30"]}), "",
                 example("decisions.authorize:13")["decisions"])
    documented = profile_of(api, token, PROMO, headers={IDENTITY: DOC_IDENTITY})
    assert documented.status == 200
    assert_shape(documented.json, "profiles.by_mvpd:7")


def test_promotional_temppass_counts_resources_per_identity(api: Api) -> None:
    api.control("POST", "config", {"temppass_resources": {PROMO: 2}})
    token = api.new_access_token()
    viewer = identity("viewer@example.com")
    attributes = profile_of(api, token, PROMO, headers=viewer).json["profiles"][PROMO]["attributes"]
    assert (attributes["remaining_resources"]["value"], attributes["used_assets"]["value"]) == (2, [])
    first = decide(api, token, "authorize", PROMO, RESOURCES, headers=viewer)
    assert_shape(first, "", example("decisions.authorize:9")["decisions"])
    assert [d["authorized"] for d in first] == [True, True]
    again = decide(api, token, "authorize", PROMO, {"resources": ["REF30"]}, headers=viewer)
    assert again[0]["authorized"] is True  # an asset already used
    # the identity's promotion, whatever the device
    other_device = decide(api, token, "authorize", PROMO, {"resources": ["new"]}, headers=viewer, device="tv-2")
    assert codes(other_device) == ["temporary_access_resources_limit_exceeded"]
    assert_shape(other_device, "", example("decisions.authorize:11")["decisions"])
    used_up = profile_of(api, token, PROMO, headers=viewer)
    assert (used_up.status, used_up.json["code"]) == (403, "temporary_access_resources_limit_exceeded")
    assert_shape(used_up.json, "profiles.by_mvpd:9")
    # preauthorization uses no resource and tells the used assets apart
    assert codes(decide(api, token, "preauthorize", PROMO, {"resources": ["REF30", "new"]}, headers=viewer)) == [
        None, "temporary_access_resources_limit_exceeded"]
    # another viewer has a promotion of their own
    assert profile_of(api, token, PROMO, headers=identity("other@example.com")).status == 200
    assert api.control("POST", "temppass/reset", {"identity": {"email": "viewer@example.com"}}) == {"reset": 1}
    assert profile_of(api, token, PROMO, headers=viewer).status == 200


def test_temppass_configuration_is_checked(api: Api) -> None:
    for bad in ({"temppass_ttl_s": {"Cablevision": 5}}, {"temppass_ttl_s": {BASIC: -1}},
                {"temppass_resources": {BASIC: 3}}, {"degradation": {BASIC: "AuthNAll"}},
                {"degradation": {"Cablevision": "AuthZSome"}}):
        assert api.request("POST", "/_emulator/config", json_body=bad).status == 400, bad
    assert api.request("POST", "/_emulator/temppass/reset", json_body={"device": "a", "identity": {}}).status == 400


def test_no_mvpd_login_for_a_temppass_mvpd(api: Api) -> None:
    token = api.new_access_token()
    code = api.create_session(token, domainName="adobe.com", redirectUrl=REDIRECT_URL).json["code"]
    api.v2("POST", f"/sessions/{code}", token, device=None, form={"mvpd": BASIC})
    refused = api.request("POST", "/_emulator/login", json_body={"code": code})
    assert refused.status == 400
    page = api.request("GET", f"/_emulator/mvpd/login?code={code}")
    assert BASIC not in page.text


# --- Degradation ------------------------------------------------------------------------------

def test_authenticate_all(api: Api) -> None:
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthNAll"}})
    token = api.new_access_token()
    created = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert_shape(created, "sessions.create:5")
    assert (created["actionName"], created["reasonType"]) == ("authorize", "degraded")
    profile = profile_of(api, token, "Cablevision").json
    assert_shape(profile, "profiles.by_mvpd:12")
    degraded = profile["profiles"]["Cablevision"]
    assert (degraded["issuer"], degraded["type"]) == ("Adobe", "degraded")
    assert degraded["attributes"]["userID"]["value"].startswith("95cf93bcd183214a")
    assert api.v2("GET", "/profiles", token).json == {"profiles": {}}  # not listed there (§4.8)
    authorized = decide(api, token, "authorize", "Cablevision")
    assert_shape(authorized, "", example("decisions.authorize:3")["decisions"])
    assert {(d["source"], d["authorized"]) for d in authorized} == {("degradation", True)}
    assert_shape(decide(api, token, "preauthorize", "Cablevision"), "", example("decisions.preauthorize:2")["decisions"])
    logout = api.v2("GET", "/logout/Cablevision", token, query=QUERY).json
    assert_shape(logout, "logout.initiate:6")
    assert logout["logouts"]["Cablevision"]["actionName"] == "complete"
    # a session's code answers the degraded profile too; resume answers `authorize`/`degraded`
    code = api.create_session(token, device="tv-2").json["code"]
    resumed = api.v2("POST", f"/sessions/{code}", token, device=None, form=ALL_SESSION_PARAMS).json
    assert_shape(resumed, "sessions.resume:5")
    assert resumed["reasonType"] == "degraded"
    assert_shape(api.v2("GET", f"/profiles/code/{code}", token, device=None).json, "profiles.by_code:10")


def test_authenticate_all_keeps_a_regular_profile(api: Api) -> None:
    token = api.new_access_token()
    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthNAll"}})
    assert api.create_session(token, **ALL_SESSION_PARAMS).json["reasonType"] == "authenticated"
    assert profile_of(api, token, "Cablevision").json["profiles"]["Cablevision"]["type"] == "regular"
    assert {d["source"] for d in decide(api, token, "authorize", "Cablevision")} == {"degradation"}


def test_authorize_all_and_authorize_none(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthZAll"}})
    assert codes(decide(api, token, "authorize", "Cablevision")) == ["authenticated_profile_missing"] * 2
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]  # authentication as usual
    api.login(code)
    permitted = decide(api, token, "authorize", "Cablevision")
    assert_shape(permitted, "", example("decisions.authorize:4")["decisions"])
    assert_shape(decide(api, token, "preauthorize", "Cablevision"), "", example("decisions.preauthorize:3")["decisions"])
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthZNone"}})
    denied = decide(api, token, "authorize", "Cablevision")
    assert_shape(denied, "", example("decisions.authorize:5")["decisions"])
    assert codes(denied) == ["authorization_denied_by_degradation_rule"] * 2
    assert denied[0]["error"]["status"] == 403 and denied[0]["error"]["action"] == "none"
    assert_shape(decide(api, token, "preauthorize", "Cablevision"), "", example("decisions.preauthorize:4")["decisions"])
    api.control("POST", "config", {"degradation": {}})
    assert {d["source"] for d in decide(api, token, "authorize", "Cablevision")} == {"mvpd"}


def test_partner_sso_with_a_degraded_mvpd(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthNAll"}})
    header = pfs(provider="Cablevision")
    answer = sso_session(api, token, header).json
    assert_shape(answer, "partner_sso.authentication_request:2")
    assert (answer["actionName"], answer["reasonType"]) == ("authorize", "degraded")
    # degraded between the two partner calls: profiles/sso answers the degraded profile, 200
    api.control("POST", "reset")
    api.control("POST", "config", {"degradation": {}})
    token = api.new_access_token()
    partner_answer = sso_session(api, token, header).json
    assert partner_answer["actionName"] == "partner_profile"
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthNAll"}})
    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(partner_answer, "Cablevision")), header)
    assert created.status == 200
    assert_shape(created.json, "partner_sso.profile:2")
    assert created.json["profiles"]["Cablevision"]["type"] == "degraded"
