"""Platform identity and service token single sign-on (rest-api-v2.md §5, §8.6; rest-api-v1.md §2.4, §6.4).

* **Platform identity**: `Adobe-Subject-Token` (Amazon Fire OS, Vega OS) or
  `X-Roku-Reserved-Roku-Connect-Token` (Roku), a JWS (RS256 or ES256, keys `platform_token_keys`)
  or a JWE (read as structure only, see `jws.py`); profile type `platformSSO`. V1 also takes the
  token as the `ast` query or form parameter.
* **Service token**: `AD-Service-Token`, a JWS signed RS256 by the programmer's identity service
  (keys `service_token_keys`), with `aud` Adobe; profile type `serviceTokenSSO`.

A valid token names a subject (type, `iss`, `sub`). When a login completes on a session whose
create call (V2 sessions, V1 regcode) carried one, an SSO profile is stored for (type, iss, sub,
MVPD) besides the device's regular profile, with the regular profile's lifetime. Every app and
device that then sends a valid token for the subject finds it: GET profiles, profiles/{mvpd},
sessions create (`authorize`/`authenticatedSSO`) and the decisions (V2); checkauthn, tokens/authn,
authorize, tokens/authz, tokens/media, preauthorize, usermetadata (V1). The device's own profile
comes first; then the platform identity's, then the service token's. SSO profiles are shared across
service providers (the keys are the emulator's, not a requestor's): a requestor sees those of the
MVPDs it has an integration with.

Logout with a valid token (single logout) removes the device's profile, the subject's SSO profile
for the MVPD (V1: for every MVPD of the requestor) and the profiles of the logins that made it.

A token that fails verification is ignored (the request is served without SSO, as Adobe documents
for the platform identity, V1 and V2 alike), or, with `sso_invalid_token: "refuse"` (V2 only),
answered 400 with the emulator-only `invalid_header_service_token` / `invalid_header_subject_token`.
`POST /_emulator/sso/refuse-next` refuses the next tokens whatever their content.

The request log never holds a token: `log_fields` records which token a request carried (with the
first 12 hex digits of its SHA-256), and `redacted_*` replace the values in the logged headers,
query and body.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Iterable

from . import jws
from .catalog import REQUESTORS, Requestor
from .clock import CLOCK
from .errors import ApiError
from .state import (
    SSO_TOKEN_CODES, V1_CLIENT, Profile, ProfileKey, Session, SsoKey, SsoProfile, State, Subject,
)
from .web import Request, form_fields

SERVICE_TOKEN = "AD-Service-Token"
SUBJECT_TOKEN = "Adobe-Subject-Token"
ROKU_TOKEN = "X-Roku-Reserved-Roku-Connect-Token"
TOKEN_HEADERS = (SUBJECT_TOKEN, ROKU_TOKEN, SERVICE_TOKEN)
PLATFORM_SSO, SERVICE_TOKEN_SSO = "platformSSO", "serviceTokenSSO"
SSO_TYPES = (PLATFORM_SSO, SERVICE_TOKEN_SSO)
TYPE_OF = {SUBJECT_TOKEN: PLATFORM_SSO, ROKU_TOKEN: PLATFORM_SSO, SERVICE_TOKEN: SERVICE_TOKEN_SSO}
# V2 reads every header; V1 documents the platform identity only (header or `ast`).
V2_TOKENS = TOKEN_HEADERS
V1_TOKENS = (SUBJECT_TOKEN, ROKU_TOKEN)
AST = "ast"
V1_PREFIXES = ("/api/v1/", "/reggie/v1/")
DCR_PREFIX = "/o/"
FORM_TYPE = "application/x-www-form-urlencoded"
_DISABLED_KEY = {PLATFORM_SSO: "platform_sso_disabled", SERVICE_TOKEN_SSO: "service_token_sso_disabled"}
_AST_IN_FORM = re.compile(r"(^|&)(ast=)([^&]*)")


def sha256_prefix(value: str) -> str:
    """What the log records of a token: the first 12 hex digits of the SHA-256 of its text."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:12]


def redaction(value: str) -> str:
    return f"redacted:sha256:{sha256_prefix(value)}"


@dataclass(frozen=True)
class Carried:
    """An SSO token a request carries: which one, where, and its text."""

    token: str  # the canonical header name (V1's `ast` is the Adobe-Subject-Token)
    where: str  # "header", "query" or "form" (the last two: V1's `ast`)
    value: str

    @property
    def slot(self) -> str:
        return f"{self.token}/{self.where}"


def carried(req: Request) -> list[Carried]:
    """The SSO tokens of a request: the three headers (non-empty), and on V1 paths `ast`."""
    found = [Carried(name, "header", value.strip()) for name in TOKEN_HEADERS
             if (value := req.header(name)) is not None and value.strip()]
    if req.path.startswith(V1_PREFIXES):
        found += [Carried(SUBJECT_TOKEN, "query", v) for v in form_fields(req.query).get(AST, []) if v]
        if req.body and req.media_type() == FORM_TYPE:
            found += [Carried(SUBJECT_TOKEN, "form", v) for v in form_fields(req.text()).get(AST, []) if v]
    return found


# --- judging the tokens of a request ------------------------------------------------------------

def _keys(state: State, token: str) -> dict[str, str]:
    return state.config["service_token_keys" if token == SERVICE_TOKEN else "platform_token_keys"]


def verify(state: State, token: str, value: str, now_ms: int | None = None) -> dict[str, Any]:
    """The claims of a valid token of header `token`, else jws.TokenRefused."""
    now_s = (CLOCK.now_ms() if now_ms is None else now_ms) / 1000
    if token == SERVICE_TOKEN:
        return jws.verify(value, _keys(state, token), jws.SERVICE_TOKEN_ALGORITHMS, now_s)
    return jws.verify(value, _keys(state, token), jws.PLATFORM_TOKEN_ALGORITHMS, now_s, allow_jwe=True)


def judge(state: State, req: Request, now: int, v1: bool = False) -> tuple[Subject, ...]:
    """The subjects of the request's valid SSO tokens (platform identity first), recording each
    verdict for the request log. A refusal with a code (refuse-next, or `sso_invalid_token:
    "refuse"` on V2) raises ApiError; otherwise an invalid token is ignored."""
    subjects: list[Subject] = []
    for item in carried(req):
        if item.token not in (V1_TOKENS if v1 else V2_TOKENS):
            continue
        verdict = req.sso_results.setdefault(item.slot, {})
        refusal = state.sso_refusal.take(item.token)
        if refusal is not None:
            code, details = refusal
            verdict.update(valid=False, problem=f"refused by /_emulator/sso/refuse-next: {details}")
            if code is not None:
                verdict["code"] = code
                raise ApiError(code, f"{item.token}: {details}")
            continue
        try:
            claims = verify(state, item.token, item.value, now)
        except jws.TokenRefused as problem:
            verdict.update(valid=False, problem=str(problem))
            if not v1 and state.config["sso_invalid_token"] == "refuse":
                verdict["code"] = SSO_TOKEN_CODES[item.token]
                raise ApiError(SSO_TOKEN_CODES[item.token], f"{item.token}: {problem}") from None
            continue
        subject = Subject(TYPE_OF[item.token], claims["iss"], claims["sub"], item.token)
        verdict.update(valid=True, type=subject.type)
        if all((s.type, s.issuer, s.sub) != (subject.type, subject.issuer, subject.sub) for s in subjects):
            subjects.append(subject)
    subjects.sort(key=lambda s: SSO_TYPES.index(s.type))
    return tuple(subjects)


# --- SSO profiles ---------------------------------------------------------------------------------

def enabled(state: State, sso_type: str, mvpd_id: str) -> bool:
    """SSO of this type is on for the MVPD's integrations (`platform_sso_disabled`, ...)."""
    return mvpd_id not in state.config[_DISABLED_KEY[sso_type]]


def _sso_key(subject: Subject, mvpd_id: str) -> SsoKey:
    return SsoKey(subject.type, subject.issuer, subject.sub, mvpd_id)


def lookup(state: State, key: ProfileKey, subjects: Iterable[Subject], now: int,
           include_expired: bool = False) -> Profile | None:
    """The subjects' SSO profile for `key.mvpd`, as the caller (`key`) sees it: a valid one, else
    (`include_expired`) an expired one, else None. The MVPD must be the caller's requestor's."""
    stale: Profile | None = None
    for subject in subjects:
        if not enabled(state, subject.type, key.mvpd):
            continue
        found = state.sso_profiles.get(_sso_key(subject, key.mvpd))
        if found is None:
            continue
        if found.valid(now):
            return found.view(key)
        stale = stale or found.view(key)
    return stale if include_expired else None


def listed(state: State, requestor: Requestor, subjects: Iterable[Subject], now: int,
           client_id: str, device_id: str) -> list[Profile]:
    """GET profiles: the subjects' valid SSO profiles for the requestor's (non-TempPass) MVPDs."""
    found: dict[str, Profile] = {}
    for subject in subjects:
        for mvpd in requestor.login_mvpds:
            if mvpd.id in found:
                continue
            profile = lookup(state, ProfileKey(client_id, device_id, requestor.id, mvpd.id), (subject,), now)
            if profile:
                found[mvpd.id] = profile
    return list(found.values())


def v1_view(state: State, requestor: Requestor, device_id: str, subjects: Iterable[Subject],
            now: int) -> Profile | None:
    """V1 (which names no MVPD): the subjects' SSO profile for one of the requestor's MVPDs, as the
    device's authN token — a valid one (the latest), else an expired one, else None."""
    views = [view for mvpd in requestor.login_mvpds
             if (view := lookup(state, ProfileKey(V1_CLIENT, device_id, requestor.id, mvpd.id), subjects, now,
                                include_expired=True))]
    valid = [view for view in views if view.valid(now)]
    return max(valid or views, key=lambda view: view.not_before, default=None)


def sso_attributes(profile: Profile) -> dict[str, Any]:
    """The login's attributes plus `upstreamUserID` and `mvpd`, as Adobe's platformSSO and
    serviceTokenSSO samples show (rest-api-v2.md §4.8)."""
    user_id = profile.attributes["userID"]["value"]
    return {"upstreamUserID": {"value": user_id, "state": "plain"}, **profile.attributes,
            "mvpd": {"value": profile.key.mvpd, "state": "plain"}}


def remember_login(state: State, session: Session, profile: Profile) -> None:
    """A login completed on `session`: an SSO profile for each subject its create call carried. A
    valid SSO profile of the subject for the MVPD is kept (the first login's TTL is shared); the
    new login joins its origins."""
    mvpd_id = profile.key.mvpd
    for subject in session.sso_subjects:
        if not enabled(state, subject.type, mvpd_id):
            continue
        key = _sso_key(subject, mvpd_id)
        existing = state.sso_profiles.get(key)
        if existing is not None and existing.valid(profile.not_before):
            if profile.key not in existing.origins:
                existing.origins.append(profile.key)
            continue
        state.sso_profiles[key] = SsoProfile(key, profile.not_before, profile.not_after,
                                             sso_attributes(profile), [profile.key])


def single_logout(state: State, subjects: Iterable[Subject], mvpd_ids: Iterable[str]) -> list[SsoProfile]:
    """Logout with valid SSO tokens: the subjects' SSO profiles for these MVPDs go, and with them the
    regular profiles (V1: authN and authZ tokens) of the logins that made them. Returns the SSO
    profiles removed (valid or not)."""
    removed: list[SsoProfile] = []
    mvpd_ids = tuple(mvpd_ids)
    for subject in subjects:
        for mvpd_id in mvpd_ids:
            profile = state.sso_profiles.pop(_sso_key(subject, mvpd_id), None)
            if profile is None:
                continue
            removed.append(profile)
            for origin in profile.origins:
                state.profiles.pop(origin, None)
                if origin.client_id == V1_CLIENT:
                    for key in [k for k in state.authz_tokens
                                if (k.requestor, k.device_id) == (origin.service_provider, origin.device_id)]:
                        del state.authz_tokens[key]
    return removed


def to_json(profile: SsoProfile) -> dict[str, Any]:
    """`GET /_emulator/sso/profiles`: one SSO profile (no token text: the subject's iss and sub)."""
    return {"type": profile.key.type, "iss": profile.key.issuer, "sub": profile.key.sub,
            "mvpd": profile.key.mvpd, "notBefore": profile.not_before, "notAfter": profile.not_after,
            "requestors": sorted(r.id for r in REQUESTORS.values() if r.login_mvpd(profile.key.mvpd)),
            "origins": len(profile.origins)}


# --- the request log --------------------------------------------------------------------------------

def log_fields(req: Request) -> dict[str, Any]:
    """`sso`: one entry per token carried — `{"header", "in", "sha256", "valid"}` (`valid` true/false,
    or null when the operation does not read it), plus `type` (valid), `problem` and `code` (refused)
    — and `unexpected_sso_header: true` on the DCR operations."""
    items = carried(req)
    if not items:
        return {}
    entries = []
    for item in items:
        verdict = req.sso_results.get(item.slot, {})
        entries.append({"header": item.token, "in": item.where, "sha256": sha256_prefix(item.value),
                        "valid": verdict.get("valid"),
                        **{k: verdict[k] for k in ("type", "problem", "code") if k in verdict}})
    fields: dict[str, Any] = {"sso": entries}
    if req.path.startswith(DCR_PREFIX) and any(i.where == "header" for i in items):
        fields["unexpected_sso_header"] = True
    return fields


def redacted_headers(headers: dict[str, str]) -> dict[str, str]:
    """The logged headers with each SSO token replaced by `redacted:sha256:<12 hex>`."""
    names = {n.lower() for n in TOKEN_HEADERS}
    return {k: (redaction(v.strip()) if k.lower() in names and v.strip() else v) for k, v in headers.items()}


def redacted_form(text: str) -> str:
    """A query string or form body with the value of every `ast` parameter replaced."""
    if "ast=" not in text:
        return text

    def replace(found: re.Match[str]) -> str:
        values = form_fields(found.group(2) + found.group(3)).get(AST, [""])
        return found.group(1) + found.group(2) + (redaction(values[0]) if values[0] else "")
    return _AST_IN_FORM.sub(replace, text)
