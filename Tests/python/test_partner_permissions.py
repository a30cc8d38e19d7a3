# SPDX-License-Identifier: Apache-2.0
"""The integration's `enforcePlatformPermissions`, and the APPL / AAPL spellings (issue 28, item 11).

`enforcePlatformPermissions` is the TVE Dashboard's "Enforce Platform Permission" (per integration
and platform), which "controls if the user's decision to Allow or Deny platform access to their TV
Provider subscription is respected". Absent or true (the cookbooks' behaviour): a partner profile
counts only while the platform's permission is granted. False: a denied or undecided permission
does not take the viewer's partner profile away (checkAuthentication says 1 after the VSA403/VSA404
advisory, decisions carry the status as it is).

Emulator MVPDs (platformMappingId): Comcast_SSO (Comcast).
"""
import pytest

from conftest import both_apis
from harness import ae

from accessenabler.partner import PartnerSimulator

from test_partner_edges import DECISION_OPS, pfs_of, ready, statuses


def enforce(emulator, value):
    """The configuration's enforcePlatformPermissions of Comcast_SSO (None: the field is absent)."""
    fields = {} if value is None else {"Comcast_SSO": {"enforcePlatformPermissions": value}}
    emulator.config(configuration_platforms=[{"match": {}, "mvpd_fields": fields}] if fields else [])


def signed_in(make_client, recorder, emulator):
    simulator = PartnerSimulator(account="Comcast")
    client = ready(make_client, recorder, simulator)
    client.check_authentication()
    assert recorder.wait("set_authentication_status") == (1, "")
    return client, simulator


@pytest.mark.parametrize("access,advisory", [("denied", "VSA403"), ("notDetermined", "VSA404")])
def test_a_partner_profile_stays_when_the_integration_does_not_enforce_the_permission(make_client, recorder,
                                                                                      emulator, access, advisory):
    enforce(emulator, False)
    client, simulator = signed_in(make_client, recorder, emulator)
    simulator.access = access
    emulator.clear_log()
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    assert statuses(recorder) == [advisory]  # the platform's answer is still reported
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    decisions = [e for e in emulator.log() if e["operation"] in DECISION_OPS]
    assert decisions and pfs_of(decisions[0]) == {"frameworkPermissionInfo": {"accessStatus": access},
                                                  "frameworkProviderInfo": {}}


@pytest.mark.parametrize("value", [None, True])
def test_the_permission_is_enforced_when_the_field_is_absent_or_true(make_client, recorder, emulator, value):
    enforce(emulator, value)
    client, simulator = signed_in(make_client, recorder, emulator)
    simulator.access = "denied"
    emulator.clear_log()
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    client.check_authorization("LIVE")
    assert recorder.wait("token_request_failed")[:2] == ("LIVE", ae.USER_NOT_AUTHENTICATED_ERROR)
    assert not any(e["operation"] in DECISION_OPS for e in emulator.log())


def test_a_failing_partner_still_takes_the_profile_away(make_client, recorder, emulator):
    """Only the viewer's decision is not enforced: a partner that fails tells nothing about it."""
    enforce(emulator, False)
    client, simulator = signed_in(make_client, recorder, emulator)
    simulator.status_error = ("SERVICE_UNAVAILABLE", "no network")
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)


# --- APPL / AAPL ----------------------------------------------------------------------------------

def find(recorder, error_id):
    """What a host ported from iOS does: match the errorId, or one of its other spellings."""
    return [s for s in recorder.statuses() if s["errorId"] == error_id or error_id in s.get("aliases", [])]


@both_apis
def test_a_failing_partner_is_found_by_either_spelling(make_client, recorder, emulator):
    simulator = PartnerSimulator(status_error=("FAILED", "VSA daemon crashed"))
    client = ready(make_client, recorder, simulator)
    assert find(recorder, "APPL") == find(recorder, "AAPL") and len(find(recorder, "APPL")) == 1
    appl = find(recorder, "AAPL")[0]
    assert (appl["errorId"], appl["aliases"], appl["level"]) == ("APPL", ["AAPL"], "error")
    client.check_authentication()
    recorder.wait("set_authentication_status")
    assert find(recorder, "APPL_ERROR") == find(recorder, "AAPL_ERROR") and len(find(recorder, "AAPL_ERROR")) == 1
    appl_error = find(recorder, "AAPL_ERROR")[0]
    assert (appl_error["errorId"], appl_error["aliases"]) == ("APPL_ERROR", ["AAPL_ERROR"])
    assert "VSA daemon crashed" in appl_error["details"]
