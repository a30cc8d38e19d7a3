# SPDX-License-Identifier: Apache-2.0
"""TempPass (basic and promotional) and degraded access through the real .so (ctypes), against the
emulator's TempPass MVPDs (TempPass_TEST40 basic, flexibleTempPass promotional) and its degradation
rules (`degradation` config: AuthNAll, AuthZAll, AuthZNone).

Each flow's requests are asserted exactly: they are the request counts the SDK promises.
"""
import base64
import json
import time

import pytest

from conftest import login
from harness import CLOCK_SLACK_S, ae

from accessenabler.partner import PartnerSimulator

BASIC, PROMO = "TempPass_TEST40", "flexibleTempPass"
PROFILE_OP = "getProfileForMvpdUsingGET"
AUTHORIZE_OP = "retrieveAuthorizeDecisionsForMvpdUsingPOST"
PREAUTHORIZE_OP = "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1"
SESSION_OP = "createSessionUsingPOST"
LOGOUT_OP = "getLogoutForMvpdUsingGET"


def ids(recorder):
    return [s["errorId"] for s in recorder.statuses()]


def identity_headers(emulator, operation):
    return [e["headers"].get("AP-TempPass-Identity") for e in emulator.log() if e["operation"] == operation]


def select_temppass(client, recorder, emulator, mvpd=BASIC, data=None, count=1):
    """getAuthentication (with `data`) → dialog → the TempPass MVPD → N011 → 1."""
    client.get_authentication(data=data)
    recorder.wait("display_provider_dialog", count=count)
    client.set_selected_provider(mvpd)
    return recorder.wait("set_authentication_status", lambda s, c: s == 1)


# --- basic TempPass ----------------------------------------------------------------------------

def test_selecting_a_temppass_mvpd_authenticates_at_once(ready_client, recorder, emulator):
    emulator.clear_log()
    ready_client.set_selected_provider(BASIC)  # no getAuthentication, no second screen
    assert recorder.wait("set_authentication_status") == (1, "")
    n011 = recorder.find_status("N011")
    assert n011["level"] == "info" and n011["mvpd"] == BASIC and n011["notAfter"] > time.time() * 1000
    assert recorder.names() == ["set_requestor_complete", "status", "set_authentication_status"]
    assert emulator.operations() == [PROFILE_OP]  # one request: no session for a TempPass MVPD
    recorder.wait("send_tracking_data", count=2)
    assert [e for e, _ in recorder.of("send_tracking_data")] == [ae.TRACKING_MVPD_SELECTION, ae.TRACKING_AUTHENTICATION]

    ready_client.get_authorization("LIVE")
    token, resource = recorder.wait("set_token")
    assert b"<mvpdId>TempPass_TEST40</mvpdId>" in base64.b64decode(token)
    z011 = recorder.find_status("Z011")
    assert z011["level"] == "info" and recorder.names()[-2:] == ["status", "set_token"]
    assert emulator.operations() == [PROFILE_OP, AUTHORIZE_OP]

    ready_client.check_preauthorized_resources(["LIVE", "SPORTS"])
    assert recorder.wait("preauthorized_resources") == (["LIVE", "SPORTS"],)
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    assert ids(recorder) == ["N011", "Z011", "N011"]  # the status explains every positive answer
    ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Adobe"
    ready_client.get_selected_provider()
    assert recorder.wait("selected_provider")[0]["ID"] == BASIC

    # logout of a TempPass: no request (Adobe needs none), no MVPD logout page
    emulator.clear_log()
    ready_client.logout()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    recorder.settle()
    assert emulator.operations() == []
    assert recorder.find_status("LOGOUT") is None and "navigate_to_url" not in recorder.names()
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0, count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert "N111" not in ids(recorder)  # logged out, not expired


def test_temppass_from_the_provider_dialog(ready_client, recorder, emulator):
    ready_client.get_authentication()
    mvpds = {m["ID"]: m for m in recorder.wait("display_provider_dialog")[0]}
    assert mvpds[BASIC]["isTempPass"] is True and mvpds[PROMO]["isTempPass"] is True
    assert mvpds["Cablevision"]["isTempPass"] is False
    ready_client.set_selected_provider(BASIC)
    assert recorder.wait("set_authentication_status") == (1, "")
    assert recorder.find_status("REGCODE") is None and ids(recorder) == ["N011"]


def test_temppass_survives_a_restart_with_zero_requests(make_client, recorder, emulator, tmp_path):
    store = str(tmp_path / "store.sqlite")
    first = make_client(storage_path=store)
    first.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    first.set_selected_provider(BASIC)
    recorder.wait("set_authentication_status")
    first.close()
    emulator.clear_log()
    second_recorder = type(recorder)()
    second = make_client(delegate=second_recorder, storage_path=store)
    second.set_requestor("REF30")
    second.check_authentication()
    assert second_recorder.wait("set_authentication_status") == (1, "")
    assert ids(second_recorder) == ["N011"]
    assert emulator.operations() == []


@pytest.mark.slow
def test_expired_temppass_gives_n111(ready_client, recorder, emulator):
    emulator.config(temppass_ttl_s={BASIC: 1.5})
    ready_client.set_selected_provider(BASIC)
    assert recorder.wait("set_authentication_status") == (1, "")
    time.sleep(1.5 + CLOCK_SLACK_S)
    emulator.clear_log()
    ready_client.check_authentication()  # no request: the stored TempPass profile has expired
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    n111 = recorder.find_status("N111")
    assert n111["level"] == "warning" and n111["mvpd"] == BASIC and "enhancedError" not in n111
    assert recorder.names()[-2:] == ["status", "set_authentication_status"]
    assert emulator.operations() == []

    # getAuthentication: N111, then the dialog; choosing the TempPass again: Adobe says it is used up
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert ids(recorder)[-1] == "N111"
    ready_client.set_selected_provider(BASIC)
    assert recorder.wait("set_authentication_status", count=3) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    used_up = recorder.statuses()[-1]
    assert used_up["errorId"] == "N111"
    assert used_up["enhancedError"]["code"] == "temporary_access_duration_limit_exceeded"
    assert used_up["enhancedError"]["status"] == 403
    assert emulator.operations() == [PROFILE_OP]

    # another provider still works (REST API V2 needs no logout to switch)
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog", count=2)
    ready_client.set_selected_provider("Cablevision")
    emulator.login(recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]["code"])
    assert recorder.wait("set_authentication_status", lambda s, c: s == 1, count=2) == (1, "")


def test_temppass_used_up_during_authorization(ready_client, recorder, emulator):
    ready_client.set_selected_provider(BASIC)
    recorder.wait("set_authentication_status")
    emulator.control("POST", "temppass/expire", {"mvpd": BASIC})
    ready_client.check_authorization("LIVE")
    resource, code, description = recorder.wait("token_request_failed")
    assert (resource, code) == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    n111 = recorder.find_status("N111")
    assert n111["enhancedError"]["code"] == "temporary_access_duration_limit_exceeded"
    assert recorder.names()[-3:] == ["status", "set_authentication_status", "token_request_failed"]
    # from now on checkAuthentication says so too, without a request
    emulator.clear_log()
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", count=3) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert ids(recorder)[-1] == "N111" and emulator.operations() == []
    # getAuthorization starts a login instead (the provider dialog)
    ready_client.get_authorization("LIVE")
    recorder.wait("display_provider_dialog")


def test_temppass_configuration_error_is_named(ready_client, recorder, emulator):
    emulator.faults({"operation": PROFILE_OP, "kind": "enhanced_error", "code": "invalid_configuration_temporary_access"})
    ready_client.set_selected_provider(BASIC)
    assert recorder.wait("set_authentication_status") == (0, ae.GENERIC_AUTHENTICATION_ERROR)
    n500 = recorder.find_status("N500")
    assert n500["enhancedError"]["code"] == "invalid_configuration_temporary_access"
    assert n500["enhancedError"]["status"] == 500
    emulator.faults()
    ready_client.set_selected_provider(BASIC)
    recorder.wait("set_authentication_status", lambda s, c: s == 1)
    emulator.faults({"operation": AUTHORIZE_OP, "kind": "item_error", "code": "invalid_configuration_temporary_access"})
    ready_client.get_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR)
    assert recorder.find_status("Z500")["enhancedError"]["code"] == "invalid_configuration_temporary_access"


# --- promotional TempPass ----------------------------------------------------------------------

def test_promotional_temppass_identity_comes_from_get_authentication_data(ready_client, recorder, emulator):
    emulator.clear_log()
    assert select_temppass(ready_client, recorder, emulator, PROMO, data={"email": "foo@bar.com"}) == (1, "")
    assert ids(recorder) == ["N011"]
    documented = "eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0="  # Adobe's example value for {"email":"foo@bar.com"}
    assert identity_headers(emulator, PROFILE_OP) == [documented]
    assert emulator.operations() == [PROFILE_OP]
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    ready_client.check_preauthorized_resources(["LIVE", "SPORTS"])
    assert recorder.wait("preauthorized_resources") == (["LIVE", "SPORTS"],)
    assert identity_headers(emulator, AUTHORIZE_OP) == [documented]
    assert identity_headers(emulator, PREAUTHORIZE_OP) == [documented]
    assert ids(recorder) == ["N011", "Z011"]


def test_promotional_temppass_without_identity_is_named(ready_client, recorder, emulator):
    ready_client.set_selected_provider(PROMO)
    assert recorder.wait("set_authentication_status") == (0, ae.GENERIC_AUTHENTICATION_ERROR)
    n500 = recorder.find_status("N500")
    assert n500["enhancedError"]["code"] == "invalid_header_identity_for_temporary_access"
    assert n500["enhancedError"]["status"] == 400
    assert identity_headers(emulator, PROFILE_OP) == [None]


def test_promotional_temppass_resources_used_up(ready_client, recorder, emulator):
    emulator.config(temppass_resources={PROMO: 1})
    viewer = {"email": "viewer@example.com"}
    select_temppass(ready_client, recorder, emulator, PROMO, data=viewer)
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    emulator.clear_log()
    ready_client.check_authorization("SPORTS")  # a second resource: none left
    assert recorder.wait("token_request_failed")[:2] == ("SPORTS", ae.USER_NOT_AUTHENTICATED_ERROR)
    n111 = recorder.find_status("N111")
    assert n111["enhancedError"]["code"] == "temporary_access_resources_limit_exceeded"
    assert n111["message"] == "TempPass expired: its resources are used up."
    assert emulator.operations() == [AUTHORIZE_OP]
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0, count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert ids(recorder)[-1] == "N111"
    # the same viewer on another app of the device (or another device): Adobe says it is used up
    ready_client.get_authentication(data=viewer)
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider(PROMO)
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0, count=3) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert recorder.statuses()[-1]["enhancedError"]["code"] == "temporary_access_resources_limit_exceeded"
    # another viewer has a promotion of their own
    ready_client.get_authentication(data={"email": "other@example.com"})
    recorder.wait("display_provider_dialog", count=2)
    ready_client.set_selected_provider(PROMO)
    assert recorder.wait("set_authentication_status", lambda s, c: s == 1, count=2) == (1, "")


def test_the_identity_never_reaches_the_log(make_client, recorder, emulator):
    lines = []
    client = make_client(log=lambda level, message: lines.append(message), log_level=ae.AE_LOG_DEBUG)
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    email = "private.viewer@example.com"
    select_temppass(client, recorder, emulator, PROMO, data={"email": email})
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.close()
    header = base64.b64encode(json.dumps({"email": email}, separators=(",", ":")).encode()).decode()
    text = "\n".join(lines)
    assert lines and email not in text and header not in text and "private.viewer" not in text


# --- degradation -------------------------------------------------------------------------------

def test_authenticate_all(ready_client, recorder, emulator):
    emulator.config(degradation={"Cablevision": "AuthNAll"})
    emulator.clear_log()
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("Cablevision")
    assert recorder.wait("set_authentication_status") == (1, "")
    n010 = recorder.find_status("N010")
    assert n010["level"] == "warning" and n010["mvpd"] == "Cablevision"
    assert recorder.find_status("REGCODE") is None
    assert emulator.operations() == [SESSION_OP, PROFILE_OP]  # authorize/degraded, then the degraded profile
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    assert recorder.find_status("Z010")["level"] == "warning"
    assert recorder.names()[-2:] == ["status", "set_token"]
    ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Adobe"
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    assert ids(recorder) == ["N010", "Z010", "N010"]
    emulator.clear_log()
    ready_client.logout()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert emulator.operations() == [LOGOUT_OP] and recorder.find_status("LOGOUT") is None


def test_authorize_all(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    emulator.config(degradation={"Cablevision": "AuthZAll"})
    emulator.clear_log()
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    assert recorder.find_status("Z010")["level"] == "warning"
    assert emulator.operations() == [AUTHORIZE_OP]


def test_authorize_none(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    emulator.config(degradation={"Cablevision": "AuthZNone"})
    for call, count in ((ready_client.get_authorization, 1), (ready_client.check_authorization, 2)):
        call("LIVE")
        resource, code, description = recorder.wait("token_request_failed", count=count)
        assert (resource, code) == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR)
        assert "AuthZNone" in description
    z169 = recorder.find_status("Z169")
    assert z169["level"] == "error"
    assert z169["enhancedError"]["code"] == "authorization_denied_by_degradation_rule"
    assert recorder.names()[-2:] == ["status", "token_request_failed"]
    assert "set_authentication_status" not in recorder.names()[-4:]  # still authenticated


def test_partner_sso_with_a_degraded_mvpd_signed_in(make_client, recorder, emulator):
    """Apple SSO overview: no silent exchange of the platform account for a degraded MVPD; it
    authenticates through degradation instead (N010)."""
    emulator.config(degradation={"Comcast_SSO": "AuthNAll"})
    simulator = PartnerSimulator(account="Comcast")
    client = make_client(partner=simulator)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert recorder.names(include_tracking=True) == ["set_requestor_complete"]
    operations = emulator.operations()
    assert "retrieveVerificationTokenUsingPOST" in operations and "createPartnerProfileUsingPOST" not in operations
    assert not any(r.request.get("verificationToken") for r in simulator.received("enqueue"))  # no SAML asked
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    assert ids(recorder) == ["N010"]
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Adobe"


def test_partner_picker_with_a_degraded_mvpd(make_client, recorder, emulator):
    emulator.config(degradation={"Cablevision": "AuthNAll"})
    simulator = PartnerSimulator(picker="Cablevision")
    client = make_client(partner=simulator)
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("present_tv_provider_dialog")
    assert recorder.wait("set_authentication_status") == (1, "")
    assert ids(recorder) == ["N010"]
    assert emulator.operations() == ["retrieveVerificationTokenUsingPOST", PROFILE_OP]
    assert not any(r.request.get("verificationToken") for r in simulator.received("enqueue"))
