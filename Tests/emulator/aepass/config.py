"""Emulator settings: defaults, validation, merging (the keys of POST /_emulator/config)."""

from __future__ import annotations

import copy
from typing import Any, Callable

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
    # Tests: make /sessions/sso answer this fallback whatever the request ("pfs_fallback": the
    # server rejects the partner status; "missing_parameters_fallback": it lacks redirectUrl).
    "partner_sso_force_fallback": None,
}


class ConfigError(ValueError):
    """A configuration key is unknown or its value has the wrong type."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _is_limit(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


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
    "partner_sso_force_fallback": (
        lambda v: v in (None, "pfs_fallback", "missing_parameters_fallback"),
        'null, "pfs_fallback" or "missing_parameters_fallback"',
    ),
}


def default_config() -> dict[str, Any]:
    return copy.deepcopy(DEFAULTS)


def merged(current: dict[str, Any], patch: Any) -> dict[str, Any]:
    """Return `current` updated with `patch`; raise ConfigError on any bad key or value."""
    if not isinstance(patch, dict):
        raise ConfigError("the configuration must be a JSON object")
    result = copy.deepcopy(current)
    for key, value in patch.items():
        if key not in _CHECKS:
            raise ConfigError(f"unknown configuration key {key!r}")
        check, expected = _CHECKS[key]
        if not check(value):
            raise ConfigError(f"{key} must be {expected}")
        result[key] = copy.deepcopy(value)
    return result
