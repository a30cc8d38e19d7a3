# SPDX-License-Identifier: Apache-2.0
"""Partner single sign-on and the integration's settings (issue 28, items 9–11): a disabled
integration (`integrations_disabled`: 400 `invalid_integration` wherever the MVPD is named, the
partner operations included), the partner status without an expiry, and `enforcePlatformPermissions`.
"""

from __future__ import annotations

from typing import Any

from aepass.simulated import simulated_saml as saml
from emulator_testkit import ALL_SESSION_PARAMS, Api
from test_partner_sso import (PFS, assert_documented_refusal, now_ms, pfs, platform_saml, sign_in_with_partner,
                              sso_profile, sso_session)


def configured_mvpds(api: Api) -> list[str]:
    return [m["id"] for m in api.v2("GET", "/configuration", api.new_access_token()).json["requestor"]["mvpds"]]


# --- a disabled integration ------------------------------------------------------------------------

def test_a_disabled_integration_is_left_out_of_the_configuration(api: Api) -> None:
    assert "Comcast_SSO" in configured_mvpds(api)
    api.control("POST", "config", {"integrations_disabled": ["Comcast_SSO"]})
    assert "Comcast_SSO" not in configured_mvpds(api) and "Cablevision" in configured_mvpds(api)


def test_sessions_sso_answers_invalid_integration_for_a_disabled_integration(api: Api) -> None:
    """V2 cookbook C.6: the integration must be active (basic validation: an error answer), before
    the partner checks that fall back to the basic flow."""
    token = api.new_access_token()
    api.control("POST", "config", {"integrations_disabled": ["Cablevision"]})
    assert_documented_refusal(sso_session(api, token, pfs(provider="Cablevision")), "invalid_integration")
    # even with a partner status Adobe would not accept (the integration is checked first)
    assert_documented_refusal(sso_session(api, token, pfs(provider="Cablevision", access="denied")),
                              "invalid_integration")
    # another provider's integration is untouched, and a status naming no MVPD still falls back
    assert sso_session(api, token, pfs(provider="Comcast")).json["actionName"] == "partner_profile"
    assert sso_session(api, token, pfs(provider=None)).json["reasonType"] == "pfs_fallback"


def test_profiles_sso_answers_invalid_integration_when_the_integration_was_disabled_meanwhile(api: Api) -> None:
    token = api.new_access_token()
    header = pfs(provider="Cablevision")
    answer = sso_session(api, token, header).json
    value = saml.encode_saml_response(platform_saml(answer, "Cablevision"))
    api.control("POST", "config", {"integrations_disabled": ["Cablevision"]})
    assert_documented_refusal(sso_profile(api, token, value, header), "invalid_integration")
    api.control("POST", "config", {"integrations_disabled": []})
    assert sso_profile(api, token, value, header).status == 201  # the request stayed pending


def test_every_call_naming_a_disabled_integration_is_refused(api: Api) -> None:
    token = api.new_access_token()
    profiles = sign_in_with_partner(api, token)
    assert list(profiles) == ["Cablevision"]
    api.control("POST", "config", {"integrations_disabled": ["Cablevision"]})
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/sessions", {"form": {**ALL_SESSION_PARAMS, "mvpd": "Cablevision"}}),
        ("GET", "/profiles/Cablevision", {"headers": {PFS: pfs()}}),
        ("POST", "/decisions/authorize/Cablevision", {"json_body": {"resources": ["REF30"]}, "headers": {PFS: pfs()}}),
        ("GET", "/logout/Cablevision?redirectUrl=https%3A%2F%2Fadobe.com", {}),
    ]
    for method, path, options in calls:
        assert_documented_refusal(api.v2(method, path, token, **options), "invalid_integration")


def test_integrations_disabled_is_validated(api: Api) -> None:
    for bad in ({"integrations_disabled": "Dish"}, {"integrations_disabled": [1]}):
        assert api.request("POST", "/_emulator/config", json_body=bad).status == 400
    assert api.control("GET", "config")["integrations_disabled"] == []


def test_the_other_enhanced_errors_of_the_partner_operations_can_be_injected(api: Api) -> None:
    """What a client must handle from sessions/sso and profiles/sso: Adobe's documented codes and a
    failing service, through the fault list (Emulator/README.md, Fault injection)."""
    token = api.new_access_token()
    api.control("POST", "faults", {"faults": [
        {"operation": "retrieveVerificationTokenUsingPOST", "requests": [1], "kind": "enhanced_error",
         "code": "invalid_parameter_partner"},
        {"operation": "retrieveVerificationTokenUsingPOST", "requests": [2], "kind": "status", "status": 500},
    ]})
    assert_documented_refusal(sso_session(api, token, pfs()), "invalid_parameter_partner")
    failed = sso_session(api, token, pfs())
    assert (failed.status, failed.json["code"], failed.json["action"]) == (500, "internal_server_error", "retry")
    assert sso_session(api, token, pfs()).json["actionName"] == "partner_profile"


# --- a partner status without an expiry ----------------------------------------------------------------

def test_a_partner_status_without_an_expiry_is_accepted(api: Api) -> None:
    """The Apple SSO cookbook (REST API V2) B.2, C.4, C.11: the expiry of the provider profile "if any"
    (the default, `pfs_expiration_date: "optional"`); one that has passed is still refused."""
    token = api.new_access_token()
    no_expiry = pfs(expiration=None)
    answer = sso_session(api, token, no_expiry).json
    assert answer["actionName"] == "partner_profile", answer
    created = sso_profile(api, token, saml.encode_saml_response(platform_saml(answer, "Cablevision")), no_expiry)
    assert created.status == 201 and created.json["profiles"]["Cablevision"]["type"] == "appleSSO"
    assert list(api.v2("GET", "/profiles", token, headers={PFS: no_expiry}).json["profiles"]) == ["Cablevision"]
    decision = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body={"resources": ["REF30"]},
                      headers={PFS: no_expiry}).json["decisions"][0]
    assert decision["authorized"] is True
    expired = pfs(expiration=str(now_ms() - 1000))
    assert sso_session(api, token, expired).json["reasonType"] == "pfs_fallback"
    assert_documented_refusal(
        api.v2("POST", "/decisions/authorize/Cablevision", token, json_body={"resources": ["REF30"]},
               headers={PFS: expired}), "invalid_header_pfs_provider_info_expired")


def test_the_header_pages_reading_is_a_setting(api: Api) -> None:
    """`pfs_expiration_date: "required"`: Adobe's header page ("a required attribute") — a PFS
    without `expirationDate` counts as expired everywhere."""
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    api.control("POST", "config", {"pfs_expiration_date": "required"})
    no_expiry = pfs(expiration=None)
    assert sso_session(api, token, no_expiry).json["reasonType"] == "pfs_fallback"
    assert api.v2("GET", "/profiles", token, headers={PFS: no_expiry}).json == {"profiles": {}}
    assert_documented_refusal(
        api.v2("POST", "/decisions/authorize/Cablevision", token, json_body={"resources": ["REF30"]},
               headers={PFS: no_expiry}), "invalid_header_pfs_provider_info_expired")
    assert_documented_refusal(sso_profile(api, token, "x", no_expiry), "invalid_header_pfs_provider_info_expired")
    for bad in ({"pfs_expiration_date": "maybe"}, {"pfs_expiration_date": None}):
        assert api.request("POST", "/_emulator/config", json_body=bad).status == 400


# --- enforcePlatformPermissions ------------------------------------------------------------------------

NOT_ENFORCED = {"configuration_platforms": [
    {"match": {}, "mvpd_fields": {"Cablevision": {"enforcePlatformPermissions": False}}}]}


def test_an_integration_that_does_not_enforce_the_permission_keeps_the_apple_sso_profile(api: Api) -> None:
    """The TVE Dashboard's "Enforce Platform Permission" controls "if the user's decision to Allow or
    Deny platform access to their TV Provider subscription is respected": not enforced, the viewer's
    appleSSO profile is listed and decided on with a PFS that only says the permission is not granted."""
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    api.control("POST", "config", NOT_ENFORCED)
    mvpds = api.v2("GET", "/configuration", token).json["requestor"]["mvpds"]
    assert next(m for m in mvpds if m["id"] == "Cablevision")["enforcePlatformPermissions"] is False
    body = {"resources": ["REF30"]}
    for access in ("denied", "restricted", "notDetermined"):
        header = pfs(access=access, provider=None)
        assert list(api.v2("GET", "/profiles", token, headers={PFS: header}).json["profiles"]) == ["Cablevision"]
        decision = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body=body,
                          headers={PFS: header}).json["decisions"][0]
        assert decision["authorized"] is True, decision
    # Only the permission is overlooked: a missing or unreadable PFS, or a granted one for another
    # provider, is refused as before.
    for header, code in ((None, "invalid_header_pfs_permission_access_not_present"),
                         ("???", "invalid_header_pfs_permission_access_not_present"),
                         (pfs(provider="Comcast"), "invalid_header_pfs_provider_id_mismatch")):
        reply = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body=body,
                       headers={} if header is None else {PFS: header})
        assert_documented_refusal(reply, code)


def test_the_permission_is_enforced_when_the_field_is_absent_or_true(api: Api) -> None:
    token = api.new_access_token()
    sign_in_with_partner(api, token)
    body = {"resources": ["REF30"]}
    for config in ({"configuration_platforms": []}, {"configuration_platforms": [
            {"match": {}, "mvpd_fields": {"Cablevision": {"enforcePlatformPermissions": True}}}]}):
        api.control("POST", "config", config)
        denied = pfs(access="denied", provider=None)
        assert api.v2("GET", "/profiles", token, headers={PFS: denied}).json == {"profiles": {}}
        assert_documented_refusal(
            api.v2("POST", "/decisions/authorize/Cablevision", token, json_body=body, headers={PFS: denied}),
            "invalid_header_pfs_permission_access_not_granted")
