"""Per-platform configuration: the MVPDs' configuration fields as a device platform sees them.

Adobe keeps the platform SSO settings per integration *and platform* ("Enable Single Sign On" per
integration and platform in the TVE Dashboard, rest-api-v2.md §8.5; "the configuration is specific
to service provider and platform type", REST API V2 FAQ): an MVPD onboarded for Apple SSO shows
`platformMappingId`, `enablePlatformServices`, `boardingStatus`, `displayInPlatformPicker` on a
platform with SSO and may show none of them elsewhere. The emulator's catalog has one set of
fields; the config key `configuration_platforms` changes them per platform:

    [{"match": {"osName": "Android"}, "platform_sso": false},
     {"match": {"osFamily": ["iOS", "tvOS"], "primaryHardwareType": "SetTopBox"},
      "remove_fields": ["displayInPlatformPicker"],
      "mvpd_fields": {"Cablevision": {"boardingStatus": "PICKER"}, "Dish": {"platformMappingId": null}}}]

* `match`: X-Device-Info attribute -> a string, or a list of strings (any of them). Every listed
  attribute must equal the decoded X-Device-Info's (strings compared exactly). `{}` matches every
  request, one without X-Device-Info included (possible when `configuration_device_headers` is
  "optional"); a rule with attributes never matches such a request.
* `platform_sso: false`: the MVPDs lose every platform SSO field (`PLATFORM_SSO_FIELDS`).
* `remove_fields`: field names removed from every MVPD.
* `mvpd_fields`: MVPD id -> {field: value}: sets those fields; `null` removes one. Applied last.

The first matching rule is used; none matching (the default, `[]`): the catalog as it is.
The view is used by GET configuration and by `/sessions/sso/{partner}` (an MVPD that is not onboarded
on the caller's platform answers `configuration_fallback`). The PFS provider id still maps through
the catalog's `platformMappingId` (the platform names its provider whatever Adobe shows).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .catalog import Mvpd, Requestor

PLATFORM_SSO_FIELDS = ("platformMappingId", "enablePlatformServices", "boardingStatus",
                       "displayInPlatformPicker", "requiredMetadataFields")


def matching_rule(rules: list[dict[str, Any]], info: dict[str, Any] | None) -> dict[str, Any] | None:
    """The first rule whose `match` fits the decoded X-Device-Info (None: no X-Device-Info)."""
    for rule in rules:
        if all(_fits(info, name, wanted) for name, wanted in rule["match"].items()):
            return rule
    return None


def _fits(info: dict[str, Any] | None, name: str, wanted: str | list[str]) -> bool:
    if info is None:
        return False
    value = info.get(name)
    return isinstance(value, str) and value in ([wanted] if isinstance(wanted, str) else wanted)


def mvpd_view(mvpd: Mvpd, rule: dict[str, Any] | None) -> Mvpd:
    """The MVPD with its configuration fields as the rule's platform sees them."""
    if rule is None:
        return mvpd
    removed = set(rule.get("remove_fields", ()))
    if rule.get("platform_sso") is False:
        removed |= set(PLATFORM_SSO_FIELDS)
    fields = {k: v for k, v in mvpd.config_fields.items() if k not in removed}
    for name, value in rule.get("mvpd_fields", {}).get(mvpd.id, {}).items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return replace(mvpd, config_fields=MappingProxyType(fields))


def requestor_view(requestor: Requestor, rule: dict[str, Any] | None) -> Requestor:
    """The requestor with every MVPD as the rule's platform sees it."""
    if rule is None:
        return requestor
    return replace(requestor, mvpds=tuple(mvpd_view(m, rule) for m in requestor.mvpds))


def rule_for(config: dict[str, Any], info: dict[str, Any] | None) -> dict[str, Any] | None:
    return matching_rule(config["configuration_platforms"], info)
