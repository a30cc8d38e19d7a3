"""`Control`: a client of the emulator's control API (`/_emulator/...`), standard library only.

Every call is one HTTP request with a JSON body and a JSON answer (README "Control API"); an answer
other than 200 raises `ControlError` with the emulator's message.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Iterable, Mapping

# Log entries that are no API request: the browser pages (login form, logout page, logos) and
# requests no route took (`operation` null). Control calls are never logged.
NOT_API = (None, "page")


class ControlError(RuntimeError):
    """The emulator answered a control call with an error status (400 bad payload, 404 unknown code...)."""

    def __init__(self, method: str, name: str, status: int, body: bytes) -> None:
        self.status = status
        self.body = body
        try:
            self.error: str = json.loads(body).get("error") or body.decode("utf-8", "replace")
        except (ValueError, AttributeError):
            self.error = body.decode("utf-8", "replace")
        super().__init__(f"{method} /_emulator/{name} -> {status}: {self.error}")


class Headers(dict):  # type: ignore[type-arg]
    """A request's headers as the emulator logged them, read by name without regard to case (HTTP/2
    fronts forward them in lower case)."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        super().__init__((name.lower(), value) for name, value in headers.items())

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(name.lower(), default)


class Control:
    """The control API of the emulator at `url` (e.g. "http://127.0.0.1:8080")."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self, 'url', None)!r})"

    # --- the raw call --------------------------------------------------------------------------

    def control(self, method: str, name: str, payload: Any = None) -> Any:
        """`method /_emulator/<name>` with `payload` as JSON (none: no body); the JSON answer."""
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(f"{self.url}/_emulator/{name}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise ControlError(method, name, error.code, error.read()) from None

    # --- state, settings, clock ----------------------------------------------------------------

    def reset(self, config: bool = True) -> None:
        """Forgets every client, token, session, profile, fault, log entry... and sets the clock back;
        with `config` (the default) also restores the settings the emulator started with."""
        self.control("POST", "reset", {"config": config})

    def config(self, **settings: Any) -> dict[str, Any]:
        """Merges `settings` (keys of README "Defaults") into the settings; returns them all."""
        return self.control("POST", "config", settings)

    def get_config(self) -> dict[str, Any]:
        return self.control("GET", "config")

    def state(self) -> dict[str, Any]:
        """Counts of clients, tokens, sessions, profiles..., the clock offset and the config."""
        return self.control("GET", "state")

    def advance_clock(self, ms: float) -> dict[str, Any]:
        """Virtual time: the emulator's now moves `ms` forward (what expires in that time, expires).
        A client sees it in the `Date` of the next answer it gets."""
        return self.control("POST", "clock", {"advance_ms": int(ms)})

    def clock(self) -> dict[str, Any]:
        """`{"offset_ms", "now_ms"}`."""
        return self.control("GET", "clock")

    # --- the viewer ----------------------------------------------------------------------------

    def login(self, code: str, **extra: str) -> dict[str, Any]:
        """Completes the second-screen login of registration code `code`, as the MVPD's login form
        would; `extra`: `mvpd` (else the session's), `userID`. Returns `{"mvpd", "profile"}`."""
        return self.control("POST", "login", {"code": code, **extra})

    # --- the request log -----------------------------------------------------------------------

    def raw_log(self, since: int = 0) -> list[dict[str, Any]]:
        """Every logged request with `seq > since`: API requests, pages and unknown paths (README
        "Request log format")."""
        return self.control("GET", f"log?since={int(since)}")["requests"]

    def log(self) -> list[dict[str, Any]]:
        """API requests the emulator answered (pages and unknown paths left out; control calls are
        never logged). `headers` are read without regard to case."""
        entries = [e for e in self.raw_log() if e.get("operation") not in NOT_API]
        for entry in entries:
            entry["headers"] = Headers(entry.get("headers") or {})
        return entries

    def clear_log(self) -> None:
        self.control("POST", "log/clear")

    def operations(self) -> list[str]:
        """The operation of each API request of the log, in order (OpenAPI operationIds; V1 names)."""
        return [e["operation"] for e in self.log()]

    # --- faults --------------------------------------------------------------------------------

    def faults(self, *faults: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Replaces the fault list (none: clears it); returns it with its counters (README "Fault
        injection"), e.g. `faults({"operation": "getLogoutForMvpdUsingGET", "kind": "status", "status": 503})`."""
        return self.control("POST", "faults", {"faults": list(faults)})["faults"]

    def get_faults(self) -> list[dict[str, Any]]:
        return self.control("GET", "faults")["faults"]

    def fault_counts(self) -> list[tuple[int, int]]:
        """[(matched, applied)] of each configured fault."""
        return [(f["matched"], f["applied"]) for f in self.get_faults()]

    # --- tokens, clients, profiles, TempPass ---------------------------------------------------

    def expire_access_tokens(self) -> dict[str, Any]:
        """Every access token issued so far is refused (401) from now on."""
        return self.control("POST", "expire-access-tokens")

    def invalidate_client(self, client_id: str) -> dict[str, Any]:
        """The client's token requests get `invalid_client`, its access tokens 401."""
        return self.control("POST", "invalidate-client", {"client_id": client_id})

    def expire_profiles(self, type: str | None = None) -> dict[str, Any]:  # noqa: A002 - the API's name
        """Every profile (or those of `type`: "regular", "appleSSO", "platformSSO", ...) expires now."""
        return self.control("POST", "expire-profiles", {} if type is None else {"type": type})

    def temppass_reset(self, mvpd: str | None = None, device: str | None = None,
                       identity: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Adobe's Reset TempPass for the matching TempPass uses (all, or an MVPD's, a device's or an
        identity's): the next request starts a new one."""
        return self.control("POST", "temppass/reset", _present(mvpd=mvpd, device=device, identity=identity))

    def temppass_expire(self, mvpd: str | None = None, device: str | None = None,
                        identity: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Ends the matching TempPass uses now."""
        return self.control("POST", "temppass/expire", _present(mvpd=mvpd, device=device, identity=identity))

    # --- partner (Apple) SSO and token SSO -----------------------------------------------------

    def partner_refuse_next(self, code: str | None, count: int = 1, details: str | None = None) -> dict[str, Any]:
        """The next `count` partner profile requests (profiles/sso, V1's token exchange) are refused
        with `code` (e.g. "invalid_parameter_saml_response"); `None` clears."""
        return self.control("POST", "partner/refuse-next", _present(code=code, count=count, details=details,
                                                                    keep=("code",)))

    def partner_refusal(self) -> dict[str, Any]:
        """`{"code", "remaining", "details"}` of the partner refusal set."""
        return self.control("GET", "partner/refuse-next")

    def sso_refuse_next(self, header: str | None, count: int = 1, code: str | None = None,
                        details: str | None = None) -> dict[str, Any]:
        """The next `count` SSO tokens of `header` ("AD-Service-Token", "Adobe-Subject-Token",
        "X-Roku-Reserved-Roku-Connect-Token") are refused: served without SSO, or answered 400 with
        `code`. `None` clears."""
        return self.control("POST", "sso/refuse-next", _present(header=header, count=count, code=code,
                                                                details=details, keep=("header",)))

    def sso_refusal(self) -> dict[str, Any]:
        return self.control("GET", "sso/refuse-next")

    def sso_profiles(self) -> list[dict[str, Any]]:
        """The subjects' SSO profiles (platformSSO, serviceTokenSSO), valid and expired."""
        return self.control("GET", "sso/profiles")["profiles"]

    def sso_verify(self, header: str, value: str) -> dict[str, Any]:
        """What the emulator makes of an SSO token now: `{"valid": true, "type", "iss", "sub"}` or
        `{"valid": false, "problem"}`."""
        return self.control("POST", "sso/verify", {"header": header, "value": value})


def _present(keep: Iterable[str] = (), **fields: Any) -> dict[str, Any]:
    """The fields that are not None (and those of `keep`, even None)."""
    kept = set(keep)
    return {name: value for name, value in fields.items() if value is not None or name in kept}
