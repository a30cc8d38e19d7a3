"""V1 authN tokens, kept as profiles keyed (V1_CLIENT, deviceId, requestor, MVPD), and V1 authZ
tokens. V1 stores tokens per requestor and device, whichever DCR client asks (rest-api-v1.md §7)."""

from __future__ import annotations

from typing import Any, Iterable

from .. import sso
from ..catalog import Requestor
from ..login import user_attributes
from ..state import V1_CLIENT, AuthzToken, Profile, ProfileKey, State, Subject

APPLE = "Apple"  # issuer of the tokens made by the Apple SSO token exchange -> tokenSource "Apple"


def authn_token(state: State, requestor: str, device_id: str) -> Profile | None:
    """The device's latest authN token for `requestor` (valid or expired), if any."""
    found = [p for p in state.profiles.values()
             if p.key.client_id == V1_CLIENT and p.key.device_id == device_id and p.key.service_provider == requestor]
    return max(found, key=lambda p: p.not_before, default=None)


def device_authn_token(state: State, requestor: Requestor, device_id: str, subjects: Iterable[Subject],
                       now: int) -> Profile | None:
    """The device's authN token, or, when it has no valid one, the SSO profile of the request's
    platform identity (sso.py) as its token (a valid one before an expired one)."""
    own = authn_token(state, requestor.id, device_id)
    if own is not None and own.valid(now):
        return own
    shared = sso.v1_view(state, requestor, device_id, subjects, now)
    if shared is not None and (shared.valid(now) or own is None):
        return shared
    return own


def store_authn_token(state: State, requestor: str, device_id: str, mvpd: str, user_id: str, issuer: str,
                      kind: str, now: int, ttl_ms: int) -> Profile:
    """A new authN token for the device; it replaces the device's other tokens for `requestor`."""
    forget_device(state, requestor, device_id)
    key = ProfileKey(V1_CLIENT, device_id, requestor, mvpd)
    profile = Profile(key, issuer, kind, now, now + ttl_ms, user_attributes(user_id))
    state.profiles[key] = profile
    return profile


def forget_device(state: State, requestor: str, device_id: str) -> None:
    """Logout: the device's authN and authZ tokens for `requestor` are gone."""
    for key in [k for k in state.profiles
                if k.client_id == V1_CLIENT and k.device_id == device_id and k.service_provider == requestor]:
        del state.profiles[key]
    for key in [k for k in state.authz_tokens if k.device_id == device_id and k.requestor == requestor]:
        del state.authz_tokens[key]


def authn_payload(profile: Profile) -> dict[str, Any]:
    """TAUTHN's answer; `expires` is a string of milliseconds, as in Adobe's samples."""
    return {
        "requestor": profile.key.service_provider,
        "mvpd": profile.key.mvpd,
        "userId": profile.attributes["userID"]["value"],
        "expires": str(profile.not_after),
    }


def authz_payload(token: AuthzToken) -> dict[str, Any]:
    return {
        "mvpd": token.mvpd,
        "resource": token.key.resource,
        "requestor": token.key.requestor,
        "expires": str(token.expires_ms),
    }
