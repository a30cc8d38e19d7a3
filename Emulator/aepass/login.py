"""Completing the second-screen MVPD login: creating the regular profile for a session.

Used by the HTML login form, POST /_emulator/login and the simulated viewer (auto_login_ms).
"""

from __future__ import annotations

import base64
import secrets
from typing import Any

from . import sso
from .catalog import REQUESTORS
from .state import Profile, Session, State


def default_user_id() -> str:
    return f"user-{secrets.token_hex(6)}"


def user_attributes(user_id: str) -> dict[str, Any]:
    household = base64.b64encode(secrets.token_bytes(24)).decode("ascii")
    return {
        "userID": {"value": user_id, "state": "plain"},
        "householdID": {"value": household, "state": "enc"},
        "zip": {"value": ["10001", "10002"], "state": "plain"},
        "maxRating": {"value": ["TV-14", "PG-13"], "state": "plain"},
    }


def complete_login(state: State, session: Session, mvpd_id: str, user_id: str, at_ms: int) -> Profile:
    """Record the MVPD login of `session`: a regular profile for its creator's client and device,
    and an SSO profile for each valid SSO token its create call carried (sso.py)."""
    session.params["mvpd"] = mvpd_id
    key = session.key_for(mvpd_id)
    profile = Profile(
        key=key,
        issuer=mvpd_id,
        type="regular",
        not_before=at_ms,
        not_after=at_ms + state.ttl_ms("profile_ttl_s"),
        attributes=user_attributes(user_id),
    )
    state.profiles[key] = profile
    sso.remember_login(state, session, profile)
    session.profile_key = key
    session.auto_login_at = None
    return profile


def run_due_auto_logins(state: State, now: int) -> None:
    """The simulated viewer: log in every session whose auto-login time has come."""
    for session in state.sessions.values():
        due = session.auto_login_at
        mvpd_id = session.params.get("mvpd")
        if due is None or due > now or not mvpd_id or session.expired(due):
            continue
        if REQUESTORS[session.service_provider].login_mvpd(mvpd_id) is None:
            continue  # a TempPass MVPD: nothing to log in to
        complete_login(state, session, mvpd_id, default_user_id(), due)
