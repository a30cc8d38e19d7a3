"""Partner (Apple) SSO for tests over plain HTTP: the `AP-Partner-Framework-Status` header and the
`SAMLResponse` the simulated platform answers to the emulator's SAML authentication request.

    status = partner_framework_status("Cablevision")
    answer = POST /api/v2/REF30/sessions/sso/Apple (header AP-Partner-Framework-Status: status)
    form = "SAMLResponse=" + partner_saml_response(answer["authenticationRequest"], "Cablevision")
    POST /api/v2/REF30/profiles/sso/Apple (the same header, that form body)  -> 201 appleSSO profile
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any, Mapping

DAY_S = 86400


def partner_framework_status(provider_id: str | None = "Cablevision", access: str = "granted",
                             expires_in_s: float | None = DAY_S, now_ms: int | None = None) -> str:
    """An `AP-Partner-Framework-Status` value: Base64 of the JSON Adobe documents. `provider_id` is the
    platform's id of the MVPD (the catalog's `platformMappingId`, e.g. "Comcast" for Comcast_SSO; None:
    no provider); `access` the permission ("granted", "denied", "restricted", "notDetermined");
    `expires_in_s` the provider's expiry from `now_ms` (default: now), None for none."""
    provider: dict[str, Any] = {}
    if provider_id is not None:
        provider["id"] = provider_id
        if expires_in_s is not None:
            now = int(time.time() * 1000) if now_ms is None else now_ms
            provider["expirationDate"] = str(int(now + expires_in_s * 1000))
    status = {"frameworkPermissionInfo": {"accessStatus": access}, "frameworkProviderInfo": provider}
    return base64.b64encode(json.dumps(status).encode()).decode()


def partner_saml_response(authentication_request: Mapping[str, Any], provider_id: str) -> str:
    """The `SAMLResponse` form value (cleaned up, Base64, percent-encoded, as Adobe's cookbook says) of
    what the simulated platform answers to `authentication_request` — the `authenticationRequest` of a
    `sessions/sso/{partner}` answer — for the provider `provider_id` (its `platformMappingId`)."""
    from ..simulated import simulated_saml as saml  # noqa: PLC0415 - the emulator's own SAML texts
    request_id = saml.request_id_of(authentication_request["request"])
    if not request_id:
        raise ValueError("the authentication request holds no SAML request id")
    text = saml.saml_response(request_id, provider_id, list(authentication_request.get("attributesNames") or []))
    return saml.encode_saml_response(text)
