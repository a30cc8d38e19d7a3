"""REST API V1 endpoints as data: method, path, operation name, parameters, documented statuses.

Adobe publishes no OpenAPI file for V1 (`/work/shared/reference/openapi/` holds V2 and DCR only),
so this table, written from Adobe's endpoint pages (rest-api-v1.md §4, §5), is what the handlers
check requests against and what `validate_requests.py` checks logged V1 requests against.
Operation names are ours (Adobe has no operationIds for V1): `v1` + the endpoint page's title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..paths import template_regex
from ..web import form_fields

FORM_TYPE = "application/x-www-form-urlencoded"
# Accepted on every endpoint: the format selector, the deprecated device parameters, and `ast`, the
# platform identity token (Amazon SSO cookbook for REST API V1: "As a query parameter named: ast",
# "As a post parameter named: ast", on every /adobe-services/*, /reggie/*, /api/* call).
COMMON_OPTIONAL = ("format", "deviceType", "deviceUser", "appId", "ast")
DEVICE_INFO_PARAMETER = "device_info"  # or the X-Device-Info header
# Answers any V1 endpoint may give besides its own: bad request, DCR bearer errors (401
# access_denied, 403 invalid_client), wrong method, throttling.
COMMON_STATUSES = (400, 401, 403, 405, 429)


@dataclass(frozen=True)
class Endpoint:
    operation: str
    method: str
    templates: tuple[str, ...]
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    device_info: bool = False  # device_info / X-Device-Info mandatory
    bearer: bool = True  # Authorization: Bearer <DCR access token>
    statuses: tuple[int, ...] = (200,)
    regexes: tuple[re.Pattern[str], ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regexes", tuple(template_regex(t, True) for t in self.templates))

    def accepts(self, name: str) -> bool:
        return (name in self.required or name in self.optional or name in COMMON_OPTIONAL
                or (self.device_info and name == DEVICE_INFO_PARAMETER))

    def matches(self, path: str) -> bool:
        return any(r.match(path) for r in self.regexes)


_REGGIE = "/reggie/v1/{requestor}/regcode"
_DEVICE = ("requestor", "deviceId")
_RESOURCE = ("requestor", "deviceId", "resource")

ENDPOINTS: tuple[Endpoint, ...] = (
    # Registration codes (REGCODE, REGREC, REGDEL)
    Endpoint("v1RegistrationCodeRequest", "POST", (_REGGIE,), ("deviceId",),
             ("mvpd", "ttl", "registrationURL", "appVersion"), device_info=True, statuses=(201,)),
    Endpoint("v1ReturnRegistrationRecord", "GET", (_REGGIE + "/{code}",), statuses=(200, 404)),
    Endpoint("v1DeleteRegistrationRecord", "DELETE", (_REGGIE + "/{code}",), statuses=(204, 404)),
    # MVPD list (CONFIG)
    Endpoint("v1ProvideMvpdList", "GET", ("/api/v1/config/{requestor}",)),
    # Authentication (AUTHN, FREE, CHK2, CHK, TAUTHN, TOKX; authenticate/{code} is undocumented)
    Endpoint("v1InitiateAuthentication", "GET", ("/api/v1/authenticate",),
             ("reg_code", "requestor_id", "mso_id", "domain_name", "redirect_url"),
             ("noflash", "no_iframe", "generic_data"), bearer=False, statuses=(302,)),
    Endpoint("v1FreePreview", "POST", ("/api/v1/authenticate/freepreview",),
             ("requestor_id", "deviceId", "mso_id", "domain_name"), ("generic_data",),
             device_info=True, statuses=(204,)),
    Endpoint("v1RetrieveAuthenticationTokenByCode", "GET", ("/api/v1/authenticate/{code}",),
             ("requestor",), statuses=(200, 404)),
    Endpoint("v1CheckAuthnBySecondScreen", "GET", ("/api/v1/checkauthn/{code}",), ("requestor",),
             statuses=(200, 403)),
    Endpoint("v1CheckAuthenticationToken", "GET", ("/api/v1/checkauthn",), _DEVICE, device_info=True,
             statuses=(200, 403)),
    Endpoint("v1RetrieveAuthenticationToken", "GET", ("/api/v1/tokens/authn",), _DEVICE, device_info=True,
             statuses=(200, 404, 410)),
    Endpoint("v1TokenExchange", "POST", ("/api/v1/tokens/authn",),
             ("requestor", "deviceId", "mvpd", "deviceType", "SAMLResponse"), statuses=(204,)),
    # Authorization (AUTHZ, TAUTHZ, MEDIA, PRE, PRE2)
    Endpoint("v1InitiateAuthorization", "GET", ("/api/v1/authorize",), _RESOURCE, ("generic_data",),
             device_info=True, statuses=(200, 403)),
    Endpoint("v1RetrieveAuthorizationToken", "GET", ("/api/v1/tokens/authz",), _RESOURCE, device_info=True,
             statuses=(200, 404, 410, 412)),
    Endpoint("v1ObtainShortMediaToken", "GET", ("/api/v1/tokens/media", "/api/v1/mediatoken"), _RESOURCE,
             device_info=True, statuses=(200, 403)),
    Endpoint("v1Preauthorize", "GET", ("/api/v1/preauthorize",), _RESOURCE, device_info=True,
             statuses=(200, 412)),
    Endpoint("v1PreauthorizeBySecondScreen", "GET", ("/api/v1/preauthorize/{code}",), ("requestor", "resource"),
             statuses=(200, 412)),
    # Logout (LOGOUT: DELETE, as Adobe's endpoint page says), user metadata (UMD)
    Endpoint("v1InitiateLogout", "DELETE", ("/api/v1/logout",), _DEVICE, device_info=True, statuses=(204,)),
    Endpoint("v1UserMetadata", "GET", ("/api/v1/tokens/usermetadata",), _DEVICE, device_info=True,
             statuses=(200, 404, 412)),
    # Apple SSO profile request (PROFREQ)
    Endpoint("v1RetrieveProfileRequest", "GET", ("/api/v1/{requestor}/profile-requests/{mvpd}",),
             ("deviceType",)),
)
BY_OPERATION = {e.operation: e for e in ENDPOINTS}


def find_endpoint(method: str, path: str) -> tuple[Endpoint | None, bool]:
    """(endpoint, path_known): the endpoint serving method + path."""
    found = [e for e in ENDPOINTS if e.matches(path)]
    return next((e for e in found if e.method == method.upper()), None), bool(found)


def merged_parameters(query: str, body: str, media_type: str | None) -> tuple[dict[str, str], list[str]]:
    """Query parameters and urlencoded body parameters (clients use both, rest-api-v1.md §2.2),
    and the problems: a body that is not a form, a parameter given more than once."""
    sources = [form_fields(query)]
    problems: list[str] = []
    if body:
        if media_type == FORM_TYPE:
            sources.append(form_fields(body))
        else:
            problems.append(f"a request body must be {FORM_TYPE}, not {media_type}")
    params: dict[str, str] = {}
    for source in sources:
        for name, values in source.items():
            if len(values) > 1 or name in params:
                problems.append(f"parameter {name!r} is given more than once")
            params[name] = values[0]
    return params, problems


def request_problems(method: str, path: str, query: str, headers: dict[str, str], body: str) -> list[str]:
    """What is wrong with a V1 request against the table (headers keyed in lower case)."""
    endpoint, path_known = find_endpoint(method, path)
    if endpoint is None:
        return ["method not allowed by the V1 endpoint table" if path_known else "no such V1 endpoint"]
    content_type = headers.get("content-type")
    media_type = content_type.split(";")[0].strip().lower() if content_type else None
    if body and endpoint.method != "POST":
        return [f"a {endpoint.method} request takes no body"]
    params, problems = merged_parameters(query, body, media_type)
    problems += [f"required parameter {name!r} is missing" for name in endpoint.required if not params.get(name)]
    problems += [f"parameter {name!r} is not documented" for name in params if not endpoint.accepts(name)]
    if endpoint.device_info and not (headers.get("x-device-info") or params.get(DEVICE_INFO_PARAMETER)):
        problems.append("X-Device-Info (or device_info) is missing")
    if endpoint.bearer and not headers.get("authorization", "").lower().startswith("bearer "):
        problems.append("Authorization: Bearer <access token> is missing")
    return [f"[{endpoint.operation}] {p}" for p in problems]
