"""Sessions APIs: create, resume, retrieve, and the user-agent authenticate redirect."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

from . import checks, degradation, sso
from .catalog import REQUESTORS, Mvpd
from .device import device_object
from .errors import PageError
from .state import SESSION_PARAMETERS, ProfileKey, Session, State, Subject, now_ms
from .web import Request, Response, json_response, redirect

# Session `reasonType` when a profile already exists, by profile type (rest-api-v2.md §4.4).
REASON_BY_PROFILE_TYPE = {
    "regular": "authenticated",
    "appleSSO": "authenticatedSSO",
    "platformSSO": "authenticatedSSO",
    "serviceTokenSSO": "authenticatedSSO",
    "temporary": "temporary",
    "degraded": "degraded",
}


def create_session(state: State, req: Request) -> Response:
    """createSessionUsingPOST."""
    caller = checks.v2_caller(state, req)
    device = checks.device_headers(state, req)
    params = checks.form_parameters(req, SESSION_PARAMETERS)
    mvpd = checks.mvpd(state, caller.requestor, params["mvpd"]) if "mvpd" in params else None
    subjects = sso.judge(state, req, caller.now)
    if mvpd:
        key = caller.profile_key(device.device_id, mvpd.id)
        reason = direct_reason(state, mvpd, key, caller.now, subjects)
        if reason:
            return json_response(200, authorize_answer(caller.requestor.id, mvpd.id, reason, str(uuid.uuid4())))
    session = open_session(state, caller, device, params, req.header("User-Agent"), subjects)
    return json_response(200, session_answer(session, resumed=False))


def open_session(state: State, caller: checks.Caller, device: checks.DeviceHeaders,
                 params: dict[str, str], user_agent: str | None, subjects: tuple[Subject, ...] = ()) -> Session:
    """Store a new authentication session (with a code) for the caller's client and device;
    `subjects`: the valid SSO tokens of the create call (their login makes SSO profiles)."""
    auto_login_ms = state.config["auto_login_ms"]
    session = Session(
        code=state.new_code(),
        session_id=str(uuid.uuid4()),
        service_provider=caller.requestor.id,
        client_id=caller.token.client_id,
        device_id=device.device_id,
        device_info=device.info,
        user_agent=user_agent,
        params=params,
        not_before=caller.now,
        not_after=caller.now + state.ttl_ms("code_ttl_s"),
        auto_login_at=None if auto_login_ms is None else caller.now + int(auto_login_ms),
        sso_subjects=subjects,
    )
    state.sessions[session.code] = session
    return session


def resume_session(state: State, req: Request) -> Response:
    """resumeSessionUsingPOST: supply missing parameters, usually from the second screen."""
    caller = checks.v2_caller(state, req)
    params = checks.form_parameters(req, SESSION_PARAMETERS)
    session = checks.live_session(state, req, caller.now)
    if "mvpd" in params:
        checks.mvpd(state, caller.requestor, params["mvpd"])
    session.params.update(params)
    mvpd_id = session.params.get("mvpd")
    mvpd = caller.requestor.mvpd(mvpd_id) if mvpd_id else None
    reason = direct_reason(state, mvpd, session.key_for(mvpd.id), caller.now, session.sso_subjects) if mvpd else None
    if reason:
        return json_response(200, authorize_answer(caller.requestor.id, mvpd_id, reason, session.session_id))
    return json_response(200, session_answer(session, resumed=True))


def direct_reason(state: State, mvpd: Mvpd, key: ProfileKey, now: int,
                  subjects: tuple[Subject, ...] = ()) -> str | None:
    """The `reasonType` of an `authorize` answer (no login needed), or None when the viewer must log in.

    TempPass MVPDs never need a login (`temporary`, rest-api-v2.md §8.7); otherwise a valid profile
    answers by its type (a platform identity or service token SSO profile of `subjects`:
    `authenticatedSSO`), and an AuthNAll degradation rule authenticates at once (`degraded`).
    """
    if mvpd.temp_pass:
        return REASON_BY_PROFILE_TYPE["temporary"]
    profile = degradation.authenticated(state, key, now, subjects)
    return REASON_BY_PROFILE_TYPE[profile.type] if profile else None


def get_session(state: State, req: Request) -> Response:
    """getSessionStatusUsingGET_1."""
    caller = checks.v2_caller(state, req)
    session = checks.live_session(state, req, caller.now)
    existing = {**session.params, "serviceProvider": session.service_provider}
    return json_response(200, {
        "existingParameters": existing,
        "missingParameters": session.missing_parameters(),
        "device": device_object(session.device_info, session.user_agent),
        "notBefore": str(session.not_before),
        "notAfter": str(session.not_after),
    })


def start_authentication(state: State, req: Request) -> Response:
    """startAuthenticationUsingGET: no bearer; redirects the user agent to the MVPD login page."""
    sp = req.path_params["serviceProvider"]
    if sp not in REQUESTORS:
        raise PageError(400, f"Unknown service provider {sp!r}.")
    session = state.sessions.get(req.path_params["code"])
    if session is None or session.v1 or session.service_provider != sp:
        raise PageError(400, "Unknown authentication code.")
    if session.expired(now_ms()):
        raise PageError(400, "This authentication code has expired. Start again on your TV.")
    req.client_id = session.client_id
    return redirect(f"{req.base_url}/_emulator/mvpd/login?code={quote(session.code)}")


def authorize_answer(sp: str, mvpd_id: str, reason: str, session_id: str) -> dict[str, Any]:
    return {
        "actionName": "authorize",
        "actionType": "direct",
        "reasonType": reason,
        "url": f"/api/v2/{sp}/decisions/authorize/{mvpd_id}",
        "sessionId": session_id,
        "mvpd": mvpd_id,
        "serviceProvider": sp,
    }


def session_answer(session: Session, resumed: bool) -> dict[str, Any]:
    """`authenticate` when every parameter is known, else `resume` (create) / `retry` (resume)."""
    sp, code = session.service_provider, session.code
    missing = session.missing_parameters()
    answer: dict[str, Any]
    if missing:
        answer = {
            "actionName": "retry" if resumed else "resume",
            "actionType": "direct",
            "reasonType": "none",
            "url": f"/api/v2/{sp}/sessions/{code}",
            "missingParameters": missing,
        }
    else:
        answer = {
            "actionName": "authenticate",
            "actionType": "interactive",
            "reasonType": "none",
            "url": f"/api/v2/authenticate/{sp}/{code}",
        }
    answer["code"] = code
    answer["sessionId"] = session.session_id
    if session.params.get("mvpd"):
        answer["mvpd"] = session.params["mvpd"]
    answer["serviceProvider"] = sp
    answer["notBefore"] = str(session.not_before)
    answer["notAfter"] = str(session.not_after)
    return answer
