"""Test support shared by the emulator's tests: starting the emulator process (`aepass.testing.
EmulatorProcess`, the class the package's pytest plugin uses too), and an HTTP client that checks
every API answer against the OpenAPI response schemas (`aepass.contract`).

The emulator lives in `Emulator/` at the top of the repository; importing this module puts that
folder on `sys.path` (for `aepass`, and the deprecated `validate_requests`, `response_contract`):
the suite runs without the package installed, and refuses to run against an installed copy (see
`aepass_from_this_repository`). The fixtures live in conftest.py. These helpers are in a module of
their own, imported by name (`from emulator_testkit import ...`), so that the suite can run in one
pytest session together with Tests/python, whose conftest.py is also imported as `conftest`.
"""

from __future__ import annotations

import base64
import http.client
import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

HERE = Path(__file__).resolve().parent  # the emulator's tests (Tests/emulator)
EMULATOR_DIR = HERE.parent.parent / "Emulator"  # the emulator itself, its checkers and OpenAPI files
EMULATOR = EMULATOR_DIR / "emulator.py"
DEPRECATED_EMULATOR = HERE / "emulator.py"  # the old path, kept as an alias that runs EMULATOR
if str(EMULATOR_DIR) not in sys.path:  # `aepass` (and the deprecated `validate_requests`, `response_contract`)
    sys.path.insert(0, str(EMULATOR_DIR))
TOOLS_DIR = HERE.parent / "tools"  # `sso_tokens`: SSO test tokens, shared with Tests/python
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))

import aepass  # noqa: E402


def aepass_from_this_repository() -> None:
    """The `aepass` imported is this repository's: an installed aepass-emulator whose pytest plugin
    pytest loaded first (through its entry point) would otherwise be the emulator under test."""
    if Path(aepass.__file__).resolve().parent != EMULATOR_DIR / "aepass":
        raise ImportError(f"aepass was imported from {aepass.__file__}, not from {EMULATOR_DIR}: an installed "
                          "aepass-emulator's pytest plugin loaded it first; run pytest with -p no:aepass")


aepass_from_this_repository()

from aepass.testing import INVALID_MARK, EmulatorProcess, answer_problems  # noqa: E402

REDIRECT_URL = "https://adobe.com/done"
ALL_SESSION_PARAMS = {"mvpd": "Cablevision", "domainName": "adobe.com", "redirectUrl": REDIRECT_URL}
SOFTWARE_STATEMENT = (
    "eyJhbGciOiJSUzI1NiJ9."
    "eyJzb2Z0d2FyZV9pZCI6IjROUkIxLTBYWkFCWkk5RTYtNVNNM1IiLCJjbGllbnRfbmFtZSI6IkV4YW1wbGUifQ."
    "c2lnbmF0dXJl"
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def device_info(**overrides: Any) -> str:
    info = {"model": "AppleTV14,1", "version": "4K", "osName": "tvOS", "osVersion": "17.2",
            "connectionType": "WiFi", "primaryHardwareType": "SetTopBox", "manufacturer": "Apple",
            "vendor": "Apple"}
    info.update(overrides)
    return b64(json.dumps({k: v for k, v in info.items() if v is not None}))


def device_headers(device: str = "tv-1") -> dict[str, str]:
    return {"AP-Device-Identifier": f"fingerprint {b64(device)}", "X-Device-Info": device_info()}


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def start_emulator(*args: str, env: dict[str, str] | None = None) -> tuple[EmulatorProcess, str]:
    """An emulator process on a free port (`--quiet --exit-with-parent` and `args`), and its URL."""
    emulator = EmulatorProcess(*args, env=env)
    return emulator, emulator.url


def stop_emulator(process: EmulatorProcess | subprocess.Popen[str]) -> int:
    """SIGTERM, and the exit status (a process started some other way too)."""
    if isinstance(process, EmulatorProcess):
        return process.stop()
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=10)


class Client:
    """A minimal HTTP client (no redirects followed) bound to one emulator."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.netloc = urlsplit(base_url).netloc

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None,
                body: bytes | str | None = None, form: dict[str, str] | None = None,
                json_body: Any = None, query: dict[str, str] | None = None,
                invalid: bool = False) -> Reply:
        headers = dict(headers or {})
        if form is not None:
            body = urlencode(form)
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        if json_body is not None:
            body = json.dumps(json_body)
            headers.setdefault("Content-Type", "application/json;charset=utf-8")
        if invalid:
            headers[INVALID_MARK] = "1"
        target = path + ("?" + urlencode(query) if query else "")
        connection = http.client.HTTPConnection(self.netloc, timeout=10)
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()
        bare_path = path.split("?")[0]
        if bare_path.startswith(("/api/", "/o/")):
            problems = answer_problems(method, bare_path, reply.status, reply.headers, reply.body)
            assert not problems, f"{method} {path} -> {reply.status}: {problems}\n{reply.body[:500]!r}"
        return reply

    def control(self, method: str, name: str, payload: Any = None) -> Any:
        reply = self.request(method, f"/_emulator/{name}", json_body=payload)
        assert reply.status == 200, (name, reply.status, reply.body)
        return reply.json

    def log(self, since: int = 0) -> list[dict[str, Any]]:
        return self.request("GET", "/_emulator/log", query={"since": str(since)}).json["requests"]


class Api(Client):
    """Client plus the V2 calls the tests repeat."""

    def register(self, **body: Any) -> Reply:
        payload = {"software_statement": SOFTWARE_STATEMENT, "redirect_uri": "adobepass://tests", **body}
        return self.request("POST", "/o/client/register", json_body=payload,
                            headers={"X-Device-Info": device_info(), "Accept": "application/json"})

    def token(self, client_id: str, client_secret: str, grant_type: str = "client_credentials") -> Reply:
        return self.request("POST", "/o/client/token", form={
            "client_id": client_id, "client_secret": client_secret, "grant_type": grant_type})

    def new_access_token(self) -> str:
        client = self.register().json
        return self.token(client["client_id"], client["client_secret"]).json["access_token"]

    def v2(self, method: str, path: str, token: str, device: str | None = "tv-1",
           headers: dict[str, str] | None = None, **kwargs: Any) -> Reply:
        all_headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if device is not None:
            all_headers.update(device_headers(device))
        all_headers.update(headers or {})
        return self.request(method, f"/api/v2/REF30{path}", headers=all_headers, **kwargs)

    def create_session(self, token: str, device: str = "tv-1", **params: str) -> Reply:
        return self.v2("POST", "/sessions", token, device, form=params)

    def login(self, code: str, **extra: str) -> Any:
        return self.control("POST", "login", {"code": code, **extra})
