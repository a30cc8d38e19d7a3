"""Everything the emulator remembers: clients, access tokens, sessions, profiles, TempPass uses.

All access happens under `State.lock` (the pipeline holds it around every handler).
"""

from __future__ import annotations

import copy
import secrets
import string
import threading
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .clock import CLOCK
from .faults import FaultSet
from .throttle import TokenBuckets

SESSION_PARAMETERS = ("mvpd", "domainName", "redirectUrl")
CODE_ALPHABET = string.ascii_uppercase + string.digits
CODE_LENGTH = 7
# The `client_id` of the profiles that hold REST API V1 authN tokens. V1 keeps tokens per
# (requestor, deviceId), whichever client asks (rest-api-v1.md §7 "Storage"); DCR client ids
# never contain ':', so these keys cannot collide with V2 profiles.
V1_CLIENT = "v1:"


def now_ms() -> int:
    """The emulator's now: real time plus the offset of `POST /_emulator/clock` (clock.py)."""
    return CLOCK.now_ms()


@dataclass
class Client:
    client_id: str
    client_secret: str
    software_statement: str
    redirect_uris: list[str]
    issued_at_s: int
    invalidated: bool = False


@dataclass
class AccessToken:
    value: str
    token_id: str
    client_id: str
    created_ms: int
    expires_ms: int
    revoked: bool = False


class ProfileKey(NamedTuple):
    client_id: str
    device_id: str
    service_provider: str
    mvpd: str


@dataclass
class Profile:
    key: ProfileKey
    issuer: str
    type: str
    not_before: int
    not_after: int
    attributes: dict[str, Any]

    def valid(self, now: int) -> bool:
        return self.not_before <= now < self.not_after

    def to_json(self) -> dict[str, Any]:
        return {
            "notBefore": self.not_before,
            "notAfter": self.not_after,
            "issuer": self.issuer,
            "type": self.type,
            "attributes": self.attributes,
        }


@dataclass(frozen=True)
class Subject:
    """Who a valid SSO token names: the platform identity (Adobe-Subject-Token,
    X-Roku-Reserved-Roku-Connect-Token, V1's `ast`) or the service token's user (AD-Service-Token)."""

    type: str  # the profile type it yields: "platformSSO" or "serviceTokenSSO"
    issuer: str  # the token's `iss`
    sub: str  # the token's `sub`
    token: str  # the header that carried it (canonical name), e.g. "AD-Service-Token"


class SsoKey(NamedTuple):
    type: str  # "platformSSO" or "serviceTokenSSO"
    issuer: str  # the token's `iss`
    sub: str  # the token's `sub`
    mvpd: str


@dataclass
class SsoProfile:
    """The profile a subject shares with every app and device that sends a valid token for it:
    made when a login completes on a session whose create call carried the token; shared across
    service providers (answered where the requestor has an integration with the MVPD); its lifetime
    is the first login's (Roku: "the second application will share the TTL of the first")."""

    key: SsoKey
    not_before: int
    not_after: int
    attributes: dict[str, Any]
    # The regular profiles (V2) and V1 authN tokens made by the logins that carried the subject:
    # single logout removes them too (the applications that were part of the SSO).
    origins: list[ProfileKey] = field(default_factory=list)

    def valid(self, now: int) -> bool:
        return self.not_before <= now < self.not_after

    def view(self, key: ProfileKey) -> Profile:
        """The profile as the caller (`key`: its client, device, service provider, MVPD) sees it."""
        return Profile(key, self.key.mvpd, self.key.type, self.not_before, self.not_after, self.attributes)


@dataclass
class Session:
    code: str
    session_id: str
    service_provider: str
    client_id: str
    device_id: str
    device_info: dict[str, Any]
    user_agent: str | None
    params: dict[str, str]
    not_before: int
    not_after: int
    auto_login_at: int | None = None
    profile_key: ProfileKey | None = None  # set once the login through this code completes
    v1: bool = False  # a REST API V1 registration code (its login creates a V1 authN token)
    # The valid SSO tokens' subjects of the create call (V2 sessions, V1 regcode): the login through
    # this code also makes an SSO profile for each.
    sso_subjects: tuple[Subject, ...] = ()

    def expired(self, now: int) -> bool:
        return now >= self.not_after

    def missing_parameters(self) -> list[str]:
        return [p for p in SESSION_PARAMETERS if not self.params.get(p)]

    def key_for(self, mvpd: str) -> ProfileKey:
        client_id = V1_CLIENT if self.v1 else self.client_id
        return ProfileKey(client_id, self.device_id, self.service_provider, mvpd)


@dataclass
class PartnerRequest:
    """A SAML request handed out by /sessions/sso/{partner}, waiting for its SAMLResponse."""

    request_id: str
    client_id: str
    device_id: str
    service_provider: str
    mvpd: str
    provider_id: str  # the MVPD's platformMappingId, as the platform knows it
    attribute_names: list[str]
    expires_ms: int

    def expired(self, now: int) -> bool:
        return now >= self.expires_ms


class TempPassKey(NamedTuple):
    service_provider: str  # V1: the requestor
    mvpd: str
    # "device:<AP-Device-Identifier>" (V2 basic), "device:<deviceId>" (V1 basic) or
    # "identity:<SHA-256 of the identity>" (promotional)
    subject: str


@dataclass
class TempPassUse:
    """One device's (or one viewer identity's) TempPass: its own clock, started by its first request."""

    key: TempPassKey
    started_ms: int
    expires_ms: int
    resources_limit: int | None  # promotional TempPass only
    used_assets: list[str] = field(default_factory=list)

    def remaining_resources(self) -> int | None:
        if self.resources_limit is None:
            return None
        return max(0, self.resources_limit - len(self.used_assets))


class AuthzKey(NamedTuple):
    requestor: str
    device_id: str
    resource: str


@dataclass
class AuthzToken:
    """A REST API V1 authZ token: the cached decision of /api/v1/authorize for one resource."""

    key: AuthzKey
    mvpd: str
    expires_ms: int

    def valid(self, now: int) -> bool:
        return now < self.expires_ms


# The codes Adobe documents for a refused partner profile (profiles/sso, rest-api-v2.md §4.15).
PARTNER_PROFILE_CODES = (
    "invalid_parameter_saml_response",
    "invalid_header_pfs_permission_access_not_present",
    "invalid_header_pfs_permission_access_not_determined",
    "invalid_header_pfs_permission_access_not_granted",
    "invalid_header_pfs_provider_id_not_determined",
    "invalid_header_pfs_provider_id_mismatch",
    "invalid_header_pfs_provider_info_expired",
)


@dataclass
class PartnerRefusal:
    """`POST /_emulator/partner/refuse-next`: refuse the next `remaining` partner profile requests
    (V2 profiles/sso, V1 token exchange) with `code`, whatever their PFS and SAMLResponse."""

    code: str | None = None
    remaining: int = 0
    details: str | None = None

    def take(self) -> tuple[str, str] | None:
        """(code, details) when this request is to be refused (counts it), else None."""
        if self.code is None or self.remaining <= 0:
            return None
        code, details = self.code, self.details or "refused by the test (/_emulator/partner/refuse-next)"
        self.remaining -= 1
        if self.remaining == 0:
            self.code, self.details = None, None
        return code, details

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "remaining": self.remaining, "details": self.details}


# The emulator-only codes of `POST /_emulator/sso/refuse-next` and of `sso_invalid_token: "refuse"`
# (Adobe's code list has none for these headers): the token header -> its code.
SSO_TOKEN_CODES = {
    "AD-Service-Token": "invalid_header_service_token",
    "Adobe-Subject-Token": "invalid_header_subject_token",
    "X-Roku-Reserved-Roku-Connect-Token": "invalid_header_subject_token",
}


@dataclass
class SsoRefusal:
    """`POST /_emulator/sso/refuse-next`: the next `remaining` requests that carry the `header` token
    (V1: also `ast` for Adobe-Subject-Token), where the operation reads it, have it refused whatever
    its content: served without SSO (`code` None), or answered 400 with `code`."""

    header: str | None = None
    remaining: int = 0
    code: str | None = None
    details: str | None = None

    def take(self, header: str) -> tuple[str | None, str] | None:
        """(code or None, details) when this token is to be refused (counts it), else None."""
        if self.header != header or self.remaining <= 0:
            return None
        refusal = (self.code, self.details or "refused by the test (/_emulator/sso/refuse-next)")
        self.remaining -= 1
        if self.remaining == 0:
            self.header, self.code, self.details = None, None, None
        return refusal

    def to_json(self) -> dict[str, Any]:
        return {"header": self.header, "remaining": self.remaining, "code": self.code, "details": self.details}


@dataclass
class State:
    config: dict[str, Any]
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The settings the process started with (defaults, --config, flags): `POST /_emulator/reset
    # {"config": true}` goes back to them.
    initial_config: dict[str, Any] = field(default_factory=dict)
    # Counts resets: a request that was already in progress when the emulator was reset (a
    # previous test's client) is neither run nor logged in memory afterwards (app.py).
    generation: int = 0
    buckets: TokenBuckets = field(default_factory=TokenBuckets)
    clients: dict[str, Client] = field(default_factory=dict)
    tokens: dict[str, AccessToken] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    profiles: dict[ProfileKey, Profile] = field(default_factory=dict)
    partner_requests: dict[str, PartnerRequest] = field(default_factory=dict)
    temppass: dict[TempPassKey, TempPassUse] = field(default_factory=dict)
    authz_tokens: dict[AuthzKey, AuthzToken] = field(default_factory=dict)  # V1
    # V1 TempPass (aepass/v1/temppass.py): (requestor, TempPass MVPD, "device:<deviceId>" or
    # "identity:<SHA-256 of generic_data>") -> when that pass ends (ms).
    temp_passes: dict[TempPassKey, int] = field(default_factory=dict)
    faults: FaultSet = field(default_factory=FaultSet)
    partner_refusal: PartnerRefusal = field(default_factory=PartnerRefusal)
    # Platform identity and service token SSO (sso.py): the subjects' shared profiles, and the
    # refusal of `POST /_emulator/sso/refuse-next`.
    sso_profiles: dict[SsoKey, SsoProfile] = field(default_factory=dict)
    sso_refusal: SsoRefusal = field(default_factory=SsoRefusal)

    def __post_init__(self) -> None:
        if not self.initial_config:
            self.initial_config = copy.deepcopy(self.config)

    def forget_everything(self, restore_config: bool = False) -> None:
        """Back to a just-started emulator: everything a client or a test created or changed goes
        (the clock offset too); the settings stay unless `restore_config` (then: the initial ones)."""
        self.generation += 1
        if restore_config:
            self.config = copy.deepcopy(self.initial_config)
        CLOCK.reset()
        self.clients.clear()
        self.tokens.clear()
        self.sessions.clear()
        self.profiles.clear()
        self.partner_requests.clear()
        self.temppass.clear()
        self.authz_tokens.clear()
        self.temp_passes.clear()
        self.buckets.clear()
        self.faults.clear()
        self.partner_refusal = PartnerRefusal()
        self.sso_profiles.clear()
        self.sso_refusal = SsoRefusal()

    def new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.sessions:
                return code

    def live_token(self, value: str, now: int) -> AccessToken | None:
        """The access token if it is known, unexpired, unrevoked and its client is still valid."""
        token = self.tokens.get(value)
        if token is None or token.revoked or now >= token.expires_ms:
            return None
        client = self.clients.get(token.client_id)
        return token if client and not client.invalidated else None

    def valid_profile(self, key: ProfileKey, now: int) -> Profile | None:
        profile = self.profiles.get(key)
        return profile if profile and profile.valid(now) else None

    def ttl_ms(self, key: str) -> int:
        return int(self.config[key] * 1000)

    def counts(self) -> dict[str, int]:
        return {
            "clients": len(self.clients),
            "access_tokens": len(self.tokens),
            "sessions": len(self.sessions),
            "profiles": len(self.profiles),
            "partner_requests": len(self.partner_requests),
            "temppass_uses": len(self.temppass),
            "authz_tokens": len(self.authz_tokens),
            "temp_passes": len(self.temp_passes),
            "sso_profiles": len(self.sso_profiles),
        }
