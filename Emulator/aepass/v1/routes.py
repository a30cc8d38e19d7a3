"""The V1 routes: (method, path template, handler, operation name), from the endpoint table."""

from __future__ import annotations

from typing import Any, Callable

from . import apple, authn, authz, reggie, user
from .spec import BY_OPERATION

HANDLERS: tuple[Callable[..., Any], ...] = (
    reggie.create_regcode, reggie.get_regcode, reggie.delete_regcode,
    authn.config, authn.authenticate, authn.free_preview, authn.get_authn_token_for_code,
    authn.check_authn_for_code, authn.check_authn, authn.get_authn_token,
    apple.profile_request, apple.token_exchange,
    authz.authorize, authz.get_authz_token, authz.get_media_token, authz.preauthorize,
    authz.preauthorize_for_code,
    user.user_metadata, user.logout,
)

V1_ROUTES: list[tuple[str, str, Callable[..., Any], str]] = [
    (BY_OPERATION[h.operation].method, template, h, h.operation)  # type: ignore[attr-defined]
    for h in HANDLERS
    for template in BY_OPERATION[h.operation].templates  # type: ignore[attr-defined]
]
assert {op for _, _, _, op in V1_ROUTES} == set(BY_OPERATION), "every V1 endpoint needs a handler"
