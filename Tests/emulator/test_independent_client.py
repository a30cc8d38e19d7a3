"""The emulator against an independent REST API V2 client (`independent_client/adobe_pass_v2.py`).

The client was written only from Adobe's public pages (the REST API V2 digest, Adobe's OpenAPI
files and documented example exchanges), not from our SDK, our harnesses or the emulator's code:
if this flow passes, the emulator answers what Adobe documents, not only what our own reading
of the docs expects.

This file starts its own emulator process (`aepass.testing.EmulatorProcess`, not conftest's
fixtures), once per mode:
`default` (Adobe's documented leniencies) and `strict` (`--strict`: everything the OpenAPI files
mark required is required). The one thing not taken from Adobe's pages is the test glue that
completes the MVPD login: `POST /_emulator/login {"code"}` (the emulator's control API).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from independent_client.adobe_pass_v2 import AdobePassError, AdobePassV2, decision_for  # noqa: E402

from aepass.testing import EmulatorProcess  # noqa: E402 (the test glue, not the client)

REPO = HERE.parent.parent
SERVICE_PROVIDER = "REF30"
# Adobe's documented software statement (DCR "Retrieve client credentials" sample, the RFC 7591
# example), joined into one line: a compact JWT, which is what the emulator accepts.
SOFTWARE_STATEMENT = (
    "eyJhbGciOiJSUzI1NiJ9."
    "eyJzb2Z0d2FyZV9pZCI6IjROUkIxLTBYWkFCWkk5RTYtNVNNM1IiLCJjbGll"
    "bnRfbmFtZSI6IkV4YW1wbGUgU3RhdGVtZW50LWJhc2VkIENsaWVudCIsImNs"
    "aWVudF91cmkiOiJodHRwczovL2NsaWVudC5leGFtcGxlLm5ldC8ifQ."
    "GHfL4QNIrQwL18BSRdE595T9jbzqa06R9BT8w409x9oIcKaZo_mt15riEXHa"
    "zdISUvDIZhtiyNrSHQ8K4TvqWxH6uJgcmoodZdPwmWRIEYbQDLqPNxREtYn0"
    "5X3AR7ia4FRjQ2ojZjk5fJqJdQ-JcfxyhK-P8BAWBd6I2LLA77IG32xtbhxY"
    "fHX7VhuU5ProJO8uvu3Ayv4XRhLZJY4yKfmyjiiKiPNe-Ia4SMy_d_QSWxsk"
    "U5XIQl5Sa2YRPMbDRXttm2TfnZM1xx70DoYi8g6czz-CPGRi4SW_S2RKHIJf"
    "IjoI3zTJ0Y2oe0_EJAiXbL6OyF9S5tKxDXV8JIndSA"
)
REDIRECT_URL = "https://adobe.com"
# DCR register's `redirect_uri`: optional in Adobe's DCR page, required by dcrApi.json; sent, as
# Adobe's sample does, so that the client passes in strict mode too.
REDIRECT_URI = "adobepass://com.programmer"
# Requests sent wrong on purpose carry this header; they are left out of the validator's run.
INVALID_MARK = "X-Independent-Test-Invalid"
MODES = {"default": [], "strict": ["--strict"]}
# README "Defaults": `denied_resources` denies this resource.
DENIED_RESOURCE = "PREMIUM-DENIED"


class Emulator(EmulatorProcess):
    """The emulator in one mode (`aepass.testing.EmulatorProcess`), logging its requests to a file."""

    def __init__(self, mode: str, tmp: Path):
        self.mode = mode
        self.log_file = tmp / f"requests-{mode}.jsonl"
        super().__init__("--throttle", "off", "--log-file", str(self.log_file), *MODES[mode])
        self.base_url = self.url
        self.started = self.stderr_mark()


@pytest.fixture(scope="module", params=list(MODES))
def emulator(request, tmp_path_factory):
    emu = Emulator(request.param, tmp_path_factory.mktemp(f"independent-{request.param}"))
    yield emu
    emu.stop()


def new_client(emu: Emulator, device_id: str, **kwargs) -> AdobePassV2:
    kwargs.setdefault("redirect_uri", REDIRECT_URI)
    return AdobePassV2(emu.base_url, SERVICE_PROVIDER, SOFTWARE_STATEMENT, device_id, **kwargs)


def assert_enhanced_error(err: AdobePassError, status: int, codes, action: str | None = None):
    """§7.1: a top-level error body is the EEC object, `status` equal to the HTTP status."""
    assert err.is_enhanced, f"not an Enhanced Error Code body: {err.raw!r}"
    assert err.http_status == status and err.status == status, err
    assert err.code in (codes if isinstance(codes, (list, tuple, set)) else [codes]), err
    if action is not None:
        assert err.action == action, err
    assert isinstance(err.message, str) and err.message


def test_second_screen_flow(emulator: Emulator, tmp_path: Path):
    client = new_client(emulator, f"independent-box-{emulator.mode}")

    # DCR (§4.1, §4.2)
    registered = client.register()
    assert registered["client_id"] and registered["client_secret"]
    assert isinstance(registered.get("client_id_issued_at", 0), int)
    token = client.token()
    assert token["access_token"] and token.get("token_type", "bearer").lower() == "bearer"
    assert isinstance(token["expires_in"], int) and token["expires_in"] > 0

    # Configuration (§4.3): MVPDs under requestor, pick one that is not a TempPass MVPD.
    config = client.configuration()
    requestor = config["requestor"]
    assert requestor["id"] == SERVICE_PROVIDER
    mvpds = requestor["mvpds"]
    assert mvpds and all(isinstance(m["id"], str) and m["displayName"] for m in mvpds)
    mvpd = next(m["id"] for m in mvpds if not m.get("isTempPass"))
    domain = requestor["domains"][0]["name"]

    # Create session with every parameter (§4.4 sample 1): authenticate / interactive + code.
    session = client.create_session(mvpd=mvpd, domain_name=domain, redirect_url=REDIRECT_URL)
    assert (session["actionName"], session["actionType"], session["reasonType"]) == \
        ("authenticate", "interactive", "none")
    code = session["code"]
    assert session["url"] == f"/api/v2/authenticate/{SERVICE_PROVIDER}/{code}"
    assert session["serviceProvider"] == SERVICE_PROVIDER and session["mvpd"] == mvpd
    assert session["sessionId"]
    # Sessions answers carry notBefore / notAfter as JSON strings of ms (§3).
    assert isinstance(session["notBefore"], str) and isinstance(session["notAfter"], str)
    assert int(session["notAfter"]) > int(session["notBefore"])

    # Poll by code before the login: the map is empty (§4.10).
    assert client.profile_for_code(code)["profiles"] == {}

    # Test glue (not Adobe's): the viewer signs in at the MVPD on the second screen.
    emulator.control("POST", "login", {"code": code})

    # Poll by code until the profile comes (§8.3 step 2).
    deadline = time.monotonic() + 5
    while True:
        by_code = client.profile_for_code(code)["profiles"]
        if by_code or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert list(by_code) == [mvpd]
    profile = by_code[mvpd]
    assert profile["type"] == "regular" and profile["issuer"] == mvpd
    assert isinstance(profile["notBefore"], int) and profile["notAfter"] > profile["notBefore"]
    assert profile["attributes"]["userID"]["state"] in ("plain", "enc")

    # Profiles (§4.8) and profiles/{mvpd} (§4.9).
    assert client.profiles()["profiles"][mvpd]["type"] == "regular"
    assert list(client.profiles(mvpd)["profiles"]) == [mvpd]

    # Preauthorize several resources (§4.11): no token, item-level errors on denials.
    resources = [SERVICE_PROVIDER, "independent-resource-1", DENIED_RESOURCE]
    preauth = client.preauthorize(mvpd, resources)
    assert sorted(d["resource"] for d in preauth["decisions"]) == sorted(resources)
    for decision in preauth["decisions"]:
        assert decision["serviceProvider"] == SERVICE_PROVIDER and decision["mvpd"] == mvpd
        assert decision["source"] in ("mvpd", "degradation", "temppass", "dummy")
        assert "token" not in decision
    permit = decision_for(preauth, SERVICE_PROVIDER)
    assert permit["authorized"] is True and "error" not in permit
    assert decision_for(preauth, "independent-resource-1")["authorized"] is True
    deny = decision_for(preauth, DENIED_RESOURCE)
    assert deny["authorized"] is False
    assert deny["error"]["status"] == 403 and deny["error"]["action"] == "none"
    assert deny["error"]["code"] == "preauthorization_denied_by_mvpd"

    # Authorize (§4.12): a media token on the permit.
    authz = client.authorize(mvpd, [SERVICE_PROVIDER])
    decision = decision_for(authz, SERVICE_PROVIDER)
    assert decision["authorized"] is True and decision["source"] == "mvpd"
    media = decision["token"]
    assert media["notAfter"] > media["notBefore"]
    assert base64.b64decode(media["serializedToken"], validate=True)
    denied = decision_for(client.authorize(mvpd, [DENIED_RESOURCE]), DENIED_RESOURCE)
    assert denied["authorized"] is False and "token" not in denied
    assert denied["error"]["code"] == "authorization_denied_by_mvpd" and denied["error"]["status"] == 403

    # Logout (§4.13), then the profiles are gone.
    logouts = client.logout(mvpd, REDIRECT_URL)["logouts"]
    action = logouts[mvpd]
    assert action["mvpd"] == mvpd
    assert (action["actionName"], action["actionType"]) in {("logout", "interactive"), ("complete", "none")}
    if action["actionName"] == "logout":
        assert action["url"]
    assert client.profiles()["profiles"] == {}
    assert client.profiles(mvpd)["profiles"] == {}

    # Documented top-level errors (§7.2), raised with their Enhanced Error Code fields.
    with pytest.raises(AdobePassError) as err:
        new_sp = new_client(emulator, "other")
        new_sp.access_token = client.access_token
        new_sp.service_provider = "NOSUCHSP"
        new_sp.configuration()
    assert_enhanced_error(err.value, 400, "invalid_parameter_service_provider", "none")
    with pytest.raises(AdobePassError) as err:
        bad = new_client(emulator, "other")
        bad.access_token = "not-a-token"
        bad.profiles()
    assert_enhanced_error(err.value, 401, ["invalid_access_token_service_provider",
                                           "invalid_access_token_client_application"],
                          "application-registration")
    with pytest.raises(AdobePassError) as err:
        client.profile_for_code("ZZZZZZZ")
    assert_enhanced_error(err.value, 400, ["invalid_authentication_session", "invalid_parameter_code"],
                          "none")

    # Every request of the flow is valid against Adobe's OpenAPI files.
    validate_logged_requests(emulator, tmp_path)


def test_register_without_device_info(emulator: Emulator):
    """Adobe's X-Device-Info page: a client may omit it (the platform is then "unknown"); the
    OpenAPI file marks it required on DCR register. Default mode follows the page, strict the file
    (a DCR error is OAuth-style: 400 {"error": "invalid_request"}, §4.1)."""
    client = new_client(emulator, "no-device-info", send_device_info=False,
                        extra_headers={INVALID_MARK: "1"})
    if emulator.mode == "default":
        registered = client.register()
        assert registered["client_id"] and registered["client_secret"]
    else:
        with pytest.raises(AdobePassError) as err:
            client.register()
        assert err.value.http_status == 400
        assert err.value.body == {"error": "invalid_request"}, err.value


def validator_command(log: Path) -> list[str]:
    script = REPO / "Emulator" / "validate_requests.py"
    if script.exists():
        return [sys.executable, str(script), str(log)]
    return [sys.executable, "-m", "aepass.validate_requests", str(log)]  # after the package move


def validate_logged_requests(emulator: Emulator, out_dir: Path) -> None:
    """Every request logged so far, except the ones sent wrong on purpose, passes
    `Emulator/validate_requests.py` (Adobe's OpenAPI files, errata applied), and the emulator
    wrote no traceback."""
    entries = [json.loads(line) for line in emulator.log_file.read_text().splitlines() if line.strip()]
    assert entries, "nothing logged"
    keep = [e for e in entries
            if INVALID_MARK.lower() not in {k.lower() for k in (e.get("headers") or {})}]
    log = out_dir / "valid-requests.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in keep))
    run = subprocess.run(validator_command(log), cwd=REPO / "Emulator", capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in emulator.stderr_since(emulator.started)


def test_logged_requests_validate(emulator: Emulator, tmp_path: Path):
    """After every test of the mode: the whole log validates."""
    validate_logged_requests(emulator, tmp_path)
