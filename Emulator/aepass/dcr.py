"""Dynamic Client Registration: POST /o/client/register and POST /o/client/token."""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any
from urllib.parse import urlsplit

from . import jsontext
from .checks import FORM_TYPE, JSON_MEDIA_TYPE, accept_ok
from .device import device_info_problem
from .errors import DcrError
from .state import AccessToken, Client, State, now_ms
from .web import Request, Response, form_fields, json_response

_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
TOKEN_PARAMETERS = ("client_id", "client_secret", "grant_type")


def register(state: State, req: Request) -> Response:
    """processSoftwareStatementUsingPOST."""
    if not accept_ok(req) or req.media_type() != JSON_MEDIA_TYPE:
        raise DcrError("invalid_request")
    info = req.header("X-Device-Info")
    missing_refused = info is None and state.config["device_info_header"] == "required"  # strictness.py
    if missing_refused or (info is not None and device_info_problem(info)):
        raise DcrError("invalid_request")
    statement, redirect_uri = _registration_body(req)
    if redirect_uri is None and state.config["register_redirect_uri"] == "required":
        raise DcrError("invalid_redirect_uri")  # dcrApi.json requires it (erratum E11; strictness.py)
    if not _JWT.match(statement):
        raise DcrError("invalid_software_statement")
    if statement in state.config["revoked_software_statements"]:
        raise DcrError("unapproved_software_statement")
    client = Client(
        client_id=secrets.token_urlsafe(12),
        client_secret=secrets.token_urlsafe(24),
        software_statement=statement,
        redirect_uris=[redirect_uri] if redirect_uri else [],
        issued_at_s=now_ms() // 1000,
    )
    state.clients[client.client_id] = client
    req.client_id = client.client_id
    return json_response(201, {
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "redirect_uris": client.redirect_uris,
        "grant_types": ["client_credentials"],
        "scopes": ["api:client:v2"],
        "client_id_issued_at": client.issued_at_s,
    })


def _registration_body(req: Request) -> tuple[str, str | None]:
    """(software_statement, redirect_uri); redirect_uri is optional (erratum E11)."""
    try:
        body: Any = jsontext.loads(req.body)
    except ValueError:
        raise DcrError("invalid_request") from None
    if not isinstance(body, dict):
        raise DcrError("invalid_request")
    statement = body.get("software_statement")
    if not isinstance(statement, str) or not statement:
        raise DcrError("invalid_request")
    redirect_uri = body.get("redirect_uri")
    if redirect_uri is not None and (not isinstance(redirect_uri, str) or not urlsplit(redirect_uri).scheme):
        raise DcrError("invalid_redirect_uri")
    return statement, redirect_uri


def token(state: State, req: Request) -> Response:
    """generateAccessTokenUsingPOST: parameters in a form body (docs) or the query (OpenAPI, E12)."""
    if not accept_ok(req):
        raise DcrError("invalid_request")
    params = _token_parameters(req)
    client = state.clients.get(params["client_id"])
    if client is None or client.invalidated or client.client_secret != params["client_secret"]:
        raise DcrError("invalid_client")
    req.client_id = client.client_id
    if params["grant_type"] != "client_credentials":
        raise DcrError("unsupported_grant_type")
    now = now_ms()
    issued = AccessToken(
        value=secrets.token_urlsafe(32),
        token_id=str(uuid.uuid4()),
        client_id=client.client_id,
        created_ms=now,
        expires_ms=now + state.ttl_ms("access_token_ttl_s"),
    )
    state.tokens[issued.value] = issued
    return json_response(201, {
        "id": issued.token_id,
        "access_token": issued.value,
        "created_at": issued.created_ms,
        "expires_in": int(state.config["access_token_ttl_s"]),
        "token_type": "bearer",
    })


def _token_parameters(req: Request) -> dict[str, str]:
    """Query parameters overlaid with form-body parameters; each must appear at most once."""
    sources = [req.query_params()]
    if req.body:
        if req.media_type() != FORM_TYPE:
            raise DcrError("invalid_request")
        sources.append(form_fields(req.text()))
    params: dict[str, str] = {}
    for source in sources:
        for name, values in source.items():
            if len(values) > 1 or name in params:
                raise DcrError("invalid_request")
            params[name] = values[0]
    if not all(params.get(name) for name in TOKEN_PARAMETERS):
        raise DcrError("invalid_request")
    return params
