"""Partner single sign-on (Apple) on the emulator, over plain HTTP: /sessions/sso/Apple,
/profiles/sso/Apple, and what an appleSSO profile changes in profiles, decisions and logout.

PFS headers are built by hand; SAMLResponse values come from the shared simulated platform
(`simulated_saml.encode_saml_response`). As everywhere (conftest.py), every answer is checked
against the OpenAPI response schemas, and every request not marked `invalid=True` must pass
the request validator.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import quote

import pytest

from aepass.partner import form_value
from aepass.simulated import simulated_saml as saml
from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api, Reply, b64
from test_doc_examples import EXAMPLES, assert_shape

PFS = "AP-Partner-Framework-Status"
FORM = {"domainName": "adobe.com", "redirectUrl": REDIRECT_URL}
DAY_MS = 86400 * 1000
# Adobe's documented sample header (pretty-printed JSON; Cablevision, expirationDate in 2034).
DOC_SAMPLE_PFS = (
    "ewogICAgImZyYW1ld29ya1Blcm1pc3Npb25JbmZvIjogewogICAgICAiYWNjZXNzU3RhdHVzIjogImdyYW50ZWQiCiAgICB9LAog"
    "ICAgImZyYW1ld29ya1Byb3ZpZGVySW5mbyIgOiB7CiAgICAgICJpZCIgOiAiQ2FibGV2aXNpb24iLAogICAgICAiZXhwaXJhdGlv"
    "bkRhdGUiIDogIjIwMjU0MzA2MzYwMDAiCiAgICB9Cn0="
)
DOC_SAMPLE_DENIED_PFS = (
    "ewogICAgImZyYW1ld29ya1Blcm1pc3Npb25JbmZvIjogewogICAgICAiYWNjZXNzU3RhdHVzIjogImRlbmllZCIKICAgIH0sCiAg"
    "ICAiZnJhbWV3b3JrUHJvdmlkZXJJbmZvIiA6IHt9Cn0="
)
_DEFAULT = object()


def now_ms() -> int:
    return int(time.time() * 1000)


def pfs(access: str | None = "granted", provider: str | None = "Cablevision", expiration: Any = _DEFAULT,
        error: bool = False) -> str:
    """An AP-Partner-Framework-Status value: Base64 of pretty-printed JSON, as the docs' samples."""
    permission: dict[str, Any] = {} if access is None else {"accessStatus": access}
    provider_info: dict[str, Any] = {} if provider is None else {"id": provider}
    if provider is not None and expiration is not None:
        provider_info["expirationDate"] = str(now_ms() + DAY_MS) if expiration is _DEFAULT else expiration
    if error:
        permission["error"] = {"code": "1", "message": "simulated"}
    payload = {"frameworkPermissionInfo": permission, "frameworkProviderInfo": provider_info}
    return b64(json.dumps(payload, indent=4))


def sso_session(api: Api, token: str, header: str | None = None, form: dict[str, str] | None = None,
                device: str = "tv-1", partner: str = "Apple", invalid: bool = False) -> Reply:
    headers = {} if header is None else {PFS: header}
    return api.v2("POST", f"/sessions/sso/{partner}", token, device, headers=headers,
                  form=FORM if form is None else form, invalid=invalid)


def sso_profile(api: Api, token: str, value: str | None, header: str | None = None, device: str = "tv-1",
                partner: str = "Apple", invalid: bool = False) -> Reply:
    """POST /profiles/sso with the SAMLResponse value sent verbatim (it is already encoded)."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if header is not None:
        headers[PFS] = header
    body = "" if value is None else f"SAMLResponse={value}"
    return api.v2("POST", f"/profiles/sso/{partner}", token, device, headers=headers, body=body, invalid=invalid)


def platform_saml(answer: dict[str, Any], provider: str) -> str:
    """What the simulated platform answers to the session's authentication request (messy)."""
    request = answer["authenticationRequest"]
    request_id = saml.request_id_of(request["request"])
    assert request_id
    return saml.saml_response(request_id, provider, request["attributesNames"])


def sign_in_with_partner(api: Api, token: str, provider: str = "Cablevision", device: str = "tv-1") -> dict[str, Any]:
    header = pfs(provider=provider)
    answer = sso_session(api, token, header, device=device).json
    assert answer["actionName"] == "partner_profile", answer
    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, provider)), header, device)
    assert created.status == 201, created.json
    return created.json["profiles"]


def error_code(reply: Reply) -> tuple[int, str]:
    return reply.status, reply.json["code"]


def assert_documented_refusal(reply: Reply, code: str) -> None:
    """A top-level Enhanced Error Code as Adobe lists it for partner SSO: 400, action none."""
    assert error_code(reply) == (400, code), reply.json
    body = reply.json
    assert (body["status"], body["action"]) == (400, "none") and body["message"] and body["helpUrl"], body
    assert set(body) <= {"action", "status", "code", "message", "details", "helpUrl", "trace"}, body


# --- configuration --------------------------------------------------------------------------------

def test_configuration_carries_the_platform_fields(api: Api) -> None:
    token = api.new_access_token()
    mvpds = {m["id"]: m for m in api.v2("GET", "/configuration", token).json["requestor"]["mvpds"]}
    fields = ("platformMappingId", "enablePlatformServices", "boardingStatus", "displayInPlatformPicker")
    assert {k: tuple(m.get(f) for f in fields) for k, m in mvpds.items()} == {
        "Cablevision": ("Cablevision", True, "SUPPORTED", True),
        "Comcast_SSO": ("Comcast", True, "SUPPORTED", True),
        "Spectrum": ("Spectrum", True, "PICKER", True),
        "Dish": ("DishNetwork", True, "SUPPORTED", False),
        "DTV": (None, None, None, None),
        "TempPass_TEST40": (None, None, None, None),
        "flexibleTempPass": (None, None, None, None),
    }
    assert mvpds["Cablevision"]["requiredMetadataFields"] == ["uid", "NameID", "uniqueId"]
    assert mvpds["Comcast_SSO"]["requiredMetadataFields"] == ["uid", "NameID", "uniqueId", "zip"]
    assert "requiredMetadataFields" not in mvpds["DTV"]
    assert api.control("GET", "config")["partner_sso_disabled"] == ["Dish"]


# --- the partner flow -------------------------------------------------------------------------------

def test_partner_flow_creates_an_apple_sso_profile(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    assert {k: answer[k] for k in ("actionName", "actionType", "reasonType", "url", "mvpd", "serviceProvider")} == {
        "actionName": "partner_profile", "actionType": "direct", "reasonType": "none",
        "url": "/api/v2/REF30/profiles/sso/Apple", "mvpd": "Cablevision", "serviceProvider": "REF30"}
    assert "code" not in answer and "notBefore" not in answer and answer["sessionId"]
    request = answer["authenticationRequest"]
    assert request["type"] == "saml" and request["attributesNames"] == ["uid", "NameID", "uniqueId"]
    xml = base64.b64decode(request["request"]).decode()
    request_id = saml.request_id_of(request["request"])
    assert xml == saml.saml_request(request_id, "REF30", "Cablevision", "https://saml.sp.auth.adobe.com")
    assert api.control("GET", "state")["partner_requests"] == 1

    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, "Cablevision")), header)
    assert created.status == 201
    profile = created.json["profiles"]["Cablevision"]
    assert (profile["issuer"], profile["type"]) == ("Apple", "appleSSO")
    assert profile["attributes"]["userID"] == {"value": "sim-cablevision", "state": "plain"}
    assert profile["attributes"]["zip"]["value"] == ["10001", "10002"]
    assert profile["notAfter"] - profile["notBefore"] == DAY_MS
    assert api.control("GET", "state")["partner_requests"] == 0  # consumed

    again = sso_session(api, token, header).json
    assert (again["actionName"], again["actionType"], again["reasonType"]) == (
        "authorize", "direct", "authenticatedSSO")
    assert again["url"] == "/api/v2/REF30/decisions/authorize/Cablevision" and "code" not in again
    created_session = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert (created_session["actionName"], created_session["reasonType"]) == ("authorize", "authenticatedSSO")


def test_provider_ids_map_through_platform_mapping_id(api: Api) -> None:
    token = api.new_access_token()
    header = pfs(provider="Comcast")
    answer = sso_session(api, token, header).json
    assert answer["mvpd"] == "Comcast_SSO"
    assert answer["authenticationRequest"]["attributesNames"] == ["uid", "NameID", "uniqueId", "zip"]
    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, "Comcast")), header)
    assert created.json["profiles"]["Comcast_SSO"]["attributes"]["userID"]["value"] == "sim-comcast"
    with_dish_enabled = api.control("POST", "config", {"partner_sso_disabled": []})
    assert with_dish_enabled["partner_sso_disabled"] == []
    assert sso_session(api, token, pfs(provider="DishNetwork")).json["mvpd"] == "Dish"


def test_docs_sample_header_is_read_leniently(api: Api) -> None:
    token = api.new_access_token()
    answer = sso_session(api, token, DOC_SAMPLE_PFS).json
    assert (answer["actionName"], answer["mvpd"]) == ("partner_profile", "Cablevision")
    unpadded = sso_session(api, token, pfs().rstrip("=") + "  ").json
    assert unpadded["actionName"] == "partner_profile"
    numeric = b64(json.dumps({"frameworkPermissionInfo": {"accessStatus": "granted"},
                              "frameworkProviderInfo": {"id": "Cablevision", "expirationDate": now_ms() + DAY_MS}}))
    assert sso_session(api, token, numeric).json["actionName"] == "partner_profile"
    with_errors = sso_session(api, token, pfs(error=True)).json
    assert with_errors["actionName"] == "partner_profile"


def pfs_payload(permission: dict[str, Any], provider: dict[str, Any]) -> str:
    return b64(json.dumps({"frameworkPermissionInfo": permission, "frameworkProviderInfo": provider}))


def test_pfs_error_objects_are_read_and_do_not_change_the_verdict(api: Api) -> None:
    """The optional `error` objects (`{"code","message"}`, the PFS header page): with accessStatus
    granted the provider checks decide as usual; a refusal's details quote the errors."""
    token = api.new_access_token()
    expires = str(now_ms() + DAY_MS)
    error = {"code": "3", "message": "providerRejected"}
    granted_with_errors = pfs_payload({"accessStatus": "granted", "error": error},
                                      {"id": "Cablevision", "expirationDate": expires, "error": error})
    answer = sso_session(api, token, granted_with_errors).json
    assert (answer["actionName"], answer["mvpd"]) == ("partner_profile", "Cablevision")
    odd_errors = pfs_payload({"accessStatus": "granted", "error": "x"},
                             {"id": "Cablevision", "expirationDate": int(expires), "error": [1, 2]})
    assert sso_session(api, token, odd_errors).json["actionName"] == "partner_profile"
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    provider_error_only = pfs_payload({"accessStatus": "granted"}, {"error": error})
    reply = sso_profile(api, token, value, provider_error_only)
    assert_documented_refusal(reply, "invalid_header_pfs_provider_id_not_determined")
    assert "frameworkProviderInfo.error" in reply.json["details"] and "providerRejected" in reply.json["details"]
    past_expiry_with_error = pfs_payload({"accessStatus": "granted"},
                                         {"id": "Cablevision", "expirationDate": "1000", "error": error})
    assert_documented_refusal(sso_profile(api, token, value, past_expiry_with_error),
                              "invalid_header_pfs_provider_info_expired")
    denied_with_error = pfs_payload({"accessStatus": "denied", "error": error}, {})
    assert_documented_refusal(sso_profile(api, token, value, denied_with_error),
                              "invalid_header_pfs_permission_access_not_granted")
    assert sso_profile(api, token, value, granted_with_errors).status == 201


def test_regular_profile_answers_authenticated(api: Api) -> None:
    token = api.new_access_token()
    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])
    answer = sso_session(api, token, pfs()).json
    assert (answer["actionName"], answer["reasonType"], answer["mvpd"]) == ("authorize", "authenticated", "Cablevision")


# --- fallbacks ----------------------------------------------------------------------------------------

def assert_fallback(answer: dict[str, Any], action: str, reason: str, mvpd: str | None,
                    missing: list[str] | None = None) -> str:
    assert (answer["actionName"], answer["reasonType"]) == (action, reason), answer
    code = answer["code"]
    if action == "authenticate":
        assert answer["actionType"] == "interactive" and answer["url"] == f"/api/v2/authenticate/REF30/{code}"
        assert "missingParameters" not in answer
    else:
        assert answer["actionType"] == "direct" and answer["url"] == f"/api/v2/REF30/sessions/{code}"
        assert answer["missingParameters"] == missing
    assert answer.get("mvpd") == mvpd and "authenticationRequest" not in answer
    assert int(answer["notAfter"]) - int(answer["notBefore"]) == 1800 * 1000
    assert isinstance(answer["notBefore"], str) and answer["serviceProvider"] == "REF30"
    return code


def test_missing_parameters_fallback(api: Api) -> None:
    token = api.new_access_token()
    answer = sso_session(api, token, pfs(), form={"domainName": "adobe.com"}, invalid=True).json
    code = assert_fallback(answer, "resume", "missing_parameters_fallback", "Cablevision", ["redirectUrl"])
    resumed = api.v2("POST", f"/sessions/{code}", token, device=None, form={"redirectUrl": REDIRECT_URL}).json
    assert (resumed["actionName"], resumed["code"], resumed["mvpd"]) == ("authenticate", code, "Cablevision")
    api.login(code)
    profiles = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
    assert profiles["Cablevision"]["type"] == "regular"

    nothing = sso_session(api, token, None, form={}, invalid=True).json
    assert_fallback(nothing, "resume", "missing_parameters_fallback", None, ["mvpd", "domainName", "redirectUrl"])
    # missing parameters win over an invalid PFS
    denied = sso_session(api, token, pfs(access="denied"), form={"redirectUrl": REDIRECT_URL}, invalid=True).json
    assert_fallback(denied, "resume", "missing_parameters_fallback", "Cablevision", ["domainName"])


@pytest.mark.parametrize("header, mvpd", [
    (None, None),
    ("%%% not base64", None),
    (b64("not json"), None),
    (b64("[1, 2]"), None),
    (pfs(access=None), "Cablevision"),
    (pfs(access="denied"), "Cablevision"),
    (pfs(access="restricted"), "Cablevision"),
    (pfs(access="notDetermined"), "Cablevision"),
    (DOC_SAMPLE_DENIED_PFS, None),
    (pfs(provider=None), None),
    (pfs(provider="NoSuchProvider"), None),
    (pfs(provider="Comcast_SSO"), None),  # the MVPD id is not its platformMappingId
    (pfs(expiration="1000"), "Cablevision"),
    (pfs(expiration="soon"), "Cablevision"),
], ids=["missing", "not-base64", "not-json", "not-an-object", "no-access-status", "denied", "restricted",
        "not-determined", "adobe-sample-denied", "no-provider", "unknown-provider", "mvpd-id-not-mapping-id",
        "expired", "expiry-not-a-number"])  # fixed ids: the headers hold times, and pytest-xdist's workers must agree
def test_pfs_fallback(api: Api, header: str | None, mvpd: str | None) -> None:
    token = api.new_access_token()
    answer = sso_session(api, token, header).json
    if mvpd:
        code = assert_fallback(answer, "authenticate", "pfs_fallback", mvpd)
    else:
        code = assert_fallback(answer, "resume", "pfs_fallback", None, ["mvpd"])
    api.login(code, mvpd="Spectrum")  # the fallback session is a normal one
    assert api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]["Spectrum"]["type"] == "regular"
    assert api.control("GET", "state")["partner_requests"] == 0


def test_expired_pfs_falls_back_even_with_a_profile(api: Api) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    answer = sso_session(api, token, pfs(expiration=str(now_ms() - 1))).json
    assert_fallback(answer, "authenticate", "pfs_fallback", "Cablevision")


@pytest.mark.parametrize("provider, mvpd, config", [
    ("Spectrum", "Spectrum", None),  # boardingStatus PICKER: in the platform's picker, not onboarded
    ("DishNetwork", "Dish", None),  # partner SSO disabled on the Adobe side (the default)
    ("Cablevision", "Cablevision", {"partner_sso_disabled": ["Cablevision"]}),
])
def test_configuration_fallback(api: Api, provider: str, mvpd: str, config: dict[str, Any] | None) -> None:
    token = api.new_access_token()
    if config:
        api.control("POST", "config", config)
    answer = sso_session(api, token, pfs(provider=provider)).json
    code = assert_fallback(answer, "authenticate", "configuration_fallback", mvpd)
    api.login(code)
    assert list(api.v2("GET", "/profiles", token).json["profiles"]) == [mvpd]


def test_fallback_codes_work_with_the_simulated_viewer(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"auto_login_ms": 0})
    code = sso_session(api, token, pfs(access="denied")).json["code"]
    profiles = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
    assert profiles["Cablevision"]["type"] == "regular"


# --- profiles/sso errors ---------------------------------------------------------------------------

def test_profiles_sso_pfs_errors(api: Api) -> None:
    token = api.new_access_token()
    answer = sso_session(api, token, pfs()).json
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    cases = [
        (None, "invalid_header_pfs_permission_access_not_present", True),  # erratum E9: required
        (b64("garbage"), "invalid_header_pfs_permission_access_not_present", False),
        (pfs(access=None), "invalid_header_pfs_permission_access_not_present", False),
        (pfs(access="notDetermined"), "invalid_header_pfs_permission_access_not_determined", False),
        (pfs(access="denied"), "invalid_header_pfs_permission_access_not_granted", False),
        (pfs(access="restricted"), "invalid_header_pfs_permission_access_not_granted", False),
        (pfs(provider=None), "invalid_header_pfs_provider_id_not_determined", False),
        (pfs(provider="Unknown"), "invalid_header_pfs_provider_id_not_determined", False),
        (pfs(expiration=str(now_ms() - 1000)), "invalid_header_pfs_provider_info_expired", False),
        (pfs(expiration="soon"), "invalid_header_pfs_provider_info_expired", False),
        (pfs(provider="Comcast"), "invalid_header_pfs_provider_id_mismatch", False),
    ]
    for header, code, invalid in cases:
        reply = sso_profile(api, token, value, header, invalid=invalid)
        assert_documented_refusal(reply, code)
    assert sso_profile(api, token, value, pfs()).status == 201  # the request was still pending


def test_profiles_sso_saml_errors(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    messy = platform_saml(answer, "Cablevision")
    cleaned = saml.clean_saml_response(messy)
    plain = base64.b64encode(cleaned.encode()).decode()
    assert "+" in plain  # so that the '+' cases below mean something

    def refused(value: str | None, details: str = "", invalid: bool = False) -> None:
        reply = sso_profile(api, token, value, header, invalid=invalid)
        assert error_code(reply) == (400, "invalid_parameter_saml_response"), reply.json
        assert details in reply.json.get("details", ""), reply.json

    refused(None, "missing", invalid=True)
    refused("", "missing", invalid=True)
    refused("not*base64", "not standard Base64")
    refused(quote(saml.encode_saml_response(messy), safe=""), "encoded twice")  # double-encoded
    refused(plain.replace("+", "%20"), "send it as %2B")  # '+' turned into a space
    refused(plain, "send it as %2B")  # '+' sent unencoded: a form decoder makes it a space
    refused(saml.percent_encode(base64.b64encode(messy.encode()).decode()), "not cleaned up")
    wrong_order = " ".join(messy.replace("\r", "").replace("\n", "").split()).strip()
    refused(saml.percent_encode(base64.b64encode(wrong_order.encode()).decode()), "first difference")
    hard_coded = saml.saml_response(saml.request_id_of(answer["authenticationRequest"]["request"]),
                                    "Cablevision", ["uid"])
    refused(saml.encode_saml_response(hard_coded), "first difference")
    unknown = saml.saml_response("_unknown", "Cablevision", ["uid", "NameID", "uniqueId"])
    refused(saml.encode_saml_response(unknown), "no pending authentication request")
    refused(saml.encode_saml_response("<samlp:Response/>"), "no pending authentication request")
    assert api.control("GET", "state")["partner_requests"] == 1

    # '+' as %2B; '/' and '=' may come unencoded (a form decoder keeps them).
    assert sso_profile(api, token, plain.replace("+", "%2B"), header).status == 201
    refused(saml.encode_saml_response(messy), "no pending authentication request")  # consumed


def test_profiles_sso_belongs_to_the_requesting_client_and_device(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    other_device = sso_profile(api, token, value, header, device="tv-2")
    assert error_code(other_device) == (400, "invalid_parameter_saml_response")
    other_client = sso_profile(api, api.new_access_token(), value, header)
    assert error_code(other_client) == (400, "invalid_parameter_saml_response")
    assert sso_profile(api, token, value, header).status == 201
    assert api.v2("GET", "/profiles", token, device="tv-2", headers={PFS: header}).json == {"profiles": {}}


def test_profiles_sso_after_the_request_expired(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"code_ttl_s": 0.2})
    header = pfs()
    answer = sso_session(api, token, header).json
    time.sleep(0.25)
    reply = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, "Cablevision")), header)
    assert error_code(reply) == (400, "invalid_parameter_saml_response") and "expired" in reply.json["details"]


def test_partner_and_request_errors(api: Api) -> None:
    token = api.new_access_token()
    for reply in (sso_session(api, token, pfs(), partner="Google"),
                  sso_profile(api, token, "x", pfs(), partner="Google")):
        assert error_code(reply) == (400, "invalid_parameter_partner")
    assert api.request("GET", "/api/v2/REF30/sessions/sso/Apple", invalid=True).status == 405
    assert api.request("GET", "/api/v2/REF30/profiles/sso/Apple", invalid=True).status == 405
    no_bearer = api.request("POST", "/api/v2/REF30/sessions/sso/Apple", form=FORM, invalid=True)
    assert error_code(no_bearer) == (401, "invalid_access_token_client_application")
    no_device = api.v2("POST", "/sessions/sso/Apple", token, device=None, form=FORM, invalid=True)
    assert error_code(no_device) == (400, "invalid_header_device_identifier")
    as_json = api.v2("POST", "/sessions/sso/Apple", token, json_body=FORM, headers={PFS: pfs()}, invalid=True)
    assert as_json.status == 400 and "code" not in as_json.json  # Adobe names no code for it
    repeated = api.v2("POST", "/profiles/sso/Apple", token, headers={
        PFS: pfs(), "Content-Type": "application/x-www-form-urlencoded"}, body="SAMLResponse=a&SAMLResponse=b",
        invalid=True)
    assert repeated.status == 400 and "code" not in repeated.json
    unknown_sp = api.request("POST", "/api/v2/NOPE/sessions/sso/Apple", form=FORM,
                             headers={"Authorization": f"Bearer {token}"}, invalid=True)
    assert error_code(unknown_sp) == (400, "invalid_parameter_service_provider")


# --- the appleSSO profile elsewhere ------------------------------------------------------------------

def test_apple_sso_profiles_are_shown_only_with_a_valid_pfs(api: Api) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    api.login(api.create_session(token, **{**ALL_SESSION_PARAMS, "mvpd": "DTV"}).json["code"])
    assert list(api.v2("GET", "/profiles", token).json["profiles"]) == ["DTV"]
    shown = api.v2("GET", "/profiles", token, headers={PFS: pfs()}).json["profiles"]
    assert sorted(shown) == ["Cablevision", "DTV"] and shown["Cablevision"]["type"] == "appleSSO"
    for header in (pfs(access="denied"), pfs(provider="Comcast"), pfs(expiration="1"), "???"):
        assert list(api.v2("GET", "/profiles", token, headers={PFS: header}).json["profiles"]) == ["DTV"]
    assert api.v2("GET", "/profiles/Cablevision", token).json == {"profiles": {}}
    one = api.v2("GET", "/profiles/Cablevision", token, headers={PFS: DOC_SAMPLE_PFS}).json["profiles"]
    assert one["Cablevision"]["issuer"] == "Apple"


@pytest.mark.parametrize("path", ["/decisions/authorize/Cablevision", "/decisions/preauthorize/Cablevision"])
def test_decisions_on_an_apple_sso_profile_need_the_pfs(api: Api, path: str) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    body = {"resources": ["REF30"]}
    permitted = api.v2("POST", path, token, json_body=body, headers={PFS: pfs()}).json["decisions"][0]
    assert permitted["authorized"] is True and permitted["mvpd"] == "Cablevision"
    assert ("token" in permitted) == path.startswith("/decisions/authorize")
    cases = [
        (None, "invalid_header_pfs_permission_access_not_present"),
        (pfs(access="notDetermined"), "invalid_header_pfs_permission_access_not_determined"),
        ("not base64 at all", "invalid_header_pfs_permission_access_not_present"),
        (pfs(access="denied"), "invalid_header_pfs_permission_access_not_granted"),
        (pfs(access="restricted"), "invalid_header_pfs_permission_access_not_granted"),
        (DOC_SAMPLE_DENIED_PFS, "invalid_header_pfs_permission_access_not_granted"),
        (pfs(provider=None), "invalid_header_pfs_provider_id_not_determined"),
        (pfs(provider="Unknown"), "invalid_header_pfs_provider_id_not_determined"),
        (pfs(expiration=str(now_ms() - 1)), "invalid_header_pfs_provider_info_expired"),
        (pfs(provider="Comcast"), "invalid_header_pfs_provider_id_mismatch"),
    ]
    for header, code in cases:
        reply = api.v2("POST", path, token, json_body=body, headers={} if header is None else {PFS: header})
        assert_documented_refusal(reply, code)
    api.control("POST", "expire-profiles")
    expired = api.v2("POST", path, token, json_body=body).json["decisions"][0]
    assert expired["error"]["code"] == "authenticated_profile_expired"


def test_regular_profile_decisions_ignore_the_pfs(api: Api) -> None:
    token = api.new_access_token()
    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])
    for headers in ({}, {PFS: pfs(access="denied")}):
        decision = api.v2("POST", "/decisions/authorize/Cablevision", token, headers=headers,
                          json_body={"resources": ["REF30"]}).json["decisions"][0]
        assert decision["authorized"] is True


def test_logout_of_an_apple_sso_profile_is_a_partner_logout(api: Api) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    logout = api.v2("GET", "/logout/Cablevision", token, query={"redirectUrl": REDIRECT_URL}).json
    assert logout == {"logouts": {"Cablevision": {
        "actionName": "partner_logout", "actionType": "partner_interactive", "mvpd": "Cablevision"}}}
    assert api.v2("GET", "/profiles", token, headers={PFS: pfs()}).json == {"profiles": {}}
    assert sso_session(api, token, pfs()).json["actionName"] == "partner_profile"


def test_expire_profiles_expires_apple_sso_ones(api: Api) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    api.login(api.create_session(token, **{**ALL_SESSION_PARAMS, "mvpd": "DTV"}).json["code"])
    assert api.control("POST", "expire-profiles", {"type": "appleSSO"}) == {"expired": 1}
    assert list(api.v2("GET", "/profiles", token, headers={PFS: pfs()}).json["profiles"]) == ["DTV"]
    assert sso_session(api, token, pfs()).json["actionName"] == "partner_profile"
    sign_in_with_partner(api, token)
    assert api.control("POST", "expire-profiles") == {"expired": 2}
    assert api.v2("GET", "/profiles", token, headers={PFS: pfs()}).json == {"profiles": {}}
    assert api.request("POST", "/_emulator/expire-profiles", json_body={"type": 1}).status == 400


def test_apple_sso_profile_is_not_the_profile_of_an_earlier_code(api: Api) -> None:
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    api.login(code)
    api.control("POST", "expire-profiles")
    sign_in_with_partner(api, token)  # replaces the expired regular profile of the same MVPD
    assert api.v2("GET", f"/profiles/code/{code}", token, device=None).json == {"profiles": {}}


def test_partner_sso_config_is_validated(api: Api) -> None:
    for bad in ({"partner_sso_disabled": "Dish"}, {"partner_sso_disabled": [1]}):
        assert api.request("POST", "/_emulator/config", json_body=bad).status == 400


# --- the form parser ------------------------------------------------------------------------------------

def test_form_value_decodes_as_a_form_decoder() -> None:
    assert form_value("SAMLResponse=a+b%2Bc%2F%3D", "SAMLResponse") == "a b+c/="
    assert form_value("x=1&SAMLResponse=%252B", "SAMLResponse") == "%2B"
    assert form_value("SAMLResponse", "SAMLResponse") == ""
    assert form_value("x=1", "SAMLResponse") is None


# --- documented shapes ------------------------------------------------------------------------------------

@pytest.mark.skipif(not EXAMPLES.exists(), reason=f"{EXAMPLES} not found")
def test_answers_have_the_documented_shapes(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    assert_shape(answer, "partner_sso.authentication_request:1")
    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, "Cablevision")), header)
    assert_shape(created.json, "partner_sso.profile:1")
    assert_shape(sso_session(api, token, header).json, "partner_sso.authentication_request:2")
    assert_shape(sso_session(api, token, pfs(access="denied"), device="tv-2").json,
                 "partner_sso.authentication_request:3")
    assert_shape(sso_session(api, token, pfs(provider="Spectrum"), device="tv-2").json,
                 "partner_sso.authentication_request:4")
    missing = sso_session(api, token, header, form={"domainName": "adobe.com"}, device="tv-2", invalid=True).json
    assert_shape(missing, "partner_sso.authentication_request:5")


# --- /_emulator/partner/refuse-next -------------------------------------------------------------------

def refuse_next(api: Api, **body: Any) -> Reply:
    return api.request("POST", "/_emulator/partner/refuse-next", json_body=body)


def test_refuse_next_makes_profiles_sso_refuse_a_good_saml(api: Api) -> None:
    token = api.new_access_token()
    assert api.control("GET", "partner/refuse-next") == {"code": None, "remaining": 0, "details": None}
    header = pfs()
    answer = sso_session(api, token, header).json
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    assert refuse_next(api, code="invalid_parameter_saml_response").json == {
        "code": "invalid_parameter_saml_response", "remaining": 1, "details": None}
    refused = sso_profile(api, token, value, header)
    assert_documented_refusal(refused, "invalid_parameter_saml_response")
    assert "refuse-next" in refused.json["details"]
    assert api.control("GET", "partner/refuse-next")["remaining"] == 0
    assert api.control("GET", "state")["partner_requests"] == 1  # still pending: the same SAML works now
    assert sso_profile(api, token, value, header).status == 201


def test_refuse_next_counts_codes_details_and_comes_after_the_request_checks(api: Api) -> None:
    token = api.new_access_token()
    header = pfs()
    answer = sso_session(api, token, header).json
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    refuse_next(api, code="invalid_header_pfs_provider_info_expired", count=2, details="VSA said so")
    no_bearer = api.request("POST", "/api/v2/REF30/profiles/sso/Apple", headers={PFS: header, **{
        "Content-Type": "application/x-www-form-urlencoded"}}, body=f"SAMLResponse={value}", invalid=True)
    assert error_code(no_bearer) == (401, "invalid_access_token_client_application")  # not counted
    for _ in range(2):
        reply = sso_profile(api, token, value, header)
        assert_documented_refusal(reply, "invalid_header_pfs_provider_info_expired")
        assert reply.json["details"] == "VSA said so"
    assert sso_profile(api, token, value, header).status == 201

    refuse_next(api, code="invalid_parameter_saml_response", count=3)
    assert refuse_next(api, code=None).json == {"code": None, "remaining": 0, "details": None}
    refuse_next(api, code="invalid_parameter_saml_response", count=0)
    assert api.control("GET", "partner/refuse-next")["code"] is None
    refuse_next(api, code="invalid_parameter_saml_response")
    api.control("POST", "reset")
    assert api.control("GET", "partner/refuse-next")["remaining"] == 0


@pytest.mark.parametrize("body", [
    {}, {"code": "not_a_code"}, {"code": "invalid_parameter_mvpd"}, {"code": "invalid_parameter_saml_response",
                                                                     "count": -1},
    {"code": "invalid_parameter_saml_response", "count": True}, {"code": "invalid_parameter_saml_response",
                                                                 "details": 3},
    {"code": "invalid_parameter_saml_response", "extra": 1},
])
def test_refuse_next_is_validated(api: Api, body: dict[str, Any]) -> None:
    assert refuse_next(api, **body).status == 400
    assert api.control("GET", "partner/refuse-next")["code"] is None
