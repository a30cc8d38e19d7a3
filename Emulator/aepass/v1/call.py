"""The prologue every V1 handler shares, in order: response format -> bearer (DCR access token)
-> parameters (query + form body) -> required parameters -> requestor -> device information ->
the platform identity (`Adobe-Subject-Token` / `X-Roku-Reserved-Roku-Connect-Token` header or `ast`
parameter, sso.py: an invalid one is ignored, "served without SSO")."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from .. import sso
from ..catalog import REQUESTORS, Mvpd, Requestor
from ..device import decode_device_info, device_info_problem
from ..errors import ApiError, DcrError
from ..state import AccessToken, State, Subject, now_ms
from ..web import Request, Response
from .answers import XML, V1Error, bad_request, missing, render, response_format
from .spec import BY_OPERATION, DEVICE_INFO_PARAMETER, Endpoint, merged_parameters

# Mandatory device information keys (DEVINFO, rest-api-v1.md §8.6); V2 requires more.
V1_DEVICE_INFO_KEYS = ("model", "osName")


@dataclass
class V1Call:
    endpoint: Endpoint
    params: dict[str, str]
    requestor: Requestor
    token: AccessToken | None
    fmt: str
    now: int
    device_info: dict[str, Any] | None
    subjects: tuple[Subject, ...] = ()  # the valid platform identities the request carries

    @property
    def device_id(self) -> str:
        return self.params["deviceId"]

    def mvpd(self, mvpd_id: str) -> Mvpd:
        found = self.requestor.mvpd(mvpd_id)
        if found is None:
            raise bad_request(f"{mvpd_id!r} is not an MVPD of {self.requestor.id}")
        return found

    def answer(self, status: int, payload: Any, root: str, headers: list[tuple[str, str]] | None = None,
               ) -> Response:
        return render(status, payload, self.fmt, root, headers)


V1Handler = Callable[[State, Request, V1Call], Response]


def v1_endpoint(operation: str) -> Callable[[V1Handler], Callable[[State, Request], Response]]:
    """Wrap a handler: run the prologue for `operation`'s table entry; errors in the asked format."""
    endpoint = BY_OPERATION[operation]

    def wrap(handler: V1Handler) -> Callable[[State, Request], Response]:
        @functools.wraps(handler)
        def run(state: State, req: Request) -> Response:
            fmt = XML
            try:
                fmt = response_format(req)
                return handler(state, req, _prologue(state, req, endpoint, fmt))
            except V1Error as error:
                error.fmt = fmt
                raise
        run.operation = operation  # type: ignore[attr-defined]  # read by v1/routes.py
        return run
    return wrap


def _bearer(state: State, req: Request, now: int) -> AccessToken:
    """DCR's errors for protected calls (rest-api-v1.md §3.1): a missing, unknown or expired token
    401 access_denied; a token of a client Adobe no longer permits 403 invalid_client."""
    scheme, _, value = (req.header("Authorization") or "").strip().partition(" ")
    token = state.tokens.get(value.strip()) if scheme.lower() == "bearer" else None
    if token is None or token.revoked or now >= token.expires_ms:
        raise DcrError("access_denied", 401)
    client = state.clients.get(token.client_id)
    if client is None or client.invalidated:
        raise DcrError("invalid_client", 403)
    req.client_id = token.client_id
    return token


def _prologue(state: State, req: Request, endpoint: Endpoint, fmt: str) -> V1Call:
    now = now_ms()
    token = _bearer(state, req, now) if endpoint.bearer else None
    params, problems = merged_parameters(req.query, req.text() if req.body else "", req.media_type())
    if problems:
        raise bad_request(problems[0])
    for name in endpoint.required:
        if not params.get(name):
            raise missing(name)
    requestor_id = req.path_params.get("requestor") or params.get("requestor") or params.get("requestor_id")
    requestor = REQUESTORS.get(requestor_id or "")
    if requestor is None:
        raise bad_request(f"unknown requestor {requestor_id!r}")
    info = None
    if endpoint.device_info:
        info = _device_info(req, params)
    try:
        subjects = sso.judge(state, req, now, v1=True)
    except ApiError as refused:  # /_emulator/sso/refuse-next with a code: V1's legacy 400
        raise bad_request(f"{refused.code}: {refused.details}") from None
    return V1Call(endpoint, params, requestor, token, fmt, now, info, subjects)


def _device_info(req: Request, params: dict[str, str]) -> dict[str, Any]:
    header = req.header("X-Device-Info")
    value, name = (header, "X-Device-Info") if header else (params.get(DEVICE_INFO_PARAMETER), "device_info")
    if not value:
        raise missing(DEVICE_INFO_PARAMETER)
    problem = device_info_problem(value, V1_DEVICE_INFO_KEYS, name)
    if problem:
        raise V1Error(400, "Invalid device information", problem)
    return decode_device_info(value)
