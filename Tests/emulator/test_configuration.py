"""GET /api/v2/{sp}/configuration: the device headers it requires (by default), and the answers
that differ by device platform (`configuration_platforms`, aepass/platforms.py)."""

from __future__ import annotations

from typing import Any

import pytest

from emulator_testkit import Api, b64, device_info
from test_partner_sso import FORM, assert_documented_refusal, pfs

PLATFORM_FIELDS = ("platformMappingId", "enablePlatformServices", "boardingStatus", "displayInPlatformPicker")
# What the SDK sends today (Sources/AccessEnabler/Engine/Settings.swift): Linux, set-top box.
SDK_DEVICE_INFO = device_info(model="Generic", version="x86_64", osName="Linux", osFamily="Linux",
                              osVersion="6.1", connectionType="LAN", primaryHardwareType="SetTopBox",
                              manufacturer=None, vendor=None)


def configuration(api: Api, token: str, info: str | None = None, device: str | None = "tv-1",
                  invalid: bool = False, **headers: str) -> Any:
    extra = dict(headers)
    if info is not None:
        extra["X-Device-Info"] = info
    return api.v2("GET", "/configuration", token, device=device, headers=extra, invalid=invalid)


def mvpds(reply: Any) -> dict[str, dict[str, Any]]:
    assert reply.status == 200, reply.json
    return {m["id"]: m for m in reply.json["requestor"]["mvpds"]}


def platform_fields(answer: dict[str, dict[str, Any]], mvpd: str) -> tuple[Any, ...]:
    return tuple(answer[mvpd].get(f) for f in PLATFORM_FIELDS)


# --- device headers ----------------------------------------------------------------------------

def test_configuration_requires_the_device_headers_when_strict(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"strictness": "strict"})
    assert api.control("GET", "config")["configuration_device_headers"] == "required"
    auth = {"Authorization": f"Bearer {token}"}
    cases = [
        ({}, "invalid_header_device_identifier"),
        ({"X-Device-Info": device_info()}, "invalid_header_device_identifier"),
        ({"AP-Device-Identifier": f"fingerprint {b64('tv-1')}"}, "invalid_header_device_info"),
        ({"AP-Device-Identifier": "tv-1", "X-Device-Info": device_info()}, "invalid_header_device_identifier"),
        ({"AP-Device-Identifier": f"fingerprint {b64('tv-1')}", "X-Device-Info": b64("{}")},
         "invalid_header_device_info"),
    ]
    for headers, code in cases:
        reply = api.request("GET", "/api/v2/REF30/configuration", headers={**auth, **headers}, invalid=True)
        assert_documented_refusal(reply, code)
    assert configuration(api, token).status == 200


def test_configuration_device_headers_are_optional_by_default(api: Api) -> None:
    token = api.new_access_token()
    assert api.control("GET", "config")["configuration_device_headers"] == "optional"
    # Adobe's release 3.4.0 accepts it; the validator's erratum E13 flags it (hence invalid=True).
    assert configuration(api, token, device=None, invalid=True).status == 200
    bad = configuration(api, token, device=None, invalid=True, **{"X-Device-Info": b64("{}")})
    assert_documented_refusal(bad, "invalid_header_device_info")
    for value in ("sometimes", None, True):
        assert api.request("POST", "/_emulator/config",
                           json_body={"configuration_device_headers": value}).status == 400


# --- per platform -------------------------------------------------------------------------------

def test_default_answer_is_the_same_for_every_platform(api: Api) -> None:
    token = api.new_access_token()
    assert api.control("GET", "config")["configuration_platforms"] == []
    sdk = mvpds(configuration(api, token, SDK_DEVICE_INFO))
    apple = mvpds(configuration(api, token, device_info(osName="tvOS", osFamily="tvOS")))
    assert sdk == apple
    assert platform_fields(sdk, "Cablevision") == ("Cablevision", True, "SUPPORTED", True)


def test_a_platform_without_platform_sso(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"configuration_platforms": [
        {"match": {"osName": "Android"}, "platform_sso": False}]})
    android = mvpds(configuration(api, token, device_info(osName="Android", model="SM-S901U")))
    for mvpd in ("Cablevision", "Comcast_SSO", "Spectrum", "Dish"):
        assert platform_fields(android, mvpd) == (None, None, None, None)
        assert "requiredMetadataFields" not in android[mvpd]
    assert set(android) == {"Cablevision", "Comcast_SSO", "Spectrum", "DTV", "Dish", "TempPass_TEST40",
                            "flexibleTempPass"}
    assert android["Cablevision"]["displayName"] == "Optimum"
    tvos = mvpds(configuration(api, token))  # tvOS: no rule matches, the catalog's fields
    assert platform_fields(tvos, "Cablevision") == ("Cablevision", True, "SUPPORTED", True)


def test_rules_match_attributes_and_change_fields(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"configuration_platforms": [
        {"match": {"osFamily": ["Linux", "webOS"], "primaryHardwareType": "SetTopBox"},
         "remove_fields": ["displayInPlatformPicker"],
         "mvpd_fields": {"Cablevision": {"boardingStatus": "PICKER", "platformMappingId": None},
                         "DTV": {"enablePlatformServices": False}}},
        {"match": {"osFamily": "Linux"}, "platform_sso": False},  # never reached for a set-top box
    ]})
    box = mvpds(configuration(api, token, SDK_DEVICE_INFO))
    assert platform_fields(box, "Cablevision") == (None, True, "PICKER", None)
    assert platform_fields(box, "Comcast_SSO") == ("Comcast", True, "SUPPORTED", None)
    assert platform_fields(box, "DTV") == (None, False, None, None)
    desktop = mvpds(configuration(api, token, device_info(osName="Linux", osFamily="Linux",
                                                          primaryHardwareType="Desktop")))
    assert platform_fields(desktop, "Cablevision") == (None, None, None, None)  # the second rule
    other = mvpds(configuration(api, token, device_info(osFamily="webOS", primaryHardwareType="TV")))
    assert platform_fields(other, "Cablevision") == ("Cablevision", True, "SUPPORTED", True)


def test_a_rule_without_attributes_matches_requests_without_device_info(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"configuration_device_headers": "optional", "configuration_platforms": [
        {"match": {"osName": "tvOS"}, "remove_fields": ["boardingStatus"]},
        {"match": {}, "platform_sso": False}]})
    bare = configuration(api, token, device=None, invalid=True)  # invalid: erratum E13
    assert platform_fields(mvpds(bare), "Cablevision") == (None,) * 4
    assert platform_fields(mvpds(configuration(api, token)), "Cablevision") == ("Cablevision", True, None, True)


def test_partner_sso_follows_the_platform_configuration(api: Api) -> None:
    """An MVPD that is not onboarded on the caller's platform answers configuration_fallback."""
    token = api.new_access_token()
    api.control("POST", "config", {"configuration_platforms": [
        {"match": {"osName": "Linux"}, "platform_sso": False},
        {"match": {"model": "AppleTV5,3"}, "mvpd_fields": {"Cablevision": {"boardingStatus": "PICKER"}}}]})
    linux = {"X-Device-Info": SDK_DEVICE_INFO, "AP-Partner-Framework-Status": pfs()}
    answer = api.v2("POST", "/sessions/sso/Apple", token, headers=linux, form=FORM).json
    assert (answer["actionName"], answer["reasonType"], answer["mvpd"]) == (
        "authenticate", "configuration_fallback", "Cablevision")
    old_tv = {"X-Device-Info": device_info(model="AppleTV5,3"), "AP-Partner-Framework-Status": pfs()}
    answer = api.v2("POST", "/sessions/sso/Apple", token, headers=old_tv, form=FORM).json
    assert answer["reasonType"] == "configuration_fallback"
    tvos = api.v2("POST", "/sessions/sso/Apple", token, headers={"AP-Partner-Framework-Status": pfs()},
                  form=FORM).json
    assert tvos["actionName"] == "partner_profile"


@pytest.mark.parametrize("rules", [
    {"match": {"osName": "Linux"}},  # not a list
    [{"platform_sso": False}],  # no match
    [{"match": {"osName": 1}}],
    [{"match": {"osName": []}}],
    [{"match": {}, "platform_sso": True}],
    [{"match": {}, "remove_fields": "boardingStatus"}],
    [{"match": {}, "mvpd_fields": {"Nobody": {"boardingStatus": "PICKER"}}}],
    [{"match": {}, "mvpd_fields": {"Cablevision": {"id": "x"}}}],
    [{"match": {}, "mvpd_fields": {"Cablevision": ["boardingStatus"]}}],
    [{"match": {}, "extra": 1}],
])
def test_platform_rules_are_validated(api: Api, rules: Any) -> None:
    reply = api.request("POST", "/_emulator/config", json_body={"configuration_platforms": rules})
    assert reply.status == 400 and "configuration_platforms" in reply.json["error"]
