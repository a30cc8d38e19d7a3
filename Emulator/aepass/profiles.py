"""Profiles APIs: all profiles of a device, the profile of one MVPD, the profile of a code.

`temporary` (TempPass) and `degraded` profiles are answered by the per-MVPD and per-code
endpoints only: GET /profiles lists regular and SSO profiles (rest-api-v2.md §4.8).
GET /profiles and /profiles/{mvpd} also answer the `platformSSO` / `serviceTokenSSO` profiles of
the request's valid SSO tokens (sso.py) where the device has no profile of its own for the MVPD;
/profiles/code/{code} takes no SSO header (the OpenAPI file and Adobe's page list none) and
answers the login's regular profile.
"""

from __future__ import annotations

from . import checks, degradation, sso, temppass
from .partner import APPLE_SSO, permission_not_enforced, pfs_mvpd
from .state import Profile, State
from .web import Request, Response, json_response

NOT_LISTED = {temppass.TEMPORARY, degradation.DEGRADED}


def _answer(profiles: list[Profile]) -> Response:
    return json_response(200, {"profiles": {p.key.mvpd: p.to_json() for p in profiles}})


def _shown(state: State, profiles: list[Profile], req: Request, caller: checks.Caller) -> list[Profile]:
    """appleSSO profiles only with a valid AP-Partner-Framework-Status for their MVPD (or one that
    only lacks a permission the MVPD's integration does not enforce)."""
    if not any(p.type == APPLE_SSO for p in profiles):
        return profiles
    partner_mvpd = pfs_mvpd(state, req, caller.requestor, caller.now)
    return [p for p in profiles if p.type != APPLE_SSO or p.key.mvpd == partner_mvpd
            or permission_not_enforced(state, req, caller.requestor, p.key.mvpd)]


def get_profiles(state: State, req: Request) -> Response:
    """getProfilesUsingGET_1: unexpired profiles of this client, device and service provider."""
    caller = checks.v2_caller(state, req)
    device = checks.device_headers(state, req)
    subjects = sso.judge(state, req, caller.now)
    found = [
        p for p in state.profiles.values()
        if p.key.client_id == caller.token.client_id
        and p.key.device_id == device.device_id
        and p.key.service_provider == caller.requestor.id
        and p.valid(caller.now)
        and p.type not in NOT_LISTED
    ]
    own = {p.key.mvpd for p in found}
    found += [p for p in sso.listed(state, caller.requestor, subjects, caller.now, caller.token.client_id,
                                    device.device_id) if p.key.mvpd not in own]
    return _answer(_shown(state, found, req, caller))


def get_profile_for_mvpd(state: State, req: Request) -> Response:
    """getProfileForMvpdUsingGET."""
    caller = checks.v2_caller(state, req)
    device = checks.device_headers(state, req)
    mvpd = checks.mvpd(state, caller.requestor, req.path_params["mvpd"])
    subjects = sso.judge(state, req, caller.now)
    key = caller.profile_key(device.device_id, mvpd.id)
    if mvpd.temp_pass:
        return temppass.profile_answer(state, req, mvpd, key, caller.now)
    profile = degradation.authenticated(state, key, caller.now, subjects)
    return _answer(_shown(state, [profile] if profile else [], req, caller))


def get_profile_for_code(state: State, req: Request) -> Response:
    """getProfileForCodeUsingGET_1: `{}` until the login through this code completes.

    Only the regular profile of that login: an appleSSO profile that later replaced it is not
    the code's (and this operation takes no AP-Partner-Framework-Status). A session for a TempPass
    MVPD answers its TempPass; one for an MVPD under AuthNAll its degraded profile.
    """
    caller = checks.v2_caller(state, req)
    session = checks.live_session(state, req, caller.now)
    mvpd = caller.requestor.mvpd(session.params.get("mvpd", ""))
    if mvpd and mvpd.temp_pass:
        return temppass.profile_answer(state, req, mvpd, session.key_for(mvpd.id), caller.now)
    if mvpd and session.profile_key is None and degradation.rule(state, mvpd.id) == degradation.AUTHN_ALL:
        session.profile_key = degradation.authenticate_all(state, session.key_for(mvpd.id), caller.now).key
    profile = state.valid_profile(session.profile_key, caller.now) if session.profile_key else None
    return _answer([profile] if profile and profile.type != APPLE_SSO else [])
