"""Decisions APIs: preauthorize and authorize (with a short media token) for one MVPD.

A missing or expired profile is answered with HTTP 200 and an item-level error on every
decision (`authenticated_profile_missing` / `authenticated_profile_expired`); the docs do
not say whether this error is top-level or item-level (rest-api-v2.md §7.3).
TempPass MVPDs decide by their TempPass (`temppass.py`, source `temppass`); an MVPD under a
degradation rule by that rule (`degradation.py`, source `degradation`).
Decisions on a valid `appleSSO` profile need a valid AP-Partner-Framework-Status for its MVPD,
else a top-level 400 with the matching `invalid_header_pfs_*` code.
A device without a valid profile of its own decides on the `platformSSO` / `serviceTokenSSO` profile
of the request's valid SSO tokens (sso.py); the decisions look the same (`source: mvpd`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from typing import Any, Callable
from xml.sax.saxutils import escape

from . import checks, degradation, sso, temppass
from .errors import ApiError, error_object
from .partner import APPLE_SSO, require_pfs_for
from .state import Profile, State
from .web import Request, Response, json_response

_SIGNING_KEY = secrets.token_bytes(32)


def preauthorize(state: State, req: Request) -> Response:
    """retrievePreAuthorizeDecisionsForMvpdUsingPOST_1: decisions without media tokens."""
    return _decide(state, req, authorize=False)


def authorize(state: State, req: Request) -> Response:
    """retrieveAuthorizeDecisionsForMvpdUsingPOST: decisions with media tokens."""
    return _decide(state, req, authorize=True)


def _decide(state: State, req: Request, authorize: bool) -> Response:
    caller = checks.v2_caller(state, req)
    device = checks.device_headers(state, req)
    mvpd = checks.mvpd(state, caller.requestor, req.path_params["mvpd"])
    resources = checks.resources(req)
    limit = state.config["authorize_limit" if authorize else "preauthorize_limit"]
    if len(resources) > limit:
        raise ApiError("too_many_resources", f"{len(resources)} resources requested, the limit is {limit}")
    subjects = sso.judge(state, req, caller.now)
    key = caller.profile_key(device.device_id, mvpd.id)
    token = _token_maker(state, caller.now)
    if mvpd.temp_pass:
        items = temppass.decisions(state, req, mvpd, key, resources, authorize, caller.now, token)
        return json_response(200, {"decisions": items})
    profile = (degradation.authenticated(state, key, caller.now, subjects) or state.profiles.get(key)
               or sso.lookup(state, key, subjects, caller.now, include_expired=True))
    if profile is None or not profile.valid(caller.now):
        code = "authenticated_profile_missing" if profile is None else "authenticated_profile_expired"
        decisions = [_decision(key.service_provider, mvpd.id, r, error=error_object(code)) for r in resources]
        return json_response(200, {"decisions": decisions})
    if profile.type == APPLE_SSO:
        require_pfs_for(state, req, caller.requestor, mvpd.id, caller.now)
    rule = degradation.rule(state, mvpd.id)
    if rule:
        authz_ttl_ms = state.ttl_ms("authz_ttl_s")
        items = [degradation.decision(rule, profile, r, authorize, caller.now, token, authz_ttl_ms) for r in resources]
        return json_response(200, {"decisions": items})
    decide = _authorize_item if authorize else _preauthorize_item
    return json_response(200, {"decisions": [decide(state, profile, r, caller.now) for r in resources]})


def _token_maker(state: State, now: int) -> Callable[[Profile, str], dict[str, Any]]:
    ttl_ms = state.ttl_ms("media_token_ttl_s")
    return lambda profile, resource: {
        "notBefore": now,
        "notAfter": now + ttl_ms,
        "serializedToken": media_token(profile, resource, ttl_ms, now),
    }


def _decision(sp: str, mvpd_id: str, resource: str, error: dict[str, Any] | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "resource": resource,
        "serviceProvider": sp,
        "mvpd": mvpd_id,
        "source": "mvpd",
        "authorized": error is None,
    }
    if error is not None:
        item["error"] = error
    return item


def _preauthorize_item(state: State, profile: Profile, resource: str, now: int) -> dict[str, Any]:
    sp, mvpd_id = profile.key.service_provider, profile.key.mvpd
    denied = state.config["denied_resources"].get(resource)
    if denied is not None:
        return _decision(sp, mvpd_id, resource, error_object("preauthorization_denied_by_mvpd", denied))
    return _decision(sp, mvpd_id, resource)


def _authorize_item(state: State, profile: Profile, resource: str, now: int) -> dict[str, Any]:
    sp, mvpd_id = profile.key.service_provider, profile.key.mvpd
    window = {"notBefore": now, "notAfter": now + state.ttl_ms("authz_ttl_s")}
    denied = state.config["denied_resources"].get(resource)
    if denied is not None:
        error = error_object("authorization_denied_by_mvpd", denied)
        return {**_decision(sp, mvpd_id, resource, error), **window}
    token = _token_maker(state, now)(profile, resource)
    return {**_decision(sp, mvpd_id, resource), "token": token, **window}


def media_token(profile: Profile, resource: str, ttl_ms: int, issued_ms: int) -> str:
    """Base64 of the XML short media token, with an HMAC standing in for Adobe's RSA signature."""
    user_id = str(profile.attributes["userID"]["value"])
    issue_time = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(issued_ms / 1000))
    body = (
        "<shortAuthorizationToken>"
        f"<sessionGUID>{hashlib.sha256(user_id.encode()).hexdigest()[:32]}</sessionGUID>"
        f"<requestorID>{escape(profile.key.service_provider)}</requestorID>"
        f"<resourceID>{escape(resource)}</resourceID>"
        f"<ttl>{ttl_ms}</ttl>"
        f"<issueTime>{issue_time}</issueTime>"
        f"<mvpdId>{escape(profile.key.mvpd)}</mvpdId>"
        "<proxyMvpdId/>"
        "</shortAuthorizationToken>"
    )
    signature = base64.b64encode(hmac.new(_SIGNING_KEY, body.encode(), hashlib.sha256).digest()).decode()
    return base64.b64encode(f"<signatureInfo>{signature}</signatureInfo>{body}".encode()).decode()
