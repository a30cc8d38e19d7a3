"""V1 user metadata (tokens/usermetadata) and logout (DELETE /api/v1/logout)."""

from __future__ import annotations

from .. import sso
from ..state import State
from ..web import Request, Response
from .answers import V1Error, no_content
from .call import V1Call, v1_endpoint
from .tokens import APPLE, device_authn_token, forget_device


@v1_endpoint("v1UserMetadata")
def user_metadata(state: State, req: Request, call: V1Call) -> Response:
    """200 `{updated (s), encrypted [keys], data {...}}`; 404 no token; 412 expired token.

    `data` has the login's attributes, `mvpd`, and `tokenSource: "Apple"` for a token made by the
    Apple SSO token exchange (other sources' values are not documented, so it is absent there).
    The XML form (`<metadata>`) is not documented: it mirrors the JSON."""
    token = device_authn_token(state, call.requestor, call.device_id, call.subjects, call.now)
    if token is None:
        raise V1Error(404, "Not Found")
    if not token.valid(call.now):
        raise V1Error(412, "User not authenticated", "the authentication token has expired")
    data = {name: attribute["value"] for name, attribute in token.attributes.items()}
    data["mvpd"] = token.key.mvpd
    if token.issuer == APPLE:
        data["tokenSource"] = APPLE
    encrypted = [name for name, attribute in token.attributes.items() if attribute["state"] == "enc"]
    return call.answer(200, {"updated": token.not_before // 1000, "encrypted": encrypted, "data": data},
                       "metadata")


@v1_endpoint("v1InitiateLogout")
def logout(state: State, req: Request, call: V1Call) -> Response:
    """DELETE, as Adobe's endpoint page says (the V2 FAQ's "GET /api/v1/logout" is answered 405).
    Removes the device's authN and authZ tokens; the MVPD is not called. 204, also when there
    was nothing to remove. With a valid platform identity, single logout: the subject's SSO
    profiles for every MVPD of the requestor, and the tokens of the logins that made them, go too."""
    forget_device(state, call.requestor.id, call.device_id)
    sso.single_logout(state, call.subjects, [m.id for m in call.requestor.login_mvpds])
    return no_content()
