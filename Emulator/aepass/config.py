"""Emulator settings: defaults, validation, merging (the keys of POST /_emulator/config)."""

from __future__ import annotations

import copy
from typing import Any, Callable

from .catalog import all_mvpds
from .jws import KeyProblem, load_public_key
from .strictness import MODES, SWITCHES
from .strictness import defaults as strictness_defaults
from .strictness import preset as strictness_preset

DEFAULT_DENIED_RESOURCES = {
    "PREMIUM-DENIED": 'Your subscription package does not include the "Premium" channel',
}

DEFAULTS: dict[str, Any] = {
    "throttle": True,
    "access_token_ttl_s": 21600,
    "code_ttl_s": 1800,
    "profile_ttl_s": 86400,
    "authz_ttl_s": 86400,
    "media_token_ttl_s": 420,
    "temp_pass_ttl_s": 600,
    "denied_resources": DEFAULT_DENIED_RESOURCES,
    "preauthorize_limit": 5,
    "authorize_limit": 5,
    "auto_login_ms": None,
    "latency_ms": 0,
    "revoked_software_statements": [],
    # MVPD ids whose partner (Apple) SSO is disabled on the Adobe side: /sessions/sso answers
    # `configuration_fallback` for them.
    "partner_sso_disabled": ["Dish"],
    # MVPD ids whose integration with the requestor is disabled (the TVE Dashboard's "Disable
    # integration"): left out of the configuration, and every V2 call that names the MVPD (a path
    # or form `mvpd`, or the partner status's provider on sessions/sso and profiles/sso) answers
    # 400 `invalid_integration`.
    "integrations_disabled": [],
    # Tests: make /sessions/sso answer this fallback whatever the request ("pfs_fallback": the
    # server rejects the partner status; "missing_parameters_fallback": it lacks redirectUrl).
    "partner_sso_force_fallback": None,
    # TempPass MVPD id -> lifetime in seconds, overriding the catalog's (counted per device for
    # basic TempPass, per viewer identity for promotional TempPass, from the first request).
    "temppass_ttl_s": {},
    # Promotional TempPass MVPD id -> how many distinct resources may be authorized (catalog default 5).
    "temppass_resources": {},
    # MVPD id -> degradation rule applied to its integration: "AuthNAll", "AuthZAll" or "AuthZNone".
    "degradation": {},
    # Per-platform configuration (platforms.py): rules matched against the decoded X-Device-Info;
    # the first matching rule changes the MVPDs' configuration fields for that platform.
    "configuration_platforms": [],
    # Platform identity and service token SSO (sso.py): issuer (the tokens' `iss`) -> public key,
    # as PEM text or the path of a PEM file. AD-Service-Token: RSA (RS256); Adobe-Subject-Token and
    # X-Roku-Reserved-Roku-Connect-Token: RSA (RS256) or EC P-256 (ES256). None configured: no token
    # can be verified, and every request is served without SSO.
    "service_token_keys": {},
    "platform_token_keys": {},
    # A token that fails verification: "ignore" (served without SSO, as Adobe documents for the
    # platform identity) or "refuse" (V2 only: a top-level 400 invalid_header_service_token /
    # invalid_header_subject_token, emulator-only codes).
    "sso_invalid_token": "ignore",
    # MVPD ids whose integration has platform identity / service token SSO disabled (Adobe: per
    # integration in the TVE Dashboard; "Not all MVPDs will allow Roku SSO").
    "platform_sso_disabled": [],
    "service_token_sso_disabled": [],
    # Where Adobe's sources disagree (strictness.py: device_info_header, configuration_device_headers,
    # pfs_expiration_date, register_redirect_uri), and "strictness": "adobe" or "strict", which sets
    # them all at once.
    **strictness_defaults(),
}

DEGRADATION_RULES = ("AuthNAll", "AuthZAll", "AuthZNone")


class ConfigError(ValueError):
    """A configuration key is unknown or its value has the wrong type."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _is_limit(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_map_of(keys: Callable[[str], bool], values: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, dict) and all(
        isinstance(k, str) and keys(k) and values(v) for k, v in value.items())


def _temppass_mvpd(mvpd_id: str, promotional: bool = False) -> bool:
    mvpd = all_mvpds().get(mvpd_id)
    return bool(mvpd and mvpd.temp_pass and (mvpd.temp_pass.promotional or not promotional))


def _regular_mvpd(mvpd_id: str) -> bool:
    mvpd = all_mvpds().get(mvpd_id)
    return bool(mvpd and not mvpd.temp_pass)


_PLATFORM_RULES_SHAPE = (
    'a list of {"match": {attribute: string or [strings]}, "platform_sso"?: false, '
    '"remove_fields"?: [field names], "mvpd_fields"?: {MVPD id: {field: value or null}}}')


def _are_platform_rules(value: Any) -> bool:
    return isinstance(value, list) and all(_is_platform_rule(rule) for rule in value)


def _is_platform_rule(rule: Any) -> bool:
    """One rule of `configuration_platforms` (see platforms.py)."""
    if not isinstance(rule, dict) or "match" not in rule or not set(rule) <= {
            "match", "platform_sso", "remove_fields", "mvpd_fields"}:
        return False
    match = rule["match"]
    if not isinstance(match, dict) or not all(
            isinstance(k, str) and (isinstance(v, str) or (_is_string_list(v) and v)) for k, v in match.items()):
        return False
    if "platform_sso" in rule and rule["platform_sso"] is not False:
        return False
    if "remove_fields" in rule and not _is_string_list(rule["remove_fields"]):
        return False
    fields = rule.get("mvpd_fields", {})
    return isinstance(fields, dict) and all(
        isinstance(m, str) and m in all_mvpds() and isinstance(f, dict) and all(isinstance(k, str) and k != "id" for k in f)
        for m, f in fields.items())


def _key_map(kinds: tuple[str, ...]) -> Callable[[Any], bool]:
    """issuer -> PEM text or PEM file path, each a usable public key of `kinds`."""
    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for issuer, key in value.items():
            if not isinstance(issuer, str) or not issuer or not isinstance(key, str):
                return False
            try:
                load_public_key(key, kinds)
            except KeyProblem as problem:
                raise ConfigError(f"the key of issuer {issuer!r}: {problem}") from None
        return True
    return check


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "throttle": (lambda v: isinstance(v, bool), "a boolean"),
    "access_token_ttl_s": (_is_number, "a number >= 0"),
    "code_ttl_s": (_is_number, "a number >= 0"),
    "profile_ttl_s": (_is_number, "a number >= 0"),
    "authz_ttl_s": (_is_number, "a number >= 0"),
    "media_token_ttl_s": (_is_number, "a number >= 0"),
    "temp_pass_ttl_s": (_is_number, "a number >= 0"),
    "denied_resources": (_is_string_map, "an object of resource -> details text"),
    "preauthorize_limit": (_is_limit, "an integer >= 1"),
    "authorize_limit": (_is_limit, "an integer >= 1"),
    "auto_login_ms": (lambda v: v is None or _is_number(v), "null or a number >= 0"),
    "latency_ms": (_is_number, "a number >= 0"),
    "revoked_software_statements": (_is_string_list, "a list of strings"),
    "partner_sso_disabled": (_is_string_list, "a list of MVPD ids"),
    "integrations_disabled": (_is_string_list, "a list of MVPD ids"),
    "partner_sso_force_fallback": (
        lambda v: v in (None, "pfs_fallback", "missing_parameters_fallback"),
        'null, "pfs_fallback" or "missing_parameters_fallback"',
    ),
    "temppass_ttl_s": (_is_map_of(_temppass_mvpd, _is_number),
                       "an object of TempPass MVPD id -> number of seconds >= 0"),
    "temppass_resources": (_is_map_of(lambda m: _temppass_mvpd(m, promotional=True), _is_count),
                           "an object of promotional TempPass MVPD id -> integer >= 0"),
    "degradation": (_is_map_of(_regular_mvpd, lambda v: v in DEGRADATION_RULES),
                    "an object of (non-TempPass) MVPD id -> \"AuthNAll\", \"AuthZAll\" or \"AuthZNone\""),
    "configuration_platforms": (_are_platform_rules, _PLATFORM_RULES_SHAPE),
    "service_token_keys": (_key_map(("RSA",)),
                           "an object of issuer -> RSA public key (PEM text, or the path of a PEM file)"),
    "platform_token_keys": (_key_map(("RSA", "EC")),
                            "an object of issuer -> RSA or EC P-256 public key (PEM text, or the path of a PEM file)"),
    "sso_invalid_token": (lambda v: v in ("ignore", "refuse"), '"ignore" or "refuse"'),
    "platform_sso_disabled": (_is_string_list, "a list of MVPD ids"),
    "service_token_sso_disabled": (_is_string_list, "a list of MVPD ids"),
    "strictness": (lambda v: v in MODES, '"adobe" or "strict"'),
    **{s.key: ((lambda v, s=s: v in s.values), f'"{s.adobe}" or "{s.strict}"') for s in SWITCHES},
}


def default_config() -> dict[str, Any]:
    return copy.deepcopy(DEFAULTS)


def merged(current: dict[str, Any], patch: Any) -> dict[str, Any]:
    """Return `current` updated with `patch`; raise ConfigError on any bad key or value."""
    if not isinstance(patch, dict):
        raise ConfigError("the configuration must be a JSON object")
    result = copy.deepcopy(current)
    mode = patch.get("strictness")
    if mode is not None:
        if mode not in MODES:
            raise ConfigError('strictness must be "adobe" or "strict"')
        patch = {**strictness_preset(mode), **patch}  # a switch named in the same patch wins
    for key, value in patch.items():
        if key not in _CHECKS:
            raise ConfigError(f"unknown configuration key {key!r}")
        check, expected = _CHECKS[key]
        if not check(value):
            raise ConfigError(f"{key} must be {expected}")
        result[key] = copy.deepcopy(value)
    return result
