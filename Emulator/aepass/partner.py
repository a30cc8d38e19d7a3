"""Partner single sign-on (Apple): the partner authentication request and the partner profile.

* `POST /api/v2/{sp}/sessions/sso/{partner}` (retrieveVerificationTokenUsingPOST) hands out a
  SAML request for the platform, or falls back to the basic flow (a normal session with a code);
* `POST /api/v2/{sp}/profiles/sso/{partner}` (createPartnerProfileUsingPOST) checks the
  platform's SAML response against the request it answers and creates an `appleSSO` profile.

The `AP-Partner-Framework-Status` header (PFS) is also read by the profiles, decisions and
logout handlers: an `appleSSO` profile is only shown or used with a valid PFS for its MVPD.
The SAML texts come from the shared `simulated_saml` module (see `simulated.py`).
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from . import jsontext
from . import checks, degradation, platforms
from .catalog import Mvpd, Requestor
from .device import decode_device_info
from .errors import ApiError
from .login import user_attributes
from .sessions import REASON_BY_PROFILE_TYPE, authorize_answer, open_session, session_answer
from .simulated import simulated_saml
from .state import PartnerRequest, Profile, State
from .web import Request, Response, form_fields, json_response

PARTNERS = ("Apple",)
PFS_HEADER = "AP-Partner-Framework-Status"
# The SAML issuer Adobe gives Apple as `channelIdentifier` (rest-api-v2.md §1).
SAML_ISSUER = "https://saml.sp.auth.adobe.com"
PARTNER_SESSION_PARAMETERS = ("domainName", "redirectUrl")
APPLE_SSO = "appleSSO"
_NAME_ID = re.compile(r"<saml:NameID\b[^>]*>([^<]*)</saml:NameID>")
_IN_RESPONSE_TO = re.compile(r"<samlp:Response\b[^>]*?\sInResponseTo=\"([^\"]*)\"")


# --- AP-Partner-Framework-Status ------------------------------------------------------------

@dataclass(frozen=True)
class FrameworkError:
    """An optional partner framework `error` object: `{"code", "message"}` (both strings)."""

    code: str | None
    message: str | None

    def describe(self, where: str) -> str:
        return f"{where}.error {{code {self.code!r}, message {self.message!r}}}"


@dataclass(frozen=True)
class FrameworkStatus:
    """What an AP-Partner-Framework-Status header says (None fields: absent or unreadable)."""

    present: bool = False
    readable: bool = False  # standard (or URL-safe) Base64 of a JSON object
    access_status: str | None = None
    provider_id: str | None = None
    expiration_ms: int | None = None
    expiration_present: bool = False  # frameworkProviderInfo.expirationDate is there (not null)
    expiration_readable: bool = True  # false when expirationDate is there but not a number
    permission_error: FrameworkError | None = None
    provider_error: FrameworkError | None = None


def _b64_json(value: str) -> Any:
    text = "".join(value.split())
    text += "=" * (-len(text) % 4)
    for decode in (lambda t: base64.b64decode(t, validate=True), base64.urlsafe_b64decode):
        try:
            return jsontext.loads(decode(text).decode("utf-8-sig"))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
    return None


def _milliseconds(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _framework_error(info: dict[str, Any]) -> FrameworkError | None:
    """The optional `error` object of frameworkPermissionInfo / frameworkProviderInfo.

    Read leniently: a non-object `error` is ignored, non-string fields are left out."""
    error = info.get("error")
    if not isinstance(error, dict):
        return None
    code, message = error.get("code"), error.get("message")
    return FrameworkError(code if isinstance(code, str) else None,
                          message if isinstance(message, str) else None)


def read_framework_status(req: Request) -> FrameworkStatus:
    """Parse the PFS header leniently (pretty-printed JSON, padding optional, URL-safe Base64)."""
    value = req.header(PFS_HEADER)
    if value is None or not value.strip():
        return FrameworkStatus()
    payload = _b64_json(value)
    if not isinstance(payload, dict):
        return FrameworkStatus(present=True)
    permission = payload.get("frameworkPermissionInfo")
    provider = payload.get("frameworkProviderInfo")
    permission = permission if isinstance(permission, dict) else {}
    provider = provider if isinstance(provider, dict) else {}
    access = permission.get("accessStatus")
    provider_id = provider.get("id")
    expiration = provider.get("expirationDate")
    return FrameworkStatus(
        present=True,
        readable=True,
        access_status=access if isinstance(access, str) else None,
        provider_id=provider_id if isinstance(provider_id, str) and provider_id else None,
        expiration_ms=_milliseconds(expiration),
        expiration_present=expiration is not None,
        expiration_readable=expiration is None or _milliseconds(expiration) is not None,
        permission_error=_framework_error(permission),
        provider_error=_framework_error(provider),
    )


@dataclass(frozen=True)
class Verdict:
    code: str | None  # the invalid_header_pfs_* code, None when the PFS is valid
    details: str | None
    mvpd: Mvpd | None  # the MVPD the provider id maps to (even when the PFS is invalid otherwise)


def judge(status: FrameworkStatus, requestor: Requestor, now: int, expiration_required: bool = False) -> Verdict:
    """Check a PFS in the order: access status, provider id, provider information expiry.

    `expirationDate` is optional (the default, config `pfs_expiration_date: "optional"`): the
    Apple SSO cookbook (REST API V2) checks "the expiry of the user's provider profile (if any)"
    (steps B.2, C.4, C.11), so a PFS without one carries no expiry to check; one that is there
    must be a number of ms still ahead. `expiration_required` (config "required") follows Adobe's
    AP-Partner-Framework-Status header page instead, which marks
    `frameworkProviderInfo.expirationDate` "a required attribute": a granted PFS without it is
    refused with `invalid_header_pfs_provider_info_expired`, the code of the expiry check (the
    code list has no "provider info not present" code). The optional `error` objects do not
    change the verdict: with `accessStatus` granted the provider checks run as usual; a
    refusal's details quote them."""
    mvpd = requestor.mvpd_for_platform_id(status.provider_id)
    errors = [e.describe(where) for e, where in ((status.permission_error, "frameworkPermissionInfo"),
                                                  (status.provider_error, "frameworkProviderInfo")) if e]

    def invalid(code: str, details: str) -> Verdict:
        return Verdict(f"invalid_header_pfs_{code}", "; ".join([details, *errors]), mvpd)

    if not status.present:
        return invalid("permission_access_not_present", f"the {PFS_HEADER} header is missing")
    if not status.readable:
        return invalid("permission_access_not_present",
                       f"the {PFS_HEADER} header is not Base64 of a JSON object")
    if status.access_status is None:
        return invalid("permission_access_not_present", "frameworkPermissionInfo.accessStatus is missing")
    if status.access_status == "notDetermined":
        return invalid("permission_access_not_determined", "accessStatus is notDetermined")
    if status.access_status != "granted":
        return invalid("permission_access_not_granted", f"accessStatus is {status.access_status!r}")
    if status.provider_id is None:
        return invalid("provider_id_not_determined", "frameworkProviderInfo.id is missing")
    if mvpd is None:
        return invalid("provider_id_not_determined",
                       f"no MVPD of {requestor.id} has platformMappingId {status.provider_id!r}")
    if not status.expiration_present and expiration_required:
        return invalid("provider_info_expired",
                       "frameworkProviderInfo.expirationDate is missing (a required attribute: "
                       "pfs_expiration_date is \"required\")")
    if not status.expiration_readable:
        return invalid("provider_info_expired", "frameworkProviderInfo.expirationDate is not a number of ms")
    if status.expiration_ms is not None and status.expiration_ms <= now:
        return invalid("provider_info_expired", f"expirationDate {status.expiration_ms} has passed")
    return Verdict(None, None, mvpd)


def judge_request(state: State, req: Request, requestor: Requestor, now: int) -> Verdict:
    """The verdict on the request's PFS header, with the emulator's settings."""
    return judge(read_framework_status(req), requestor, now,
                 expiration_required=state.config["pfs_expiration_date"] == "required")


NOT_GRANTED = ("denied", "restricted", "notDetermined")


def permission_not_enforced(state: State, req: Request, requestor: Requestor, mvpd_id: str) -> bool:
    """The PFS says only that the viewer did not grant the permission, and the MVPD's integration
    does not enforce it: `enforcePlatformPermissions` false in the configuration the caller's
    platform sees (set per platform with `configuration_platforms`' `mvpd_fields`). The TVE
    Dashboard's "Enforce Platform Permission" "controls if the user's decision to Allow or Deny
    platform access to their TV Provider subscription is respected": not enforced, the viewer's
    existing appleSSO profile stays usable (listed, decided on) whatever that decision. Absent or
    true: enforced (the cookbooks' behaviour)."""
    mvpd = requestor.mvpd(mvpd_id)
    status = read_framework_status(req)
    if mvpd is None or not status.readable or status.access_status not in NOT_GRANTED:
        return False
    info = req.header("X-Device-Info")
    view = platforms.mvpd_view(mvpd, platforms.rule_for(state.config, decode_device_info(info) if info else None))
    return view.config_fields.get("enforcePlatformPermissions") is False


def pfs_mvpd(state: State, req: Request, requestor: Requestor, now: int) -> str | None:
    """The MVPD id of a valid PFS header, else None."""
    verdict = judge_request(state, req, requestor, now)
    return verdict.mvpd.id if verdict.code is None and verdict.mvpd else None


def require_pfs_for(state: State, req: Request, requestor: Requestor, mvpd_id: str, now: int) -> None:
    """Decisions on an appleSSO profile: a valid PFS for that MVPD (or one that only lacks a
    permission the MVPD's integration does not enforce), else a top-level 400."""
    if permission_not_enforced(state, req, requestor, mvpd_id):
        return
    verdict = judge_request(state, req, requestor, now)
    if verdict.code:
        raise ApiError(verdict.code, verdict.details)
    if verdict.mvpd is None or verdict.mvpd.id != mvpd_id:
        raise ApiError("invalid_header_pfs_provider_id_mismatch",
                       f"the PFS provider maps to {verdict.mvpd.id if verdict.mvpd else None!r}, "
                       f"not to {mvpd_id!r}")


def _partner(req: Request) -> str:
    partner = req.path_params["partner"]
    if partner not in PARTNERS:
        raise ApiError("invalid_parameter_partner", f"unknown partner {partner!r}; known: Apple")
    return partner


# --- POST /sessions/sso/{partner} -------------------------------------------------------------

def retrieve_authentication_request(state: State, req: Request) -> Response:
    """retrieveVerificationTokenUsingPOST: the SAML request for the platform, or a fallback."""
    caller = checks.v2_caller(state, req)
    partner = _partner(req)
    device = checks.device_headers(state, req)
    params = checks.form_parameters(req, PARTNER_SESSION_PARAMETERS)
    verdict = judge_request(state, req, caller.requestor, caller.now)
    mvpd = verdict.mvpd
    if mvpd is not None:
        # Basic validation before the partner checks (V2 cookbook C.6): an inactive integration is
        # an error, not a fallback.
        checks.active_integration(state, caller.requestor, mvpd)

    def fallback(reason: str) -> Response:
        session_params = {**({"mvpd": mvpd.id} if mvpd else {}), **params}
        session = open_session(state, caller, device, session_params, req.header("User-Agent"))
        return json_response(200, {**session_answer(session, resumed=False), "reasonType": reason})

    forced = state.config["partner_sso_force_fallback"]
    if forced == "missing_parameters_fallback":
        params.pop("redirectUrl", None)
    if any(p not in params for p in PARTNER_SESSION_PARAMETERS):
        return fallback("missing_parameters_fallback")
    if forced == "pfs_fallback":
        return fallback("pfs_fallback")
    if verdict.code or mvpd is None:
        return fallback("pfs_fallback")
    sp = caller.requestor.id
    key = caller.profile_key(device.device_id, mvpd.id)
    if degradation.rule(state, mvpd.id) == degradation.AUTHN_ALL:
        # A degraded MVPD authenticates through degradation, not through the partner (Apple SSO overview).
        profile = degradation.authenticate_all(state, key, caller.now)
        return json_response(200, authorize_answer(sp, mvpd.id, REASON_BY_PROFILE_TYPE[profile.type],
                                                   str(uuid.uuid4())))
    # Onboarding is per platform (platforms.py): the MVPD as the caller's X-Device-Info platform sees it.
    platform_mvpd = platforms.mvpd_view(mvpd, platforms.rule_for(state.config, device.info))
    if mvpd.id in state.config["partner_sso_disabled"] or not platform_mvpd.partner_sso_onboarded:
        return fallback("configuration_fallback")
    profile = state.valid_profile(key, caller.now)
    if profile:
        return json_response(200, authorize_answer(sp, mvpd.id, REASON_BY_PROFILE_TYPE[profile.type],
                                                   str(uuid.uuid4())))
    request = new_partner_request(state, caller.token.client_id, device.device_id, caller.requestor,
                                  platform_mvpd, caller.now)
    return json_response(200, {
        "actionName": "partner_profile",
        "actionType": "direct",
        "reasonType": "none",
        "url": f"/api/v2/{sp}/profiles/sso/{partner}",
        "sessionId": str(uuid.uuid4()),
        "mvpd": mvpd.id,
        "serviceProvider": sp,
        "authenticationRequest": {
            "type": "saml",
            "request": saml_request_payload(request),
            "attributesNames": request.attribute_names,
        },
    })


def new_partner_request(state: State, client_id: str, device_id: str, requestor: Requestor, mvpd: Mvpd,
                        now: int) -> PartnerRequest:
    """Remember a new SAML attribute query for the platform (V2 sessions/sso, V1 profile-requests)."""
    request = PartnerRequest(
        request_id="_" + secrets.token_hex(16),
        client_id=client_id,
        device_id=device_id,
        service_provider=requestor.id,
        mvpd=mvpd.id,
        provider_id=mvpd.platform_mapping_id or mvpd.id,
        attribute_names=mvpd.required_metadata_fields,
        expires_ms=now + state.ttl_ms("code_ttl_s"),
    )
    state.partner_requests[request.request_id] = request
    return request


def saml_request_payload(request: PartnerRequest) -> str:
    """Base64 of the SAML attribute query: what the client hands to the platform unchanged."""
    saml = simulated_saml.saml_request(request.request_id, request.service_provider, request.mvpd, SAML_ISSUER)
    return base64.b64encode(saml.encode("utf-8")).decode("ascii")


# --- POST /profiles/sso/{partner} -------------------------------------------------------------

def form_value(body: str, name: str) -> str | None:
    """A form parameter decoded as a form decoder does (`web.form_fields`: '+' is a space,
    '%2B' a plus); None when absent."""
    values = form_fields(body).get(name)
    return values[0] if values else None


class SamlRefused(ValueError):
    """Why a SAMLResponse is refused (the text goes into the error's details)."""


def _saml_invalid(details: str) -> ApiError:
    return ApiError("invalid_parameter_saml_response", details)


def decoded_saml_response(body: str) -> str:
    """The SAMLResponse of a form body: form-decoded (`+` is a space), then strictly Base64-decoded.

    As on Adobe's side, a Base64 '+' sent unencoded arrives as a space and the value no longer
    decodes: the cookbook's percent set encodes '+' as %2B."""
    value = form_value(body, "SAMLResponse")
    if not value:
        raise SamlRefused("the SAMLResponse form parameter is missing")
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        pass
    if " " in value and _is_base64(value.replace(" ", "+")):
        raise SamlRefused(
            "SAMLResponse, form-decoded, is not standard Base64: it holds spaces where the Base64 "
            "had '+' (a '+' sent unencoded means a space in a form body; send it as %2B)") from None
    raise SamlRefused(
        "SAMLResponse, form-decoded, is not standard Base64 of UTF-8 text "
        "(encoded twice, or '+' sent unencoded?)") from None


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return True


def answered_request(state: State, text: str, client_id: str, device_id: str | None, sp: str,
                     now: int) -> PartnerRequest:
    """The pending request a SAML response answers (`InResponseTo`), of this caller, unexpired.

    `device_id` None: any device (V1's profile request names no device)."""
    found = _IN_RESPONSE_TO.search(text)
    pending = state.partner_requests.get(found.group(1)) if found else None
    if pending is None or (pending.client_id, pending.service_provider) != (client_id, sp) or (
            device_id is not None and pending.device_id != device_id):
        raise SamlRefused("the SAML response answers no pending authentication request "
                          "of this client and device")
    if pending.expired(now):
        raise SamlRefused("the authentication request this SAML response answers has expired")
    return pending


def _difference(got: str, expected: str) -> str:
    index = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
    start = max(0, index - 20)
    return (f"the SAML response is not the platform's response after the cookbook clean-up "
            f"(lengths {len(got)} and {len(expected)}); first difference at character {index}: "
            f"got {got[start:index + 20]!r}, expected {expected[start:index + 20]!r}")


def accept_platform_response(state: State, text: str, pending: PartnerRequest) -> str:
    """Check that `text` is exactly the platform's cleaned-up answer to `pending`, consume the
    request, and return the viewer's user id (the SAML NameID)."""
    raw = simulated_saml.saml_response(pending.request_id, pending.provider_id, pending.attribute_names)
    expected = simulated_saml.clean_saml_response(raw)
    if text != expected:
        if text == raw:
            raise SamlRefused("the SAML response was not cleaned up (blanks, newlines, trim)")
        raise SamlRefused(_difference(text, expected))
    del state.partner_requests[pending.request_id]
    name_id = _NAME_ID.search(text)
    return name_id.group(1) if name_id else simulated_saml.user_id(pending.provider_id)


def create_partner_profile(state: State, req: Request) -> Response:
    """createPartnerProfileUsingPOST: check the SAMLResponse, create the appleSSO profile (201)."""
    caller = checks.v2_caller(state, req)
    _partner(req)
    device = checks.device_headers(state, req)
    checks.form_parameters(req, ())  # Content-Type and repeated parameters
    refusal = state.partner_refusal.take()  # a test's /_emulator/partner/refuse-next, if any
    if refusal:
        raise ApiError(*refusal)
    verdict = judge_request(state, req, caller.requestor, caller.now)
    if verdict.mvpd is not None:
        checks.active_integration(state, caller.requestor, verdict.mvpd)  # basic validation first (C.13)
    if verdict.code or verdict.mvpd is None:
        raise ApiError(verdict.code or "invalid_header_pfs_provider_id_not_determined", verdict.details)
    try:
        text = decoded_saml_response(req.text())
        pending = answered_request(state, text, caller.token.client_id, device.device_id,
                                   caller.requestor.id, caller.now)
    except SamlRefused as problem:
        raise _saml_invalid(str(problem)) from None
    if pending.mvpd != verdict.mvpd.id:
        raise ApiError("invalid_header_pfs_provider_id_mismatch",
                       f"the PFS provider maps to {verdict.mvpd.id!r}, the authentication "
                       f"request was for {pending.mvpd!r}")
    try:
        user_id = accept_platform_response(state, text, pending)
    except SamlRefused as problem:
        raise _saml_invalid(str(problem)) from None
    if degradation.rule(state, pending.mvpd) == degradation.AUTHN_ALL:
        # Degraded meanwhile: Adobe answers its degraded profile, 200 (`partner_sso.profile:2`).
        degraded = degradation.authenticate_all(state, caller.profile_key(device.device_id, pending.mvpd), caller.now)
        return json_response(200, {"profiles": {pending.mvpd: degraded.to_json()}})
    key = caller.profile_key(device.device_id, pending.mvpd)
    profile = Profile(
        key=key,
        issuer="Apple",
        type=APPLE_SSO,
        not_before=caller.now,
        not_after=caller.now + state.ttl_ms("profile_ttl_s"),
        attributes=user_attributes(user_id),
    )
    state.profiles[key] = profile
    return json_response(201, {"profiles": {pending.mvpd: profile.to_json()}})
