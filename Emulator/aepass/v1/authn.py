"""V1 MVPD list and authentication: config, authenticate (second screen), checkauthn,
tokens/authn (GET), authenticate/{code}, and TempPass (authenticate/freepreview)."""

from __future__ import annotations

from urllib.parse import quote

from ..state import State, TempPassKey
from ..web import Request, Response, redirect
from . import temppass
from .answers import V1Error, bad_request, no_content
from .call import V1Call, v1_endpoint
from .reggie import v1_session
from .tokens import authn_payload, device_authn_token, store_authn_token

AUTHN_ROOT = "authentication"


@v1_endpoint("v1ProvideMvpdList")
def config(state: State, req: Request, call: V1Call) -> Response:
    """The requestor and its MVPDs with the platform-SSO fields, TempPass MVPDs included. The V1
    nesting is not documented: `requestor` as in V2's configuration (rest-api-v1.md §8.1)."""
    payload = {"requestor": call.requestor.configuration(req.base_url, with_temp_passes=True)}
    return call.answer(200, payload, "config")


def _domain(call: V1Call) -> str:
    domain = call.params["domain_name"]
    if domain not in call.requestor.domains:
        raise bad_request(f"domain_name {domain!r} is not a registered domain of {call.requestor.id}")
    return domain


@v1_endpoint("v1InitiateAuthentication")
def authenticate(state: State, req: Request, call: V1Call) -> Response:
    """The second screen's browser: 302 to the emulator's MVPD login page (Adobe: to the MVPD)."""
    session = v1_session(state, call, call.params["reg_code"],
                         bad_request("unknown or expired registration code for this requestor"))
    mvpd = call.mvpd(call.params["mso_id"])
    session.params.update(mvpd=mvpd.id, domainName=_domain(call), redirectUrl=call.params["redirect_url"])
    return redirect(f"{req.base_url}/_emulator/mvpd/login?code={quote(session.code)}")


@v1_endpoint("v1CheckAuthnBySecondScreen")
def check_authn_for_code(state: State, req: Request, call: V1Call) -> Response:
    """200 (no body) once the login through the code has produced a valid token, else 403."""
    forbidden = V1Error(403, "Forbidden")
    session = v1_session(state, call, req.path_params["code"], forbidden)
    if session.profile_key is None or state.valid_profile(session.profile_key, call.now) is None:
        raise forbidden
    return Response(200)


@v1_endpoint("v1CheckAuthenticationToken")
def check_authn(state: State, req: Request, call: V1Call) -> Response:
    """200 (no body: the success body is not documented) while the device has a valid token."""
    token = device_authn_token(state, call.requestor, call.device_id, call.subjects, call.now)
    if token is None:
        raise V1Error(403, "Forbidden", "no authentication token for this device")
    if not token.valid(call.now):
        raise V1Error(403, "Authentication token expired")
    return Response(200)


@v1_endpoint("v1RetrieveAuthenticationToken")
def get_authn_token(state: State, req: Request, call: V1Call) -> Response:
    """200 the token; 404 none (yet: devices poll this after showing the code); 410 expired."""
    token = device_authn_token(state, call.requestor, call.device_id, call.subjects, call.now)
    if token is None:
        raise V1Error(404, "Not Found")
    if not token.valid(call.now):
        raise V1Error(410, "Gone")
    return call.answer(200, authn_payload(token), AUTHN_ROOT)


@v1_endpoint("v1RetrieveAuthenticationTokenByCode")
def get_authn_token_for_code(state: State, req: Request, call: V1Call) -> Response:
    """Undocumented (seen in clients): the token of the login through the code, 404 until then."""
    not_found = V1Error(404, "Not Found")
    session = v1_session(state, call, req.path_params["code"], not_found)
    token = state.valid_profile(session.profile_key, call.now) if session.profile_key else None
    if token is None:
        raise not_found
    return call.answer(200, authn_payload(token), AUTHN_ROOT)


@v1_endpoint("v1FreePreview")
def free_preview(state: State, req: Request, call: V1Call) -> Response:
    """TempPass: an authN token (`kind` temporary) for any TempPass MVPD of the requestor without a
    second screen (204). The pass of the device (basic) or of the `generic_data` identity
    (promotional, required) runs its lifetime from its first request; asking again while it runs
    renews the token until the same end; after it, 400 until `/_emulator/temppass/reset` or
    `/_emulator/reset` (Adobe: the reset API). See `temppass.py`."""
    mvpd = call.requestor.temp_pass(call.params["mso_id"])
    if mvpd is None:
        raise bad_request(f"{call.params['mso_id']!r} is not a TempPass MVPD of {call.requestor.id}")
    _domain(call)
    subject_id = temppass.subject(mvpd, call.device_id, call.params.get("generic_data"))
    key = TempPassKey(call.requestor.id, mvpd.id, subject_id)
    ends = state.temp_passes.setdefault(key, call.now + temppass.lifetime_ms(state, mvpd))
    if ends <= call.now:
        whose = "identity" if mvpd.temp_pass and mvpd.temp_pass.promotional else "device"
        raise bad_request(f"the {mvpd.id} TempPass of this {whose} has expired")
    store_authn_token(state, call.requestor.id, call.device_id, mvpd.id, temppass.user_id(subject_id), mvpd.id,
                      temppass.TEMPORARY, call.now, ends - call.now)
    return no_content()
