"""Degradation: the three rules a programmer applies to an MVPD integration while the MVPD is down.

Config `degradation` maps an MVPD id to its rule (rest-api-v2.md §8.7, §4.12; documented answers
`sessions.create:5`, `sessions.resume:5`, `profiles.by_mvpd:12`, `profiles.by_code:10`,
`decisions.authorize:3-5`, `decisions.preauthorize:2-4`, `partner_sso.*:2`, `logout.initiate:6`):

* `AuthNAll` (authenticate all, authorize all): a device without a valid profile for the MVPD is
  authenticated by Adobe at once with a `degraded` profile (issuer `Adobe`, userID prefixed with
  the degradation prefix `95cf93bcd183214a`): sessions answer `authorize`/`degraded`, profiles/{mvpd}
  and profiles/code answer that profile, and decisions permit with `source: degradation`. A valid
  regular (or SSO) profile the device already has is kept and used, and so is a valid platform
  identity or service token SSO profile of the request's tokens (sso.py).
* `AuthZAll` (authorize all): authentication as usual; decisions on a valid profile permit with
  `source: degradation` (the documented answer has no decision-level notBefore/notAfter).
* `AuthZNone` (authorize none): authentication as usual; decisions on a valid profile deny with the
  item-level 403 `authorization_denied_by_degradation_rule`.

`degraded` profiles are not listed by GET /profiles (rest-api-v2.md §4.8: that endpoint answers
regular and SSO profiles only); logout of one answers `complete`.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterable

from . import sso
from .errors import error_object
from .state import Profile, ProfileKey, State, Subject

AUTHN_ALL, AUTHZ_ALL, AUTHZ_NONE = "AuthNAll", "AuthZAll", "AuthZNone"
DEGRADED = "degraded"
SOURCE = "degradation"
USER_ID_PREFIX = "95cf93bcd183214a"
DENIED = "authorization_denied_by_degradation_rule"


def rule(state: State, mvpd_id: str) -> str | None:
    return state.config["degradation"].get(mvpd_id)


def authenticate_all(state: State, key: ProfileKey, now: int) -> Profile:
    """AuthNAll: the device's valid profile for the MVPD, or a new `degraded` one."""
    existing = state.valid_profile(key, now)
    if existing:
        return existing
    user_id = USER_ID_PREFIX + hashlib.sha1(f"{key.client_id}\n{key.device_id}".encode()).hexdigest()
    profile = Profile(key=key, issuer="Adobe", type=DEGRADED, not_before=now,
                      not_after=now + state.ttl_ms("profile_ttl_s"),
                      attributes={"userID": {"value": user_id, "state": "plain"}})
    state.profiles[key] = profile
    return profile


def authenticated(state: State, key: ProfileKey, now: int, subjects: Iterable[Subject] = ()) -> Profile | None:
    """The valid profile for `key` — the device's own, else the SSO profile of one of `subjects`
    (sso.py) — or one created by AuthNAll when that rule applies to its MVPD."""
    found = state.valid_profile(key, now) or sso.lookup(state, key, subjects, now)
    if found is None and rule(state, key.mvpd) == AUTHN_ALL:
        return authenticate_all(state, key, now)
    return found


def decision(rule_name: str, profile: Profile, resource: str, authorize: bool, now: int,
             token: Callable[[Profile, str], dict[str, Any]], authz_ttl_ms: int) -> dict[str, Any]:
    """A decision under `rule_name` for a device with a valid profile."""
    item: dict[str, Any] = {
        "resource": resource,
        "serviceProvider": profile.key.service_provider,
        "mvpd": profile.key.mvpd,
        "source": SOURCE,
        "authorized": rule_name != AUTHZ_NONE,
    }
    if rule_name == AUTHZ_NONE:
        item["error"] = error_object(DENIED)
    elif authorize:
        item["token"] = token(profile, resource)
        if rule_name == AUTHN_ALL:
            item.update({"notBefore": now, "notAfter": now + authz_ttl_ms})
    return item
