"""Logout API: GET /api/v2/{serviceProvider}/logout/{mvpd}?redirectUrl=...

With a valid SSO token (Adobe-Subject-Token, X-Roku-Reserved-Roku-Connect-Token, AD-Service-Token)
it is Adobe's single logout (rest-api-v2.md §8.6, the "Single logout flow" page): the device's
profile, the subject's SSO profile for the MVPD, and the profiles of the logins that made it, go.
The answer is the one of the profile the device used: its own if valid, else the SSO profile's
(`logout`/`interactive` with the MVPD's logout URL, or `complete` for an MVPD without one).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from . import checks, sso
from .catalog import Mvpd
from .errors import ApiError
from .degradation import DEGRADED
from .partner import APPLE_SSO
from .web import Request, Response, json_response
from .state import State

_COMPLETE = {"actionName": "complete", "actionType": "none"}


def logout(state: State, req: Request) -> Response:
    """getLogoutForMvpdUsingGET: delete the profile and tell the client what to do next."""
    caller = checks.v2_caller(state, req)
    device = checks.device_headers(state, req)
    mvpd = checks.mvpd(state, caller.requestor, req.path_params["mvpd"])
    redirect_url = req.query_params().get("redirectUrl", [""])[0]
    if not redirect_url:
        raise ApiError("invalid_parameter_redirect_url", "the redirectUrl query parameter is required")
    subjects = sso.judge(state, req, caller.now)
    if mvpd.temp_pass:  # no logout needed: the TempPass keeps its clock (rest-api-v2.md §8.7)
        return json_response(200, {"logouts": {mvpd.id: _COMPLETE | {"mvpd": mvpd.id}}})
    key = caller.profile_key(device.device_id, mvpd.id)
    shared = sso.lookup(state, key, subjects, caller.now)  # before single logout removes it
    profile = state.profiles.pop(key, None)
    sso.single_logout(state, subjects, (mvpd.id,))
    if profile is None or not profile.valid(caller.now):
        profile = shared  # a device signed in through SSO only: logged out like a regular profile
    if profile is None:
        action = {"actionName": "invalid", "actionType": "none", "mvpd": mvpd.id}
    elif profile.type == APPLE_SSO:  # the viewer signs out at platform level (TV Provider settings)
        action = {"actionName": "partner_logout", "actionType": "partner_interactive", "mvpd": mvpd.id}
    elif profile.type == DEGRADED:  # Adobe's own profile: nothing to end at the MVPD
        action = _COMPLETE | {"mvpd": mvpd.id}
    else:
        action = _logout_action(req, mvpd, caller.requestor.id, redirect_url)
    return json_response(200, {"logouts": {mvpd.id: action}})


def _logout_action(req: Request, mvpd: Mvpd, sp: str, redirect_url: str) -> dict[str, Any]:
    if not mvpd.has_logout_endpoint:
        return _COMPLETE | {"mvpd": mvpd.id}
    query = urlencode(
        {"noflash": "true", "mso_id": mvpd.id, "requestor_id": sp, "redirect_url": redirect_url},
        quote_via=quote,
    )
    return {
        "actionName": "logout",
        "actionType": "interactive",
        "mvpd": mvpd.id,
        "url": f"{req.base_url}/adobe-services/logout?{query}",
    }
