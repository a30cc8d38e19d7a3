"""Registration codes (REGCODE, REGREC, REGDEL): POST/GET/DELETE /reggie/v1/{requestor}/regcode.

A V1 registration code is a session (`Session.v1`), so that the login page, `/_emulator/login`
and the simulated viewer (`auto_login_ms`) complete V1 logins as they complete V2 ones.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from .. import checks, jsontext
from ..device import device_object
from ..sessions import open_session
from ..state import Session, State
from ..web import Request, Response
from .answers import V1Error, bad_request, no_content
from .call import V1Call, v1_endpoint

MAX_TTL_S = 36000  # REGCODE: at most 10 hours
RECORD_ROOT = 'ns2:regcode xmlns:ns2="model.mvc.reggie.pass.adobe.com"'
# Older record fields (REGCODE-OLD, REGREC), echoed in `info` when the device sent them.
ECHOED = ("deviceType", "deviceUser", "appId", "appVersion", "registrationURL")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _ttl_ms(state: State, value: str | None) -> int:
    if value is None:
        return state.ttl_ms("code_ttl_s")
    if not value.isdigit() or not 0 < int(value) <= MAX_TTL_S:
        raise bad_request(f"ttl must be a whole number of seconds from 1 to {MAX_TTL_S}, not {value!r}")
    return int(value) * 1000


@v1_endpoint("v1RegistrationCodeRequest")
def create_regcode(state: State, req: Request, call: V1Call) -> Response:
    ttl_ms = _ttl_ms(state, call.params.get("ttl"))
    params = {k: call.params[k] for k in ECHOED if call.params.get(k)}
    if call.params.get("mvpd"):
        params["mvpd"] = call.mvpd(call.params["mvpd"]).id
    assert call.token is not None and call.device_info is not None
    caller = checks.Caller(call.token, call.requestor, call.now)
    device = checks.DeviceHeaders(call.device_id, call.device_info)
    session = open_session(state, caller, device, params, req.header("User-Agent"), call.subjects)
    session.v1 = True
    session.not_after = call.now + ttl_ms
    return call.answer(201, record(state, session), RECORD_ROOT)


def _application(state: State, session: Session) -> dict[str, Any] | None:
    """`sourceApplicationInformation`: from the claims of the client's software statement."""
    client = state.clients.get(session.client_id)
    try:
        payload = client.software_statement.split(".")[1] if client else ""
        claims = jsontext.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, binascii.Error):
        return None
    if not isinstance(claims, dict):
        return None
    return {k: v for k, v in (("id", claims.get("software_id")), ("name", claims.get("client_name")),
                              ("version", claims.get("software_version"))) if v is not None}


def record(state: State, session: Session) -> dict[str, Any]:
    """The registration record; `generated`/`expires` are numbers of ms (REGCODE's sample)."""
    agent = session.user_agent
    info: dict[str, Any] = {
        "deviceId": _b64(session.device_id),
        "deviceInfo": _b64(json.dumps(device_object(session.device_info, agent), separators=(",", ":"))),
        "userAgent": agent,
        "originalUserAgent": agent,
        "authorizationType": "OAUTH2",
        "sourceApplicationInformation": _application(state, session),
        **{k: session.params[k] for k in ECHOED if k in session.params},
    }
    answer = {
        "id": session.session_id,
        "code": session.code,
        "requestor": session.service_provider,
        "mvpd": session.params.get("mvpd"),
        "generated": session.not_before,
        "expires": session.not_after,
        "info": {k: v for k, v in info.items() if v is not None},
    }
    return {k: v for k, v in answer.items() if v is not None}


def v1_session(state: State, call: V1Call, code: str, error: V1Error) -> Session:
    """The live V1 registration code `code` of the call's requestor, else `error`."""
    session = state.sessions.get(code)
    if (session is None or not session.v1 or session.service_provider != call.requestor.id
            or session.expired(call.now)):
        raise error
    return session


@v1_endpoint("v1ReturnRegistrationRecord")
def get_regcode(state: State, req: Request, call: V1Call) -> Response:
    session = v1_session(state, call, req.path_params["code"], V1Error(404, "Not Found"))
    return call.answer(200, record(state, session), RECORD_ROOT)


@v1_endpoint("v1DeleteRegistrationRecord")
def delete_regcode(state: State, req: Request, call: V1Call) -> Response:
    session = v1_session(state, call, req.path_params["code"], V1Error(404, "Not Found"))
    del state.sessions[session.code]
    return no_content()
