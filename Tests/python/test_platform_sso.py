# SPDX-License-Identifier: Apache-2.0
"""Platform-identity and service-token single sign-on end to end, through the C API, against the
emulator verifying real signatures (keys made at test time: Tests/tools/sso_tokens.py): a second app
or device of the same subject is signed in at setRequestor with no login step; Adobe refusing the
token lets the flow go on without SSO and says so (SSO400); logout with the token is a single logout.
docs/PLATFORM-SSO.md."""
import sys

import pytest
from conftest import login
from harness import ROOT, Recorder, ae

sys.path.insert(0, str(ROOT / "Tests/tools"))
# A missing test dependency fails the run (a collection error), never skips these tests: `cryptography`
# is pinned in .ci/run and installed by `scripts/deps.sh test` (test_test_dependencies.py checks this).
try:
    import sso_tokens  # noqa: E402
except ImportError as missing:
    raise ImportError(f"test_platform_sso.py needs the Python package cryptography ({missing}): "
                      "bash scripts/deps.sh test, or python3 -m pip install cryptography==48.0.0") from missing

both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)
PLATFORM, SERVICE = ae.AE_IDENTITY_TOKEN_PLATFORM, ae.AE_IDENTITY_TOKEN_SERVICE


@pytest.fixture
def issuer(emulator):
    issuer = sso_tokens.Issuer("platform.operator.example")
    emulator.config(platform_token_keys=issuer.config(), service_token_keys=issuer.config())
    return issuer


def app(make_client, tmp_path, name, kind, token, recorder=None):
    """An app (its own store and device id) that gives the SDK `token`, after setRequestor."""
    recorder = recorder or Recorder()
    client = make_client(delegate=recorder, storage_path=str(tmp_path / f"{name}.sqlite"), device_id=f"box-{name}")
    client.set_identity_token(kind, token)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    return client, recorder


def token_source(client, recorder):
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    return recorder.wait("set_metadata_status")[0]


def authenticated(client, recorder):
    count = len(recorder.of("set_authentication_status"))
    client.check_authentication()
    return recorder.wait("set_authentication_status", count=count + 1)


@both_apis
def test_a_second_app_of_the_platform_subject_is_signed_in_with_no_login(make_client, recorder, emulator, issuer,
                                                                         tmp_path, api):
    first, _ = app(make_client, tmp_path, "first", PLATFORM, issuer.platform_token("household-1"), recorder)
    login(first, recorder, emulator)  # the first app logs in as usual, sending the token
    emulator.clear_log()
    second, seen = app(make_client, tmp_path, "second", PLATFORM, issuer.platform_token("household-1"))
    assert authenticated(second, seen) == (1, "")
    assert "display_provider_dialog" not in seen.names()
    assert not [e for e in emulator.log() if e["operation"] in ("createSessionUsingPOST", "v1RegistrationCodeRequest")]
    # V1's answers do not say where a token came from: one this app did not make, found while the
    # platform identity went with the request, is reported as the platform's SSO (ProfileSync.mergedV1).
    assert token_source(second, seen) == "platformSSO"
    second.get_authorization("LIVE")
    assert seen.wait("set_token")[1] == "LIVE"
    # Another subject is not signed in.
    third, other = app(make_client, tmp_path, "third", PLATFORM, issuer.platform_token("household-2"))
    assert authenticated(third, other)[0] == 0


def test_a_service_token_follows_the_viewer_to_another_device(make_client, recorder, emulator, issuer, tmp_path):
    phone, _ = app(make_client, tmp_path, "phone", SERVICE, issuer.service_token("viewer-7"), recorder)
    login(phone, recorder, emulator)
    tv, seen = app(make_client, tmp_path, "tv", SERVICE, issuer.service_token("viewer-7"))
    assert authenticated(tv, seen) == (1, "")
    assert token_source(tv, seen) == "serviceTokenSSO"
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    assert profiles[-1]["sso"][0]["valid"] is True and profiles[-1]["sso"][0]["type"] == "serviceTokenSSO"


def test_adobe_refusing_the_token_lets_the_flow_go_on_without_sso_and_says_so(make_client, recorder, emulator,
                                                                             issuer, tmp_path):
    emulator.control("POST", "sso/refuse-next", {"header": "AD-Service-Token", "code": "invalid_header_service_token"})
    client, _ = app(make_client, tmp_path, "box", SERVICE, issuer.service_token("viewer-9"), recorder)
    status = recorder.find_status("SSO400")
    assert status is not None and status["level"] == "warning" and status["details"] == "invalid_header_service_token"
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    assert [p["status"] for p in profiles] == [400, 200]  # the same call again, without the token
    assert "sso" not in profiles[-1] or not profiles[-1]["sso"]
    # The flow goes on as a regular one: a login works, with no token on its calls.
    login(client, recorder, emulator)
    log = emulator.log()
    retried = max(i for i, e in enumerate(log) if e["operation"] == "getProfilesUsingGET_1")
    assert log[retried + 1:] and all(not e.get("sso") for e in log[retried:])


def test_an_invalid_token_adobe_ignores_is_a_regular_flow(make_client, recorder, emulator, issuer, tmp_path):
    other = sso_tokens.Issuer("platform.operator.example")  # the same name, another key: bad signature
    first, _ = app(make_client, tmp_path, "first", PLATFORM, issuer.platform_token("household-3"), recorder)
    login(first, recorder, emulator)
    forged, seen = app(make_client, tmp_path, "forged", PLATFORM, other.platform_token("household-3"))
    assert authenticated(forged, seen)[0] == 0


@both_apis
def test_logout_with_the_token_signs_every_app_of_the_subject_out(make_client, recorder, emulator, issuer, tmp_path,
                                                                  wire):
    first, _ = app(make_client, tmp_path, "first", PLATFORM, issuer.platform_token("household-4"), recorder)
    login(first, recorder, emulator)
    second, seen = app(make_client, tmp_path, "second", PLATFORM, issuer.platform_token("household-4"))
    assert authenticated(second, seen) == (1, "")
    first.logout()
    recorder.wait("set_authentication_status", lambda status, code: status == 0)
    told = recorder.find_status("SSO200")  # the host is told that this was a single logout
    assert told is not None and told["level"] == "info" and told["details"] == "Adobe-Subject-Token", told
    logouts = [e for e in emulator.log() if e["operation"] == wire.logout]
    assert logouts and logouts[-1]["sso"][0]["valid"] is True
    assert emulator.control("GET", "sso/profiles")["profiles"] == []
    # The second app's next decision finds no profile at Adobe: it is signed out too (N000), and
    # getAuthorization starts a login as AccessEnabler's does.
    second.get_authorization("LIVE")
    seen.wait("display_provider_dialog")
    # (V2: authenticated_profile_missing; V1: authentication_session_missing)
    assert seen.find_status("N000")["enhancedError"]["code"] in ("authenticated_profile_missing",
                                                                "authentication_session_missing")
    assert "set_token" not in seen.names()
    second.set_selected_provider(None)


@both_apis
def test_an_app_that_ran_before_finds_the_sso_profile_another_app_made_since(make_client, recorder, emulator, issuer,
                                                                              tmp_path, api):
    # Its stored (empty) profile list is fresh, but with a token and no profile the SDK asks Adobe
    # again at setRequestor: another app may have signed the subject in meanwhile.
    late, seen = app(make_client, tmp_path, "late", PLATFORM, issuer.platform_token("household-5"))
    assert authenticated(late, seen)[0] == 0
    first, _ = app(make_client, tmp_path, "first", PLATFORM, issuer.platform_token("household-5"), recorder)
    login(first, recorder, emulator)
    late.set_requestor("REF30")
    assert seen.wait("set_requestor_complete", count=2) == (1,)
    assert authenticated(late, seen) == (1, "")
