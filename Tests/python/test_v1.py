# SPDX-License-Identifier: Apache-2.0
"""What only REST API V1 has, through the real .so against the emulator: the Apple SSO cookbook of
V1 (profile request, token exchange, user metadata's tokenSource at logout), V1 TempPass
(authenticate/freepreview), the cached authorization token, and the XML paths (media tokens and
profile requests passed through untouched, legacy XML error bodies read, XML where JSON was asked
for named as such). The flows common to both generations run on V1 too, from test_flows.py,
test_contract.py, test_faults.py and test_event_loop.py (`@both_apis`)."""
import base64
import json
import sqlite3
import time
import urllib.parse

import pytest

from conftest import login
from harness import CLOCK_SLACK_S, WIRE, ae

from accessenabler.partner import PartnerSimulator

pytestmark = pytest.mark.parametrize("api", ["v1"], indirect=True)

V1 = WIRE["v1"]
PROFILE_REQUEST = "v1RetrieveProfileRequest"
TOKEN_EXCHANGE = "v1TokenExchange"
USER_METADATA = "v1UserMetadata"
FREE_PREVIEW = "v1FreePreview"
XML_TYPE = "application/xml;charset=UTF-8"


def ready(make_client, recorder, **options):
    client = make_client(**options)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    return client


def params(entry):
    """The parameters of a logged V1 request: its query and its form body."""
    found = dict(urllib.parse.parse_qsl(entry["query"], keep_blank_values=True))
    if entry["body"]:
        found.update(urllib.parse.parse_qsl(entry["body"], keep_blank_values=True))
    return found


def entries(emulator, operation):
    return [e for e in emulator.log() if e["operation"] == operation]


def metadata_requests(simulator):
    return [r.request for r in simulator.received("enqueue")]


# --- Apple SSO (partner single sign-on), the V1 cookbook -----------------------------------------

def test_silent_exchange_in_set_requestor(make_client, recorder, emulator):
    """Steps 1–3, 5–9: no token → the platform is signed in → configuration → profile request →
    partner (no interruption) → token exchange 204 → the token and its user metadata."""
    simulator = PartnerSimulator(account="Comcast")
    client = ready(make_client, recorder, partner=simulator)
    assert recorder.names(include_tracking=True) == ["set_requestor_complete"]  # no callback of its own
    operations = emulator.operations()
    assert operations[:2] == [V1.register, V1.token]
    assert set(operations[2:4]) == {V1.configuration, V1.profiles}  # step 1 (token) ∥ step 3 (configuration)
    assert operations[4:6] == [PROFILE_REQUEST, TOKEN_EXCHANGE]
    assert set(operations[6:]) == {V1.profiles, USER_METADATA} and len(operations) == 8  # read together

    profile_request = entries(emulator, PROFILE_REQUEST)[0]
    assert profile_request["path"] == "/api/v1/REF30/profile-requests/Comcast_SSO"
    assert params(profile_request) == {"deviceType": "tvOS"}
    exchange = params(entries(emulator, TOKEN_EXCHANGE)[0])
    assert (exchange["requestor"], exchange["mvpd"], exchange["deviceType"], exchange["deviceId"]) == (
        "REF30", "Comcast_SSO", "tvOS", "tv-device-1")
    # V1 has no partner status header: it goes on no request
    assert all("AP-Partner-Framework-Status" not in e["headers"] for e in emulator.log())

    status_request, saml_step = metadata_requests(simulator)
    assert status_request["isInterruptionAllowed"] is False and not status_request.get("verificationToken")
    assert saml_step["isInterruptionAllowed"] is False  # the V1 snippet's value for the SAML step
    assert saml_step["attributeNames"] == ["uid", "NameID", "uniqueId", "zip"]  # the MVPD's requiredMetadataFields
    assert saml_step["channelIdentifier"] == "https://saml.sp.auth.adobe.com"
    # the profile request's payload reaches the platform unparsed: Base64 of Adobe's SAML request
    query = base64.b64decode(saml_step["verificationToken"], validate=True).decode()
    assert "AttributeQuery" in query and 'ID="' in query

    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    emulator.clear_log()
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "zip"})
    recorder.wait("set_metadata_status", count=2)
    assert [m[0] for m in recorder.of("set_metadata_status")] == ["Apple", ["10001", "10002"]]
    assert emulator.operations() == []  # read with the token after the exchange
    client.get_authorization("LIVE")  # step 11
    assert recorder.wait("set_token")[1] == "LIVE"
    assert emulator.operations() == V1.authorize()


def test_picker_success(make_client, recorder, emulator):
    """Steps 4 and 6–9 from getAuthentication: the platform picker, then the exchange."""
    simulator = PartnerSimulator(signed_in=False, picker="Cablevision")
    client = ready(make_client, recorder, partner=simulator)
    emulator.clear_log()
    client.get_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    assert recorder.names() == ["set_requestor_complete", "present_tv_provider_dialog", "dismiss_tv_provider_dialog",
                                "set_authentication_status"]
    picker, saml_step = metadata_requests(simulator)[-2:]
    assert picker["isInterruptionAllowed"] is True
    assert picker["supportedAccountProviderIdentifiers"] == ["Cablevision", "Comcast", "Spectrum"]
    assert saml_step["isInterruptionAllowed"] is False and saml_step["verificationToken"]
    operations = emulator.operations()
    assert operations[:2] == [PROFILE_REQUEST, TOKEN_EXCHANGE] and set(operations[2:]) == {V1.profiles, USER_METADATA}
    client.get_selected_provider()
    assert recorder.wait("selected_provider")[0]["ID"] == "Cablevision"


@pytest.mark.parametrize("refused,code", [(PROFILE_REQUEST, "N004"), (TOKEN_EXCHANGE, "VSA503")])
def test_a_refused_exchange_falls_back_to_the_regular_flow(make_client, recorder, emulator, refused, code):
    """Step 6 refused (single sign-on not available for the MVPD: N004) or step 9 (no token made:
    VSA503) → step 10: the provider dialog with that one code (seed 003 step 4), then the regular
    second-screen flow with the provider the viewer selects."""
    if refused == PROFILE_REQUEST:
        emulator.config(partner_sso_disabled=["Comcast_SSO"])
    else:
        emulator.faults({"operation": TOKEN_EXCHANGE, "kind": "status", "status": 400,
                         "body": {"status": 400, "message": "Bad Request", "details": "SAMLResponse refused"}})
    client = ready(make_client, recorder, partner=PartnerSimulator(signed_in=False, picker="Comcast"))
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert [s["errorId"] for s in recorder.statuses()] == [code]
    assert [e["status"] for e in entries(emulator, refused)] == [400]
    client.set_selected_provider("Comcast_SSO")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    assert regcode["mvpd"] == "Comcast_SSO"
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status") == (1, "")
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Comcast_SSO"  # a regular login


@pytest.mark.parametrize("picker", [("unsupported", "Spectrum"), "Spectrum"], ids=["platform_error", "signed_in"])
def test_provider_not_onboarded_goes_to_the_regular_flow_silently(make_client, recorder, emulator, picker):
    """Spectrum is in the platform's picker but not onboarded (boardingStatus PICKER): whether the
    platform says so (unsupported provider) or signs the viewer in to it, the regular flow starts
    for it, with no dialog of our own and no profile request Adobe would refuse."""
    client = ready(make_client, recorder, partner=PartnerSimulator(signed_in=False, picker=picker))
    emulator.clear_log()
    client.get_authentication()
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    assert regcode["mvpd"] == "Spectrum" and "display_provider_dialog" not in recorder.names()
    assert emulator.operations() == [V1.session]


@pytest.mark.parametrize("picker,code", [("cancel", "N005"), ("other", "N003"), ("unavailable", "VSA503")])
def test_picker_fallbacks_show_the_dialog_with_one_code(make_client, recorder, emulator, picker, code):
    client = ready(make_client, recorder, partner=PartnerSimulator(signed_in=False, picker=picker))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    assert [s["errorId"] for s in recorder.statuses()] == [code]


def test_logout_reads_token_source_first(make_client, recorder, emulator, tmp_path):
    """The cookbook's logout: tokens/usermetadata → tokenSource "Apple" → VSA203 → DELETE logout.
    A client that did not make the token itself (another store) learns its source from Adobe."""
    first = ready(make_client, recorder, partner=PartnerSimulator(account="Comcast"))
    first.close()
    other = type(recorder)()
    client = make_client(delegate=other, storage_path=str(tmp_path / "other.sqlite"))  # no partner, new store
    client.set_requestor("REF30")
    assert other.wait("set_requestor_complete") == (1,)
    client.check_authentication()
    assert other.wait("set_authentication_status") == (1, "")  # the device's token, from tokens/authn
    emulator.clear_log()
    client.logout()
    assert other.wait("set_authentication_status", lambda s, c: s == 0) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert emulator.operations() == [USER_METADATA, V1.logout]
    assert other.find_status("VSA203")["level"] == "info"
    assert other.names()[-2:] == ["status", "set_authentication_status"]


def test_logout_of_a_regular_token_says_nothing_of_the_platform(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Cablevision"
    emulator.clear_log()
    ready_client.logout()
    recorder.wait("set_authentication_status", lambda s, c: s == 0)
    assert emulator.operations() == [V1.logout]  # tokenSource known: no metadata request
    assert recorder.find_status("VSA203") is None
    logout = entries(emulator, V1.logout)[0]
    assert logout["method"] == "DELETE" and params(logout) == {"requestor": "REF30", "deviceId": "tv-device-1"}


# --- TempPass: authenticate/freepreview ----------------------------------------------------------

def test_temppass_authenticates_at_once_with_freepreview(ready_client, recorder, emulator):
    emulator.clear_log()
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("TempPass_TEST40")
    assert recorder.wait("set_authentication_status") == (1, "")
    assert recorder.find_status("N011")["mvpd"] == "TempPass_TEST40"
    assert recorder.find_status("REGCODE") is None
    assert emulator.operations() == [FREE_PREVIEW, V1.profiles]
    preview = params(entries(emulator, FREE_PREVIEW)[0])
    assert preview == {"requestor_id": "REF30", "deviceId": "tv-device-1", "mso_id": "TempPass_TEST40",
                       "domain_name": "adobe.com"}
    ready_client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    assert recorder.find_status("Z011")["mvpd"] == "TempPass_TEST40"
    ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    assert recorder.wait("set_metadata_status")[0] == "Adobe"
    emulator.clear_log()
    ready_client.logout()  # V1: Adobe would hand the token back at the next sync: log it out too
    recorder.wait("set_authentication_status", lambda s, c: s == 0, count=1)
    assert emulator.operations()[-1] == V1.logout


@pytest.mark.slow
def test_expired_temppass_gives_n111(ready_client, recorder, emulator):
    emulator.config(temppass_ttl_s={"TempPass_TEST40": 1.5})
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("TempPass_TEST40")
    assert recorder.wait("set_authentication_status") == (1, "")
    time.sleep(1.5 + CLOCK_SLACK_S)
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert recorder.names()[-2:] == ["status", "set_authentication_status"]
    assert recorder.statuses()[-1]["errorId"] == "N111"
    # choosing it again: Adobe refuses the used-up pass (400) → N111 and not authenticated
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog", count=2)
    ready_client.set_selected_provider("TempPass_TEST40")
    assert recorder.wait("set_authentication_status", count=3) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert [e["status"] for e in entries(emulator, FREE_PREVIEW)] == [204, 400]
    assert recorder.statuses()[-1]["errorId"] == "N111"


def test_temppass_ended_at_adobe_during_authorization(ready_client, recorder, emulator):
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("TempPass_TEST40")
    assert recorder.wait("set_authentication_status") == (1, "")
    emulator.control("POST", "temppass/expire", {"mvpd": "TempPass_TEST40"})
    ready_client.check_authorization("LIVE")
    resource, code, _ = recorder.wait("token_request_failed")
    assert (resource, code) == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    assert recorder.find_status("N111") is not None
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", lambda s, c: s == 0) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)


def test_promotional_temppass_sends_the_identity_as_generic_data(ready_client, recorder, emulator):
    ready_client.get_authentication(data={"email": "viewer@example.com"})
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("flexibleTempPass")
    assert recorder.wait("set_authentication_status") == (1, "")
    preview = params(entries(emulator, FREE_PREVIEW)[0])
    assert json.loads(preview["generic_data"]) == {"email": "viewer@example.com"}
    ready_client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    authorize = params(entries(emulator, V1.decision)[0])
    assert json.loads(authorize["generic_data"]) == {"email": "viewer@example.com"}


def test_promotional_temppass_without_identity_is_named(ready_client, recorder, emulator):
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("flexibleTempPass")
    assert recorder.wait("set_authentication_status")[0] == 0
    assert recorder.statuses()[-1]["errorId"] == "N111"  # freepreview's only refusal is 400


# --- authorization: the cached authorization token -------------------------------------------------

def test_media_token_refused_falls_back_to_authorize(ready_client, recorder, emulator):
    """Adobe ended the authorization before its stored expiry: the media token alone is refused,
    authorize runs, and the viewer still gets the token."""
    login(ready_client, recorder, emulator)
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    emulator.faults({"operation": V1.media, "kind": "status", "status": 403, "requests": [1],
                     "body": {"status": 403, "message": "User not authorized", "details": "no valid authorization"}})
    emulator.clear_log()
    ready_client.get_authorization("LIVE")
    assert recorder.wait("set_token", count=2)[1] == "LIVE"
    assert [(e["operation"], e["status"]) for e in emulator.log()] == [
        (V1.media, 403), (V1.decision, 200), (V1.media, 200)]


def test_not_authenticated_at_adobe_starts_a_new_login(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    emulator.control("POST", "expire-profiles")  # Adobe's token is gone; the store still has it
    ready_client.get_authorization("LIVE")
    recorder.wait("display_provider_dialog", count=2)  # getAuthorization logs in again (403 → authentication)
    assert recorder.find_status("N000")["enhancedError"]["code"] == "authentication_session_expired"


# --- the XML paths -----------------------------------------------------------------------------------

def test_media_token_passes_through_untouched(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    ready_client.get_authorization("LIVE")
    token = recorder.wait("set_token")[0]
    xml = base64.b64decode(token, validate=True)
    assert base64.b64encode(xml).decode() == token  # Base64 as Adobe sent it: not decoded, not re-encoded
    assert xml.startswith(b"<signatureInfo>") and b"<resourceID>LIVE</resourceID>" in xml


def test_legacy_xml_error_body_is_read(ready_client, recorder, emulator):
    """A V1 server may answer errors in XML (its default format) whatever Accept says."""
    login(ready_client, recorder, emulator)
    body = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><error><status>403</status>'
            '<message>User not authorized</message><details>Rated &quot;TV-MA&quot; &amp; later</details></error>')
    emulator.faults({"operation": V1.decision, "kind": "status", "status": 403, "body": body, "content_type": XML_TYPE})
    ready_client.get_authorization("LIVE")
    resource, code, description = recorder.wait("token_request_failed")
    assert (resource, code, description) == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR, 'Rated "TV-MA" & later')
    status = recorder.statuses()[-1]
    assert status["errorId"] == "Z100" and status["enhancedError"]["code"] == "authorization_denied_by_mvpd"


def test_enhanced_error_codes_when_adobe_enabled_them(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    emulator.faults({"operation": V1.decision, "kind": "enhanced_error", "code": "authorization_denied_by_parental_controls",
                     "details": "Rated TV-MA"})
    ready_client.get_authorization("LIVE")
    resource, code, description = recorder.wait("token_request_failed")
    assert (resource, code, description) == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR, "Rated TV-MA")
    assert recorder.statuses()[-1]["enhancedError"]["code"] == "authorization_denied_by_parental_controls"


XML_PLAY = '<?xml version="1.0"?><play><serializedToken>PHNpZ25hdHVyZUluZm8+</serializedToken></play>'


def test_xml_where_json_was_asked_for_is_named(ready_client, recorder, emulator):
    """A success answer in XML (a server ignoring Accept) is named as an unreadable answer."""
    login(ready_client, recorder, emulator)
    emulator.faults({"operation": V1.media, "kind": "status", "status": 200, "body": XML_PLAY, "content_type": XML_TYPE})
    ready_client.get_authorization("LIVE")
    resource, code, _ = recorder.wait("token_request_failed")
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)
    status = recorder.statuses()[-1]
    assert status["errorId"] == "Z500" and status["enhancedError"]["code"] == "server_response_format_unknown"
    ready_client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")


def test_xml_token_answer_leaves_the_stored_profile(make_client, recorder, emulator, tmp_path):
    store = str(tmp_path / "store.sqlite")
    first = ready(make_client, recorder, storage_path=store)
    login(first, recorder, emulator)
    first.close()
    with sqlite3.connect(store) as db:  # older than the SDK's cache age: the next setRequestor asks Adobe
        db.execute("UPDATE profile_syncs SET synced_at = 0")
    db.close()
    emulator.faults({"operation": V1.profiles, "kind": "status", "status": 200, "content_type": XML_TYPE,
                     "body": '<authentication><expires>1</expires><mvpd>DTV</mvpd></authentication>'})
    other = type(recorder)()
    client = make_client(delegate=other, storage_path=store)
    client.set_requestor("REF30")
    assert other.wait("set_requestor_complete") == (1,)
    assert [e.get("fault") for e in entries(emulator, V1.profiles)][-1] == "status"  # Adobe was asked
    client.check_authentication()
    assert other.wait("set_authentication_status") == (1, "")
    client.get_selected_provider()
    assert other.wait("selected_provider")[0]["ID"] == "Cablevision"


# --- the token store ---------------------------------------------------------------------------------

def test_v1_and_v2_keep_their_own_records_in_one_store(make_client, recorder, emulator, tmp_path):
    """Records are keyed by software statement and API generation: a V1 login is not a V2 profile
    (V2 profiles are bound to V2's client registration), and each generation registers once."""
    store = str(tmp_path / "store.sqlite")
    v1 = ready(make_client, recorder, storage_path=store)
    login(v1, recorder, emulator)
    v1.close()
    emulator.clear_log()
    other = type(recorder)()
    v2 = make_client(delegate=other, storage_path=store, api_generation=ae.AE_API_V2)
    v2.set_requestor("REF30")
    assert other.wait("set_requestor_complete") == (1,)
    assert emulator.operations()[:2] == [V1.register, V1.token]  # V2's own registration
    v2.check_authentication()
    assert other.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    v2.close()
    emulator.clear_log()
    again = type(recorder)()
    v1 = make_client(delegate=again, storage_path=store)
    v1.set_requestor("REF30")
    assert again.wait("set_requestor_complete") == (1,)
    v1.check_authentication()
    assert again.wait("set_authentication_status") == (1, "")
    assert emulator.operations() == []  # V1's registration, token and login were kept


def test_the_stored_authorization_expiry_is_adobes_authorization(ready_client, recorder, emulator):
    """getMetadata(1) and the next getAuthorization use the authorization's expiry (authorize's
    `expires`), not the short media token's, also after a call served by the media token alone."""
    login(ready_client, recorder, emulator)
    for count in (1, 2):
        ready_client.get_authorization("LIVE")
        recorder.wait("set_token", count=count)
    ready_client.get_metadata({"opCode": ae.METADATA_AUTHORIZATION, "resource_id": "LIVE"})
    expiry = recorder.wait("set_metadata_status")[0]
    assert expiry > time.time() * 1000 + 3600 * 1000  # the emulator's authorizations last a day; media tokens 7 min
    assert emulator.operations()[-3:] == [V1.decision, V1.media, V1.media]
