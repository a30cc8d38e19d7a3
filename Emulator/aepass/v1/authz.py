"""V1 authorization: authorize, tokens/authz (the cached authZ token), tokens/media (alias
mediatoken), preauthorize and preauthorize/{code}.

`/authorize` stores an authZ token per (requestor, deviceId, resource) that lives `authz_ttl_s`
(never past the authN token); while it is valid, `/authorize` answers it again without a new
MVPD decision, and `tokens/authz` returns it, so a client that checks `tokens/authz` first can
go straight to the media token. The media token needs a valid authZ token for its resource.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

from ..decisions import media_token
from ..errors import error_object
from ..state import AuthzKey, AuthzToken, Profile, State, Subject
from ..web import Request, Response
from .answers import V1Error, bad_request
from .call import V1Call, v1_endpoint
from .reggie import v1_session
from .tokens import authz_payload, device_authn_token

TEMPORARY = "temporary"  # TempPass tokens authorize every resource (rest-api-v1.md §9.1)
_MRSS_TITLE = re.compile(r"<channel>\s*<title>(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?</title>", re.S)


def _valid_authn(state: State, call: V1Call, device_id: str, status: int,
                 subjects: tuple[Subject, ...] | None = None) -> Profile:
    """The device's valid authN token (or its platform identity's SSO profile: `subjects`, by
    default the request's), else `status` (403 on authorize/media, 412 elsewhere)."""
    subjects = call.subjects if subjects is None else subjects
    token = device_authn_token(state, call.requestor, device_id, subjects, call.now)
    if token is None:
        raise V1Error(status, "User not authenticated", "no authentication token for this device")
    if not token.valid(call.now):
        raise V1Error(status, "Authentication token expired" if status == 403 else "User not authenticated",
                      "the authentication token has expired")
    return token


def _denied_details(state: State, authn: Profile, resource: str) -> str | None:
    """The MVPD's deny text for a resource id or an MRSS resource's channel title, if denied."""
    if authn.type == TEMPORARY:
        return None
    denied = state.config["denied_resources"]
    title = _MRSS_TITLE.search(resource)
    return denied.get(resource) or (denied.get(title.group(1).strip()) if title else None)


@v1_endpoint("v1InitiateAuthorization")
def authorize(state: State, req: Request, call: V1Call) -> Response:
    """200 the authZ token (cached while valid); 403 not authenticated or denied by the MVPD.
    Without authN the endpoint page lists only 403, so 403 (EEC allows 403 or 412)."""
    authn = _valid_authn(state, call, call.device_id, 403)
    key = AuthzKey(call.requestor.id, call.device_id, call.params["resource"])
    cached = state.authz_tokens.get(key)
    if cached is None or not cached.valid(call.now) or cached.mvpd != authn.key.mvpd:
        details = _denied_details(state, authn, key.resource)
        if details is not None:
            state.authz_tokens.pop(key, None)
            raise V1Error(403, "User not authorized", details)
        expires = min(call.now + state.ttl_ms("authz_ttl_s"), authn.not_after)
        cached = state.authz_tokens[key] = AuthzToken(key, authn.key.mvpd, expires)
    return call.answer(200, authz_payload(cached), "authorization")


@v1_endpoint("v1RetrieveAuthorizationToken")
def get_authz_token(state: State, req: Request, call: V1Call) -> Response:
    """200 the cached authZ token; 412 no valid authN; 404 none for the resource; 410 expired."""
    _valid_authn(state, call, call.device_id, 412)
    token = state.authz_tokens.get(AuthzKey(call.requestor.id, call.device_id, call.params["resource"]))
    if token is None:
        raise V1Error(404, "Not Found")
    if not token.valid(call.now):
        raise V1Error(410, "Gone")
    return call.answer(200, authz_payload(token), "authorization")


@v1_endpoint("v1ObtainShortMediaToken")
def get_media_token(state: State, req: Request, call: V1Call) -> Response:
    """200 a short media token (`serializedToken`: Base64 XML, passed through untouched); 403
    without a valid authN token or a valid authZ token for the resource."""
    authn = _valid_authn(state, call, call.device_id, 403)
    resource = call.params["resource"]
    token = state.authz_tokens.get(AuthzKey(call.requestor.id, call.device_id, resource))
    if token is None or not token.valid(call.now):
        raise V1Error(403, "User not authorized", "no valid authorization for this resource: call authorize")
    ttl_ms = state.ttl_ms("media_token_ttl_s")
    user_id = str(authn.attributes["userID"]["value"])
    return call.answer(200, {
        "resource": resource,
        "requestor": call.requestor.id,
        "expires": str(call.now + ttl_ms),
        "serializedToken": media_token(authn, resource, ttl_ms, call.now),
        "userId": hashlib.sha256(user_id.encode()).hexdigest(),  # scrambled, as Adobe's
        "mvpdId": token.mvpd,
    }, "play")


def _preauthorized(state: State, call: V1Call, device_id: str, subjects: tuple[Subject, ...] | None = None,
                   ) -> Response:
    authn = _valid_authn(state, call, device_id, 412, subjects)
    resources = [r.strip() for r in call.params["resource"].split(",") if r.strip()]
    limit = state.config["preauthorize_limit"]
    if not resources or len(resources) > limit:
        raise bad_request(f"resource must name 1 to {limit} comma-separated resources")
    items: list[dict[str, Any]] = []
    for resource in resources:
        details = _denied_details(state, authn, resource)
        item: dict[str, Any] = {"id": resource, "authorized": details is None}
        if details is not None:
            item["error"] = error_object("preauthorization_denied_by_mvpd", details)
        items.append(item)
    headers = [("Adobe-Request-Id", str(uuid.uuid4())), ("Adobe-Response-Confidence", "full")]
    return call.answer(200, {"resources": items}, "resources", headers)


@v1_endpoint("v1Preauthorize")
def preauthorize(state: State, req: Request, call: V1Call) -> Response:
    """200 with a decision per resource (item-level EEC errors); 412 without valid authN."""
    return _preauthorized(state, call, call.device_id)


@v1_endpoint("v1PreauthorizeBySecondScreen")
def preauthorize_for_code(state: State, req: Request, call: V1Call) -> Response:
    """As preauthorize, for the device that requested the registration code."""
    session = v1_session(state, call, req.path_params["code"], bad_request("unknown or expired registration code"))
    return _preauthorized(state, call, session.device_id, session.sso_subjects)  # the code's device's tokens
