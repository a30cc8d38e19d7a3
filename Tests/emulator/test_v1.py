"""REST API V1 on the emulator (aepass/v1/): every endpoint, the second-screen flow, Apple SSO,
TempPass, the request checks, formats, faults and throttling. Every answer goes through
`v1_contract` (via `Client.request`), and every request not marked invalid must pass the V1
request table in `validate_requests`."""

from __future__ import annotations

import base64
import http.client
import json
import time
import xml.etree.ElementTree as ElementTree
from typing import Any
from urllib.parse import urlencode

import pytest

from emulator_testkit import Api, Reply, b64
from aepass.simulated import simulated_saml as saml
from validate_requests import validate_entry

REQUESTOR = "REF30"
DEVICE = "roku-device-1"
REDIRECT = "https://adobe.com/done"


def v1_device_info(**overrides: Any) -> str:
    info = {"model": "Roku Ultra", "osName": "Roku OS", "osVersion": "12.5", "primaryHardwareType": "MediaPlayer"}
    info.update(overrides)
    return b64(json.dumps({k: v for k, v in info.items() if v is not None}))


def v1(api: Api, method: str, path: str, token: str | None, *, query: dict[str, str] | None = None,
       form: dict[str, str] | None = None, body: str | None = None, fmt: str | None = "json",
       device_info: bool = True, headers: dict[str, str] | None = None, invalid: bool = False) -> Reply:
    """One V1 request: bearer, Accept for `fmt`, X-Device-Info; query/form as given."""
    all_headers: dict[str, str] = {}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    if fmt:
        all_headers["Accept"] = f"application/{fmt}"
    if device_info:
        all_headers["X-Device-Info"] = v1_device_info()
    if body is not None:
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    all_headers.update(headers or {})
    return api.request(method, path, headers=all_headers, query=query, form=form, body=body, invalid=invalid)


def device_query(device: str = DEVICE, **extra: str) -> dict[str, str]:
    return {"requestor": REQUESTOR, "deviceId": device, **extra}


def regcode(api: Api, token: str, device: str = DEVICE, **extra: str) -> dict[str, Any]:
    reply = v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode", token, form={"deviceId": device, **extra})
    assert reply.status == 201, reply.body
    return reply.json


def authenticate_query(code: str, mvpd: str = "Cablevision") -> dict[str, str]:
    return {"reg_code": code, "requestor_id": REQUESTOR, "mso_id": mvpd, "domain_name": "adobe.com",
            "noflash": "true", "no_iframe": "true", "redirect_url": REDIRECT}


def signed_in(api: Api, device: str = DEVICE, user: str = "alice") -> str:
    """An access token, and a V1 authN token for `device` (second-screen login through control)."""
    token = api.new_access_token()
    code = regcode(api, token, device, mvpd="Cablevision")["code"]
    api.login(code, userID=user)
    return token


def status_of(reply: Reply) -> tuple[int, str]:
    return reply.status, reply.json.get("message") or reply.json.get("error")


def operations(api: Api) -> list[str]:
    return [e["operation"] for e in api.log() if e["path"].startswith(("/api/v1/", "/reggie/v1/"))]


# --- the second-screen flow ----------------------------------------------------------------------

def test_second_screen_flow(api: Api) -> None:
    token = api.new_access_token()
    config = v1(api, "GET", f"/api/v1/config/{REQUESTOR}", token, device_info=False).json
    mvpds = {m["id"]: m for m in config["requestor"]["mvpds"]}
    assert mvpds["TempPass"]["isTempPass"] is True
    assert mvpds["Cablevision"]["platformMappingId"] == "Cablevision"
    assert mvpds["Cablevision"]["requiredMetadataFields"] == ["uid", "NameID", "uniqueId"]

    record = regcode(api, token, registrationURL="https://adobe.com/activate")
    code = record["code"]
    assert record["requestor"] == REQUESTOR and len(code) == 7 and "mvpd" not in record
    assert record["expires"] - record["generated"] == 1800 * 1000
    assert base64.b64decode(record["info"]["deviceId"]).decode() == DEVICE
    assert record["info"]["authorizationType"] == "OAUTH2"
    assert record["info"]["registrationURL"] == "https://adobe.com/activate"
    assert record["info"]["sourceApplicationInformation"]["name"] == "Example"
    device = json.loads(base64.b64decode(record["info"]["deviceInfo"]))
    assert device["type"] == "MediaPlayer" and device["operatingSystem"]["name"] == "Roku OS"
    assert v1(api, "GET", f"/reggie/v1/{REQUESTOR}/regcode/{code}", token, device_info=False).json == record

    assert status_of(v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query())) == (404, "Not Found")
    assert v1(api, "GET", "/api/v1/checkauthn", token, query=device_query()).status == 403
    by_code = f"/api/v1/checkauthn/{code}"
    assert v1(api, "GET", by_code, token, query={"requestor": REQUESTOR}, device_info=False).status == 403

    browser = api.request("GET", "/api/v1/authenticate", query=authenticate_query(code))
    assert browser.status == 302
    assert browser.headers["location"] == f"{api.base_url}/_emulator/mvpd/login?code={code}"
    assert api.login(code, userID="alice")["mvpd"] == "Cablevision"
    assert v1(api, "GET", by_code, token, query={"requestor": REQUESTOR}, device_info=False).status == 200

    authn = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json
    assert authn == {"requestor": REQUESTOR, "mvpd": "Cablevision", "userId": "alice", "expires": authn["expires"]}
    assert int(authn["expires"]) > time.time() * 1000 + 86000 * 1000
    assert v1(api, "GET", f"/api/v1/authenticate/{code}", token, query={"requestor": REQUESTOR},
              device_info=False).json == authn
    checked = v1(api, "GET", "/api/v1/checkauthn", token, query=device_query())
    assert checked.status == 200 and checked.body == b""

    resource = device_query(resource="REF30")
    assert status_of(v1(api, "GET", "/api/v1/tokens/authz", token, query=resource)) == (404, "Not Found")
    authz = v1(api, "GET", "/api/v1/authorize", token, query=resource).json
    assert authz == {"mvpd": "Cablevision", "resource": "REF30", "requestor": REQUESTOR, "expires": authz["expires"]}
    assert v1(api, "GET", "/api/v1/tokens/authz", token, query=resource).json == authz  # the cached token
    assert v1(api, "GET", "/api/v1/authorize", token, query=resource).json == authz  # not decided again

    media = v1(api, "GET", "/api/v1/tokens/media", token, query=resource).json
    assert media["mvpdId"] == "Cablevision" and media["resource"] == "REF30" and media["userId"] != "alice"
    assert int(media["expires"]) - time.time() * 1000 <= 420 * 1000
    serialized = base64.b64decode(media["serializedToken"]).decode()
    assert serialized.startswith("<signatureInfo>") and "<resourceID>REF30</resourceID>" in serialized
    assert v1(api, "GET", "/api/v1/mediatoken", token, query=resource).json["resource"] == "REF30"

    metadata = v1(api, "GET", "/api/v1/tokens/usermetadata", token, query=device_query()).json
    assert metadata["data"]["userID"] == "alice" and metadata["data"]["mvpd"] == "Cablevision"
    assert "tokenSource" not in metadata["data"] and metadata["encrypted"] == ["householdID"]

    pre = v1(api, "GET", "/api/v1/preauthorize", token, query=device_query(resource="REF30, PREMIUM-DENIED"))
    assert pre.headers["adobe-response-confidence"] == "full" and pre.headers["adobe-request-id"]
    first, second = pre.json["resources"]
    assert first == {"id": "REF30", "authorized": True}
    assert second["authorized"] is False and second["error"]["code"] == "preauthorization_denied_by_mvpd"
    assert second["error"]["details"] == 'Your subscription package does not include the "Premium" channel'
    by_code_pre = v1(api, "GET", f"/api/v1/preauthorize/{code}", token, device_info=False,
                     query={"requestor": REQUESTOR, "resource": "REF30"})
    assert by_code_pre.json == {"resources": [{"id": "REF30", "authorized": True}]}

    assert v1(api, "DELETE", "/api/v1/logout", token, query=device_query(), fmt=None).status == 204
    assert v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).status == 404
    assert status_of(v1(api, "GET", "/api/v1/tokens/authz", token, query=resource)) == (412, "User not authenticated")
    assert v1(api, "DELETE", "/api/v1/logout", token, query=device_query(), fmt=None).status == 204  # idempotent

    assert operations(api) == [
        "v1ProvideMvpdList", "v1RegistrationCodeRequest", "v1ReturnRegistrationRecord",
        "v1RetrieveAuthenticationToken", "v1CheckAuthenticationToken", "v1CheckAuthnBySecondScreen",
        "v1InitiateAuthentication", "v1CheckAuthnBySecondScreen", "v1RetrieveAuthenticationToken",
        "v1RetrieveAuthenticationTokenByCode", "v1CheckAuthenticationToken", "v1RetrieveAuthorizationToken",
        "v1InitiateAuthorization", "v1RetrieveAuthorizationToken", "v1InitiateAuthorization",
        "v1ObtainShortMediaToken", "v1ObtainShortMediaToken", "v1UserMetadata", "v1Preauthorize",
        "v1PreauthorizeBySecondScreen", "v1InitiateLogout", "v1RetrieveAuthenticationToken",
        "v1RetrieveAuthorizationToken", "v1InitiateLogout"]


def test_login_form_and_simulated_viewer_complete_v1_codes(api: Api) -> None:
    token = api.new_access_token()
    code = regcode(api, token)["code"]
    assert api.request("GET", "/api/v1/authenticate", query=authenticate_query(code, "Spectrum")).status == 302
    page = api.request("GET", "/_emulator/mvpd/login", query={"code": code})
    assert page.status == 200 and "Spectrum" in page.text
    done = api.request("POST", "/_emulator/mvpd/login",
                       form={"code": code, "username": "bob", "password": "secret"})
    assert done.status == 302 and done.headers["location"] == REDIRECT
    assert v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json["mvpd"] == "Spectrum"

    api.control("POST", "config", {"auto_login_ms": 0})
    other = regcode(api, token, "roku-device-2", mvpd="DTV")
    authn = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query("roku-device-2")).json
    assert authn["mvpd"] == "DTV" and authn["userId"].startswith("user-")
    assert v1(api, "GET", f"/api/v1/checkauthn/{other['code']}", token, query={"requestor": REQUESTOR},
              device_info=False).status == 200


def test_v1_codes_are_not_v2_sessions(api: Api) -> None:
    token = api.new_access_token()
    code = regcode(api, token)["code"]
    reply = api.v2("GET", f"/sessions/{code}", token, device=None)
    assert reply.status == 400 and reply.json["code"] == "invalid_parameter_code"


# --- formats ---------------------------------------------------------------------------------------

def test_xml_is_the_default_and_formats_are_selectable(api: Api) -> None:
    token = signed_in(api)
    path = "/api/v1/tokens/authn"
    xml = v1(api, "GET", path, token, query=device_query(), fmt=None)
    assert xml.headers["content-type"] == "application/xml;charset=UTF-8"
    root = ElementTree.fromstring(xml.body)
    assert root.tag == "authentication" and root.findtext("mvpd") == "Cablevision"
    assert xml.text.startswith('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>')
    assert v1(api, "GET", path + ".json", token, query=device_query(), fmt=None).json["userId"] == "alice"
    assert v1(api, "GET", path, token, query=device_query(format="json"), fmt=None).json["userId"] == "alice"
    assert v1(api, "GET", path + ".xml", token, query=device_query(), fmt="xml").status == 200
    conflict = v1(api, "GET", path + ".xml", token, query=device_query(format="json"), fmt=None, invalid=True)
    assert conflict.status == 400 and ElementTree.fromstring(conflict.body).findtext("status") == "400"

    missing = v1(api, "GET", path, token, query=device_query("nobody"), fmt="xml")
    error = ElementTree.fromstring(missing.body)
    assert (missing.status, error.tag, error.findtext("message")) == (404, "error", "Not found")
    assert error.find("details") is None

    record = v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode.xml", token, form={"deviceId": "xml-tv"}, fmt=None)
    root = ElementTree.fromstring(record.body)
    assert root.tag == "{model.mvc.reggie.pass.adobe.com}regcode" and len(root.findtext("code")) == 7
    assert base64.b64decode(root.find("info").findtext("deviceId")) == b"xml-tv"

    config = ElementTree.fromstring(v1(api, "GET", f"/api/v1/config/{REQUESTOR}", token, fmt="xml").body)
    mvpd_ids = [m.findtext("id") for m in config.find("requestor").find("mvpds").findall("mvpd")]
    assert "Cablevision" in mvpd_ids and "TempPass" in mvpd_ids
    fields = config.find("requestor/mvpds/mvpd/requiredMetadataFields")
    assert [f.text for f in fields.findall("requiredMetadataField")] == ["uid", "NameID", "uniqueId"]

    v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="REF30"))
    pre = ElementTree.fromstring(v1(api, "GET", "/api/v1/preauthorize", token, fmt="xml",
                                    query=device_query(resource="REF30,PREMIUM-DENIED")).body)
    assert pre.tag == "resources" and [r.findtext("authorized") for r in pre.findall("resource")] == ["true", "false"]
    play = ElementTree.fromstring(v1(api, "GET", "/api/v1/tokens/media", token, fmt="xml",
                                     query=device_query(resource="REF30")).body)
    assert play.tag == "play" and base64.b64decode(play.findtext("serializedToken")).startswith(b"<signatureInfo>")
    metadata = ElementTree.fromstring(v1(api, "GET", "/api/v1/tokens/usermetadata", token, fmt="xml",
                                         query=device_query()).body)
    assert metadata.findtext("data/userID") == "alice"


# --- request checks ------------------------------------------------------------------------------

def test_request_checks(api: Api) -> None:
    client = api.register().json
    token = api.token(client["client_id"], client["client_secret"]).json["access_token"]
    regcode_path = f"/reggie/v1/{REQUESTOR}/regcode"

    def refused(reply: Reply, status: int, text: str) -> None:
        assert reply.status == status, reply.body
        assert text in json.dumps(reply.json), reply.json

    refused(v1(api, "POST", regcode_path, token, form={"ttl": "60"}, invalid=True),
            400, "Required 'deviceId' is not present")
    refused(v1(api, "POST", "/reggie/v1/NOPE/regcode", token, form={"deviceId": DEVICE}), 400, "unknown requestor")
    refused(v1(api, "POST", regcode_path, token, form={"deviceId": DEVICE, "ttl": "36001"}), 400, "ttl")
    refused(v1(api, "POST", regcode_path, token, form={"deviceId": DEVICE, "mvpd": "Nope"}), 400, "not an MVPD")
    refused(v1(api, "POST", regcode_path, token, form={"deviceId": DEVICE}, device_info=False, invalid=True),
            400, "Required 'device_info' is not present")
    refused(v1(api, "POST", regcode_path, token, form={"deviceId": DEVICE},
               headers={"X-Device-Info": v1_device_info(osName=None)}), 400, "osName")
    query_info = v1(api, "POST", regcode_path, token, device_info=False,
                    form={"deviceId": DEVICE, "device_info": v1_device_info()})
    assert query_info.status == 201  # device_info as a parameter instead of the header
    refused(v1(api, "POST", regcode_path, token, query={"deviceId": "a"}, form={"deviceId": "b"}, invalid=True),
            400, "more than once")
    refused(v1(api, "POST", regcode_path, None, form={"deviceId": DEVICE}, invalid=True), 401, "access_denied")
    refused(v1(api, "POST", regcode_path, "not-a-token", form={"deviceId": DEVICE}), 401, "access_denied")
    refused(v1(api, "GET", "/api/v1/tokens/authn", token, query={"requestor": REQUESTOR}, invalid=True),
            400, "Required 'deviceId' is not present")
    refused(v1(api, "GET", "/api/v1/authorize", token, query=device_query(), invalid=True),
            400, "Required 'resource' is not present")

    code = regcode(api, token)["code"]
    one = f"{regcode_path}/{code}"
    assert v1(api, "DELETE", one, token, device_info=False, fmt=None).status == 204
    refused(v1(api, "GET", one, token, device_info=False), 404, "Not Found")
    refused(v1(api, "DELETE", one, token, device_info=False), 404, "Not Found")
    browser = api.request("GET", "/api/v1/authenticate", query=authenticate_query(code))
    assert browser.status == 400 and b"unknown or expired registration code" in browser.body

    wrong_verb = v1(api, "GET", "/api/v1/logout", token, query=device_query(), invalid=True)
    assert wrong_verb.status == 405 and wrong_verb.headers["allow"] == "DELETE"

    api.control("POST", "invalidate-client", {"client_id": client["client_id"]})
    refused(v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()), 403, "invalid_client")
    fresh = api.new_access_token()
    api.control("POST", "expire-access-tokens")
    refused(v1(api, "GET", "/api/v1/tokens/authn", fresh, query=device_query()), 401, "access_denied")


def test_regcode_ttl_and_expiry(api: Api) -> None:
    token = api.new_access_token()
    record = regcode(api, token, ttl="36000")
    assert record["expires"] - record["generated"] == 36000 * 1000
    api.control("POST", "config", {"code_ttl_s": 0.05})
    short = regcode(api, token)["code"]
    time.sleep(0.1)
    assert v1(api, "GET", f"/reggie/v1/{REQUESTOR}/regcode/{short}", token, device_info=False).status == 404
    assert api.request("POST", "/_emulator/login", json_body={"code": short}).status == 410


def test_authorization_errors_and_expiry(api: Api) -> None:
    token = api.new_access_token()
    resource = device_query(resource="REF30")
    assert status_of(v1(api, "GET", "/api/v1/authorize", token, query=resource)) == (403, "User not authenticated")
    assert status_of(v1(api, "GET", "/api/v1/tokens/media", token, query=resource))[0] == 403
    assert status_of(v1(api, "GET", "/api/v1/preauthorize", token, query=resource))[0] == 412
    assert status_of(v1(api, "GET", "/api/v1/tokens/usermetadata", token, query=device_query()))[0] == 404

    token = signed_in(api)
    denied = v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="PREMIUM-DENIED"))
    assert status_of(denied) == (403, "User not authorized") and "Premium" in denied.json["details"]
    mrss = ('<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>'
            '<title><![CDATA[PREMIUM-DENIED]]></title><item><title>Ep 1</title></item></channel></rss>')
    assert v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource=mrss)).status == 403
    media = v1(api, "GET", "/api/v1/tokens/media", token, query=resource)
    assert status_of(media) == (403, "User not authorized") and "call authorize" in media.json["details"]

    api.control("POST", "config", {"authz_ttl_s": 0.05})
    assert v1(api, "GET", "/api/v1/authorize", token, query=resource).status == 200
    time.sleep(0.1)
    assert status_of(v1(api, "GET", "/api/v1/tokens/authz", token, query=resource)) == (410, "Gone")
    assert v1(api, "GET", "/api/v1/tokens/media", token, query=resource).status == 403
    assert v1(api, "GET", "/api/v1/authorize", token, query=resource).status == 200  # decided again

    api.control("POST", "expire-profiles")
    assert status_of(v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query())) == (410, "Gone")
    assert status_of(v1(api, "GET", "/api/v1/checkauthn", token, query=device_query())) == (
        403, "Authentication token expired")
    assert status_of(v1(api, "GET", "/api/v1/tokens/authz", token, query=resource))[0] == 412
    assert status_of(v1(api, "GET", "/api/v1/tokens/usermetadata", token, query=device_query()))[0] == 412
    assert status_of(v1(api, "GET", "/api/v1/authorize", token, query=resource)) == (
        403, "Authentication token expired")


def test_authz_token_never_outlives_the_authn_token(api: Api) -> None:
    api.control("POST", "config", {"profile_ttl_s": 60})
    token = signed_in(api)
    authn = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json
    authz = v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="REF30")).json
    assert authz["expires"] == authn["expires"]


# --- Apple SSO -----------------------------------------------------------------------------------

def exchange(api: Api, token: str, value: str, mvpd: str = "Cablevision", device: str = DEVICE,
             invalid: bool = False) -> Reply:
    """POST /api/v1/tokens/authn with the SAMLResponse value sent verbatim (already encoded)."""
    fields = urlencode({"requestor": REQUESTOR, "deviceId": device, "mvpd": mvpd, "deviceType": "tvOS"})
    return v1(api, "POST", "/api/v1/tokens/authn", token, body=f"{fields}&SAMLResponse={value}",
              device_info=False, invalid=invalid)


def profile_request(api: Api, token: str, mvpd: str = "Cablevision", device_type: str = "tvOS") -> Reply:
    return v1(api, "GET", f"/api/v1/{REQUESTOR}/profile-requests/{mvpd}", token, fmt=None, device_info=False,
              query={"deviceType": device_type})


def platform_answer(payload: bytes, provider: str = "Cablevision",
                    attributes: tuple[str, ...] = ("uid", "NameID", "uniqueId")) -> str:
    """What the simulated platform returns for the profile request (messy SAML)."""
    request_id = saml.request_id_of(payload.decode())
    assert request_id
    return saml.saml_response(request_id, provider, list(attributes))


def test_apple_sso_flow(api: Api) -> None:
    token = api.new_access_token()
    requested = profile_request(api, token)
    assert requested.headers["content-type"] == "application/octet-stream"
    query = base64.b64decode(requested.body).decode()
    assert "<samlp:AttributeQuery" in query and "<sim:Mvpd>Cablevision</sim:Mvpd>" in query
    assert api.control("GET", "state")["partner_requests"] == 1

    reply = exchange(api, token, saml.encode_saml_response(platform_answer(requested.body)))
    assert reply.status == 204 and reply.body == b""
    assert api.control("GET", "state")["partner_requests"] == 0
    authn = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json
    assert authn["mvpd"] == "Cablevision" and authn["userId"] == "sim-cablevision"
    metadata = v1(api, "GET", "/api/v1/tokens/usermetadata", token, query=device_query()).json
    assert metadata["data"]["tokenSource"] == "Apple"
    assert v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="REF30")).status == 200
    assert v1(api, "DELETE", "/api/v1/logout", token, query=device_query(), fmt=None).status == 204

    comcast = profile_request(api, token, "Comcast_SSO")
    answer = platform_answer(comcast.body, "Comcast", ("uid", "NameID", "uniqueId", "zip"))
    assert exchange(api, token, saml.encode_saml_response(answer), "Comcast_SSO").status == 204


def test_apple_sso_refusals(api: Api) -> None:
    token = api.new_access_token()
    for mvpd, device_type in (("Spectrum", "tvOS"), ("Dish", "tvOS"), ("DTV", "iOS"),
                              ("Cablevision", "Android"), ("Nope", "iOS")):
        assert profile_request(api, token, mvpd, device_type).status == 400, mvpd

    messy = platform_answer(profile_request(api, token).body)

    def refused(value: str, details: str, mvpd: str = "Cablevision") -> None:
        reply = exchange(api, token, value, mvpd)
        assert reply.status == 400 and details in reply.json["details"], reply.json

    refused(saml.percent_encode(base64.b64encode(messy.encode()).decode()), "not cleaned up")
    refused("not*base64", "not standard Base64")
    refused(saml.encode_saml_response(messy), "was for 'Cablevision', not 'Comcast_SSO'", "Comcast_SSO")
    assert exchange(api, token, saml.encode_saml_response(messy)).status == 204
    refused(saml.encode_saml_response(messy), "no pending authentication request")  # consumed
    other = api.new_access_token()  # another client cannot use this client's profile request
    stolen = platform_answer(profile_request(api, token).body)
    reply = exchange(api, other, saml.encode_saml_response(stolen))
    assert reply.status == 400 and "no pending authentication request" in reply.json["details"]
    missing = exchange(api, token, "", invalid=True)
    assert status_of(missing) == (400, "Required 'SAMLResponse' is not present")


# --- TempPass --------------------------------------------------------------------------------------

def free_preview(api: Api, token: str, mso: str = "TempPass", device: str = DEVICE, invalid: bool = False,
                 generic_data: str | None = None) -> Reply:
    form = {"requestor_id": REQUESTOR, "deviceId": device, "mso_id": mso, "domain_name": "adobe.com"}
    if generic_data is not None:
        form["generic_data"] = generic_data  # form-encoded by the client
    return v1(api, "POST", "/api/v1/authenticate/freepreview", token, fmt=None, invalid=invalid, form=form)


def authn_of(api: Api, token: str, device: str = DEVICE) -> Reply:
    return v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query(device))


def refused_preview(reply: Reply, details: str) -> None:
    assert reply.status == 400, reply.body
    error = ElementTree.fromstring(reply.body)  # legacy V1 error body, XML by default
    assert error.findtext("status") == "400" and details in (error.findtext("details") or ""), reply.text


def test_temp_pass(api: Api) -> None:
    token = api.new_access_token()
    assert free_preview(api, token).status == 204
    authn = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json
    assert authn["mvpd"] == "TempPass" and authn["userId"].startswith("temppass-")
    assert int(authn["expires"]) - time.time() * 1000 <= 600 * 1000
    granted = v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="PREMIUM-DENIED"))
    assert granted.status == 200 and granted.json["mvpd"] == "TempPass"  # TempPass authorizes everything
    assert free_preview(api, token).status == 204  # again while it runs: same end
    again = v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query()).json
    assert again["expires"] == authn["expires"]
    assert free_preview(api, token, "Cablevision").status == 400

    api.control("POST", "config", {"temp_pass_ttl_s": 0.05})
    assert free_preview(api, token, device="tv-2").status == 204
    time.sleep(0.1)
    assert v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query("tv-2")).status == 410
    expired = free_preview(api, token, device="tv-2")
    assert expired.status == 400 and b"has expired" in expired.body
    assert api.control("GET", "state")["temp_passes"] == 2
    api.control("POST", "reset")
    token = api.new_access_token()
    assert free_preview(api, token, device="tv-2").status == 204


def test_temp_pass_with_the_catalog_temp_pass_mvpds(api: Api) -> None:
    token = api.new_access_token()
    listed = v1(api, "GET", f"/api/v1/config/{REQUESTOR}", token, device_info=False).json["requestor"]["mvpds"]
    temp_passes = [m["id"] for m in listed if m.get("isTempPass")]
    assert temp_passes == ["TempPass_TEST40", "flexibleTempPass", "TempPass"]

    assert free_preview(api, token, "TempPass_TEST40").status == 204
    authn = authn_of(api, token).json
    assert authn["mvpd"] == "TempPass_TEST40" and authn["userId"].startswith("temppass-")
    assert 170 * 1000 < int(authn["expires"]) - time.time() * 1000 <= 180 * 1000  # the catalog's 3 minutes
    granted = v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource="PREMIUM-DENIED"))
    assert granted.status == 200 and granted.json["mvpd"] == "TempPass_TEST40"
    assert free_preview(api, token, "TempPass_TEST40").status == 204  # again while it runs: same end
    assert authn_of(api, token).json["expires"] == authn["expires"]

    api.control("POST", "config", {"temppass_ttl_s": {"TempPass_TEST40": 0.5}})  # new passes only
    assert free_preview(api, token, "TempPass_TEST40", device="tv-2").status == 204
    assert int(authn_of(api, token, "tv-2").json["expires"]) - time.time() * 1000 <= 500
    assert authn_of(api, token).json["expires"] == authn["expires"]
    time.sleep(0.6)
    assert status_of(authn_of(api, token, "tv-2")) == (410, "Gone")
    refused_preview(free_preview(api, token, "TempPass_TEST40", device="tv-2"), "has expired")
    assert free_preview(api, token, "TempPass", device="tv-2").status == 204  # another TempPass MVPD

    assert api.control("POST", "temppass/reset", {"mvpd": "TempPass_TEST40", "device": "tv-2"}) == {"reset": 1}
    assert free_preview(api, token, "TempPass_TEST40", device="tv-2").status == 204
    assert authn_of(api, token, "tv-2").json["mvpd"] == "TempPass_TEST40"

    assert api.control("POST", "temppass/expire", {"device": DEVICE}) == {"expired": 1}
    assert status_of(authn_of(api, token)) == (410, "Gone")  # the pass's token ends with it
    refused_preview(free_preview(api, token, "TempPass_TEST40"), "has expired")
    assert authn_of(api, token, "tv-2").status == 200
    assert api.control("POST", "temppass/reset", {"device": DEVICE}) == {"reset": 1}
    assert free_preview(api, token, "TempPass_TEST40").status == 204


def test_promotional_temp_pass_is_per_identity(api: Api) -> None:
    token = api.new_access_token()
    viewer = '{"email":"viewer@example.com"}'
    refused_preview(free_preview(api, token, "flexibleTempPass"), "needs generic_data")
    for bad in ("not json", '["viewer@example.com"]', '"viewer@example.com"', "{}"):
        refused_preview(free_preview(api, token, "flexibleTempPass", generic_data=bad), "must be a non-empty JSON object")
    assert api.control("GET", "state")["temp_passes"] == 0

    assert free_preview(api, token, "flexibleTempPass", generic_data=viewer).status == 204
    authn = authn_of(api, token).json
    assert authn["mvpd"] == "flexibleTempPass"
    assert 590 * 1000 < int(authn["expires"]) - time.time() * 1000 <= 600 * 1000
    # One promotion per identity, whatever the device (as V2): the same pass on another device.
    assert free_preview(api, token, "flexibleTempPass", device="tv-2",
                        generic_data='{ "email" : "viewer@example.com" }').status == 204
    assert authn_of(api, token, "tv-2").json == authn  # same end, same userId
    # V1 does not document the promotional resource limit (catalog: 5): not enforced.
    for n in range(7):
        assert v1(api, "GET", "/api/v1/authorize", token, query=device_query(resource=f"asset-{n}")).status == 200

    api.control("POST", "config", {"temppass_ttl_s": {"flexibleTempPass": 0.3}})
    other = '{"email":"other@example.com","campaign":"spring"}'
    assert free_preview(api, token, "flexibleTempPass", device="tv-3", generic_data=other).status == 204
    time.sleep(0.4)
    assert status_of(authn_of(api, token, "tv-3")) == (410, "Gone")
    reordered = '{"campaign":"spring","email":"other@example.com"}'
    refused_preview(free_preview(api, token, "flexibleTempPass", device="tv-3", generic_data=reordered),
                    "identity has expired")
    refused_preview(free_preview(api, token, "flexibleTempPass", device="tv-4", generic_data=other),
                    "identity has expired")  # a new device does not start the identity's pass again
    third = '{"email":"third@example.com"}'
    assert free_preview(api, token, "flexibleTempPass", device="tv-3", generic_data=third).status == 204
    assert authn_of(api, token, "tv-3").status == 200
    assert free_preview(api, token, "TempPass_TEST40", device="tv-3", generic_data=other).status == 204  # ignored

    assert api.control("POST", "temppass/expire", {"identity": {"email": "viewer@example.com"}}) == {"expired": 1}
    assert authn_of(api, token).status == 410 and authn_of(api, token, "tv-2").status == 410
    refused_preview(free_preview(api, token, "flexibleTempPass", generic_data=viewer), "has expired")
    reset = {"mvpd": "flexibleTempPass", "identity": {"campaign": "spring", "email": "other@example.com"}}
    assert api.control("POST", "temppass/reset", reset) == {"reset": 1}
    assert free_preview(api, token, "flexibleTempPass", device="tv-4", generic_data=other).status == 204
    assert api.control("POST", "temppass/reset", {"mvpd": "flexibleTempPass"}) == {"reset": 3}
    assert free_preview(api, token, "flexibleTempPass", generic_data=viewer).status == 204


# --- faults, throttling, the validator ------------------------------------------------------------

def raw_get(api: Api, path: str, token: str, query: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(api.netloc, timeout=10)
    try:
        connection.request("GET", f"{path}?{urlencode(query)}", headers={
            "Authorization": f"Bearer {token}", "Accept": "application/json", "X-Device-Info": v1_device_info()})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_faults_apply_to_v1_operations(api: Api) -> None:
    token = signed_in(api)
    faults = api.control("POST", "faults", {"faults": [
        {"operation": "v1RetrieveAuthenticationToken", "requests": [2], "kind": "status", "status": 503},
        {"operation": "v1InitiateAuthorization", "kind": "malformed_json", "body": "{\"mvpd\":"},
    ]})["faults"]
    assert [f["operation"] for f in faults] == ["v1RetrieveAuthenticationToken", "v1InitiateAuthorization"]
    path, query = "/api/v1/tokens/authn", device_query()
    statuses = [raw_get(api, path, token, query)[0] for _ in range(3)]
    assert statuses == [200, 503, 200]
    assert raw_get(api, "/api/v1/authorize", token, device_query(resource="REF30")) == (200, b'{"mvpd":')
    entries = [e for e in api.log() if e.get("fault")]
    assert [(e["operation"], e["fault"]) for e in entries] == [
        ("v1RetrieveAuthenticationToken", "status"), ("v1InitiateAuthorization", "malformed_json")]
    assert [f["applied"] for f in api.control("GET", "faults")["faults"]] == [1, 1]
    bad = api.request("POST", "/_emulator/faults", json_body={"faults": [{"operation": "v1Nope", "kind": "truncated_json"}]})
    assert bad.status == 400


def test_v1_requests_are_throttled(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"throttle": True})
    headers = {"X-Forwarded-For": "203.0.113.7"}
    statuses = [v1(api, "GET", "/api/v1/tokens/authn", token, query=device_query(), headers=headers).status
                for _ in range(11)]
    assert statuses == [404] * 10 + [429]
    throttled = v1(api, "POST", f"/reggie/v1/{REQUESTOR}/regcode", token, form={"deviceId": DEVICE}, headers=headers)
    assert throttled.status == 429 and throttled.headers["content-type"].startswith("text/html")
    assert operations(api)[-1] == "v1RegistrationCodeRequest"


def entry(method: str, path: str, query: str = "", body: str | None = None, **headers: str) -> dict[str, Any]:
    base = {"Authorization": "Bearer t", "X-Device-Info": v1_device_info()}
    if body:
        base["Content-Type"] = "application/x-www-form-urlencoded"
    return {"method": method, "path": path, "query": query, "body": body, "operation": "x",
            "headers": {**base, **headers}}


@pytest.mark.parametrize("bad, problem", [
    (entry("GET", "/api/v1/tokens/authn", "requestor=REF30"), "required parameter 'deviceId' is missing"),
    (entry("GET", "/api/v1/tokens/authn", "requestor=REF30&deviceId=d&mso_id=x"), "'mso_id' is not documented"),
    (entry("GET", "/api/v1/logout", "requestor=REF30&deviceId=d"), "method not allowed"),
    (entry("GET", "/api/v1/nothing"), "no such V1 endpoint"),
    (entry("GET", "/api/v1/checkauthn", "requestor=REF30&deviceId=d", **{"X-Device-Info": ""}), "X-Device-Info"),
    (entry("GET", "/api/v1/checkauthn", "requestor=REF30&deviceId=d", Authorization=""), "Bearer"),
    (entry("POST", "/reggie/v1/REF30/regcode", "deviceId=a", "deviceId=b"), "more than once"),
    (entry("DELETE", "/api/v1/logout", "requestor=REF30", "deviceId=d"), "takes no body"),
])
def test_validator_checks_v1_requests(bad: dict[str, Any], problem: str) -> None:
    problems = validate_entry(bad)
    assert problems and problem in problems[0], problems


def test_validator_accepts_good_v1_requests() -> None:
    assert validate_entry(entry("POST", "/reggie/v1/REF30/regcode.json", "", "deviceId=d&ttl=60&format=json")) == []
    assert validate_entry(entry("GET", "/api/v1/authenticate", "reg_code=A&requestor_id=REF30&mso_id=m&"
                                "domain_name=adobe.com&redirect_url=x", Authorization="")) == []


def test_apple_sso_token_exchange_follows_refuse_next(api: Api) -> None:
    token = api.new_access_token()
    value = saml.encode_saml_response(platform_answer(profile_request(api, token).body))
    api.control("POST", "partner/refuse-next", {"code": "invalid_parameter_saml_response"})
    refused = exchange(api, token, value)
    assert refused.status == 400 and refused.json["details"].startswith("invalid_parameter_saml_response: ")
    assert exchange(api, token, value).status == 204
