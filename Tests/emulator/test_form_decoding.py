"""Form bodies and query strings are decoded as a form decoder does: exactly as
`urllib.parse.parse_qsl(text, keep_blank_values=True)` — '+' is a space, '%2B' a plus.

Every parser of the emulator goes through `aepass.web.form_fields`; these tests send raw bodies to
each endpoint family that takes a form (V2 sessions, sessions/{code}, sessions/sso, profiles/sso,
DCR token, V1 forms) and check what the emulator understood. A SAMLResponse whose Base64 '+' was
sent unencoded must then fail as on Adobe's side (`invalid_parameter_saml_response`).
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest

from aepass.simulated import simulated_saml as saml
from aepass.web import form_fields
from emulator_testkit import Api
from test_partner_sso import PFS, assert_documented_refusal, pfs, platform_saml, sso_profile, sso_session
from test_v1 import REQUESTOR, exchange, platform_answer, profile_request, v1

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
# '+' is a space, '%2B' a plus, '%20' a space, '/' and '=' may come unencoded.
RAW_REDIRECT = "https%3A%2F%2Fadobe.com%2Fa+b%2Bc%20d/e=f"
DECODED_REDIRECT = "https://adobe.com/a b+c d/e=f"


@pytest.mark.parametrize("text", [
    "a=1+2&b=%2B&c=&d", "SAMLResponse=ab+cd%2Bef%3D%3D", "x=%E2%82%AC+%ZZ&x=2", "=v&k=", "a=%C3", "",
    "redirectUrl=https%3A%2F%2Fadobe.com%2Fa+b%2Bc",
])
def test_form_fields_is_parse_qsl(text: str) -> None:
    expected: dict[str, list[str]] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        expected.setdefault(name, []).append(value)
    assert form_fields(text) == expected


def session_parameters(api: Api, token: str, code: str) -> dict[str, Any]:
    return api.v2("GET", f"/sessions/{code}", token, device=None).json["existingParameters"]


def test_v2_sessions_decode_plus_as_space(api: Api) -> None:
    token = api.new_access_token()
    created = api.v2("POST", "/sessions", token, headers=FORM,
                     body=f"mvpd=Cablevision&domainName=adobe.com&redirectUrl={RAW_REDIRECT}").json
    assert session_parameters(api, token, created["code"])["redirectUrl"] == DECODED_REDIRECT

    code = api.v2("POST", "/sessions", token, headers=FORM, body="domainName=adobe.com").json["code"]
    api.v2("POST", f"/sessions/{code}", token, device=None, headers=FORM,
           body=f"mvpd=Cablevision&redirectUrl={RAW_REDIRECT}")
    assert session_parameters(api, token, code)["redirectUrl"] == DECODED_REDIRECT

    # A '+' in the MVPD id becomes a space: no such MVPD (as a form decoder reads it).
    unknown = api.v2("POST", "/sessions", token, headers=FORM, body="mvpd=Cable+vision")
    assert (unknown.status, unknown.json["code"]) == (400, "invalid_parameter_mvpd")
    assert "'Cable vision'" in unknown.json["details"]


def test_v2_partner_session_decodes_plus_as_space(api: Api) -> None:
    token = api.new_access_token()
    answer = api.v2("POST", "/sessions/sso/Apple", token, headers={**FORM, PFS: pfs(access="denied")},
                    body=f"domainName=adobe.com&redirectUrl={RAW_REDIRECT}").json
    assert answer["reasonType"] == "pfs_fallback"
    assert session_parameters(api, token, answer["code"])["redirectUrl"] == DECODED_REDIRECT


def test_v2_saml_response_plus_must_be_percent_encoded(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    cleaned = saml.clean_saml_response(platform_saml(answer, "Cablevision"))
    plain = base64.b64encode(cleaned.encode()).decode()
    assert "+" in plain
    wrong = sso_profile(api, token, plain, header)  # '+' sent raw: the server reads spaces
    assert_documented_refusal(wrong, "invalid_parameter_saml_response")
    assert "%2B" in wrong.json["details"]
    right = sso_profile(api, token, plain.replace("+", "%2B"), header)
    assert right.status == 201
    assert list(right.json["profiles"]) == ["Cablevision"]


def test_dcr_token_form_decodes_plus_as_space(api: Api) -> None:
    client = api.register().json
    fields = urlencode({"client_id": client["client_id"], "client_secret": client["client_secret"]})
    spaced = api.request("POST", "/o/client/token", headers=FORM, body=f"{fields}&grant_type=client+credentials")
    assert (spaced.status, spaced.json) == (400, {"error": "unsupported_grant_type"})
    encoded = api.request("POST", "/o/client/token", headers=FORM, body=f"{fields}&grant_type=client%5Fcredentials")
    assert encoded.status == 201


def test_v1_forms_decode_plus_as_space(api: Api) -> None:
    token = api.new_access_token()
    record = v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode", token, body="deviceId=box+1%2B2").json
    assert base64.b64decode(record["info"]["deviceId"]).decode() == "box 1+2"

    requested = profile_request(api, token)
    plain = base64.b64encode(saml.clean_saml_response(platform_answer(requested.body)).encode()).decode()
    assert "+" in plain
    wrong = exchange(api, token, plain)
    assert wrong.status == 400 and "%2B" in wrong.json["details"]
    assert exchange(api, token, plain.replace("+", "%2B")).status == 204
