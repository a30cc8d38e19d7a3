"""Platform identity (Adobe-Subject-Token, X-Roku-Reserved-Roku-Connect-Token, V1's `ast`) and
service token (AD-Service-Token) single sign-on on the emulator (aepass/sso.py, aepass/jws.py).

Tokens come from `Tests/tools/sso_tokens.py` with keys made for the run. As everywhere
(conftest.py), every answer is checked against the OpenAPI response schemas (V1: `v1_contract`),
and every request not marked `invalid=True` must pass the request validator.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from emulator_testkit import (  # first: it puts Tests/tools (sso_tokens) on sys.path
    ALL_SESSION_PARAMS, EMULATOR, REDIRECT_URL, Api, Reply, device_info, start_emulator, stop_emulator,
)
import sso_tokens  # noqa: E402 (after emulator_testkit)
from sso_tokens import Issuer  # noqa: E402
from test_v1 import REQUESTOR, device_query, v1
from validate_requests import validate_entry

SUBJECT, ROKU, SERVICE = "Adobe-Subject-Token", "X-Roku-Reserved-Roku-Connect-Token", "AD-Service-Token"
RESOURCE = {"resources": ["REF30"]}
LOGOUT = {"redirectUrl": REDIRECT_URL}


@pytest.fixture(scope="module")
def idp() -> Issuer:
    """A programmer's identity service: AD-Service-Token, RS256."""
    return Issuer("idp.example")


@pytest.fixture(scope="module")
def fire() -> Issuer:
    """A platform (Amazon-like): Adobe-Subject-Token, RS256."""
    return Issuer("platform.example")


@pytest.fixture(scope="module")
def roku() -> Issuer:
    """A platform (Roku-like): X-Roku-Reserved-Roku-Connect-Token, ES256."""
    return Issuer("roku.example", alg="ES256")


@pytest.fixture
def keyed(api: Api, idp: Issuer, fire: Issuer, roku: Issuer) -> Api:
    """The emulator with the three issuers' public keys configured."""
    api.control("POST", "config", {"service_token_keys": idp.config(),
                                   "platform_token_keys": sso_tokens.config_of(fire, roku)})
    return api


def sign_in(api: Api, token: str, device: str, headers: dict[str, str], mvpd: str = "Cablevision",
            user: str = "alice") -> dict[str, Any]:
    """Sessions create carrying `headers`, then the second-screen login: the regular profile."""
    answer = api.v2("POST", "/sessions", token, device, headers=headers,
                    form={**ALL_SESSION_PARAMS, "mvpd": mvpd}).json
    assert answer["actionName"] == "authenticate", answer
    return api.login(answer["code"], userID=user)["profile"]


def profiles(api: Api, token: str, device: str, headers: dict[str, str] | None = None,
             path: str = "/profiles") -> dict[str, Any]:
    reply = api.v2("GET", path, token, device, headers=headers)
    assert reply.status == 200, reply.json
    return reply.json["profiles"]


def decide(api: Api, token: str, device: str, headers: dict[str, str] | None = None, mvpd: str = "Cablevision",
           kind: str = "authorize") -> Reply:
    return api.v2("POST", f"/decisions/{kind}/{mvpd}", token, device, headers=headers, json_body=RESOURCE)


def error_code_of(decision: dict[str, Any]) -> str | None:
    return decision.get("error", {}).get("code")


def last_entry(api: Api, operation: str) -> dict[str, Any]:
    return [e for e in api.log() if e["operation"] == operation][-1]


# --- platform identity --------------------------------------------------------------------------------

def test_platform_identity_shares_the_profile_with_other_apps_and_devices(keyed: Api, fire: Issuer) -> None:
    api = keyed
    first_app, second_app = api.new_access_token(), api.new_access_token()  # two clients (apps)
    regular = sign_in(api, first_app, "tv-1", {SUBJECT: fire.platform_token("owner-1")})
    assert profiles(api, first_app, "tv-1", {SUBJECT: fire.platform_token("owner-1")})["Cablevision"]["type"] == "regular"

    header = {SUBJECT: fire.platform_token("owner-1")}  # a fresh token of the same subject
    for app, device in ((second_app, "tv-1"), (second_app, "tv-2"), (first_app, "tv-2")):
        shared = profiles(api, app, device, header)
        assert list(shared) == ["Cablevision"], shared
        profile = shared["Cablevision"]
        assert (profile["type"], profile["issuer"]) == ("platformSSO", "Cablevision")
        assert (profile["notBefore"], profile["notAfter"]) == (regular["notBefore"], regular["notAfter"])
        attributes = profile["attributes"]
        assert attributes["userID"] == attributes["upstreamUserID"] == {"value": "alice", "state": "plain"}
        assert attributes["mvpd"] == {"value": "Cablevision", "state": "plain"}
        assert attributes["zip"] == regular["attributes"]["zip"]
        assert profiles(api, app, device, header, "/profiles/Cablevision") == shared
        assert profiles(api, app, device, header, "/profiles/Spectrum") == {}

    assert profiles(api, second_app, "tv-2") == {}  # no token: no SSO
    assert profiles(api, second_app, "tv-2", {SUBJECT: fire.platform_token("someone-else")}) == {}

    session = api.v2("POST", "/sessions", second_app, "tv-2", headers=header, form=ALL_SESSION_PARAMS).json
    assert (session["actionName"], session["actionType"], session["reasonType"]) == (
        "authorize", "direct", "authenticatedSSO")
    assert "code" not in session and session["url"] == "/api/v2/REF30/decisions/authorize/Cablevision"

    permit = decide(api, second_app, "tv-2", header).json["decisions"][0]
    assert permit["authorized"] is True and permit["source"] == "mvpd" and permit["token"]["serializedToken"]
    assert decide(api, second_app, "tv-2", header, kind="preauthorize").json["decisions"][0]["authorized"] is True
    missing = decide(api, second_app, "tv-2").json["decisions"][0]
    assert missing["authorized"] is False and error_code_of(missing) == "authenticated_profile_missing"
    assert api.control("GET", "state")["sso_profiles"] == 1
    assert api.control("GET", "sso/profiles")["profiles"] == [{
        "type": "platformSSO", "iss": "platform.example", "sub": "owner-1", "mvpd": "Cablevision",
        "notBefore": regular["notBefore"], "notAfter": regular["notAfter"], "requestors": ["REF30"], "origins": 1}]


def test_roku_header_es256_and_jwe_name_the_same_subject(keyed: Api, roku: Issuer) -> None:
    api = keyed
    first_app, second_app = api.new_access_token(), api.new_access_token()
    sign_in(api, first_app, "roku-1", {ROKU: roku.platform_token("roku-user")}, mvpd="Spectrum")
    for header in ({ROKU: roku.platform_token("roku-user")}, {ROKU: roku.platform_jwe("roku-user")},
                   {SUBJECT: roku.platform_token("roku-user")}):
        assert profiles(api, second_app, "roku-2", header)["Spectrum"]["type"] == "platformSSO", header
    # A JWE is read as structure only: it must still name a configured issuer, and be unexpired.
    assert profiles(api, second_app, "roku-2", {ROKU: Issuer.platform_jwe(roku, "roku-user", iss="unknown")}) == {}
    assert profiles(api, second_app, "roku-2", {ROKU: roku.platform_jwe("roku-user", ttl_s=-1)}) == {}
    broken = sso_tokens.platform_jwe(roku.claims("roku-user"), empty=("tag",))
    assert profiles(api, second_app, "roku-2", {ROKU: broken}) == {}


def test_the_first_logins_lifetime_is_shared(keyed: Api, fire: Issuer) -> None:
    """Two devices started a login with the same platform identity; the first login's SSO profile
    stays (Roku cookbook: "the second application will share the TTL of the first")."""
    api = keyed
    app = api.new_access_token()
    codes = [api.v2("POST", "/sessions", app, device, headers={SUBJECT: fire.platform_token("owner-1")},
                    form=ALL_SESSION_PARAMS).json["code"] for device in ("tv-1", "tv-2")]
    first = api.login(codes[0])["profile"]
    api.control("POST", "clock", {"advance_ms": 5000})
    later = api.login(codes[1])["profile"]
    assert later["notBefore"] >= first["notBefore"] + 5000
    now_s = api.control("GET", "clock")["now_ms"] / 1000
    shared = profiles(api, app, "tv-3", {SUBJECT: fire.platform_token("owner-1", now_s=now_s)})["Cablevision"]
    assert (shared["notBefore"], shared["notAfter"]) == (first["notBefore"], first["notAfter"])
    assert api.control("GET", "sso/profiles")["profiles"][0]["origins"] == 2


# --- service token --------------------------------------------------------------------------------------

def test_service_token_signs_in_a_second_device(keyed: Api, idp: Issuer, fire: Issuer) -> None:
    api = keyed
    phone, tv = api.new_access_token(), api.new_access_token()
    regular = sign_in(api, phone, "phone-1", {SERVICE: idp.service_token("account-42")}, mvpd="Comcast_SSO")
    header = {SERVICE: idp.service_token("account-42")}
    shared = profiles(api, tv, "living-room-tv", header)["Comcast_SSO"]
    assert (shared["type"], shared["issuer"], shared["notAfter"]) == ("serviceTokenSSO", "Comcast_SSO",
                                                                      regular["notAfter"])
    assert decide(api, tv, "living-room-tv", header, mvpd="Comcast_SSO").json["decisions"][0]["authorized"] is True
    # The platform identity of the same iss and sub is another subject (and another key map).
    assert profiles(api, tv, "living-room-tv", {SUBJECT: fire.platform_token("account-42", iss="idp.example")}) == {}
    # Both tokens at once: each finds its own subject; the platform identity comes first.
    sign_in(api, phone, "phone-1", {SUBJECT: fire.platform_token("owner-9")}, mvpd="Spectrum")
    both = profiles(api, tv, "living-room-tv", {SERVICE: idp.service_token("account-42"),
                                                SUBJECT: fire.platform_token("owner-9")})
    assert {k: v["type"] for k, v in both.items()} == {"Comcast_SSO": "serviceTokenSSO", "Spectrum": "platformSSO"}


def test_own_profile_comes_before_the_sso_profile(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")}, user="first")
    own = sign_in(api, app, "tv-2", {}, user="second")  # tv-2 has a login of its own, without a token
    seen = profiles(api, app, "tv-2", {SERVICE: idp.service_token("account-1")})["Cablevision"]
    assert (seen["type"], seen["attributes"]["userID"]["value"], seen["notAfter"]) == (
        "regular", "second", own["notAfter"])


def test_expired_or_disabled_sso_profiles_are_not_used(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    header = {SERVICE: idp.service_token("account-1")}
    assert api.control("POST", "expire-profiles", {"type": "serviceTokenSSO"}) == {"expired": 1}
    assert profiles(api, app, "tv-2", header) == {}
    expired = decide(api, app, "tv-2", header).json["decisions"][0]
    assert error_code_of(expired) == "authenticated_profile_expired"
    assert profiles(api, app, "tv-1", header)["Cablevision"]["type"] == "regular"  # the regular one lives on

    api.control("POST", "config", {"service_token_sso_disabled": ["Spectrum"]})
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")}, mvpd="Spectrum")
    assert profiles(api, app, "tv-2", header) == {}  # no SSO profile made for Spectrum
    assert api.control("GET", "state")["sso_profiles"] == 1  # the expired Cablevision one


def test_resume_uses_the_tokens_of_the_create_call(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    created = api.v2("POST", "/sessions", app, "tv-2", headers={SERVICE: idp.service_token("account-1")},
                     form={"domainName": "adobe.com", "redirectUrl": REDIRECT_URL}).json
    assert created["actionName"] == "resume"
    resumed = api.v2("POST", f"/sessions/{created['code']}", app, None, form={"mvpd": "Cablevision"}).json
    assert (resumed["actionName"], resumed["reasonType"]) == ("authorize", "authenticatedSSO")


def test_authn_all_degradation_keeps_a_valid_sso_profile(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    api.control("POST", "config", {"degradation": {"Cablevision": "AuthNAll"}})
    header = {SERVICE: idp.service_token("account-1")}
    assert profiles(api, app, "tv-2", header, "/profiles/Cablevision")["Cablevision"]["type"] == "serviceTokenSSO"
    assert profiles(api, app, "tv-3", None, "/profiles/Cablevision")["Cablevision"]["type"] == "degraded"


# --- refusals ---------------------------------------------------------------------------------------------

def broken_tokens(idp: Issuer) -> dict[str, tuple[str, str]]:
    """name -> (token, a fragment of the problem the log records)."""
    other = Issuer("other.example")
    return {
        "alg none": (idp.token(idp.claims(), alg="none"), "alg 'none'"),
        "HS256": (idp.token(idp.claims(), header={"alg": "HS256"}), "alg 'HS256'"),
        "bad signature": (sso_tokens.tampered(idp.service_token()), "signature"),
        "another key": (other.service_token(iss="idp.example"), "signature"),
        "unknown issuer": (other.service_token(), "no key is configured"),
        "expired": (idp.service_token(ttl_s=-1), "expired"),
        "issued in the future": (idp.service_token(iat_offset_s=600), "future"),
        "not valid yet": (idp.service_token(extra={"nbf": 2**40}), "not valid yet"),
        "wrong audience": (idp.service_token(aud="Netflix"), "audience"),
        "no audience": (idp.service_token(omit=("aud",)), "aud claim"),
        "no sub": (idp.service_token(omit=("sub",)), "sub claim"),
        "empty sub": (idp.service_token(""), "sub claim"),
        "no exp": (idp.service_token(omit=("exp",)), "exp claim"),
        "exp NaN": (idp.token(idp.claims(extra={"exp": float("nan")})), "exp claim"),
        "no iat": (idp.service_token(omit=("iat",)), "iat claim"),
        "crit": (idp.service_token(header={"crit": ["exp"]}), "crit"),
        "huge": (idp.service_token(extra={"pad": "x" * 17000}), "longer than"),
        "two parts": (idp.service_token().rsplit(".", 1)[0], "2 parts"),
        "padded": (idp.service_token() + "==", "outside base64url"),
        "not JSON": ("bm90LWpzb24." + idp.service_token().split(".", 1)[1], "protected header"),
        "JWE as a service token": (idp.platform_jwe(), "JWE"),
    }


def test_invalid_tokens_are_served_without_sso(keyed: Api, idp: Issuer) -> None:
    """Adobe: "In case the Adobe-Subject-Token header value is missing or invalid, then Adobe Pass
    Authentication will service the requests without taking Single Sign-On into account" (Amazon SSO
    cookbook, REST API V2); the emulator does the same for AD-Service-Token."""
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1")})
    for name, (token, problem) in broken_tokens(idp).items():
        assert profiles(api, app, "tv-2", {SERVICE: token}) == {}, name
        entry = last_entry(api, "getProfilesUsingGET_1")
        assert entry["sso"] == [{"header": SERVICE, "in": "header", "sha256": sso_tokens.sha256_prefix(token),
                                 "valid": False, "problem": entry["sso"][0]["problem"]}], name
        assert problem in entry["sso"][0]["problem"], (name, entry["sso"][0]["problem"])
        assert api.control("POST", "sso/verify", {"header": SERVICE, "value": token})["valid"] is False
    assert decide(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1", ttl_s=-1)}).json[
        "decisions"][0]["error"]["code"] == "authenticated_profile_missing"


def test_length_and_audience_are_judged_as_the_sdk_judges_them(keyed: Api, idp: Issuer) -> None:
    """The SDK refuses a token over 16 KiB, and a service token whose `aud` does not name Adobe in
    some ASCII case (IdentityToken.parse): exactly what the emulator refuses (README, Strictness).
    Adobe's own example token has `"aud": "adobe"`."""
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1")})
    plain = len(idp.service_token(extra={"pad": ""}))
    around = (16 * 1024 - plain) * 3 // 4
    tokens = [idp.service_token(extra={"pad": "x" * pad}) for pad in range(around - 6, around + 6)]
    longest = max((t for t in tokens if len(t) <= 16 * 1024), key=len)
    shortest_over = min((t for t in tokens if len(t) > 16 * 1024), key=len)
    assert len(longest) >= 16 * 1024 - 3 and len(shortest_over) <= 16 * 1024 + 3
    assert profiles(api, app, "tv-2", {SERVICE: longest})["Cablevision"]["type"] == "serviceTokenSSO"
    assert profiles(api, app, "tv-2", {SERVICE: shortest_over}) == {}
    assert "longer than 16384" in last_entry(api, "getProfilesUsingGET_1")["sso"][0]["problem"]
    for audience in ("adobe", "ADOBE", ["someone", "Adobe"]):
        header = {SERVICE: idp.service_token("viewer-1", aud=audience)}
        assert profiles(api, app, "tv-2", header)["Cablevision"]["type"] == "serviceTokenSSO", audience
    for audience in ("Ad\u00f6be", "Adobe ", "adobe.com"):
        assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1", aud=audience)}) == {}, audience
        assert "audience" in last_entry(api, "getProfilesUsingGET_1")["sso"][0]["problem"]


def test_token_lifetimes_follow_the_emulators_clock(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1")})
    header = {SERVICE: idp.service_token("viewer-1", ttl_s=60)}
    assert profiles(api, app, "tv-2", header)["Cablevision"]["type"] == "serviceTokenSSO"
    api.control("POST", "clock", {"advance_ms": 61_000})  # the token has expired, the profile has not
    assert profiles(api, app, "tv-2", header) == {}
    assert "expired" in last_entry(api, "getProfilesUsingGET_1")["sso"][0]["problem"]
    now_s = api.control("GET", "clock")["now_ms"] / 1000
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1", now_s=now_s)})["Cablevision"]
    # iat up to 60 s ahead of the emulator's clock is accepted (clock skew), more is not
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1", now_s=now_s, iat_offset_s=50)})
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1", now_s=now_s, iat_offset_s=70)}) == {}


def test_an_invalid_token_on_sessions_create_makes_no_sso_profile(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1", aud="other")})
    assert api.control("GET", "state")["sso_profiles"] == 0
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1")}) == {}


def test_without_keys_no_token_can_be_verified(api: Api, idp: Issuer) -> None:
    assert api.control("GET", "config")["service_token_keys"] == {}
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1")})
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("viewer-1")}) == {}
    assert "no key is configured" in last_entry(api, "getProfilesUsingGET_1")["sso"][0]["problem"]


@pytest.mark.parametrize("operation", ["profiles", "profile", "sessions", "authorize", "preauthorize", "logout"])
def test_refuse_mode_answers_400(keyed: Api, idp: Issuer, fire: Issuer, operation: str) -> None:
    api = keyed
    api.control("POST", "config", {"sso_invalid_token": "refuse"})
    app = api.new_access_token()
    calls = {
        "profiles": lambda h: api.v2("GET", "/profiles", app, "tv-1", headers=h, invalid=True),
        "profile": lambda h: api.v2("GET", "/profiles/Cablevision", app, "tv-1", headers=h, invalid=True),
        "sessions": lambda h: api.v2("POST", "/sessions", app, "tv-1", headers=h, form=ALL_SESSION_PARAMS,
                                     invalid=True),
        "authorize": lambda h: api.v2("POST", "/decisions/authorize/Cablevision", app, "tv-1", headers=h,
                                      json_body=RESOURCE, invalid=True),
        "preauthorize": lambda h: api.v2("POST", "/decisions/preauthorize/Cablevision", app, "tv-1", headers=h,
                                         json_body=RESOURCE, invalid=True),
        "logout": lambda h: api.v2("GET", "/logout/Cablevision", app, "tv-1", headers=h, query=LOGOUT, invalid=True),
    }
    for header, code in ((SERVICE, "invalid_header_service_token"), (SUBJECT, "invalid_header_subject_token"),
                         (ROKU, "invalid_header_subject_token")):
        token = (idp.service_token(ttl_s=-1) if header == SERVICE else fire.platform_token(ttl_s=-1))
        reply = calls[operation]({header: token})
        assert (reply.status, reply.json["code"], reply.json["action"]) == (400, code, "none"), reply.json
        assert reply.json["details"].startswith(f"{header}: the token expired")
    good = {SERVICE: idp.service_token(), SUBJECT: fire.platform_token()}
    assert calls[operation](good).status == 200  # valid tokens pass


def test_refuse_mode_does_not_apply_where_the_header_is_not_read(keyed: Api, idp: Issuer) -> None:
    api = keyed
    api.control("POST", "config", {"sso_invalid_token": "refuse"})
    app = api.new_access_token()
    bad = {SERVICE: idp.service_token(ttl_s=-1)}
    assert api.v2("GET", "/configuration", app, "tv-1", headers=bad).status == 200
    code = api.create_session(app, **ALL_SESSION_PARAMS).json["code"]
    assert api.v2("GET", f"/profiles/code/{code}", app, None, headers=bad).status == 200
    assert last_entry(api, "getProfileForCodeUsingGET_1")["sso"][0]["valid"] is None


def test_refuse_next(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("viewer-1")})
    header = {SERVICE: idp.service_token("viewer-1")}
    assert api.control("GET", "sso/refuse-next") == {"header": None, "remaining": 0, "code": None, "details": None}
    assert api.control("POST", "sso/refuse-next", {"header": SERVICE, "count": 2}) == {
        "header": SERVICE, "remaining": 2, "code": None, "details": None}
    assert api.v2("GET", "/configuration", app, "tv-2", headers=header).status == 200  # does not read it: not counted
    assert profiles(api, app, "tv-2", {SUBJECT: "x.y.z"}) == {}  # another header: not counted
    assert profiles(api, app, "tv-2", header) == {}
    assert "refuse-next" in last_entry(api, "getProfilesUsingGET_1")["sso"][0]["problem"]
    assert api.control("GET", "sso/refuse-next")["remaining"] == 1
    assert profiles(api, app, "tv-2", header) == {}
    assert profiles(api, app, "tv-2", header)["Cablevision"]["type"] == "serviceTokenSSO"  # used up

    api.control("POST", "sso/refuse-next", {"header": SERVICE, "code": "invalid_header_service_token",
                                            "details": "the identity service revoked it"})
    refused = api.v2("GET", "/profiles", app, "tv-2", headers=header, invalid=True)
    assert (refused.status, refused.json["code"]) == (400, "invalid_header_service_token")
    assert refused.json["details"] == f"{SERVICE}: the identity service revoked it"
    entry = last_entry(api, "getProfilesUsingGET_1")["sso"][0]
    assert (entry["valid"], entry["code"]) == (False, "invalid_header_service_token")
    assert profiles(api, app, "tv-2", header)["Cablevision"]["type"] == "serviceTokenSSO"

    api.control("POST", "sso/refuse-next", {"header": SUBJECT, "count": 3})
    assert api.control("POST", "sso/refuse-next", {"header": None})["remaining"] == 0
    api.control("POST", "sso/refuse-next", {"header": SERVICE, "count": 5})
    api.control("POST", "reset")
    assert api.control("GET", "sso/refuse-next")["remaining"] == 0


@pytest.mark.parametrize("body", [
    {}, {"count": 1}, {"header": "Authorization"}, {"header": SERVICE, "count": -1},
    {"header": SERVICE, "count": True}, {"header": SERVICE, "code": "invalid_header_subject_token"},
    {"header": SUBJECT, "code": "invalid_request"}, {"header": None, "code": "invalid_header_service_token"},
    {"header": SERVICE, "details": 3}, {"header": SERVICE, "extra": 1},
])
def test_refuse_next_is_validated(api: Api, body: dict[str, Any]) -> None:
    reply = api.request("POST", "/_emulator/sso/refuse-next", json_body=body)
    assert reply.status == 400 and "header" in reply.json["error"]
    assert api.control("GET", "sso/refuse-next")["remaining"] == 0


# --- single logout ----------------------------------------------------------------------------------------

def test_single_logout_signs_out_every_device_of_the_subject(keyed: Api, fire: Issuer) -> None:
    api = keyed
    first_app, second_app = api.new_access_token(), api.new_access_token()
    sign_in(api, first_app, "tv-1", {SUBJECT: fire.platform_token("owner-1")})
    header = {SUBJECT: fire.platform_token("owner-1")}
    assert profiles(api, second_app, "tv-2", header)["Cablevision"]["type"] == "platformSSO"
    logout = api.v2("GET", "/logout/Cablevision", second_app, "tv-2", headers=header, query=LOGOUT).json
    action = logout["logouts"]["Cablevision"]
    assert (action["actionName"], action["actionType"]) == ("logout", "interactive")
    assert action["url"].startswith(f"{api.base_url}/adobe-services/logout?") and "mso_id=Cablevision" in action["url"]
    assert profiles(api, second_app, "tv-2", header) == {}
    assert profiles(api, first_app, "tv-1", header) == {}  # the login that made it is signed out too
    assert profiles(api, first_app, "tv-1") == {}
    assert api.control("GET", "sso/profiles") == {"profiles": []}
    again = api.v2("GET", "/logout/Cablevision", second_app, "tv-2", headers=header, query=LOGOUT).json
    assert again["logouts"]["Cablevision"]["actionName"] == "invalid"


def test_logout_without_the_token_keeps_the_sso_profile(keyed: Api, fire: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SUBJECT: fire.platform_token("owner-1")}, mvpd="Dish")
    out = api.v2("GET", "/logout/Dish", app, "tv-1", query=LOGOUT).json["logouts"]["Dish"]
    assert out["actionName"] == "complete"  # Dish has no MVPD logout endpoint
    assert profiles(api, app, "tv-1") == {}
    header = {SUBJECT: fire.platform_token("owner-1")}
    assert profiles(api, app, "tv-1", header)["Dish"]["type"] == "platformSSO"  # still signed in through SSO
    out = api.v2("GET", "/logout/Dish", app, "tv-2", headers=header, query=LOGOUT).json["logouts"]["Dish"]
    assert out == {"actionName": "complete", "actionType": "none", "mvpd": "Dish"}
    assert profiles(api, app, "tv-1", header) == {}


def test_single_logout_from_the_first_device(keyed: Api, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    header = {SERVICE: idp.service_token("account-1")}
    out = api.v2("GET", "/logout/Cablevision", app, "tv-1", headers=header, query=LOGOUT).json
    assert out["logouts"]["Cablevision"]["actionName"] == "logout"
    assert profiles(api, app, "tv-2", header) == {}


# --- REST API V1 -------------------------------------------------------------------------------------------

def v1_sign_in(api: Api, token: str, device: str, ast: str | None = None, headers: dict[str, str] | None = None,
               user: str = "alice") -> None:
    extra = {"ast": ast} if ast is not None else {}
    reply = v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode", token, form={"deviceId": device, "mvpd": "Cablevision",
                                                                            **extra}, headers=headers)
    assert reply.status == 201, reply.body
    api.login(reply.json["code"], userID=user)


def test_v1_platform_identity(keyed: Api, fire: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    v1_sign_in(api, app, "fire-1", ast=fire.platform_token("owner-1"))  # `ast` as a form parameter
    header = {SUBJECT: fire.platform_token("owner-1")}
    device = device_query("fire-2")
    resource = device_query("fire-2", resource="REF30")
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device).status == 403  # no token: no SSO
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device, headers=header).status == 200
    query_ast = {**device, "ast": fire.platform_token("owner-1")}
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=query_ast).status == 200  # `ast` in the query
    authn = v1(api, "GET", "/api/v1/tokens/authn", app, query=device, headers=header).json
    assert (authn["mvpd"], authn["userId"]) == ("Cablevision", "alice")
    assert v1(api, "GET", "/api/v1/authorize", app, query=resource, headers=header).json["mvpd"] == "Cablevision"
    assert v1(api, "GET", "/api/v1/tokens/authz", app, query=resource, headers=header).status == 200
    assert v1(api, "GET", "/api/v1/tokens/media", app, query=resource, headers=header).json["mvpdId"] == "Cablevision"
    assert v1(api, "GET", "/api/v1/preauthorize", app, query=resource, headers=header).json["resources"][0][
        "authorized"] is True
    metadata = v1(api, "GET", "/api/v1/tokens/usermetadata", app, query=device, headers=header).json["data"]
    assert (metadata["userID"], metadata["upstreamUserID"], metadata["mvpd"]) == ("alice", "alice", "Cablevision")
    invalid = {SUBJECT: fire.platform_token("owner-1", ttl_s=-1)}
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device, headers=invalid).status == 403
    crlf = {**device, "ast": sso_tokens.with_crlf(fire.platform_token("owner-1"))}
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=crlf).status == 403
    # V2 apps on the platform share it too (and V1 takes no AD-Service-Token).
    assert profiles(api, api.new_access_token(), "tv-9", header)["Cablevision"]["type"] == "platformSSO"

    # Single logout from the second device: the first device's token goes too.
    assert v1(api, "DELETE", "/api/v1/logout", app, query=device, headers=header, fmt=None).status == 204
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device, headers=header).status == 403
    assert v1(api, "GET", "/api/v1/tokens/authn", app, query=device_query("fire-1")).status == 404
    assert api.control("GET", "sso/profiles") == {"profiles": []}


def test_v1_invalid_refusal_is_a_legacy_400(keyed: Api, fire: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    api.control("POST", "config", {"sso_invalid_token": "refuse"})  # V2 only: V1 serves without SSO
    device = device_query("fire-2")
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device,
              headers={SUBJECT: fire.platform_token(ttl_s=-1)}).status == 403
    api.control("POST", "sso/refuse-next", {"header": SUBJECT, "code": "invalid_header_subject_token"})
    refused = v1(api, "GET", "/api/v1/checkauthn", app, query={**device, "ast": fire.platform_token()})
    assert refused.status == 400
    assert refused.json["details"].startswith("invalid_header_subject_token: Adobe-Subject-Token: refused")


def test_v2_login_serves_v1_devices(keyed: Api, fire: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SUBJECT: fire.platform_token("owner-1")})
    assert v1(api, "GET", "/api/v1/checkauthn", app, query=device_query("fire-2"),
              headers={SUBJECT: fire.platform_token("owner-1")}).status == 200


# --- the request log, DCR, configuration ---------------------------------------------------------------

def test_the_log_records_tokens_without_their_text(keyed: Api, fire: Issuer, idp: Issuer) -> None:
    api = keyed
    app = api.new_access_token()
    platform, service = fire.platform_token("owner-1"), idp.service_token("account-1")
    api.v2("GET", "/profiles", app, "tv-1", headers={SUBJECT: platform, SERVICE: service})
    api.v2("GET", "/configuration", app, "tv-1", headers={SUBJECT: platform})
    v1(api, "GET", "/api/v1/checkauthn", app, query={**device_query("fire-1"), "ast": platform})
    v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode", app, form={"deviceId": "fire-1", "ast": platform})
    entries = api.log()
    assert platform not in json.dumps(entries) and service not in json.dumps(entries)
    by_operation = {e["operation"]: e for e in entries}
    listed = by_operation["getProfilesUsingGET_1"]
    assert listed["sso"] == [
        {"header": SUBJECT, "in": "header", "sha256": sso_tokens.sha256_prefix(platform), "valid": True,
         "type": "platformSSO"},
        {"header": SERVICE, "in": "header", "sha256": sso_tokens.sha256_prefix(service), "valid": True,
         "type": "serviceTokenSSO"}]
    assert listed["headers"][SUBJECT] == f"redacted:sha256:{sso_tokens.sha256_prefix(platform)}"
    assert by_operation["handleRequestUsingGET"]["sso"] == [
        {"header": SUBJECT, "in": "header", "sha256": sso_tokens.sha256_prefix(platform), "valid": None}]
    checked = by_operation["v1CheckAuthenticationToken"]
    assert checked["sso"][0] == {"header": SUBJECT, "in": "query", "sha256": sso_tokens.sha256_prefix(platform),
                                 "valid": True, "type": "platformSSO"}
    assert f"ast=redacted:sha256:{sso_tokens.sha256_prefix(platform)}" in checked["query"]
    created = by_operation["v1RegistrationCodeRequest"]
    assert created["sso"][0]["in"] == "form" and "ast=redacted" in created["body"]
    assert "sso" not in by_operation["generateAccessTokenUsingPOST"]  # none carried: no field


def test_dcr_requests_with_sso_headers_are_flagged(api: Api, fire: Issuer) -> None:
    token = fire.platform_token()
    reply = api.register()  # without: not flagged
    assert reply.status == 201 and "unexpected_sso_header" not in api.log()[-1]
    flagged = api.request("POST", "/o/client/register", invalid=True, json_body={"software_statement": "a.b.c"},
                          headers={"X-Device-Info": device_info(), SUBJECT: token})
    assert flagged.status == 201  # served: Adobe documents no refusal
    entry = api.log()[-1]
    assert entry["unexpected_sso_header"] is True and entry["sso"][0]["valid"] is None
    assert entry["headers"][SUBJECT].startswith("redacted:sha256:")
    assert any("SSO header 'Adobe-Subject-Token' is sent to a DCR endpoint" in p for p in validate_entry(entry))
    client = flagged.json
    api.request("POST", "/o/client/token", invalid=True, headers={SERVICE: "x.y.z"}, form={
        "client_id": client["client_id"], "client_secret": client["client_secret"], "grant_type": "client_credentials"})
    assert api.log()[-1]["unexpected_sso_header"] is True


def test_key_configuration(api: Api, idp: Issuer, roku: Issuer, tmp_path: Path) -> None:
    path = idp.write_pem(tmp_path / "idp.pem")
    assert api.control("POST", "config", {"service_token_keys": {"idp.example": path}})["service_token_keys"] == {
        "idp.example": path}
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    assert profiles(api, app, "tv-2", {SERVICE: idp.service_token("account-1")})["Cablevision"]["type"] == \
        "serviceTokenSSO"
    verdict = api.control("POST", "sso/verify", {"header": SERVICE, "value": idp.service_token("account-1")})
    assert verdict == {"valid": True, "type": "serviceTokenSSO", "iss": "idp.example", "sub": "account-1",
                       "sha256": verdict["sha256"]}
    for body in ({"service_token_keys": roku.config()},  # ES256 is for platform tokens only
                 {"service_token_keys": {"x": "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n"}},
                 {"service_token_keys": {"x": str(tmp_path / "missing.pem")}},
                 {"service_token_keys": ["not", "a", "map"]},
                 {"platform_token_keys": {"": roku.public_pem}},
                 {"sso_invalid_token": "strict"}, {"platform_sso_disabled": "Cablevision"}):
        reply = api.request("POST", "/_emulator/config", json_body=body)
        assert reply.status == 400, (body, reply.json)
    assert api.control("POST", "config", {"platform_token_keys": roku.config()})["platform_token_keys"] == roku.config()


def test_key_flags(tmp_path: Path, idp: Issuer, roku: Issuer) -> None:
    service, platform = idp.write_pem(tmp_path / "idp.pem"), roku.write_pem(tmp_path / "roku.pem")
    process, base_url = start_emulator("--service-token-key", f"idp.example={service}",
                                       "--platform-token-key", f"roku.example={platform}", "--throttle", "off")
    try:
        api = Api(base_url)
        config = api.control("GET", "config")
        assert config["service_token_keys"] == {"idp.example": service}
        assert config["platform_token_keys"] == {"roku.example": platform}
        api.control("POST", "reset", {"config": True})  # the keys the process started with stay
        assert api.control("GET", "config")["service_token_keys"] == {"idp.example": service}
        assert api.control("POST", "sso/verify", {"header": ROKU, "value": roku.platform_token()})["valid"] is True
    finally:
        assert stop_emulator(process) == 0
    for flag in (["--service-token-key", "no-equals-sign"], ["--service-token-key", f"x={platform}"]):
        bad = subprocess.run([sys.executable, str(EMULATOR), "--port", "0", *flag], capture_output=True, text=True,
                             timeout=30)
        assert bad.returncode == 2 and "bad configuration" in bad.stderr, (flag, bad.stderr)


def test_sso_answers_match_the_documented_shapes(keyed: Api, idp: Issuer) -> None:
    """The serviceTokenSSO profile against Adobe's "Retrieve profiles" sample 2 (same fields and types)."""
    api = keyed
    app = api.new_access_token()
    sign_in(api, app, "tv-1", {SERVICE: idp.service_token("account-1")})
    profile = profiles(api, app, "tv-2", {SERVICE: idp.service_token("account-1")})["Cablevision"]
    assert set(profile) == {"notBefore", "notAfter", "issuer", "type", "attributes"}
    assert {"upstreamUserID", "userID", "mvpd"} <= set(profile["attributes"])
    assert all(set(a) == {"value", "state"} for a in profile["attributes"].values())
    assert isinstance(profile["notBefore"], int) and isinstance(profile["notAfter"], int)
    query = urlencode(LOGOUT)
    assert api.v2("GET", f"/logout/Cablevision?{query}", app, "tv-2",
                  headers={SERVICE: idp.service_token("account-1")}).json["logouts"]["Cablevision"]["mvpd"] == "Cablevision"
