"""End-to-end tests of the emulator process (see conftest.py and emulator_testkit.py for the harness)."""

from __future__ import annotations

import base64
import http.client
import re
import time
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api, b64, device_headers, device_info
from validate_requests import validate_entries



class FormParser(HTMLParser):
    """Reads the one <form> of a page: action, method, fields and <select> options."""

    def __init__(self) -> None:
        super().__init__()
        self.action = self.method = ""
        self.fields: dict[str, str] = {}
        self.options: dict[str, list[str]] = {}
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.action, self.method = a.get("action", ""), a.get("method", "get").upper()
        elif tag == "input":
            self.fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
            self.options[a["name"]] = []
        elif tag == "option" and self._select:
            self.options[self._select].append(a["value"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


def parse_form(html: str) -> FormParser:
    parser = FormParser()
    parser.feed(html)
    return parser


def error_code(reply) -> str:
    return reply.json["code"]


def assert_unnamed_error(reply, status: int = 400) -> None:
    """A failure Adobe's code list names no code for (malformed request, wrong method, unknown
    path): an Enhanced Error Code object without `code` (aepass/errors.py UNNAMED)."""
    body = reply.json
    assert reply.status == status and body["status"] == status and "code" not in body, body
    assert body["action"] == "none" and body["message"] and body["helpUrl"] and body["trace"], body


# --- the basic flow --------------------------------------------------------------------------

def test_full_flow_with_control_login(api: Api) -> None:
    registered = api.register()
    assert registered.status == 201
    client = registered.json
    assert client["grant_types"] == ["client_credentials"] and client["scopes"] == ["api:client:v2"]
    assert client["redirect_uris"] == ["adobepass://tests"]
    issued = api.token(client["client_id"], client["client_secret"])
    assert issued.status == 201 and issued.json["token_type"] == "bearer"
    assert issued.json["expires_in"] == 21600
    token = issued.json["access_token"]

    configuration = api.v2("GET", "/configuration", token).json
    mvpds = {m["id"]: m for m in configuration["requestor"]["mvpds"]}
    assert configuration["requestor"]["id"] == "REF30"
    assert mvpds["Cablevision"]["displayName"] == "Optimum" and set(mvpds) == {
        "Cablevision", "Comcast_SSO", "Spectrum", "DTV", "Dish", "TempPass_TEST40", "flexibleTempPass"}
    logo = api.request("GET", urlsplit(mvpds["Dish"]["logoUrl"]).path)
    assert logo.headers["content-type"] == "image/svg+xml"

    session = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert session["actionName"] == "authenticate" and session["actionType"] == "interactive"
    assert session["url"] == f"/api/v2/authenticate/REF30/{session['code']}"
    assert re.fullmatch(r"[A-Z0-9]{7}", session["code"])
    assert int(session["notAfter"]) - int(session["notBefore"]) == 1800 * 1000
    code = session["code"]

    redirect = api.request("GET", session["url"], headers={"User-Agent": "Mozilla/5.0"})
    assert redirect.status == 302
    assert redirect.headers["location"] == f"{api.base_url}/_emulator/mvpd/login?code={code}"

    status = api.v2("GET", f"/sessions/{code}", token, device=None).json
    assert status["existingParameters"] == {**ALL_SESSION_PARAMS, "serviceProvider": "REF30"}
    assert status["missingParameters"] == [] and status["device"]["type"] == "SetTopBox"
    assert status["device"]["operatingSystem"]["version"]["major"] == 17

    assert api.v2("GET", f"/profiles/code/{code}", token, device=None).json == {"profiles": {}}
    login = api.login(code, userID="alice")
    assert login["mvpd"] == "Cablevision" and login["profile"]["type"] == "regular"

    by_code = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
    profile = by_code["Cablevision"]
    assert profile["issuer"] == "Cablevision" and profile["type"] == "regular"
    assert profile["attributes"]["userID"] == {"value": "alice", "state": "plain"}
    assert profile["attributes"]["householdID"]["state"] == "enc"
    assert profile["attributes"]["zip"]["value"] == ["10001", "10002"]
    assert profile["notAfter"] - profile["notBefore"] == 86400 * 1000
    assert api.v2("GET", "/profiles", token).json["profiles"] == by_code
    assert api.v2("GET", "/profiles/Cablevision", token).json["profiles"] == by_code
    assert api.v2("GET", "/profiles/Dish", token).json == {"profiles": {}}
    assert api.v2("GET", "/profiles", token, device="other-tv").json == {"profiles": {}}

    again = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert (again["actionName"], again["reasonType"]) == ("authorize", "authenticated")
    assert again["url"] == "/api/v2/REF30/decisions/authorize/Cablevision" and "code" not in again

    pre = api.v2("POST", "/decisions/preauthorize/Cablevision", token,
                 json_body={"resources": ["REF30", "PREMIUM-DENIED"]}).json["decisions"]
    assert [d["authorized"] for d in pre] == [True, False]
    assert "token" not in pre[0] and pre[0]["source"] == "mvpd"
    assert pre[1]["error"]["code"] == "preauthorization_denied_by_mvpd"
    assert pre[1]["error"]["details"] == 'Your subscription package does not include the "Premium" channel'

    authz = api.v2("POST", "/decisions/authorize/Cablevision", token,
                   json_body={"resources": ["Live & <Local>", "PREMIUM-DENIED"]}).json["decisions"]
    permit, deny = authz
    assert permit["authorized"] and permit["notAfter"] - permit["notBefore"] == 86400 * 1000
    assert permit["token"]["notAfter"] - permit["token"]["notBefore"] == 420 * 1000
    xml = base64.b64decode(permit["token"]["serializedToken"]).decode()
    assert xml.startswith("<signatureInfo>")
    assert "<resourceID>Live &amp; &lt;Local&gt;</resourceID>" in xml
    assert "<requestorID>REF30</requestorID>" in xml and "<mvpdId>Cablevision</mvpdId>" in xml
    assert "<ttl>420000</ttl>" in xml and "<proxyMvpdId/>" in xml
    assert deny["error"]["code"] == "authorization_denied_by_mvpd" and "token" not in deny

    logout = api.v2("GET", "/logout/Cablevision", token, query={"redirectUrl": REDIRECT_URL}).json
    action = logout["logouts"]["Cablevision"]
    assert (action["actionName"], action["actionType"]) == ("logout", "interactive")
    url = urlsplit(action["url"])
    assert f"{url.scheme}://{url.netloc}" == api.base_url and url.path == "/adobe-services/logout"
    assert parse_qs(url.query) == {"noflash": ["true"], "mso_id": ["Cablevision"],
                                   "requestor_id": ["REF30"], "redirect_url": [REDIRECT_URL]}
    page = api.request("GET", f"{url.path}?{url.query}")
    assert page.status == 302 and page.headers["location"] == REDIRECT_URL
    assert api.v2("GET", "/profiles", token).json == {"profiles": {}}
    again = api.v2("GET", "/logout/Cablevision", token, query={"redirectUrl": REDIRECT_URL}).json
    assert again["logouts"]["Cablevision"] == {
        "actionName": "invalid", "actionType": "none", "mvpd": "Cablevision"}


def test_absolute_urls_name_the_host_and_scheme_the_client_used(api: Api) -> None:
    """A box on the LAN reaches the emulator by another name than 127.0.0.1, often through a TLS front
    (Emulator/README.md, "A real box on the LAN"): every absolute URL the emulator hands out (the logos
    of the configuration, the login page the authenticate URL redirects to, the logout page) names
    what the client used: the Host header, and X-Forwarded-Proto / X-Forwarded-Host or Forwarded
    (RFC 7239) when a front sets them. A value that is not a scheme or host is ignored."""
    token = api.new_access_token()

    def urls(headers: dict[str, str]) -> list[str]:
        configuration = api.v2("GET", "/configuration", token, headers=headers).json
        logo = {m["id"]: m["logoUrl"] for m in configuration["requestor"]["mvpds"]}["Dish"]
        code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
        redirect = api.request("GET", f"/api/v2/authenticate/REF30/{code}", headers=headers)
        assert redirect.status == 302
        login = redirect.headers["location"]
        assert login.endswith(f"/_emulator/mvpd/login?code={code}")
        api.login(code, userID="alice")
        logout = api.v2("GET", "/logout/Cablevision", token, headers=headers,
                        query={"redirectUrl": REDIRECT_URL}).json["logouts"]["Cablevision"]["url"]
        return [f"{urlsplit(url).scheme}://{urlsplit(url).netloc}" for url in (logo, login, logout)]

    # The Host header alone: http, that name and port.
    assert urls({"Host": "tv-desk.lan:8080"}) == ["http://tv-desk.lan:8080"] * 3
    assert urls({"Host": "192.168.1.20:8080"}) == ["http://192.168.1.20:8080"] * 3
    # Behind nghttpx: the client's Host passes through and X-Forwarded-Proto says https.
    assert urls({"Host": "tv-desk.lan:8443", "X-Forwarded-Proto": "https"}) == ["https://tv-desk.lan:8443"] * 3
    # A front that rewrites Host names the client's in X-Forwarded-Host (the first of a list: the
    # client side's), or in Forwarded.
    assert urls({"Host": "127.0.0.1:8080", "X-Forwarded-Proto": "https, http",
                 "X-Forwarded-Host": "tv-desk.lan:8443, 127.0.0.1:8443"}) == ["https://tv-desk.lan:8443"] * 3
    assert urls({"Host": "127.0.0.1:8080", "Forwarded": 'for=192.0.2.7;proto=https;host="[2001:db8::5]:8443"'}) \
        == ["https://[2001:db8::5]:8443"] * 3
    # Not a scheme or a host: ignored (no header injection into Location).
    assert urls({"Host": "tv-desk.lan:8080", "X-Forwarded-Proto": "javascript",
                 "X-Forwarded-Host": "evil.example/path"}) == ["http://tv-desk.lan:8080"] * 3
    # No Host at all (HTTP/1.0): the address the connection reached.
    connection = http.client.HTTPConnection(api.netloc, timeout=10)
    try:
        connection.putrequest("GET", f"/api/v2/authenticate/REF30/{api.create_session(token).json['code']}",
                              skip_host=True)
        connection.endheaders()
        response = connection.getresponse()
        response.read()
    finally:
        connection.close()
    assert response.status == 302 and response.getheader("Location").startswith(f"http://{api.netloc}/")


def test_html_form_login_with_mvpd_picker(api: Api) -> None:
    token = api.new_access_token()
    created = api.create_session(token).json
    assert created["actionName"] == "resume"
    assert created["missingParameters"] == ["mvpd", "domainName", "redirectUrl"]
    assert created["url"] == f"/api/v2/REF30/sessions/{created['code']}" and "mvpd" not in created
    code = created["code"]

    second_screen = api.new_access_token()  # the companion app is another registered client
    retry = api.v2("POST", f"/sessions/{code}", second_screen, device=None,
                   form={"domainName": "adobe.com", "redirectUrl": REDIRECT_URL}).json
    assert retry["actionName"] == "retry" and retry["missingParameters"] == ["mvpd"]
    status = api.v2("GET", f"/sessions/{code}", second_screen, device=None).json
    assert status["missingParameters"] == ["mvpd"] and "mvpd" not in status["existingParameters"]

    location = urlsplit(api.request("GET", f"/api/v2/authenticate/REF30/{code}").headers["location"])
    page = api.request("GET", f"{location.path}?{location.query}")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    form = parse_form(page.text)
    assert form.method == "POST" and form.fields["code"] == code
    assert form.options["mvpd"] == ["Cablevision", "Comcast_SSO", "Spectrum", "DTV", "Dish"]

    incomplete = api.request("POST", form.action, form={**form.fields, "mvpd": "Spectrum"})
    assert incomplete.status == 400 and "username" in incomplete.text

    submitted = api.request("POST", form.action, form={
        **form.fields, "mvpd": "Spectrum", "username": "bob", "password": "secret"})
    assert submitted.status == 302 and submitted.headers["location"] == REDIRECT_URL

    profiles = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
    assert profiles["Spectrum"]["attributes"]["userID"]["value"] == "bob"
    # the profile belongs to the device that created the session, not to the companion app
    assert list(api.v2("GET", "/profiles", token).json["profiles"]) == ["Spectrum"]
    assert api.v2("GET", "/profiles", second_screen).json == {"profiles": {}}


def test_html_form_login_without_web_redirect_shows_signed_in_page(api: Api) -> None:
    token = api.new_access_token()
    code = api.create_session(token, **{**ALL_SESSION_PARAMS, "redirectUrl": "myapp://done"}).json["code"]
    page = api.request("GET", "/_emulator/mvpd/login", query={"code": code})
    form = parse_form(page.text)
    assert "mvpd" not in form.options and "Optimum" in page.text
    done = api.request("POST", form.action, form={**form.fields, "username": "u", "password": "p"})
    assert done.status == 200 and "Return to your TV" in done.text
    assert "Cablevision" in api.v2("GET", "/profiles", token).json["profiles"]


def test_resume_to_authenticate_and_to_authorize(api: Api) -> None:
    token = api.new_access_token()
    code = api.create_session(token, mvpd="Dish").json["code"]
    resumed = api.v2("POST", f"/sessions/{code}", token, device=None,
                     form={"domainName": "adobe.com", "redirectUrl": REDIRECT_URL}).json
    assert resumed["actionName"] == "authenticate" and resumed["code"] == code and resumed["mvpd"] == "Dish"
    api.login(code)
    resumed = api.v2("POST", f"/sessions/{code}", token, device=None, form={}).json
    assert (resumed["actionName"], resumed["reasonType"]) == ("authorize", "authenticated")
    logout = api.v2("GET", "/logout/Dish", token, query={"redirectUrl": REDIRECT_URL}).json
    assert logout["logouts"]["Dish"] == {"actionName": "complete", "actionType": "none", "mvpd": "Dish"}


# --- throttling --------------------------------------------------------------------------------

def test_throttle_answers_429_after_the_burst(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"throttle": True})
    statuses = [api.v2("GET", "/configuration", token, device="burst").status for _ in range(12)]
    assert statuses[:10] == [200] * 10 and 429 in statuses[10:]
    throttled = api.v2("GET", "/configuration", token, device="burst")
    assert throttled.status == 429 and throttled.headers["retry-after"] == "1"
    assert throttled.headers["content-type"].startswith("text/html")
    assert throttled.text == (
        "<html><head><title>429 Too Many Requests</title></head><body><center>"
        "<h1>429 Too Many Requests</h1></center><hr><center>openresty</center></body></html>")
    assert api.v2("GET", "/configuration", token, device="another-device").status == 200
    assert api.control("GET", "state")["clients"] == 1  # control calls are never throttled
    time.sleep(1.1)
    assert api.v2("GET", "/configuration", token, device="burst").status == 200


def test_no_throttling_when_off(api: Api) -> None:
    token = api.new_access_token()
    statuses = {api.v2("GET", "/configuration", token, device="burst").status for _ in range(25)}
    assert statuses == {200}


# --- DCR and access tokens -----------------------------------------------------------------------

def test_expired_access_tokens_answer_401(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "expire-access-tokens")
    reply = api.v2("GET", "/configuration", token)
    assert reply.status == 401 and error_code(reply) == "invalid_access_token_client_application"
    assert reply.json["action"] == "application-registration"
    assert api.v2("GET", "/configuration", api.new_access_token()).status == 200

    api.control("POST", "config", {"access_token_ttl_s": 0})
    assert api.v2("GET", "/configuration", api.new_access_token()).status == 401
    for headers in ({"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}, {}):
        reply = api.request("GET", "/api/v2/REF30/configuration", headers={**headers, **device_headers()},
                            invalid="Authorization" not in headers)
        assert reply.status == 401


def test_invalidated_client_gets_invalid_client(api: Api) -> None:
    client = api.register().json
    token = api.token(client["client_id"], client["client_secret"]).json["access_token"]
    api.control("POST", "invalidate-client", {"client_id": client["client_id"]})
    refused = api.token(client["client_id"], client["client_secret"])
    assert refused.status == 400 and refused.json == {"error": "invalid_client"}
    assert api.v2("GET", "/configuration", token).status == 401
    assert api.token(client["client_id"], "wrong-secret").json == {"error": "invalid_client"}


def test_dcr_errors(api: Api) -> None:
    assert api.register(software_statement="not-a-jwt").json == {"error": "invalid_software_statement"}
    api.control("POST", "config", {"revoked_software_statements": ["aaa.bbb.ccc"]})
    assert api.register(software_statement="aaa.bbb.ccc").json == {"error": "unapproved_software_statement"}
    no_redirect = api.request("POST", "/o/client/register", json_body={"software_statement": "a.b.c"},
                              headers={"X-Device-Info": device_info()})
    assert no_redirect.status == 201 and no_redirect.json["redirect_uris"] == []  # erratum E11
    # No X-Device-Info: Adobe's header page lets a client omit it (the platform is then unknown); the
    # OpenAPI file requires it, and so does the strict mode.
    missing_header = api.request("POST", "/o/client/register", json_body={"software_statement": "a.b.c"},
                                 invalid=True)
    assert missing_header.status == 201
    api.control("POST", "config", {"strictness": "strict"})
    missing_header = api.request("POST", "/o/client/register", json_body={"software_statement": "a.b.c"},
                                 invalid=True)
    assert missing_header.json == {"error": "invalid_request"}
    strict_no_redirect = api.request("POST", "/o/client/register", json_body={"software_statement": "a.b.c"},
                                     headers={"X-Device-Info": device_info()}, invalid=True)
    assert strict_no_redirect.json == {"error": "invalid_redirect_uri"}  # dcrApi.json requires it (E11)
    api.control("POST", "config", {"strictness": "adobe"})
    wrong_type = api.request("POST", "/o/client/register", body='{"software_statement": "a.b.c"}',
                             headers={"X-Device-Info": device_info(), "Content-Type": "text/plain"},
                             invalid=True)
    assert wrong_type.json == {"error": "invalid_request"}

    client = no_redirect.json
    assert api.token(client["client_id"], client["client_secret"], "password").json == {
        "error": "unsupported_grant_type"}
    missing = api.request("POST", "/o/client/token", form={"client_id": client["client_id"]}, invalid=True)
    assert missing.status == 400 and missing.json == {"error": "invalid_request"}
    # The OpenAPI file's way (erratum E12) works, but the validator flags the secret in the URL.
    in_query = api.request("POST", "/o/client/token", invalid=True, query={
        "client_id": client["client_id"], "client_secret": client["client_secret"],
        "grant_type": "client_credentials"})
    assert in_query.status == 201
    flagged = validate_entries([e for e in api.log() if e["query"]])
    assert any("client_secret is sent in the query string" in p for p in flagged)


# --- V2 request validation -------------------------------------------------------------------------

def test_missing_or_bad_device_headers(api: Api) -> None:
    token = api.new_access_token()
    auth = {"Authorization": f"Bearer {token}"}
    good = device_headers()
    cases = [
        ({"X-Device-Info": good["X-Device-Info"]}, "invalid_header_device_identifier"),
        ({**good, "AP-Device-Identifier": "tv-1"}, "invalid_header_device_identifier"),
        ({**good, "AP-Device-Identifier": "fingerprint not*base64"}, "invalid_header_device_identifier"),
        ({**good, "X-Device-Info": "%%%"}, "invalid_header_device_info"),
        ({**good, "X-Device-Info": b64("not json")}, "invalid_header_device_info"),
        ({**good, "X-Device-Info": device_info(connectionType=None)}, "invalid_header_device_info"),
    ]
    requests = [
        ("POST", "/sessions", {"form": ALL_SESSION_PARAMS}),
        ("GET", "/profiles", {}),
        ("GET", "/profiles/Cablevision", {}),
        ("POST", "/decisions/authorize/Cablevision", {"json_body": {"resources": ["REF30"]}}),
        ("GET", "/logout/Cablevision", {"query": {"redirectUrl": REDIRECT_URL}}),
    ]
    for method, path, kwargs in requests:
        for headers, code in cases:
            reply = api.request(method, f"/api/v2/REF30{path}", headers={**auth, **headers},
                                invalid=True, **kwargs)
            assert (reply.status, error_code(reply)) == (400, code), (method, path, headers)
    # Without X-Device-Info: served by default (Adobe's header page: the platform is unknown),
    # refused in the strict mode (the OpenAPI file requires it).
    without_info = {**auth, "AP-Device-Identifier": good["AP-Device-Identifier"]}
    for strictness in ("adobe", "strict"):
        api.control("POST", "config", {"strictness": strictness})
        for method, path, kwargs in requests:
            reply = api.request(method, f"/api/v2/REF30{path}", headers=without_info, invalid=True, **kwargs)
            if strictness == "strict":
                assert (reply.status, error_code(reply)) == (400, "invalid_header_device_info"), (method, path)
            else:
                assert reply.status < 400 or error_code(reply) not in (
                    "invalid_header_device_info", "invalid_header_device_identifier"), (method, path, reply.json)
    api.control("POST", "config", {"strictness": "adobe"})
    session = api.request("POST", "/api/v2/REF30/sessions", headers=without_info, form=ALL_SESSION_PARAMS,
                          invalid=True)
    retrieved = api.request("GET", f"/api/v2/REF30/sessions/{session.json['code']}", headers=auth)
    assert retrieved.json["device"]["type"] == "Unknown", retrieved.json
    bad_optional = api.v2("GET", "/configuration", token,
                          headers={"X-Device-Info": b64("{}")}, invalid=True)
    assert error_code(bad_optional) == "invalid_header_device_info"


def test_decisions_request_checks(api: Api) -> None:
    token = api.new_access_token()
    path = "/decisions/preauthorize/Cablevision"
    for body in ({}, {"resources": []}, {"resources": "REF30"}, {"resources": [1]}, ["REF30"]):
        reply = api.v2("POST", path, token, json_body=body, invalid=True)
        assert (reply.status, error_code(reply)) == (400, "invalid_parameter_resources"), body
    not_json = api.v2("POST", path, token, body="resources=REF30",
                      headers={"Content-Type": "application/json"}, invalid=True)
    assert error_code(not_json) == "invalid_parameter_resources"
    wrong_type = api.v2("POST", path, token, body="resources=REF30", invalid=True,
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_unnamed_error(wrong_type)
    unknown = api.v2("POST", "/decisions/authorize/Nobody", token, json_body={"resources": ["REF30"]})
    assert error_code(unknown) == "invalid_parameter_mvpd"

    too_many = api.v2("POST", path, token, json_body={"resources": [f"r{i}" for i in range(6)]})
    assert (too_many.status, error_code(too_many), too_many.json["action"]) == (
        403, "too_many_resources", "configuration")
    api.control("POST", "config", {"authorize_limit": 1})
    too_many = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body={"resources": ["a", "b"]})
    assert error_code(too_many) == "too_many_resources"


def test_decisions_without_or_with_expired_profile(api: Api) -> None:
    token = api.new_access_token()
    missing = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body={"resources": ["REF30"]})
    decision = missing.json["decisions"][0]
    assert missing.status == 200 and decision["authorized"] is False and "token" not in decision
    assert (decision["error"]["code"], decision["error"]["status"], decision["error"]["action"]) == (
        "authenticated_profile_missing", 403, "authentication")

    api.login(api.create_session(token, **ALL_SESSION_PARAMS).json["code"])
    api.control("POST", "expire-profiles")
    assert api.v2("GET", "/profiles", token).json == {"profiles": {}}
    expired = api.v2("POST", "/decisions/preauthorize/Cablevision", token, json_body={"resources": ["REF30"]})
    assert expired.json["decisions"][0]["error"]["code"] == "authenticated_profile_expired"
    session = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert session["actionName"] == "authenticate"


def test_parameter_errors(api: Api) -> None:
    token = api.new_access_token()
    unknown_sp = api.request("GET", "/api/v2/NOPE/configuration",
                             headers={"Authorization": f"Bearer {token}", **device_headers()})
    assert (unknown_sp.status, error_code(unknown_sp)) == (400, "invalid_parameter_service_provider")
    unknown_mvpd = api.create_session(token, **{**ALL_SESSION_PARAMS, "mvpd": "Nobody"})
    assert error_code(unknown_mvpd) == "invalid_parameter_mvpd"
    no_redirect = api.v2("GET", "/logout/Cablevision", token, invalid=True)
    assert error_code(no_redirect) == "invalid_parameter_redirect_url"
    not_form = api.v2("POST", "/sessions", token, json_body=ALL_SESSION_PARAMS, invalid=True)
    assert_unnamed_error(not_form)
    for accept in ("application/json;charset=utf-8", "*/*", "text/html, application/json"):
        assert api.v2("GET", "/configuration", token, headers={"Accept": accept}).status == 200
    refused = api.v2("GET", "/configuration", token, headers={"Accept": "text/html"})
    assert_unnamed_error(refused)


def test_unknown_code_and_code_expiry(api: Api) -> None:
    token = api.new_access_token()
    for method, path in (("GET", "/sessions/NOCODE1"), ("POST", "/sessions/NOCODE1"),
                         ("GET", "/profiles/code/NOCODE1")):
        reply = api.v2(method, path, token, device=None, **({"form": {}} if method == "POST" else {}))
        assert (reply.status, error_code(reply)) == (400, "invalid_parameter_code")
    assert api.request("POST", "/_emulator/login", json_body={"code": "NOCODE1"}).status == 404
    unknown = api.request("GET", "/api/v2/authenticate/REF30/NOCODE1")
    assert unknown.status == 400 and unknown.headers["content-type"].startswith("text/html")

    api.control("POST", "config", {"code_ttl_s": 0.3})
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    assert api.v2("GET", f"/sessions/{code}", token, device=None).status == 200
    time.sleep(0.35)
    for method, path in (("GET", f"/sessions/{code}"), ("POST", f"/sessions/{code}"),
                         ("GET", f"/profiles/code/{code}")):
        reply = api.v2(method, path, token, device=None, **({"form": {}} if method == "POST" else {}))
        assert (reply.status, error_code(reply)) == (400, "invalid_authentication_session")
    assert api.request("GET", f"/api/v2/authenticate/REF30/{code}").status == 400
    assert api.request("GET", "/_emulator/mvpd/login", query={"code": code}).status == 410
    assert api.request("POST", "/_emulator/login", json_body={"code": code}).status == 410


def test_auto_login_simulates_the_viewer(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"auto_login_ms": 150})
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    without_mvpd = api.create_session(token, device="tv-2").json["code"]
    assert api.v2("GET", f"/profiles/code/{code}", token, device=None).json == {"profiles": {}}
    time.sleep(0.2)
    profiles = api.v2("GET", f"/profiles/code/{code}", token, device=None).json["profiles"]
    assert profiles["Cablevision"]["attributes"]["userID"]["value"].startswith("user-")
    assert api.v2("GET", f"/profiles/code/{without_mvpd}", token, device=None).json == {"profiles": {}}


def test_method_not_allowed_and_unknown_path(api: Api) -> None:
    token = api.new_access_token()
    wrong = api.request("DELETE", "/api/v2/REF30/profiles", headers={"Authorization": f"Bearer {token}"},
                        invalid=True)
    assert wrong.status == 405 and wrong.headers["allow"] == "GET"
    assert_unnamed_error(wrong, 405)  # Adobe defines no code for it (§7.3: "HTTP 405: wrong method")
    assert api.request("GET", "/o/client/register", invalid=True).status == 405
    assert api.request("GET", "/api/v2/REF30/nothing-here", invalid=True).status == 404
    assert_unnamed_error(api.request("GET", "/elsewhere", invalid=True), 404)


def test_keep_alive_serves_several_requests_on_one_connection(api: Api) -> None:
    connection = http.client.HTTPConnection(api.netloc, timeout=10)
    try:
        for _ in range(3):
            connection.request("GET", "/_emulator/logos/Cablevision.svg")
            response = connection.getresponse()
            assert response.status == 200 and response.read().startswith(b"<svg")
            assert response.getheader("Content-Length") is not None
        connection.request("GET", "/api/v2/REF30/configuration",
                           headers={"Authorization": "Bearer x", **device_headers()})
        assert connection.getresponse().status == 401
    finally:
        connection.close()


# --- control API, request log, process --------------------------------------------------------------

def test_request_log(api: Api) -> None:
    token = api.new_access_token()
    api.control("GET", "state")
    api.create_session(token, **ALL_SESSION_PARAMS)
    entries = api.log()
    assert [e["operation"] for e in entries] == [
        "processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST", "createSessionUsingPOST"]
    session = entries[2]
    assert session["method"] == "POST" and session["path"] == "/api/v2/REF30/sessions"
    assert session["status"] == 200 and session["query"] == ""
    assert session["headers"]["AP-Device-Identifier"] == device_headers()["AP-Device-Identifier"]
    assert parse_qs(session["body"]) == {k: [v] for k, v in ALL_SESSION_PARAMS.items()}
    assert session["device"] == device_headers()["AP-Device-Identifier"]
    assert session["client_id"] == entries[1]["client_id"] is not None
    assert isinstance(session["t_ms"], int) and session["elapsed_ms"] >= 0
    assert api.log(since=entries[1]["seq"]) == [session]
    api.request("GET", "/_emulator/logos/Dish.svg")
    assert api.log(since=session["seq"])[0]["operation"] == "page"
    api.control("POST", "log/clear")
    assert api.log() == []


def test_config_and_state(api: Api) -> None:
    config = api.control("POST", "config", {"latency_ms": 50, "denied_resources": {"X": "no"}})
    assert config["latency_ms"] == 50 and config["denied_resources"] == {"X": "no"}
    assert config["preauthorize_limit"] == 5  # merge keeps the other keys
    started = time.perf_counter()
    api.register()
    assert time.perf_counter() - started >= 0.05
    for bad in ({"nope": 1}, {"throttle": "yes"}, {"authorize_limit": 0}, {"auto_login_ms": "soon"}):
        assert api.request("POST", "/_emulator/config", json_body=bad).status == 400
    state = api.control("GET", "state")
    assert (state["clients"], state["access_tokens"], state["sessions"], state["profiles"]) == (1, 0, 0, 0)
    api.control("POST", "reset")
    assert api.control("GET", "state")["clients"] == 0
    assert api.control("GET", "config")["latency_ms"] == 50  # reset keeps the configuration
