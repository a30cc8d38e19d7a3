"""The route table: method + path template -> handler, with the OpenAPI operationId it serves."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from . import configuration, control, dcr, decisions, logout, pages, partner, profiles, sessions
from .paths import template_regex
from .requestlog import RequestLog
from .state import State
from .throttle import THROTTLED_PREFIXES
from .v1.routes import V1_ROUTES
from .web import Request, Response

Handler = Callable[[State, Request], Response]

PAGE = "page"  # `operation` of the browser-facing pages in the request log


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # e.g. "/api/v2/{serviceProvider}/sessions/{code}"
    handler: Handler
    operation: str | None  # OpenAPI operationId, V1 operation name, PAGE, or None for control calls
    # REST API V1: the path may end in `.json` / `.xml` to choose the answer's format
    # (path parameter `_format`).
    format_suffix: bool = False
    regex: re.Pattern[str] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", template_regex(self.template, self.format_suffix))

    @property
    def is_control(self) -> bool:
        return self.operation is None

    @property
    def is_api(self) -> bool:
        return self.template.startswith(THROTTLED_PREFIXES)


def build_routes(log: RequestLog) -> list[Route]:
    """Most specific templates first: the first matching template of a path wins."""
    ctl = control.Control(log)
    v2 = "/api/v2/{serviceProvider}"
    routes = [
        Route("POST", "/o/client/register", dcr.register, "processSoftwareStatementUsingPOST"),
        Route("POST", "/o/client/token", dcr.token, "generateAccessTokenUsingPOST"),
        Route("GET", "/api/v2/authenticate/{serviceProvider}/{code}", sessions.start_authentication,
              "startAuthenticationUsingGET"),
        Route("GET", f"{v2}/configuration", configuration.get_configuration, "handleRequestUsingGET"),
        Route("POST", f"{v2}/sessions", sessions.create_session, "createSessionUsingPOST"),
        Route("POST", f"{v2}/sessions/sso/{{partner}}", partner.retrieve_authentication_request,
              "retrieveVerificationTokenUsingPOST"),
        Route("POST", f"{v2}/sessions/{{code}}", sessions.resume_session, "resumeSessionUsingPOST"),
        Route("GET", f"{v2}/sessions/{{code}}", sessions.get_session, "getSessionStatusUsingGET_1"),
        Route("GET", f"{v2}/profiles", profiles.get_profiles, "getProfilesUsingGET_1"),
        Route("POST", f"{v2}/profiles/sso/{{partner}}", partner.create_partner_profile,
              "createPartnerProfileUsingPOST"),
        Route("GET", f"{v2}/profiles/code/{{code}}", profiles.get_profile_for_code,
              "getProfileForCodeUsingGET_1"),
        Route("GET", f"{v2}/profiles/{{mvpd}}", profiles.get_profile_for_mvpd, "getProfileForMvpdUsingGET"),
        Route("POST", f"{v2}/decisions/preauthorize/{{mvpd}}", decisions.preauthorize,
              "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1"),
        Route("POST", f"{v2}/decisions/authorize/{{mvpd}}", decisions.authorize,
              "retrieveAuthorizeDecisionsForMvpdUsingPOST"),
        Route("GET", f"{v2}/logout/{{mvpd}}", logout.logout, "getLogoutForMvpdUsingGET"),
        *(Route(method, template, handler, operation, format_suffix=True)
          for method, template, handler, operation in V1_ROUTES),
        Route("GET", "/_emulator/mvpd/login", pages.login_page, PAGE),
        Route("POST", "/_emulator/mvpd/login", pages.login_submit, PAGE),
        Route("GET", "/_emulator/logos/{file}", pages.logo, PAGE),
        Route("GET", "/adobe-services/logout", pages.mvpd_logout_page, PAGE),
        Route("GET", "/_emulator/log", ctl.get_log, None),
        Route("POST", "/_emulator/log/clear", ctl.clear_log, None),
        Route("POST", "/_emulator/reset", ctl.reset, None),
        Route("GET", "/_emulator/config", control.get_config, None),
        Route("POST", "/_emulator/config", control.set_config, None),
        Route("POST", "/_emulator/login", control.login, None),
        Route("POST", "/_emulator/expire-access-tokens", control.expire_access_tokens, None),
        Route("POST", "/_emulator/invalidate-client", control.invalidate_client, None),
        Route("POST", "/_emulator/expire-profiles", control.expire_profiles, None),
        Route("POST", "/_emulator/temppass/reset", control.reset_temppass, None),
        Route("POST", "/_emulator/temppass/expire", control.expire_temppass, None),
        Route("GET", "/_emulator/state", control.get_state, None),
        Route("GET", "/_emulator/clock", control.get_clock, None),
        Route("POST", "/_emulator/clock", control.advance_clock, None),
        Route("GET", "/_emulator/partner/refuse-next", control.get_partner_refusal, None),
        Route("POST", "/_emulator/partner/refuse-next", control.set_partner_refusal, None),
        Route("GET", "/_emulator/sso/refuse-next", control.get_sso_refusal, None),
        Route("POST", "/_emulator/sso/refuse-next", control.set_sso_refusal, None),
        Route("GET", "/_emulator/sso/profiles", control.get_sso_profiles, None),
        Route("POST", "/_emulator/sso/verify", control.verify_sso_token, None),
        Route("GET", "/_emulator/faults", control.get_faults, None),
        Route("POST", "/_emulator/faults", ctl.set_faults, None),
    ]
    ctl.operations = {route.operation for route in routes if route.is_api and route.operation}
    return routes


@dataclass(frozen=True)
class Match:
    route: Route | None  # the route to run, None when nothing serves this method + path
    allowed: tuple[str, ...] = ()  # methods the path supports, when the method is wrong


def resolve(routes: list[Route], method: str, path: str) -> tuple[Match, dict[str, str]]:
    """The route for method + path, and its path parameters."""
    allowed: list[str] = []
    for route in routes:
        found = route.regex.match(path)
        if not found:
            continue
        if route.method == method:
            return Match(route), found.groupdict()
        allowed.append(route.method)
    return Match(None, tuple(dict.fromkeys(allowed))), {}
