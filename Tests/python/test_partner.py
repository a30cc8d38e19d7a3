# SPDX-License-Identifier: Apache-2.0
"""Partner single sign-on (Adobe's Apple SSO cookbooks) through the real .so, driven by the
scriptable platform simulator through the C partner interface, against the emulator.

Emulator MVPDs (platformMappingId): Cablevision (Cablevision), Comcast_SSO (Comcast), Spectrum
(Spectrum, boardingStatus PICKER: in the platform picker, not onboarded), Dish (DishNetwork, partner
SSO disabled at Adobe: configuration_fallback), DTV (no platform SSO).
"""
import base64
import ctypes
import json
import threading
import time

import pytest

from conftest import both_apis
from harness import ae

from accessenabler.partner import PartnerSimulator

PARTNER_OPS = ("retrieveVerificationTokenUsingPOST", "createPartnerProfileUsingPOST")
# The exchange's requests of each generation (V1: profile request, token exchange). The tests marked
# @both_apis run on both; test_v1.py has V1's own.
EXCHANGE_OPS = {"v2": PARTNER_OPS, "v1": ("v1RetrieveProfileRequest", "v1TokenExchange")}


def ready(make_client, recorder, simulator, **options):
    client = make_client(partner=simulator, **options)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    return client


def pfs_of(entry):
    header = entry["headers"].get("AP-Partner-Framework-Status")
    return None if header is None else json.loads(base64.b64decode(header))


def metadata_requests(simulator):
    return [r.request for r in simulator.received("enqueue")]


def statuses(recorder):
    return [s["errorId"] for s in recorder.statuses()]


# --- setRequestor: the check-authentication phase and the silent exchange ----------------------

def test_silent_exchange_in_set_requestor(make_client, recorder, emulator):
    simulator = PartnerSimulator(account="Comcast")
    client = ready(make_client, recorder, simulator)
    assert recorder.names(include_tracking=True) == ["set_requestor_complete"]  # no other callback
    operations = emulator.operations()
    assert operations[-2:] == list(PARTNER_OPS)
    profiles = next(e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1")
    assert pfs_of(profiles) == {"frameworkPermissionInfo": {"accessStatus": "granted"},
                                "frameworkProviderInfo": {"id": "Comcast", "expirationDate": str(simulator.expiration_ms)}}
    requests = metadata_requests(simulator)
    assert requests[0]["isInterruptionAllowed"] is False and requests[0].get("verificationToken") is None
    saml_step = requests[-1]
    assert saml_step["isInterruptionAllowed"] is False  # silent: no UI may show in setRequestor
    assert saml_step["verificationToken"] and saml_step["attributeNames"][:3] == ["uid", "NameID", "uniqueId"]
    assert saml_step["channelIdentifier"] == "https://saml.sp.auth.adobe.com"
    assert [r.request["prompt"] for r in simulator.received("check_access_status")] == [False]

    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Apple"


@both_apis
@pytest.mark.parametrize("access,expected", [("denied", "VSA403"), ("restricted", "VSA403"),
                                             ("notDetermined", "VSA404")])
def test_set_requestor_reports_permission(make_client, recorder, emulator, access, expected, api):
    ready(make_client, recorder, PartnerSimulator(access=access, account="Comcast"))
    assert statuses(recorder) == [expected]
    assert recorder.names() == ["status", "set_requestor_complete"]
    assert not any(op in EXCHANGE_OPS[api] for op in emulator.operations())


@both_apis
def test_set_requestor_reports_a_failing_partner_as_appl(make_client, recorder, emulator):
    ready(make_client, recorder, PartnerSimulator(status_error=("FAILED", "VSA daemon crashed")))
    appl = recorder.find_status("APPL")
    assert appl["level"] == "error" and "VSA daemon crashed" in appl["details"]


@both_apis
def test_nothing_to_report_when_the_platform_is_signed_out(make_client, recorder, emulator):
    ready(make_client, recorder, PartnerSimulator(access="denied", signed_in=False))
    assert statuses(recorder) == []


@both_apis
def test_set_requestor_again_refreshes_the_partner_status(make_client, recorder, emulator):
    simulator = PartnerSimulator(account="Comcast")
    client = ready(make_client, recorder, simulator)
    simulator.access = "denied"
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete", count=2)
    assert statuses(recorder) == ["VSA403"]
    assert len(simulator.received("check_access_status")) == 2


# --- checkAuthentication ---------------------------------------------------------------------

@both_apis
def test_check_authentication_asks_the_partner_without_http(make_client, recorder, emulator):
    simulator = PartnerSimulator(account="Cablevision")
    client = ready(make_client, recorder, simulator)
    emulator.clear_log()
    simulator.access = "denied"
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert statuses(recorder) == ["VSA403"]
    simulator.access = "notDetermined"
    client.check_authentication()
    recorder.wait("set_authentication_status", count=2)
    simulator.access, simulator.status_error = "granted", ("SERVICE_UNAVAILABLE", "no network")
    client.check_authentication()
    recorder.wait("set_authentication_status", count=3)
    assert statuses(recorder) == ["VSA403", "VSA404", "APPL_ERROR"]
    assert "no network" in recorder.find_status("APPL_ERROR")["details"]
    simulator.status_error = None
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=4) == (1, "")
    assert emulator.operations() == []


@both_apis
def test_a_regular_profile_does_not_depend_on_the_partner(make_client, recorder, emulator):
    from conftest import login
    simulator = PartnerSimulator(signed_in=False)
    client = ready(make_client, recorder, simulator)
    simulator.picker = "cancel"
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("DTV")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    recorder.wait("set_authentication_status", lambda s, c: s == 1)
    simulator.access = "denied"
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    assert login  # (the shared helper is for non-partner flows)


# --- getAuthentication with the platform picker --------------------------------------------------

def test_picker_success_gives_a_partner_profile(make_client, recorder, emulator):
    simulator = PartnerSimulator(signed_in=False, picker="Cablevision")
    client = ready(make_client, recorder, simulator)
    emulator.clear_log()
    client.get_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    assert recorder.names() == ["set_requestor_complete", "present_tv_provider_dialog", "dismiss_tv_provider_dialog",
                                "set_authentication_status"]
    dialog = recorder.of("present_tv_provider_dialog")[0][0]
    assert dialog["supportedAccountProviderIdentifiers"] == ["Cablevision", "Comcast", "Spectrum"]
    picker, saml = metadata_requests(simulator)[-2:]
    assert picker["isInterruptionAllowed"] is True and not picker.get("verificationToken")
    assert picker["supportedAccountProviderIdentifiers"] == ["Cablevision", "Comcast", "Spectrum"]
    assert saml["isInterruptionAllowed"] is True and saml["verificationToken"]  # V2 cookbook C.10
    assert [r.request["prompt"] for r in simulator.received("check_access_status")][-1] is True
    assert emulator.operations() == list(PARTNER_OPS)
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Apple"


@both_apis
def test_picker_filter(make_client, recorder, emulator):
    simulator = PartnerSimulator(signed_in=False, picker="cancel")
    client = ready(make_client, recorder, simulator)
    client.get_authentication(filter={"TV_PROVIDERS": ["Spectrum", "DTV", "Cablevision"],
                                      "FEATURED_TV_PROVIDERS": ["Cablevision", "Comcast_SSO"]})
    dialog = recorder.wait("present_tv_provider_dialog")[0]
    assert dialog["supportedAccountProviderIdentifiers"] == ["Spectrum", "Cablevision"]
    assert dialog["featuredAccountProviderIdentifiers"] == ["Cablevision"]


@pytest.mark.parametrize("picker,code", [("cancel", "N005"), ("other", "N003"), ("unavailable", "VSA503"),
                                         ("rejected", "VSA503"), (("unsupported", "Unknown"), "N004")])
def test_picker_fallbacks_show_the_dialog_with_one_code(make_client, recorder, emulator, picker, code):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker=picker))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert statuses(recorder) == [code]
    assert recorder.find_status(code)["level"] == "info"
    assert recorder.names()[-2:] == ["status", "display_provider_dialog"]
    # the regular flow goes on from the dialog
    client.set_selected_provider("DTV")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")


@both_apis
def test_no_platform_picker_without_a_provider_that_supports_it(make_client, recorder, emulator):
    """The platform picker shows only when an MVPD the host's filter keeps supports platform SSO;
    otherwise the regular provider dialog, with no advanced code (seed 003 step 4)."""
    simulator = PartnerSimulator(signed_in=False, picker="Cablevision")
    client = make_client(partner=simulator)
    client.set_requestor("REF40")  # no MVPD of REF40 has platform SSO: the filter is ignored
    assert recorder.wait("set_requestor_complete") == (1,)
    client.get_authentication(filter={"TV_PROVIDERS": ["Cox"]})
    mvpds = recorder.wait("display_provider_dialog")[0]
    assert [m["ID"] for m in mvpds] == ["Verizon", "Cox"]
    client.set_selected_provider(None)
    recorder.wait("set_authentication_status")
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)
    client.get_authentication(filter={"TV_PROVIDERS": ["DTV"]})  # keeps no SSO MVPD of REF30
    recorder.wait("display_provider_dialog", count=2)
    assert "present_tv_provider_dialog" not in recorder.names() and statuses(recorder) == ["N005"]
    assert simulator.received("enqueue") == [] or all(
        not r.request.get("isInterruptionAllowed") for r in simulator.received("enqueue"))  # no picker asked


@both_apis
@pytest.mark.parametrize("access,code", [("denied", "VSA403"), ("notDetermined", "VSA404")])
def test_no_permission_falls_back(make_client, recorder, emulator, access, code):
    client = ready(make_client, recorder, PartnerSimulator(access=access, signed_in=None))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert statuses(recorder)[-1] == code and recorder.names()[-2:] == ["status", "display_provider_dialog"]


def test_unsupported_provider_in_the_picker_is_selected_silently(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Spectrum"))
    client.get_authentication()
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    assert regcode["mvpd"] == "Spectrum"
    assert "display_provider_dialog" not in recorder.names()
    assert statuses(recorder) == ["REGCODE"]  # no advanced code
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status") == (1, "")


@pytest.mark.parametrize("setting,reason,code", [
    ({"partner_sso_disabled": ["Comcast_SSO"]}, "configuration_fallback", "N004"),  # partner SSO disabled at Adobe
    ({"partner_sso_force_fallback": "pfs_fallback"}, "pfs_fallback", "VSA503"),
    ({"partner_sso_force_fallback": "missing_parameters_fallback"}, "missing_parameters_fallback", "VSA503"),
])
def test_adobe_fallbacks_show_the_dialog_then_reuse_the_session_code(make_client, recorder, emulator, setting,
                                                                      reason, code):
    """Seed 003 step 4: the provider dialog with exactly one code; V2 cookbook C.5–9: the viewer's
    selection goes on with the code, URL and expiry of Adobe's fallback answer (no second session)."""
    emulator.config(**setting)
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Comcast"))
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert statuses(recorder) == [code]
    assert recorder.find_status(code)["details"] == reason
    assert recorder.names()[-2:] == ["status", "display_provider_dialog"]
    client.set_selected_provider("Comcast_SSO")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    operations = emulator.operations()
    assert operations[0] == "retrieveVerificationTokenUsingPOST"
    assert "createSessionUsingPOST" not in operations  # no second session: the fallback's code is used
    # only the missing-parameters fallback needs the session resumed
    assert ("resumeSessionUsingPOST" in operations) == (reason == "missing_parameters_fallback")
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status") == (1, "")


def test_another_provider_after_a_fallback_gets_its_own_session(make_client, recorder, emulator):
    emulator.config(partner_sso_disabled=["Comcast_SSO"])
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Comcast"))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    emulator.clear_log()
    client.set_selected_provider("DTV")  # not the provider of Adobe's fallback session
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    assert regcode["mvpd"] == "DTV" and emulator.operations() == ["createSessionUsingPOST"]


def test_saml_step_failure_falls_back(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(signed_in=False, picker="Cablevision", saml="error"))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert statuses(recorder) == ["VSA503"]


@both_apis
def test_no_reply_is_bounded_by_the_timeout(make_client, recorder, emulator):
    simulator = PartnerSimulator(signed_in=False, picker="silence", timeout_ms=700)
    client = ready(make_client, recorder, simulator)
    started = time.monotonic()
    client.get_authentication()
    recorder.wait("display_provider_dialog", timeout=10)
    assert time.monotonic() - started < 5
    assert statuses(recorder) == ["VSA503"]
    assert "timeout" in recorder.find_status("VSA503")["details"]
    # a reply after the timeout is refused
    late = simulator.received("enqueue")[-1].reply
    assert late.error("USER_CANCELLED") == ae.AE_E_INVALID_HANDLE


@both_apis
def test_replies_from_inside_the_callback(make_client, recorder, emulator):
    simulator = PartnerSimulator(account="Comcast", reply_inline=True)
    client = ready(make_client, recorder, simulator)
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    assert all(r.inline for r in simulator.received())


# --- decisions and logout -----------------------------------------------------------------------

def test_decisions_carry_the_partner_status_for_a_partner_profile(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(account="Comcast"))
    emulator.clear_log()
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.check_preauthorized_resources(["LIVE", "NEWS"])
    assert recorder.wait("preauthorized_resources") == (["LIVE", "NEWS"],)
    for entry in emulator.log():
        assert pfs_of(entry)["frameworkProviderInfo"]["id"] == "Comcast", entry["operation"]


def test_logout_of_a_partner_profile(make_client, recorder, emulator):
    client = ready(make_client, recorder, PartnerSimulator(account="Comcast"))
    client.logout()
    assert recorder.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    vsa203 = recorder.find_status("VSA203")
    assert vsa203["level"] == "info"
    assert recorder.names()[-2:] == ["status", "set_authentication_status"]


# --- the C partner interface ---------------------------------------------------------------------

def test_partner_struct_versions_and_callbacks_are_checked(emulator):
    framework = ae.PartnerFramework()
    assert ae.lib.ae_partner_framework_init(ctypes.byref(framework), ae.AE_PARTNER_FRAMEWORK_VERSION) == ae.AE_OK
    config = ae.Config()
    ae.lib.ae_config_init(ctypes.byref(config), ae.AE_CONFIG_VERSION)
    config.software_statement = b"a.b.c"
    config.base_url = emulator.url.encode()
    config.partner = ctypes.pointer(framework)
    table = ae.Delegate()
    ae.lib.ae_delegate_init(ctypes.byref(table), ae.AE_DELEGATE_VERSION)
    handle = ctypes.c_void_p()
    assert ae.lib.ae_client_create(ctypes.byref(config), ctypes.byref(table), ctypes.byref(handle)) == ae.AE_E_INVALID_ARG
    framework.version = 99
    assert ae.lib.ae_client_create(ctypes.byref(config), ctypes.byref(table), ctypes.byref(handle)) == \
        ae.AE_E_UNSUPPORTED_VERSION
    assert ae.lib.ae_partner_request_reply_error(None, 1, None) == ae.AE_E_INVALID_HANDLE
    assert ae.lib.ae_partner_request_reply_access_status(ctypes.c_void_p(0x1234), 3, 1) == ae.AE_E_INVALID_HANDLE


@pytest.mark.parametrize("version", [1, 2])
def test_an_earlier_config_version_is_read_up_to_its_last_field(emulator, version):
    config = ae.Config()
    ae.lib.ae_config_init(ctypes.byref(config), ae.AE_CONFIG_VERSION)
    assert config.version == ae.AE_CONFIG_VERSION
    config.version = version  # a host compiled against an earlier header: later fields are not read
    config.software_statement = b"a.b.c"
    config.base_url = emulator.url.encode()
    if version < 2:
        config.partner = ctypes.cast(ctypes.c_void_p(0xdead), ctypes.POINTER(ae.PartnerFramework))  # ignored
    config.callback_mode = 99  # ignored (version 3 field)
    config.transport = ctypes.cast(ctypes.c_void_p(0xbeef), ctypes.POINTER(ae.HttpTransport))  # ignored
    table = ae.Delegate()
    ae.lib.ae_delegate_init(ctypes.byref(table), ae.AE_DELEGATE_VERSION)
    handle = ctypes.c_void_p()
    assert ae.lib.ae_client_create(ctypes.byref(config), ctypes.byref(table), ctypes.byref(handle)) == ae.AE_OK
    ae.lib.ae_client_destroy(handle)


def test_bad_replies_are_refused(make_client, recorder, emulator):
    seen = threading.Event()
    held = {}

    class Holding(PartnerSimulator):
        def check_access_status(self, prompt, reply):
            held["reply"] = reply
            seen.set()

    simulator = Holding(account="Comcast")
    client = make_client(partner=simulator)
    client.set_requestor("REF30")
    assert seen.wait(5)
    reply = held["reply"]
    lib = ae.lib
    assert lib.ae_partner_request_reply_access_status(reply.request, 9, 1) == ae.AE_E_INVALID_ARG
    assert lib.ae_partner_request_reply_access_status(reply.request, 3, 7) == ae.AE_E_INVALID_ARG
    assert lib.ae_partner_request_reply_metadata(reply.request, b"{}") == ae.AE_E_INVALID_ARG  # wrong kind of reply
    assert lib.ae_partner_request_reply_error(reply.request, 8, None) == ae.AE_E_INVALID_ARG  # TIMEOUT is not a reply
    assert reply.access_status("granted", True) == ae.AE_OK  # still pending: the good reply works
    assert reply.access_status("granted", True) == ae.AE_E_INVALID_HANDLE  # once only
    assert recorder.wait("set_requestor_complete") == (1,)
