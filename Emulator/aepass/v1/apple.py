"""Apple SSO with REST API V1 (APPLE1, PROFREQ, TOKX): the profile request and the token exchange.

The profile request is the same SAML attribute query as V2's `authenticationRequest.request`
(Base64, sent as `application/octet-stream`; opaque to the client, which passes it to the
platform as `verificationToken`). The token exchange checks the `SAMLResponse` exactly as V2's
`profiles/sso/Apple` does (partner.py): percent-decoded once, strict Base64, an answer to a
pending request of this client and requestor, equal to the platform's response after the
cookbook clean-up. V1's profile request names no device, so any device of the client may
exchange it.
"""

from __future__ import annotations

from ..partner import (
    SamlRefused, accept_platform_response, answered_request, decoded_saml_response, new_partner_request,
    saml_request_payload,
)
from ..state import State
from ..web import Request, Response
from .answers import bad_request, no_content
from .call import V1Call, v1_endpoint
from .tokens import APPLE, store_authn_token

DEVICE_TYPES = ("iOS", "tvOS")


def _device_type(call: V1Call) -> None:
    if call.params["deviceType"] not in DEVICE_TYPES:
        raise bad_request(f"deviceType must be iOS or tvOS, not {call.params['deviceType']!r}")


@v1_endpoint("v1RetrieveProfileRequest")
def profile_request(state: State, req: Request, call: V1Call) -> Response:
    """200 application/octet-stream: the profile request for the MVPD; 400 if it has no SSO."""
    _device_type(call)
    mvpd = call.mvpd(req.path_params["mvpd"])
    if mvpd.id in state.config["partner_sso_disabled"] or not mvpd.partner_sso_onboarded:
        raise bad_request(f"{mvpd.id} is not onboarded for platform single sign-on")
    assert call.token is not None
    request = new_partner_request(state, call.token.client_id, "", call.requestor, mvpd, call.now)
    body = saml_request_payload(request).encode("ascii")
    return Response(200, body, [("Content-Type", "application/octet-stream")])


@v1_endpoint("v1TokenExchange")
def token_exchange(state: State, req: Request, call: V1Call) -> Response:
    """204: the platform's profile became an authN token (tokenSource "Apple"); 400 otherwise."""
    _device_type(call)
    mvpd = call.mvpd(call.params["mvpd"])
    assert call.token is not None
    refusal = state.partner_refusal.take()  # a test's /_emulator/partner/refuse-next, if any
    if refusal:
        raise bad_request(f"{refusal[0]}: {refusal[1]}")
    try:
        text = decoded_saml_response(req.text())
        pending = answered_request(state, text, call.token.client_id, None, call.requestor.id, call.now)
        if pending.mvpd != mvpd.id:
            raise SamlRefused(f"the profile request was for {pending.mvpd!r}, not {mvpd.id!r}")
        user_id = accept_platform_response(state, text, pending)
    except SamlRefused as problem:
        raise bad_request(str(problem)) from None
    store_authn_token(state, call.requestor.id, call.device_id, mvpd.id, user_id, APPLE, "appleSSO",
                      call.now, state.ttl_ms("profile_ttl_s"))
    return no_content()
