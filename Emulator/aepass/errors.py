"""Error answers: Enhanced Error Codes (V2), OAuth-style DCR errors, HTML page errors."""

from __future__ import annotations

import html
import uuid
from dataclasses import dataclass
from typing import Any

from .web import Response, html_response, json_response

HELP_URL = (
    "https://experienceleague.adobe.com/docs/pass/authentication/auth-features/"
    "error-reportn/enhanced-error-codes.html"
)


@dataclass(frozen=True)
class ErrorSpec:
    action: str
    status: int
    message: str


# Codes and actions from Adobe's Enhanced Error Codes list (rest-api-v2.md §7.2).
# `invalid_request`, `method_not_allowed` and `not_found` are names of the emulator's, never sent:
# Adobe's list has no code for a malformed Accept/Content-Type, a wrong method or an unknown path,
# so those answers are Enhanced Error Code objects without `code` (UNNAMED; the OpenAPI
# `ErrorInformation` requires no field, and the EEC `status` list has 404 and 405).
# `invalid_header_service_token` and `invalid_header_subject_token` (SSO tokens) are emulator-only
# codes, sent only when a test asks for them (`sso_invalid_token: "refuse"`, `/_emulator/sso/refuse-next`).
CODES: dict[str, ErrorSpec] = {
    "invalid_parameter_service_provider": ErrorSpec(
        "none", 400, "The service provider parameter value is missing or invalid."),
    "invalid_parameter_mvpd": ErrorSpec(
        "none", 400, "The MVPD parameter value is missing or invalid."),
    "invalid_parameter_code": ErrorSpec(
        "none", 400, "The code parameter value is missing or invalid."),
    "invalid_parameter_resources": ErrorSpec(
        "none", 400, "The resources parameter value is missing or invalid."),
    "invalid_parameter_redirect_url": ErrorSpec(
        "none", 400, "The redirect URL parameter value is missing or invalid."),
    "invalid_parameter_partner": ErrorSpec(
        "none", 400, "The partner parameter value is missing or invalid."),
    "invalid_parameter_saml_response": ErrorSpec(
        "none", 400, "The SAML response parameter value is missing or invalid."),
    "invalid_header_pfs_permission_access_not_present": ErrorSpec(
        "none", 400, "The partner framework status permission access status is not present."),
    "invalid_header_pfs_permission_access_not_determined": ErrorSpec(
        "none", 400, "The partner framework status permission access status is not determined."),
    "invalid_header_pfs_permission_access_not_granted": ErrorSpec(
        "none", 400, "The partner framework status permission access status is not granted."),
    "invalid_header_pfs_provider_id_not_determined": ErrorSpec(
        "none", 400,
        "The partner framework status provider identifier is not associated with a known MVPD."),
    "invalid_header_pfs_provider_id_mismatch": ErrorSpec(
        "none", 400,
        "The partner framework status provider identifier does not match the MVPD parameter."),
    "invalid_header_pfs_provider_info_expired": ErrorSpec(
        "none", 400, "The partner framework status provider information has expired."),
    "invalid_header_device_info": ErrorSpec(
        "none", 400, "The device information header value is missing or invalid."),
    "invalid_header_device_identifier": ErrorSpec(
        "none", 400, "The device identifier header value is missing or invalid."),
    "invalid_integration": ErrorSpec(
        "none", 400, "The integration between the service provider and the MVPD is missing or disabled."),
    "invalid_authentication_session": ErrorSpec(
        "none", 400, "The authentication session is missing or invalid."),
    "preauthorization_denied_by_mvpd": ErrorSpec(
        "none", 403,
        'The MVPD has returned a "Deny" decision when requesting pre-authorization '
        "for the specified resource."),
    "authorization_denied_by_mvpd": ErrorSpec(
        "none", 403,
        'The MVPD has returned a "Deny" decision when requesting authorization '
        "for the specified resource."),
    "internal_server_error": ErrorSpec(
        "none", 500, "The request could not be processed because of an internal server error."),
    "too_many_resources": ErrorSpec(
        "configuration", 403,
        "The (pre)authorization request contains more resources than the configured limit."),
    "invalid_access_token_client_application": ErrorSpec(
        "application-registration", 401,
        "The access token is missing or invalid for the client application."),
    "authenticated_profile_missing": ErrorSpec(
        "authentication", 403, "The authenticated profile is missing."),
    "authenticated_profile_expired": ErrorSpec(
        "authentication", 403, "The authenticated profile has expired."),
    # TempPass (temporary access) and degradation; messages as in Adobe's documented answers.
    "invalid_header_identity_for_temporary_access": ErrorSpec(
        "none", 400, "The identity for temporary access header value is missing or invalid."),
    "invalid_configuration_temporary_access": ErrorSpec(
        "configuration", 500, "The temporary access configuration is invalid."),
    "temporary_access_duration_limit_exceeded": ErrorSpec(
        "authentication", 403, "The temporary access duration limit has been exceeded."),
    "temporary_access_resources_limit_exceeded": ErrorSpec(
        "authentication", 403, "The temporary access resources limit has been exceeded."),
    "authorization_denied_by_degradation_rule": ErrorSpec(
        "none", 403, "The integration has an AuthZNone rule applied for the requested resources"),
    # Emulator-only, in the pattern of Adobe's `invalid_header_*` codes: Adobe's list has no code
    # for an SSO token it refuses (its Amazon SSO cookbook: an invalid Adobe-Subject-Token is
    # ignored). Answered only with `sso_invalid_token: "refuse"` or `/_emulator/sso/refuse-next`.
    "invalid_header_service_token": ErrorSpec(
        "none", 400, "The service token header value is invalid."),
    "invalid_header_subject_token": ErrorSpec(
        "none", 400, "The subject token header value is invalid."),
    "invalid_request": ErrorSpec(
        "none", 400, "The request is malformed."),
    "method_not_allowed": ErrorSpec(
        "none", 405, "The HTTP method is not allowed for the requested resource."),
    "not_found": ErrorSpec(
        "none", 404, "The requested resource does not exist."),
}


UNNAMED = frozenset({"invalid_request", "method_not_allowed", "not_found"})


def error_object(code: str, details: str | None = None) -> dict[str, Any]:
    """An Enhanced Error Code object, as sent top-level or inside a decision (no `code` for UNNAMED)."""
    spec = CODES[code]
    obj: dict[str, Any] = {"action": spec.action, "status": spec.status}
    if code not in UNNAMED:
        obj["code"] = code
    obj["message"] = spec.message
    if details:
        obj["details"] = details
    obj["helpUrl"] = HELP_URL
    obj["trace"] = str(uuid.uuid4())
    return obj


class HttpError(Exception):
    """An error that a handler raises and the pipeline turns into a response."""

    def response(self) -> Response:
        raise NotImplementedError


class ApiError(HttpError):
    """A V2 error answered with a top-level Enhanced Error Code body."""

    def __init__(self, code: str, details: str | None = None,
                 headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(code if details is None else f"{code}: {details}")
        self.code = code
        self.details = details
        self.headers = headers or []

    def response(self) -> Response:
        return json_response(CODES[self.code].status, error_object(self.code, self.details), self.headers)


class DcrError(HttpError):
    """A DCR error: an OAuth-style body {"error": "<code>"}, HTTP 400 unless told otherwise
    (V1 answers a bad bearer with 401 access_denied, a revoked client with 403 invalid_client)."""

    def __init__(self, code: str, status: int = 400) -> None:
        super().__init__(code)
        self.code = code
        self.status = status

    def response(self) -> Response:
        return json_response(self.status, {"error": self.code})


class PageError(HttpError):
    """An error of a browser-facing URL, answered as a small text/html page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def response(self) -> Response:
        text = html.escape(self.message)
        return html_response(
            self.status,
            f"<!DOCTYPE html><html><head><title>Error</title></head>"
            f"<body><h1>Error {self.status}</h1><p>{text}</p></body></html>",
        )


class ControlError(HttpError):
    """An error of the /_emulator control API: {"error": "<message>"}."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def response(self) -> Response:
        return json_response(self.status, {"error": self.message})
