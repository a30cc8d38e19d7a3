"""Request checks shared by the V2 handlers. Each raises ApiError with the matching code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import jsontext
from .catalog import REQUESTORS, Mvpd, Requestor
from .device import decode_device_info, device_info_problem, valid_device_identifier
from .errors import ApiError
from .state import AccessToken, ProfileKey, Session, State, now_ms
from .web import Request, form_fields

FORM_TYPE = "application/x-www-form-urlencoded"
JSON_MEDIA_TYPE = "application/json"


def accept_ok(req: Request) -> bool:
    """Accept may be absent; when sent it must allow application/json."""
    accept = req.header("Accept")
    if accept is None:
        return True
    ranges = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    return bool(ranges & {"application/json", "*/*"})


@dataclass(frozen=True)
class Caller:
    """An authenticated V2 call: the bearer's token and the path's service provider."""

    token: AccessToken
    requestor: Requestor
    now: int

    def profile_key(self, device_id: str, mvpd_id: str) -> ProfileKey:
        return ProfileKey(self.token.client_id, device_id, self.requestor.id, mvpd_id)


def v2_caller(state: State, req: Request) -> Caller:
    """Common prologue of every bearer-protected V2 operation."""
    if not accept_ok(req):
        raise ApiError("invalid_request", "Accept must allow application/json")
    now = now_ms()
    token = _bearer_token(state, req, now)
    req.client_id = token.client_id
    return Caller(token, requestor(req.path_params["serviceProvider"]), now)


def _bearer_token(state: State, req: Request, now: int) -> AccessToken:
    scheme, _, value = (req.header("Authorization") or "").strip().partition(" ")
    token = state.live_token(value.strip(), now) if scheme.lower() == "bearer" else None
    if token is None:
        raise ApiError("invalid_access_token_client_application")
    return token


def requestor(service_provider: str) -> Requestor:
    found = REQUESTORS.get(service_provider)
    if found is None:
        raise ApiError("invalid_parameter_service_provider", f"unknown service provider {service_provider!r}")
    return found


def mvpd(state: State, req_requestor: Requestor, mvpd_id: str) -> Mvpd:
    found = req_requestor.mvpd(mvpd_id)
    if found is None:
        raise ApiError("invalid_parameter_mvpd",
                       f"{mvpd_id!r} has no integration with {req_requestor.id}")
    return active_integration(state, req_requestor, found)


def active_integration(state: State, req_requestor: Requestor, found: Mvpd) -> Mvpd:
    """The MVPD, unless its integration is disabled (config `integrations_disabled`, the TVE
    Dashboard's "Disable integration": the viewer can no longer authenticate or authorize with
    it): 400 `invalid_integration`, the code Adobe's list gives a missing or disabled integration."""
    if found.id in state.config["integrations_disabled"]:
        raise ApiError("invalid_integration", f"the integration of {req_requestor.id} with {found.id} is disabled")
    return found


def live_session(state: State, req: Request, now: int) -> Session:
    """The session of the path's `code`.

    Unknown (or another service provider's) code -> invalid_parameter_code;
    expired code -> invalid_authentication_session.
    """
    session = state.sessions.get(req.path_params["code"])
    if session is None or session.v1 or session.service_provider != req.path_params["serviceProvider"]:
        raise ApiError("invalid_parameter_code", "unknown authentication code")
    if session.expired(now):
        raise ApiError("invalid_authentication_session", "the authentication code has expired")
    return session


@dataclass(frozen=True)
class DeviceHeaders:
    device_id: str  # the AP-Device-Identifier value
    info: dict[str, Any]


_DEVICE_ID_HINT = "AP-Device-Identifier must be 'fingerprint <Base64 of the device id>'"


def device_headers(state: State, req: Request, *, info_required: bool | None = None) -> DeviceHeaders:
    """The AP-Device-Identifier (required) and X-Device-Info headers. A missing X-Device-Info is
    refused only when `device_info_header` is "required" (strictness.py; `info_required` overrides):
    by default the platform is unknown (empty information: device type `Unknown`, the default
    platform's configuration), as Adobe's X-Device-Info page documents. A sent one must be valid."""
    identifier = req.header("AP-Device-Identifier")
    if identifier is None or not valid_device_identifier(identifier):
        raise ApiError("invalid_header_device_identifier", _DEVICE_ID_HINT)
    info = req.header("X-Device-Info")
    if info is None:
        if info_required is None:
            info_required = state.config["device_info_header"] == "required"
        if info_required:
            raise ApiError("invalid_header_device_info", "X-Device-Info is missing")
        return DeviceHeaders(identifier, {})
    problem = device_info_problem(info)
    if problem:
        raise ApiError("invalid_header_device_info", problem)
    return DeviceHeaders(identifier, decode_device_info(info))


def optional_device_headers(req: Request) -> None:
    """Where the device headers are optional, they must still be valid when sent."""
    identifier = req.header("AP-Device-Identifier")
    if identifier is not None and not valid_device_identifier(identifier):
        raise ApiError("invalid_header_device_identifier", _DEVICE_ID_HINT)
    info = req.header("X-Device-Info")
    problem = None if info is None else device_info_problem(info)
    if problem:
        raise ApiError("invalid_header_device_info", problem)


def form_parameters(req: Request, names: tuple[str, ...]) -> dict[str, str]:
    """Parameters of a required urlencoded body; empty values count as absent."""
    if req.media_type() != FORM_TYPE:
        raise ApiError("invalid_request", f"Content-Type must be {FORM_TYPE}")
    parsed = form_fields(req.text())
    repeated = [k for k, v in parsed.items() if len(v) > 1]
    if repeated:
        raise ApiError("invalid_request", "repeated form parameters: " + ", ".join(sorted(repeated)))
    return {k: parsed[k][0] for k in names if parsed.get(k, [""])[0]}


def resources(req: Request) -> list[str]:
    """The `resources` array of a decisions request body."""
    if req.media_type() != JSON_MEDIA_TYPE:
        raise ApiError("invalid_request", f"Content-Type must be {JSON_MEDIA_TYPE}")
    try:
        body = jsontext.loads(req.body)
    except ValueError:
        raise ApiError("invalid_parameter_resources", "the body is not JSON") from None
    items = body.get("resources") if isinstance(body, dict) else None
    if not isinstance(items, list) or not items or not all(isinstance(r, str) and r for r in items):
        raise ApiError("invalid_parameter_resources",
                       'the body must be {"resources": [<one or more non-empty strings>]}')
    return items
