# SPDX-License-Identifier: Apache-2.0
"""The AccessEnabler flows through the real .so (ctypes) against the emulator, on both REST API
generations (V2, and the legacy V1): the host sees the same calls and callbacks; only the wire
differs (`wire`: the emulator's operation names)."""
import base64
import threading

import pytest

from conftest import HTTPS, login
from harness import SOFTWARE_STATEMENT, ae

pytestmark = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)


def test_full_sequence(ready_client, recorder, emulator, wire):
    client = ready_client
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)

    client.get_authentication()
    mvpds = recorder.wait("display_provider_dialog")[0]
    v1_only = ["TempPass"] if wire.api == "v1" else []  # V1's MVPD list also has Adobe's sample pseudo-MVPD
    assert [m["ID"] for m in mvpds] == ["Cablevision", "Comcast_SSO", "Spectrum", "DTV", "Dish", "TempPass_TEST40",
                                        "flexibleTempPass"] + v1_only
    assert mvpds[0]["displayName"] == "Optimum" and mvpds[0]["logoURL"].endswith("/_emulator/logos/Cablevision.svg")

    client.set_selected_provider("Cablevision")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    assert regcode["level"] == "info" and regcode["mvpd"] == "Cablevision"
    assert regcode["url"].startswith(f"{emulator.client_url}{wire.login_path}")
    assert wire.login_url_code(regcode["url"]) == regcode["code"]
    assert regcode["notAfter"] > 0
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status", lambda s, c: s == 1) == (1, "")

    client.get_authorization("LIVE")
    token, resource = recorder.wait("set_token")
    assert resource == "LIVE"
    assert b"<resourceID>LIVE</resourceID>" in base64.b64decode(token)

    client.check_preauthorized_resources(["LIVE", "PREMIUM-DENIED", "SPORTS"])
    assert recorder.wait("preauthorized_resources") == (["LIVE", "SPORTS"],)

    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "zip"})
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "householdID"})
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    client.get_metadata({"opCode": ae.METADATA_AUTHENTICATION})
    client.get_metadata({"opCode": ae.METADATA_AUTHORIZATION, "resource_id": "LIVE"})
    client.set_options({"deviceIdMetadata": True})  # Adobe enabled the device id metadata for the integration
    client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    recorder.wait("set_metadata_status", count=6)
    metadata = recorder.of("set_metadata_status")
    assert metadata[0] == (["10001", "10002"], False, 3, {"opCode": 3, "user_metadata_name": "zip"})
    assert metadata[1][1] is True  # householdID is encrypted with the programmer's key
    assert metadata[2][0] == "Cablevision"  # tokenSource of a regular profile: its issuer
    assert isinstance(metadata[3][0], int) and metadata[3][0] > 0  # authN expiry, ms since the epoch
    assert isinstance(metadata[4][0], int) and metadata[4][0] > metadata[3][0] - 10**9  # authZ expiry
    assert metadata[5][0] == "tv-device-1"

    client.logout()
    recorder.wait("set_authentication_status", lambda s, c: s == 0, count=2)
    if wire.api == "v2":
        logout_status = recorder.find_status("LOGOUT")
        assert "/adobe-services/logout?" in logout_status["url"]
    else:
        assert recorder.find_status("LOGOUT") is None  # V1 logs out at Adobe only (no MVPD logout page)
    client.check_authentication()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0, count=3) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)

    logout_page = ["status"] if wire.api == "v2" else []
    assert recorder.names() == [
        "set_requestor_complete", "set_authentication_status", "display_provider_dialog", "status",
        "set_authentication_status", "set_token", "preauthorized_resources"] + ["set_metadata_status"] * 6 + \
        logout_page + ["set_authentication_status", "set_authentication_status"]
    assert emulator.operations()[-1] == wire.logout
    recorder.wait("send_tracking_data", count=5)  # the last one follows the last status callback
    tracking = [args[0] for args in recorder.of("send_tracking_data")]
    assert tracking == [ae.TRACKING_AUTHENTICATION, ae.TRACKING_MVPD_SELECTION, ae.TRACKING_AUTHENTICATION,
                        ae.TRACKING_AUTHORIZATION, ae.TRACKING_AUTHENTICATION]


def test_callbacks_run_on_one_internal_thread_never_inside_the_call(ready_client, recorder, emulator):
    caller = threading.get_ident()
    seen_inside = []
    recorder.hooks["set_authentication_status"] = lambda *a: seen_inside.append(threading.get_ident())
    ready_client.check_authentication()
    assert not recorder.of("set_authentication_status") or recorder.threads != {caller}
    recorder.wait("set_authentication_status")
    assert len(recorder.threads) == 1 and caller not in recorder.threads
    assert seen_inside and seen_inside[0] != caller


def test_calls_from_inside_a_callback(make_client, recorder):
    client = make_client()
    recorder.hooks["set_requestor_complete"] = lambda status: client.check_authentication()
    client.set_requestor("REF30")
    assert recorder.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)


def test_cancel(ready_client, recorder, emulator):
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    ready_client.set_selected_provider(None)
    assert recorder.wait("set_authentication_status") == (0, ae.PROVIDER_NOT_SELECTED_ERROR)
    assert recorder.find_status("N005")["level"] == "info"
    emulator.clear_log()
    recorder.settle(2.5)  # two polling intervals: polling has stopped
    assert emulator.operations() == []
    ready_client.get_selected_provider()
    assert recorder.wait("selected_provider") == (None,)


def test_code_expiry(ready_client, recorder, emulator):
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("Spectrum")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    emulator.advance_clock(emulator.config()["code_ttl_s"] * 1000)  # the code's lifetime is over at Adobe
    assert recorder.wait("set_authentication_status", timeout=20) == (0, ae.GENERIC_AUTHENTICATION_ERROR)
    expired = recorder.find_status("N130")
    assert expired["level"] == "error"
    assert expired["enhancedError"]["code"] in ("invalid_authentication_session", "authentication_session_expired")


@pytest.mark.slow
def test_polling_adobe_is_never_faster_than_every_3_seconds(make_client, recorder, emulator, wire):
    """Adobe documents 3–5 s: a poll interval of 1 s is raised to 3 s for Adobe's service (here
    https://sp.auth.adobe.com, carried to the emulator by a host transport); only a loopback
    service URL (an emulator, as the other tests use) may poll faster."""
    from accessenabler.transport import HttpClientTransport

    class ToEmulator(HttpClientTransport):
        def send(self, request, reply):
            host = "https://sp.auth.adobe.com" if wire.api == "v2" else "https://api.auth.adobe.com"
            super().send({**request, "url": request["url"].replace(host, emulator.url)}, reply)

    client = make_client(base_url=None, transport=ToEmulator(), poll_interval_ms=1000)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    polls = []
    while len(polls) < 3:
        recorder.settle(0.5)
        polls = [e["t_ms"] for e in emulator.log() if e["operation"] == wire.poll]
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status", timeout=10) == (1, "")
    gaps = [later - earlier for earlier, later in zip(polls, polls[1:])]
    assert min(gaps) >= 3000 - 50, gaps


def test_denied_resource(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    ready_client.get_authorization("PREMIUM-DENIED")
    resource, code, description = recorder.wait("token_request_failed")
    assert (resource, code) == ("PREMIUM-DENIED", ae.USER_NOT_AUTHORIZED_ERROR)
    assert "Premium" in description
    denial = recorder.find_status("Z100")
    assert denial["enhancedError"]["code"] == "authorization_denied_by_mvpd"
    assert denial["enhancedError"]["status"] == 403 and denial["enhancedError"]["action"] == "none"
    # the status comes right before the failure callback, so the host knows why when it fails
    assert recorder.names()[-2:] == ["status", "token_request_failed"]


def test_restart_persistence_with_zero_requests(make_client, recorder, emulator, tmp_path, wire):
    store = str(tmp_path / "store.sqlite")
    first = make_client(storage_path=store)
    first.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    login(first, recorder, emulator)
    first.close()

    emulator.clear_log()
    second_recorder = type(recorder)()
    second = make_client(delegate=second_recorder, storage_path=store)
    second.set_requestor("REF30")
    assert second_recorder.wait("set_requestor_complete") == (1,)
    second.check_authentication()
    assert second_recorder.wait("set_authentication_status") == (1, "")
    second.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "zip"})
    assert second_recorder.wait("set_metadata_status")[0] == ["10001", "10002"]
    # V1's token carries no user metadata: the first getMetadata reads it (once, for good)
    metadata = ["v1UserMetadata"] if wire.api == "v1" else []
    assert emulator.operations() == metadata
    second.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "householdID"})
    second_recorder.wait("set_metadata_status", count=2)
    assert emulator.operations() == metadata

    second.get_authorization("LIVE")  # the stored access token is still good: the decision's requests only
    second_recorder.wait("set_token")
    assert emulator.operations() == metadata + wire.authorize()
    second.get_authorization("LIVE")  # V1: Adobe holds the authorization now: the media token alone
    second_recorder.wait("set_token", count=2)
    assert emulator.operations() == metadata + wire.authorize() + wire.authorize(cached=True)


def test_expired_access_token_is_renewed_once(ready_client, recorder, emulator, wire):
    login(ready_client, recorder, emulator)
    emulator.control("POST", "expire-access-tokens")
    emulator.clear_log()
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    log = emulator.log()
    first, *rest = wire.authorize()
    assert [(e["operation"], e["status"]) for e in log] == [
        (first, 401), (wire.token, 201), (first, 200)] + [(operation, 200) for operation in rest]


def test_invalid_client_registers_again(ready_client, recorder, emulator, wire):
    client_id = emulator.log()[0]["client_id"] or next(e["client_id"] for e in emulator.log() if e["client_id"])
    emulator.control("POST", "invalidate-client", {"client_id": client_id})
    emulator.clear_log()
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    if wire.api == "v2":  # the token request says invalid_client
        assert emulator.operations()[:4] == [wire.session, wire.token, wire.register, wire.token]
    else:  # V1 answers the call itself 403 invalid_client (DCR's table for protected calls)
        assert emulator.operations()[:4] == [wire.session, wire.register, wire.token, wire.session]


def test_get_authorization_starts_authentication(ready_client, recorder, emulator):
    ready_client.get_authorization("LIVE")
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("DTV")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    recorder.wait("set_token")
    assert recorder.names()[-2:] == ["set_authentication_status", "set_token"]


def test_check_authorization_does_not_authenticate(ready_client, recorder):
    ready_client.check_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    assert "display_provider_dialog" not in recorder.names()


def test_already_authenticated_get_authentication_answers_at_once(ready_client, recorder, emulator, wire):
    first = login(ready_client, recorder, emulator)
    emulator.clear_log()
    ready_client.get_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    assert emulator.operations() == []
    ready_client.get_authentication(force_authn=True)
    recorder.wait("display_provider_dialog", count=2)
    ready_client.set_selected_provider("Cablevision")
    if wire.api == "v2":
        # force_authn runs the flow; Adobe already has the profile: "authorize", no code to show
        assert recorder.wait("set_authentication_status", count=3) == (1, "")
        assert emulator.operations() == ["createSessionUsingPOST", "getProfileForMvpdUsingGET"]
        assert len([s for s in recorder.statuses() if s["errorId"] == "REGCODE"]) == 1
    else:
        # V1 has no such answer: a new code, and the token the device already had does not end it
        regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE", count=2)[0]
        assert regcode["code"] != first["code"]
        recorder.settle(1.5)  # a poll has seen the old token
        assert len(recorder.of("set_authentication_status")) == 2
        emulator.login(regcode["code"])
        assert recorder.wait("set_authentication_status", count=3) == (1, "")
        assert emulator.operations()[0] == wire.session and set(emulator.operations()[1:]) == {wire.poll}


def test_browser_mode_completes_with_handle_external_url(make_client, recorder, emulator, wire):
    client = make_client(login_mode=ae.AE_LOGIN_BROWSER, poll_interval_ms=60000)
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    url = recorder.wait("navigate_to_url")[0]
    code = wire.login_url_code(url)
    emulator.login(code)
    client.handle_external_url("adobepass://android.app")
    assert recorder.wait("set_authentication_status", timeout=5) == (1, "")
    assert recorder.find_status("REGCODE") is None


def test_handle_external_url_without_a_login(ready_client, recorder):
    ready_client.handle_external_url("adobepass://android.app")
    assert recorder.wait("set_authentication_status") == (0, ae.GENERIC_AUTHENTICATION_ERROR)
    assert recorder.find_status("N130") is not None


def test_device_id_change_invalidates_profiles(make_client, recorder, emulator, tmp_path):
    store = str(tmp_path / "store.sqlite")
    first = make_client(storage_path=store)
    first.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    login(first, recorder, emulator)
    first.close()
    other = type(recorder)()
    second = make_client(delegate=other, storage_path=store, device_id="another-device")
    second.set_requestor("REF30")
    assert other.wait("set_requestor_complete") == (1,)
    assert other.find_status("SEC412")["level"] == "warning"
    second.check_authentication()
    assert other.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)


def test_derived_device_id_is_stable_across_restarts(make_client, recorder, tmp_path):
    store = str(tmp_path / "store.sqlite")
    ids = []
    for _ in range(2):
        rec = type(recorder)()
        client = make_client(delegate=rec, storage_path=store, device_id=None)
        client.set_requestor("REF30")
        rec.wait("set_requestor_complete")
        client.set_options({"deviceIdMetadata": True})
        client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
        ids.append(rec.wait("set_metadata_status")[0])
        client.close()
    assert ids[0] == ids[1] and len(ids[0]) == 64


def test_set_options_reach_the_wire(make_client, recorder, emulator, wire):
    client = make_client()
    client.set_options({"visitorID": "ecid-123", "applicationProfile": "tv", "handleSVC": True,
                        "device_info": {"model": "Box 2", "version": "2", "osName": "Linux", "osVersion": "6.1",
                                        "connectionType": "LAN", "primaryHardwareType": "SetTopBox"}})
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    log = emulator.log()
    profiles = next(e for e in log if e["operation"] == wire.profiles)
    assert b"Box 2" in base64.b64decode(profiles["headers"]["X-Device-Info"])
    if wire.api == "v2":
        configuration = next(e for e in log if e["operation"] == wire.configuration)
        assert configuration["query"] == "profile=tv"
        assert profiles["headers"]["AP-Visitor-Identifier"] == "ecid-123"
        assert profiles["headers"]["AP-Device-Identifier"] == "fingerprint " + base64.b64encode(b"tv-device-1").decode()
    else:
        # V1 has no application profile or visitor header; the device id is a parameter
        assert "deviceId=tv-device-1" in profiles["query"].split("&")
        assert all("AP-Visitor-Identifier" not in e["headers"] for e in log)


def test_service_providers(make_client, recorder, emulator):
    client = make_client(base_url="https://unused.invalid")
    client.set_requestor("REF30", [emulator.url])
    assert recorder.wait("set_requestor_complete") == (1,)
    try:
        client.set_requestor("REF30", ["http://sp.auth.adobe.com"])
        raise AssertionError("http to a non-loopback host must be refused")
    except ae.AEError as error:
        assert error.status == ae.AE_E_INSECURE_URL


@pytest.mark.slow
def test_throttle_is_honoured(make_client, recorder, emulator, wire):
    emulator.config(throttle=True, preauthorize_limit=1)
    # no client-side pacing: the emulator's 429s are what slows it down. V2 learns the limit from
    # Adobe's too_many_resources; V1's legacy answers do not name it: the integration's limit is configured.
    client = make_client(preauthorize_limit=1 if wire.api == "v1" else 0)
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    login(client, recorder, emulator)
    resources = [f"R{i}" for i in range(12)]
    client.check_preauthorized_resources(resources)
    assert recorder.wait("preauthorized_resources", timeout=60) == (resources,)
    statuses = [e["status"] for e in emulator.log()]
    assert 429 in statuses  # the burst was exceeded …
    assert recorder.find_status("P100") is None  # … and every decision still arrived


@pytest.mark.skipif(HTTPS is not None, reason="pacing is judged by arrival time: through a TLS front on a loaded "
                    "machine the first burst's handshakes can push it into the paced requests (plain http run checks it)")
def test_client_side_pacing_avoids_429(make_client, recorder, emulator):
    emulator.config(throttle=True)
    client = make_client(max_requests_per_second=0)  # Adobe's pacing: burst 10, then 1/s
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.check_preauthorized_resources([f"R{i}" for i in range(30)])
    recorder.wait("preauthorized_resources", timeout=60)
    assert 429 not in [e["status"] for e in emulator.log()]


def test_requestor_errors_are_named(make_client, recorder, emulator, wire):
    client = make_client()
    client.set_requestor("NOT-A-REQUESTOR")
    assert recorder.wait("set_requestor_complete") == (0,)
    expected = "invalid_parameter_service_provider" if wire.api == "v2" else "invalid_requestor"
    assert recorder.find_status("CFG400")["enhancedError"]["code"] == expected

    revoked = type(recorder)()
    emulator.config(revoked_software_statements=[SOFTWARE_STATEMENT])
    other = make_client(delegate=revoked, software_statement=SOFTWARE_STATEMENT, device_id="d2")
    other.set_requestor("REF30")
    assert revoked.wait("set_requestor_complete") == (0,)
    assert revoked.find_status("R400")["enhancedError"]["code"] == "unapproved_software_statement"
