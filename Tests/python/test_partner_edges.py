# SPDX-License-Identifier: Apache-2.0
"""Partner single sign-on in its edge states (issue 16's review, V2 cookbook D.3/D.7/C.13, the iOS
cookbook's steps 3–4): a partner profile whose platform status lapsed, Adobe refusing the
platform's SAML or partner status, logout when Adobe fails, the partner status header's required
fields, and the platform told when the SDK stops waiting for it.

Emulator MVPDs (platformMappingId): Cablevision (Cablevision), Comcast_SSO (Comcast), Spectrum
(Spectrum, boardingStatus PICKER), DTV (no platform SSO).
"""
import base64
import json

import pytest

from conftest import both_apis
from harness import ae

from accessenabler.partner import PartnerSimulator

DECISION_OPS = {"retrieveAuthorizeDecisionsForMvpdUsingPOST", "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1",
                "v1InitiateAuthorization", "v1ObtainShortMediaToken", "v1Preauthorize"}
PROFILE_SSO = "createPartnerProfileUsingPOST"
SESSION_SSO = "retrieveVerificationTokenUsingPOST"


def ready(make_client, recorder, simulator, requestor="REF30", **options):
    client = make_client(partner=simulator, **options)
    client.set_requestor(requestor)
    assert recorder.wait("set_requestor_complete") == (1,)
    return client


def statuses(recorder):
    return [s["errorId"] for s in recorder.statuses()]


def pfs_of(entry):
    header = entry["headers"].get("AP-Partner-Framework-Status")
    return None if header is None else json.loads(base64.b64decode(header))


def signed_in_through_the_platform(make_client, recorder, emulator, **script):
    """A client whose setRequestor exchanged the platform's account for an Apple SSO profile."""
    simulator = PartnerSimulator(account="Comcast", **script)
    client = ready(make_client, recorder, simulator)
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Apple"
    return client, simulator


# --- 1. the platform's status lapses after a partner login --------------------------------------

LAPSES = {
    "permission revoked": dict(access="denied"),
    "signed out of the platform": dict(account=None, signed_in=False),
    "platform authentication expired": dict(expiration_ms=1_000),
}


@both_apis
@pytest.mark.parametrize("lapse", list(LAPSES))
def test_a_partner_profile_with_a_lapsed_platform_status_is_not_authenticated(make_client, recorder, emulator,
                                                                              lapse, api):
    """One predicate for every call: checkAuthentication, getAuthentication, checkAuthorization,
    getAuthorization and preauthorization all treat the partner profile as absent, and no decision
    request goes out (before the fix getAuthentication answered 1 and decisions went out without the
    partner status, coming back Z100)."""
    client, simulator = signed_in_through_the_platform(make_client, recorder, emulator)
    for name, value in LAPSES[lapse].items():
        setattr(simulator, name, value)
    emulator.clear_log()
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    client.check_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    client.check_preauthorized_resources(["LIVE", "NEWS"])
    assert recorder.wait("preauthorized_resources") == ([],)
    got = []
    client.preauthorize({"resources": ["LIVE"]}, lambda response: got.append(response))
    recorder.settle(1.0)
    assert got and got[0]["decisions"][0]["authorized"] is False
    client.get_metadata({"opCode": ae.METADATA_AUTHENTICATION})
    assert recorder.wait("set_metadata_status", count=2)[0] is None
    client.get_authentication()  # starts a login instead of answering 1 from the stored profile
    recorder.wait("display_provider_dialog")
    assert recorder.of("set_authentication_status")[1:] == [(0, ae.USER_NOT_AUTHENTICATED_ERROR)]
    assert not DECISION_OPS & set(emulator.operations())


@both_apis
def test_a_lapsed_partner_status_still_counts_after_set_requestor_again(make_client, recorder, emulator, api):
    """Within the profile-sync window setRequestor does not ask Adobe again; the stored partner
    profile must still not count once the platform's permission is gone."""
    client, simulator = signed_in_through_the_platform(make_client, recorder, emulator)
    simulator.access = "denied"
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)
    emulator.clear_log()
    client.get_authorization("LIVE")
    recorder.wait("display_provider_dialog")
    assert "set_token" not in recorder.names()
    assert not DECISION_OPS & set(emulator.operations())


def test_decisions_wait_for_a_fresh_status_and_go_out_when_it_is_back(make_client, recorder, emulator):
    client, simulator = signed_in_through_the_platform(make_client, recorder, emulator)
    simulator.access = "denied"
    client.check_authentication()
    recorder.wait("set_authentication_status", count=2)
    simulator.access = "granted"
    client.check_authentication()  # asks again: the profile counts once more
    assert recorder.wait("set_authentication_status", count=3) == (1, "")
    emulator.clear_log()
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    (decision,) = [e for e in emulator.log() if e["operation"] in DECISION_OPS]
    assert pfs_of(decision)["frameworkProviderInfo"]["id"] == "Comcast"


@pytest.mark.parametrize("code,error_id", [
    ("invalid_header_pfs_permission_access_not_granted", "VSA403"),
    ("invalid_header_pfs_permission_access_not_determined", "VSA404"),
    ("invalid_header_pfs_provider_info_expired", "N000"),
    ("invalid_header_pfs_provider_id_mismatch", "N000"),
])
def test_adobe_refusing_the_partner_status_means_not_authenticated(make_client, recorder, emulator, code, error_id):
    """Adobe's invalid_header_pfs_* answers name authentication problems, never Z100."""
    client, _ = signed_in_through_the_platform(make_client, recorder, emulator)
    emulator.faults({"operation": "retrieveAuthorizeDecisionsForMvpdUsingPOST", "kind": "enhanced_error", "code": code})
    client.check_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    status = recorder.find_status(error_id)
    assert status and status["enhancedError"]["code"] == code
    assert "Z100" not in statuses(recorder)


# --- 2. Adobe refuses the platform's SAML (profiles/sso) -----------------------------------------

def picker_login(make_client, recorder, emulator, simulator=None):
    client = ready(make_client, recorder, simulator or PartnerSimulator(signed_in=False, picker="Cablevision"))
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    return client


@pytest.mark.parametrize("code", ["invalid_parameter_saml_response", "invalid_header_pfs_provider_info_expired"])
def test_adobe_refusing_the_saml_falls_back_to_the_provider_dialog(make_client, recorder, emulator, code):
    """V2 cookbook C.13 (and our V1 path): VSA503 with the context in its message, then the regular
    flow; before the fix: REG500 and a failed login."""
    emulator.faults({"operation": PROFILE_SSO, "kind": "enhanced_error", "code": code, "status": 400, "action": "none"})
    client = picker_login(make_client, recorder, emulator)
    assert statuses(recorder) == ["VSA503"]
    vsa503 = recorder.find_status("VSA503")
    assert code in vsa503["message"] and "SAML" in vsa503["message"]
    assert recorder.names()[-2:] == ["status", "display_provider_dialog"]
    assert "set_authentication_status" not in recorder.names()
    client.set_selected_provider("DTV")  # the regular flow goes on
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status") == (1, "")


class AnswersForAnotherProvider(PartnerSimulator):
    """Answers the SAML step for another provider than the one picked (or with a lapsed expiry)."""

    def __init__(self, provider=None, expiration=None, **script):
        super().__init__(**script)
        self.saml_provider, self.saml_expiration = provider, expiration

    def metadata_answer(self, request):
        answer = super().metadata_answer(request)
        if request.get("verificationToken") and answer[0] == "metadata":
            metadata = dict(answer[1])
            if self.saml_provider:
                metadata["accountProviderIdentifier"] = self.saml_provider
            if self.saml_expiration:
                metadata["authenticationExpirationDate"] = self.saml_expiration
            return ("metadata", metadata)
        return answer


@pytest.mark.parametrize("script,context", [
    (dict(provider="Comcast"), "not Cablevision"),
    (dict(expiration=1_000), "expired"),
])
def test_the_platforms_answer_is_checked_again_after_the_saml_step(make_client, recorder, emulator, script, context):
    simulator = AnswersForAnotherProvider(signed_in=False, picker="Cablevision", **script)
    picker_login(make_client, recorder, emulator, simulator)
    assert statuses(recorder) == ["VSA503"] and context in recorder.find_status("VSA503")["message"]
    assert PROFILE_SSO not in emulator.operations()  # nothing sent with an unusable answer


def test_a_profile_for_another_mvpd_is_not_taken(make_client, recorder, emulator):
    other = {"profiles": {"DTV": {"notBefore": 0, "notAfter": 4102444800000, "issuer": "Apple", "type": "appleSSO",
                                  "attributes": {}}}}
    emulator.faults({"operation": PROFILE_SSO, "kind": "status", "status": 201, "body": other})
    client = picker_login(make_client, recorder, emulator)
    assert statuses(recorder) == ["VSA503"]
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)


def test_a_non_saml_authentication_request_is_not_given_to_the_platform(make_client, recorder, emulator):
    body = {"actionName": "partner_profile", "actionType": "direct", "reasonType": "none",
            "authenticationRequest": {"type": "oauth", "request": "eyJ4Ijo1fQ==", "attributesNames": ["uid"]}}
    emulator.faults({"operation": SESSION_SSO, "kind": "status", "status": 200, "body": body})
    simulator = PartnerSimulator(signed_in=False, picker="Cablevision")
    picker_login(make_client, recorder, emulator, simulator)
    assert statuses(recorder) == ["VSA503"] and "oauth" in recorder.find_status("VSA503")["message"]
    assert not any(r.request.get("verificationToken") for r in simulator.received("enqueue"))


# --- 3. logout of a partner profile when Adobe's logout fails ------------------------------------

@pytest.mark.parametrize("fault", [{"kind": "html_error", "status": 503}, {"kind": "reset_mid_body"}])
def test_logout_of_a_partner_profile_says_vsa203_even_when_adobe_fails(make_client, recorder, emulator, fault):
    client, _ = signed_in_through_the_platform(make_client, recorder, emulator)
    emulator.faults({"operation": "getLogoutForMvpdUsingGET", **fault})
    client.logout()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    vsa203 = recorder.find_status("VSA203")
    assert vsa203 and vsa203["mvpd"] == "Comcast_SSO"
    assert recorder.names()[-2:] == ["status", "set_authentication_status"]


def test_logout_of_a_lapsed_partner_profile_still_says_vsa203(make_client, recorder, emulator):
    client, simulator = signed_in_through_the_platform(make_client, recorder, emulator)
    simulator.access = "denied"
    client.logout()
    recorder.wait("set_authentication_status", count=2)
    assert recorder.find_status("VSA203")


# --- 4. AP-Partner-Framework-Status: expirationDate when the platform gives one ------------------

@both_apis
def test_a_platform_without_an_expiration_date_signs_in_through_single_sign_on(make_client, recorder, emulator, api):
    """Issue 28 item 10: the V2 cookbook (B.2, C.4, C.11) checks the expiry "if any": a platform that
    gives no authentication expiry is used for single sign-on; the header goes without expirationDate."""
    simulator = PartnerSimulator(account="Comcast", expiration_ms=None)
    client = ready(make_client, recorder, simulator)
    sent = [pfs_of(e) for e in emulator.log() if pfs_of(e) is not None]
    if api == "v2":
        assert sent and all(p["frameworkProviderInfo"] == {"id": "Comcast"} for p in sent)
        assert SESSION_SSO in emulator.operations() and PROFILE_SSO in emulator.operations()
    else:
        assert not sent and "v1TokenExchange" in emulator.operations()  # V1 sends no partner status
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    assert statuses(recorder) == []


def test_the_picker_signs_in_a_platform_without_an_expiration_date(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Cablevision", expiration_ms=None))
    client.get_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    assert "display_provider_dialog" not in recorder.names() and statuses(recorder) == []


def test_a_platform_expiry_that_has_passed_is_still_not_used(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Cablevision", expiration_ms=1_000))
    assert SESSION_SSO not in emulator.operations()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert statuses(recorder) == ["VSA503"] and "expired" in recorder.find_status("VSA503")["message"]


def test_every_partner_status_sent_carries_its_required_fields(make_client, recorder, emulator):
    client, _ = signed_in_through_the_platform(make_client, recorder, emulator)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    sent = [pfs_of(e) for e in emulator.log() if pfs_of(e) is not None]
    assert sent
    for pfs in sent:
        assert pfs["frameworkPermissionInfo"]["accessStatus"] == "granted"
        assert pfs["frameworkProviderInfo"]["id"] == "Comcast"
        assert pfs["frameworkProviderInfo"]["expirationDate"].isdigit()


# --- 5. the configuration request carries the device headers ------------------------------------

def test_the_configuration_request_carries_the_device_headers(ready_client, emulator):
    (configuration,) = [e for e in emulator.log() if e["operation"] == "handleRequestUsingGET"]
    assert configuration["headers"]["AP-Device-Identifier"].startswith("fingerprint ")
    assert json.loads(base64.b64decode(configuration["headers"]["X-Device-Info"]))["osName"]


# --- 6. unknown enhanced error codes ------------------------------------------------------------

@pytest.mark.parametrize("action,error_id,callback_code", [
    ("none", "Z500", ae.USER_NOT_AUTHORIZED_ERROR),
    ("authentication", "N000", ae.USER_NOT_AUTHENTICATED_ERROR),
])
def test_an_unknown_decision_code_gets_the_generic_code_of_its_family(ready_client, recorder, emulator, action,
                                                                      error_id, callback_code):
    from conftest import login
    login(ready_client, recorder, emulator)
    emulator.faults({"operation": "retrieveAuthorizeDecisionsForMvpdUsingPOST", "kind": "item_error",
                     "code": "a_code_adobe_adds_next_year", "status": 403, "action": action})
    ready_client.check_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", callback_code)
    assert statuses(recorder)[-1] == error_id


# --- 7. the smaller seed deviations --------------------------------------------------------------

def test_a_provider_only_in_the_platform_picker_is_tracked_as_the_selection(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Spectrum"))
    client.get_authentication()
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    selections = [data for event, data in recorder.of("send_tracking_data") if event == ae.TRACKING_MVPD_SELECTION]
    assert [data[0] for data in selections] == ["Spectrum"]
    client.get_selected_provider()
    assert recorder.wait("selected_provider")[0]["ID"] == "Spectrum"


@both_apis
def test_the_platform_is_told_when_the_sdk_stops_waiting(make_client, recorder, emulator, api):
    """cancel_request (ae_partner_framework version 2): a cancelled login and a timeout both tell
    the platform, which may dismiss its picker; a late reply is refused."""
    simulator = PartnerSimulator(signed_in=False, picker="silence")
    client = ready(make_client, recorder, simulator)
    client.get_authentication()
    picker = simulator.wait_for(2, "enqueue")[-1]  # after setRequestor's status request
    assert picker.request.get("isInterruptionAllowed") is True and not picker.request.get("verificationToken")
    client.set_selected_provider(None)  # the viewer backs out of the login
    assert recorder.wait("set_authentication_status") == (0, ae.PROVIDER_NOT_SELECTED_ERROR)
    recorder.settle(0.3)
    assert picker.reply.request in simulator.cancellations()
    assert picker.reply.error("USER_CANCELLED") == ae.AE_E_INVALID_HANDLE


def test_a_timed_out_partner_request_is_cancelled_for_the_platform(make_client, recorder, emulator):
    simulator = PartnerSimulator(signed_in=False, picker="silence", timeout_ms=500)
    client = ready(make_client, recorder, simulator)
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    picker = [r for r in simulator.received("enqueue") if r.request.get("isInterruptionAllowed")][-1]
    assert picker.reply.request in simulator.cancellations()


def test_a_version_1_partner_table_is_still_accepted(make_client, recorder, emulator):
    """A host compiled against the first ae_partner_framework (no cancel_request) still works; the
    library reads no field past version 1's."""
    simulator = PartnerSimulator(account="Comcast")
    framework = simulator.framework()
    framework.version = 1
    calls = []
    framework.cancel_request = ae.PARTNER_CANCEL_REQUEST_FN(lambda request, _: calls.append(request))
    client = make_client(partner=framework)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    client.close()
    assert calls == []  # never read from a version 1 table
    client.close()
    assert calls == []  # never read from a version 1 table
