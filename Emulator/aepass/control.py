"""The control API under /_emulator/: inspect and steer the emulator from tests. JSON in and out."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from . import jsontext
from . import jws, sso, temppass
from .catalog import REQUESTORS
from .clock import CLOCK, ClockError
from .config import ConfigError, merged
from .errors import ControlError
from .faults import FaultError
from .login import complete_login, default_user_id
from .requestlog import RequestLog
from .state import PARTNER_PROFILE_CODES, SSO_TOKEN_CODES, PartnerRefusal, SsoRefusal, State, now_ms
from .v1 import temppass as v1_temppass
from .web import Request, Response, json_response


class Control:
    """Control handlers; they also need the request log, which lives outside `State`."""

    def __init__(self, log: RequestLog) -> None:
        self.log = log
        self.operations: set[str] = set()  # API operationIds a fault may name (set by build_routes)

    def get_log(self, state: State, req: Request) -> Response:
        since = req.query_params().get("since", ["0"])[0]
        if not since.lstrip("-").isdigit():
            raise ControlError(400, "since must be an integer")
        return json_response(200, {"requests": self.log.since(int(since))})

    def clear_log(self, state: State, req: Request) -> Response:
        self.log.clear()
        return json_response(200, {"cleared": True})

    def reset(self, state: State, req: Request) -> Response:
        """Forgets everything clients and tests created or changed (clients, tokens, sessions,
        profiles, SSO profiles, TempPass uses, V1 tokens, partner requests and refusals, the SSO
        refusal, throttle buckets, faults, the in-memory log, the clock offset); keeps the
        settings, unless `{"config": true}` (then the ones the process started with). Requests
        still in progress are dropped."""
        body = _body(req)
        restore = body.get("config", False)
        if not set(body) <= {"config"} or not isinstance(restore, bool):
            raise ControlError(400, 'expected no body, {} or {"config": true|false}')
        state.forget_everything(restore_config=restore)
        self.log.reset()
        return json_response(200, {"reset": True})

    def set_faults(self, state: State, req: Request) -> Response:
        """Replaces the fault list (`[]` clears it); the counters start again from 0."""
        body = _body(req)
        if set(body) != {"faults"}:
            raise ControlError(400, 'expected {"faults": [fault, ...]}')
        try:
            state.faults.replace(body["faults"], self.operations)
        except FaultError as error:
            raise ControlError(400, str(error)) from None
        return json_response(200, {"faults": state.faults.to_json()})


def _body(req: Request) -> dict[str, Any]:
    if not req.body:
        return {}
    try:
        body = jsontext.loads(req.body)
    except ValueError:
        raise ControlError(400, "the body must be JSON") from None
    if not isinstance(body, dict):
        raise ControlError(400, "the body must be a JSON object")
    return body


def get_config(state: State, req: Request) -> Response:
    return json_response(200, state.config)


def set_config(state: State, req: Request) -> Response:
    try:
        state.config = merged(state.config, _body(req))
    except ConfigError as error:
        raise ControlError(400, str(error)) from None
    return json_response(200, state.config)


def login(state: State, req: Request) -> Response:
    """Complete the second-screen login of a code, exactly as the HTML form would."""
    body = _body(req)
    code, mvpd_id, user_id = body.get("code"), body.get("mvpd"), body.get("userID")
    if not isinstance(code, str) or not all(v is None or isinstance(v, str) for v in (mvpd_id, user_id)):
        raise ControlError(400, 'expected {"code": str, "mvpd"?: str, "userID"?: str}')
    session = state.sessions.get(code)
    if session is None:
        raise ControlError(404, f"unknown code {code!r}")
    now = now_ms()
    if session.expired(now):
        raise ControlError(410, f"code {code!r} has expired")
    mvpd_id = mvpd_id or session.params.get("mvpd")
    if not mvpd_id:
        raise ControlError(400, "the session has no mvpd; pass one")
    if REQUESTORS[session.service_provider].login_mvpd(mvpd_id) is None:
        raise ControlError(400, f"{mvpd_id!r} is not an MVPD of {session.service_provider} one logs in with")
    profile = complete_login(state, session, mvpd_id, user_id or default_user_id(), now)
    return json_response(200, {"mvpd": mvpd_id, "profile": profile.to_json()})


def expire_access_tokens(state: State, req: Request) -> Response:
    for token in state.tokens.values():
        token.revoked = True
    return json_response(200, {"expired": len(state.tokens)})


def invalidate_client(state: State, req: Request) -> Response:
    client_id = _body(req).get("client_id")
    client = state.clients.get(client_id) if isinstance(client_id, str) else None
    if client is None:
        raise ControlError(404, f"unknown client_id {client_id!r}")
    client.invalidated = True
    return json_response(200, {"invalidated": client.client_id})


def expire_profiles(state: State, req: Request) -> Response:
    """Every profile (regular, appleSSO and the platformSSO / serviceTokenSSO profiles of the
    subjects alike) expires now; `{"type": T}` limits it to type T."""
    wanted = _body(req).get("type")
    if wanted is not None and not isinstance(wanted, str):
        raise ControlError(400, 'expected {"type"?: str}')
    now = now_ms()
    chosen: list[Any] = [p for p in state.profiles.values() if wanted is None or p.type == wanted]
    chosen += [p for p in state.sso_profiles.values() if wanted is None or p.key.type == wanted]
    for profile in chosen:
        profile.not_after = min(profile.not_after, now)
        profile.not_before = min(profile.not_before, profile.not_after)
    return json_response(200, {"expired": len(chosen)})


def _temppass_filter(req: Request) -> tuple[str | None, set[str] | None]:
    """{"mvpd"?: id, "device"?: device id or AP-Device-Identifier value, "identity"?: object} of the
    TempPass calls -> (mvpd, the matching TempPass subjects of V2 and V1, or None for all)."""
    body = _body(req)
    mvpd, device, identity = body.get("mvpd"), body.get("device"), body.get("identity")
    if not all(v is None or isinstance(v, str) for v in (mvpd, device)) or not (
            identity is None or isinstance(identity, dict)) or (device is not None and identity is not None):
        raise ControlError(400, 'expected {"mvpd"?: str, "device"?: str} or {"mvpd"?: str, "identity"?: object}')
    if device is not None:
        return mvpd, _device_subjects(device)
    if identity is not None:  # V2's AP-TempPass-Identity and V1's generic_data hash alike
        return mvpd, {temppass.identity_key(identity)}
    return mvpd, None


def _device_subjects(device: str) -> set[str]:
    """V2 keys a basic TempPass by the AP-Device-Identifier value, V1 by the plain deviceId."""
    prefix = "fingerprint "
    if not device.startswith(prefix):
        return {"device:" + prefix + base64.b64encode(device.encode()).decode(), "device:" + device}
    subjects = {"device:" + device}
    try:
        subjects.add("device:" + base64.b64decode(device[len(prefix):].strip(), validate=True).decode("utf-8"))
    except (binascii.Error, ValueError):
        pass
    return subjects


def reset_temppass(state: State, req: Request) -> Response:
    """Adobe's Reset TempPass: the matching devices (or identities) get a new TempPass with their next
    request (V2) or freepreview (V1)."""
    mvpd, subjects = _temppass_filter(req)
    return json_response(200, {"reset": temppass.forget(state, mvpd, subjects)
                               + v1_temppass.forget(state, mvpd, subjects)})


def expire_temppass(state: State, req: Request) -> Response:
    """Ends the matching TempPass uses now, as if their lifetime had passed (V1: their tokens too)."""
    mvpd, subjects = _temppass_filter(req)
    now = now_ms()
    return json_response(200, {"expired": temppass.expire(state, mvpd, subjects, now)
                               + v1_temppass.expire(state, mvpd, subjects, now)})


def set_partner_refusal(state: State, req: Request) -> Response:
    """Refuse the next `count` partner profile requests (V2 profiles/sso, V1 token exchange) with
    `code`; `{"code": null}` or `"count": 0` clears. Replaces what was set before."""
    body = _body(req)
    code, count, details = body.get("code"), body.get("count", 1), body.get("details")
    if not set(body) <= {"code", "count", "details"} or "code" not in body or not (
            code is None or code in PARTNER_PROFILE_CODES) or not (
            isinstance(count, int) and not isinstance(count, bool) and count >= 0) or not (
            details is None or isinstance(details, str)):
        raise ControlError(400, 'expected {"code": one of ' + ", ".join(PARTNER_PROFILE_CODES)
                           + ' or null, "count"?: integer >= 0 (1), "details"?: str}')
    state.partner_refusal = (PartnerRefusal(code, count, details) if code is not None and count > 0
                             else PartnerRefusal())
    return json_response(200, state.partner_refusal.to_json())


def get_partner_refusal(state: State, req: Request) -> Response:
    return json_response(200, state.partner_refusal.to_json())


_SSO_REFUSAL_SHAPE = ('expected {"header": "AD-Service-Token" | "Adobe-Subject-Token" | '
                      '"X-Roku-Reserved-Roku-Connect-Token" | null, "count"?: integer >= 0 (1), '
                      '"code"?: null | the token\'s code (invalid_header_service_token for AD-Service-Token, '
                      'invalid_header_subject_token for the others), "details"?: str}')


def set_sso_refusal(state: State, req: Request) -> Response:
    """Refuse the next `count` tokens of `header` (where the operation reads it; V1's `ast` is the
    Adobe-Subject-Token), whatever their content: served without SSO, or with `code` answered 400
    (V2 top-level EEC, V1 legacy 400). `{"header": null}` or `"count": 0` clears. Replaces what was
    set before."""
    body = _body(req)
    token, count = body.get("header"), body.get("count", 1)
    code, details = body.get("code"), body.get("details")
    if not set(body) <= {"header", "count", "code", "details"} or "header" not in body or not (
            token is None or token in SSO_TOKEN_CODES) or not (
            isinstance(count, int) and not isinstance(count, bool) and count >= 0) or not (
            code is None or (token is not None and code == SSO_TOKEN_CODES[token])) or not (
            details is None or isinstance(details, str)):
        raise ControlError(400, _SSO_REFUSAL_SHAPE)
    state.sso_refusal = (SsoRefusal(token, count, code, details) if token is not None and count > 0
                         else SsoRefusal())
    return json_response(200, state.sso_refusal.to_json())


def get_sso_refusal(state: State, req: Request) -> Response:
    return json_response(200, state.sso_refusal.to_json())


def get_sso_profiles(state: State, req: Request) -> Response:
    """The subjects' SSO profiles (valid and expired), without token text."""
    return json_response(200, {"profiles": [sso.to_json(p) for p in state.sso_profiles.values()]})


def verify_sso_token(state: State, req: Request) -> Response:
    """What the emulator makes of a token now: `{"header": header name, "value": token}` ->
    `{"valid": true, "type", "iss", "sub"}` or `{"valid": false, "problem"}` (nothing is stored, no
    refusal is counted)."""
    body = _body(req)
    token, value = body.get("header"), body.get("value")
    if set(body) != {"header", "value"} or token not in SSO_TOKEN_CODES or not isinstance(value, str):
        raise ControlError(400, 'expected {"header": one of ' + ", ".join(SSO_TOKEN_CODES) + ', "value": str}')
    try:
        claims = sso.verify(state, token, value)
    except jws.TokenRefused as problem:
        return json_response(200, {"valid": False, "problem": str(problem), "sha256": sso.sha256_prefix(value)})
    return json_response(200, {"valid": True, "type": sso.TYPE_OF[token], "iss": claims["iss"], "sub": claims["sub"],
                               "sha256": sso.sha256_prefix(value)})


def get_faults(state: State, req: Request) -> Response:
    return json_response(200, {"faults": state.faults.to_json()})


def get_state(state: State, req: Request) -> Response:
    return json_response(200, {**state.counts(), "clock_offset_ms": CLOCK.offset_ms, "config": state.config})


def get_clock(state: State, req: Request) -> Response:
    return json_response(200, CLOCK.to_json())


def advance_clock(state: State, req: Request) -> Response:
    """Moves the emulator's now forward by `advance_ms` (virtual time: whatever expires in that
    time has expired). `advanceMs` is accepted too. Never backwards; `POST /_emulator/reset` sets
    the offset back to 0."""
    body = _body(req)
    if len(body) != 1 or not set(body) <= {"advance_ms", "advanceMs"}:
        raise ControlError(400, 'expected {"advance_ms": integer >= 0}')
    try:
        CLOCK.advance(next(iter(body.values())))
    except ClockError as error:
        raise ControlError(400, str(error)) from None
    return json_response(200, CLOCK.to_json())
