"""Malformed requests never crash or hang the emulator.

A fuzz-style test over raw sockets: bad JSON, wrong Content-Type, huge bodies, Content-Length
lies, invalid UTF-8 and NUL bytes in every part of a request, unknown paths, wrong methods,
overlong and too many headers, HTTP/0.9 request lines, garbage, truncated requests, malformed
chunked bodies, and ~200 requests mutated from valid ones by a seeded random mutator.

For every case the emulator must answer with a well-formed HTTP response or close the connection
within a timeout; afterwards a good request still succeeds and the process is alive. A 4xx JSON
answer on an Adobe path (`/api/v2`, `/o/`) must be an Adobe-shaped error body (REST API V2: an
Enhanced Error Code object whose `status` equals the HTTP status, with `action`, `message` and a
`code` from Adobe's list, rest-api-v2.md §7.1, §7.2 — `code` may be absent on 400/404/405 answers
for which Adobe's list has none, see `adobe_error_problems`; DCR: OAuth-style
`{"error": "<documented code>"}`, §4.1, §4.2, §7.3). A 5xx other than 501/505 (unsupported
method/version, the HTTP layer's own answers) means the emulator hit a bug, and its stderr must
never show a Python traceback. Framing errors the HTTP layer answers itself (400, 408, 413, 414,
431, 501, 505: HTML pages, as a front end sends) are not Adobe error bodies and are not checked as
such.

This file starts its own emulator process (`aepass.testing.EmulatorProcess`; no conftest fixtures).
"""

from __future__ import annotations

import base64
import json
import random
import re
import socket
import time
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

import pytest

from aepass.testing import EmulatorProcess

SP = "REF30"
MVPD = "Cablevision"
# Any string shaped like a compact JWT (Emulator/README.md).
SOFTWARE_STATEMENT = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6Im1hbGZvcm1lZCJ9.c2lnbmF0dXJl"
DEVICE_INFO = base64.b64encode(json.dumps({
    "primaryHardwareType": "SetTopBox", "model": "FuzzBox", "version": "1", "osName": "Linux",
    "osFamily": "Linux", "osVersion": "6", "connectionType": "LAN"}).encode()).decode()
DEVICE_ID = "fingerprint " + base64.b64encode(b"malformed-requests-box").decode()
CASE_TIMEOUT_S = 5.0
# A body that never comes: the emulator's read timeout plus slack.
STALL_TIMEOUT_S = 12.0
# rest-api-v2.md §7.2 (Adobe's Enhanced Error Codes list for REST API V2), plus the emulator's two
# documented SSO codes (sent only when a test asks for them).
EEC_CODES = set("""
    invalid_parameter_service_provider invalid_parameter_mvpd invalid_parameter_code
    invalid_parameter_resources invalid_parameter_redirect_url invalid_parameter_partner
    invalid_parameter_saml_response invalid_header_device_info invalid_header_device_identifier
    invalid_header_identity_for_temporary_access invalid_header_pfs_permission_access_not_present
    invalid_header_pfs_permission_access_not_determined invalid_header_pfs_permission_access_not_granted
    invalid_header_pfs_provider_id_not_determined invalid_header_pfs_provider_id_mismatch
    invalid_header_pfs_provider_info_expired invalid_integration invalid_authentication_session
    preauthorization_denied_by_mvpd authorization_denied_by_mvpd authorization_denied_by_parental_controls
    authorization_denied_by_degradation_rule internal_server_error too_many_resources
    invalid_configuration_user_metadata_certificate invalid_configuration_temporary_access
    invalid_configuration_platform invalid_configuration_platform_id invalid_configuration_platform_trait
    invalid_configuration_platform_category_trait invalid_configuration_platform_services
    invalid_configuration_mvpd_platform invalid_configuration_mvpd_platform_boarding_status
    invalid_configuration_mvpd_platform_profile_exchange invalid_access_token_service_provider
    invalid_access_token_client_application authenticated_profile_missing authenticated_profile_expired
    authenticated_profile_invalidated temporary_access_duration_limit_exceeded
    temporary_access_resources_limit_exceeded authorization_denied_by_hba_policies
    authorization_denied_by_session_invalidated identity_not_recognized_by_mvpd network_received_error
    network_connection_timeout maximum_execution_time_exceeded
    invalid_header_service_token invalid_header_subject_token
""".split())
DCR_CODES = {"invalid_request", "invalid_redirect_uri", "invalid_software_statement",
             "unapproved_software_statement", "invalid_client", "unauthorized_client",
             "unsupported_grant_type"}


# --- the emulator process ---------------------------------------------------------------------

class Emulator(EmulatorProcess):
    """The emulator (`aepass.testing.EmulatorProcess`, `--throttle off`), with the address the raw
    sockets connect to and a V2 access token. Its stderr (per-request lines are off, tracebacks are
    not) is read with `stderr_mark` / `stderr_since`."""

    def __init__(self) -> None:
        super().__init__("--throttle", "off")
        url = urlsplit(self.url)
        self.host, self.port = url.hostname, url.port
        self.access_token = ""


# --- raw HTTP ---------------------------------------------------------------------------------

@dataclass
class Outcome:
    kind: str  # "response", "closed", "http09", "timeout", "malformed"
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    raw: bytes = b""
    note: str = ""

    def __str__(self) -> str:
        if self.kind == "response":
            return f"{self.status} {self.headers.get('content-type', '')} {self.body[:300]!r}"
        return f"{self.kind} {self.note} {self.raw[:300]!r}"


def _recv(sock: socket.socket, deadline: float) -> bytes | None:
    """Next bytes; b"" at EOF or reset; None on timeout."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    sock.settimeout(remaining)
    try:
        return sock.recv(65536)
    except socket.timeout:
        return None
    except (ConnectionResetError, ConnectionAbortedError):
        return b""


_STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9])(?: [^\r\n]*)?")
_HEADER_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")


def read_answer(sock: socket.socket, timeout: float, head: bool = False) -> Outcome:
    """Read one HTTP/1.x answer (skipping 1xx), or see the connection close."""
    deadline = time.monotonic() + timeout
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            data = _recv(sock, deadline)
            if data is None:
                return Outcome("timeout", raw=buf, note=f"nothing complete within {timeout} s")
            if not data:
                if not buf:
                    return Outcome("closed")
                if not buf.startswith(b"HTTP/"):
                    return Outcome("http09", raw=buf, note="bytes without a status line, then close")
                return Outcome("malformed", raw=buf, note="closed inside the header section")
            buf += data
        head_part, buf = buf.split(b"\r\n\r\n", 1)
        lines = head_part.split(b"\r\n")
        m = _STATUS_LINE.fullmatch(lines[0])
        if not m:
            return Outcome("malformed", raw=head_part, note="bad status line")
        status = int(m.group(1))
        headers: dict[str, str] = {}
        for line in lines[1:]:
            hm = _HEADER_LINE.fullmatch(line)
            if not hm:
                return Outcome("malformed", raw=head_part, note=f"bad header line {line!r}")
            headers[hm.group(1).decode().lower()] = hm.group(2).decode("latin-1")
        if 100 <= status < 200:
            continue
        if head or status in (204, 304):
            return Outcome("response", status, headers, b"", head_part)
        if "content-length" in headers:
            if not headers["content-length"].isdigit():
                return Outcome("malformed", status, headers, raw=head_part, note="bad Content-Length")
            length = int(headers["content-length"])
            while len(buf) < length:
                data = _recv(sock, deadline)
                if data is None:
                    return Outcome("timeout", status, headers, raw=head_part, note="body incomplete")
                if not data:
                    return Outcome("malformed", status, headers, raw=head_part,
                                   note=f"closed after {len(buf)} of {length} body bytes")
                buf += data
            return Outcome("response", status, headers, buf[:length], head_part)
        if "transfer-encoding" in headers:
            return Outcome("malformed", status, headers, raw=head_part, note="unexpected chunked answer")
        # Close-delimited body.
        while True:
            data = _recv(sock, deadline)
            if data is None:
                return Outcome("timeout", status, headers, raw=head_part,
                               note="no Content-Length and the connection stays open")
            if not data:
                return Outcome("response", status, headers, buf, head_part)
            buf += data


def exchange(emu: Emulator, payload: bytes | list[bytes], *, timeout: float = CASE_TIMEOUT_S,
             half_close: bool = False, head: bool = False, pause_s: float = 0.0) -> Outcome:
    """Send raw bytes (a list: parts sent with `pause_s` between them), read one answer."""
    sock = socket.create_connection((emu.host, emu.port), timeout=5)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        parts = payload if isinstance(payload, list) else [payload]
        try:
            for i, part in enumerate(parts):
                if i and pause_s:
                    time.sleep(pause_s)
                if part:
                    sock.sendall(part)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the emulator answered and closed before reading everything: read its answer
        outcome = read_answer(sock, timeout, head=head)
        if outcome.kind == "response" and outcome.headers.get("connection", "").lower() == "close":
            # Let the emulator finish closing, so that nothing it still writes hits a closed socket.
            drain_deadline = time.monotonic() + 1
            while _recv(sock, drain_deadline):
                pass
        return outcome
    finally:
        sock.close()


def request_bytes(method: str, target: str, headers: list[tuple[str, str]] | None = None,
                  body: bytes | None = None, version: str = "HTTP/1.1",
                  content_length: bool = True) -> bytes:
    lines = [f"{method} {target} {version}".encode("latin-1")]
    names = {n.lower() for n, _ in headers or []}
    hdrs = list(headers or [])
    if "host" not in names:
        hdrs.insert(0, ("Host", "127.0.0.1"))
    if body is not None and content_length and "content-length" not in names \
            and "transfer-encoding" not in names:
        hdrs.append(("Content-Length", str(len(body))))
    for name, value in hdrs:
        raw_value = value if isinstance(value, bytes) else value.encode("latin-1")
        lines.append(name.encode("latin-1") + b": " + raw_value)
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


def good_get(emu: Emulator, path: str) -> Outcome:
    return exchange(emu, request_bytes("GET", path, [("Connection", "close")]))


# --- what every answer must look like ---------------------------------------------------------

def sent_path(raw: bytes) -> str | None:
    """The path of the first request line sent, as the emulator sees it (best effort)."""
    first = raw.split(b"\n", 1)[0].rstrip(b"\r")
    words = first.split()
    if len(words) < 2:
        return None
    target = words[1].decode("latin-1")
    if target.startswith("//"):
        target = "/" + target.lstrip("/")
    try:
        return urlsplit(target).path
    except ValueError:
        return None


def answer_problems(raw: bytes, outcome: Outcome, *, head: bool = False) -> list[str]:
    """What is wrong with the emulator's answer `outcome` to the bytes `raw`."""
    problems: list[str] = []
    if outcome.kind == "timeout":
        problems.append(f"no answer and no close: {outcome}")
    elif outcome.kind == "malformed":
        problems.append(f"malformed answer: {outcome}")
    elif outcome.kind == "http09":
        problems.append(f"answer without a status line: {outcome}")
    if outcome.kind != "response":
        return problems
    status = outcome.status or 0
    if status >= 500 and status not in (501, 505):
        problems.append(f"server error {status}: {outcome}")
    ctype = outcome.headers.get("content-type", "").lower()
    if ctype.startswith("application/json") and not head:
        try:
            payload = json.loads(outcome.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            problems.append(f"JSON answer does not parse ({err}): {outcome}")
            return problems
        path = sent_path(raw) or ""
        if 400 <= status < 500 and path.startswith(("/api/v2", "/o/")):
            problems += adobe_error_problems(path, status, payload)
    return problems


def adobe_error_problems(path: str, status: int, payload) -> list[str]:
    """§7.1 (V2) / §4.1, §4.2 (DCR): the shape of a 4xx error body.

    `code`: required, one of Adobe's list (§7.2) or the emulator's two documented SSO codes —
    except on 400 (a malformed Accept/Content-Type or form), 404 (unknown path) and 405 (wrong
    method), for which Adobe's list has no code: the emulator leaves `code` out there rather than
    invent one (Emulator/aepass/errors.py, UNNAMED), and so does this check."""
    if not isinstance(payload, dict):
        return [f"{status} on {path}: error body is not an object: {payload!r}"]
    if path in ("/o/client/register", "/o/client/token") and status == 400:
        if set(payload) == {"error"} and payload["error"] in DCR_CODES:
            return []
        return [f"{status} on {path}: not a DCR error body {{\"error\": <documented code>}}: {payload!r}"]
    required = ["status", "action", "message"] + ([] if status in (400, 404, 405) else ["code"])
    missing = [k for k in required if k not in payload]
    problems = []
    if missing:
        problems.append(f"{status} on {path}: Enhanced Error Code body lacks {missing}: {payload!r}")
    if "code" in payload and payload["code"] not in EEC_CODES:
        problems.append(f"{status} on {path}: code {payload['code']!r} is not in Adobe's list")
    if not isinstance(payload.get("message", ""), str):
        problems.append(f"{status} on {path}: message is not a string: {payload!r}")
    if payload.get("status") != status:
        problems.append(f"{status} on {path}: body status {payload.get('status')!r} != HTTP {status}")
    if "action" in payload and payload["action"] not in (
            "none", "configuration", "application-registration", "authentication", "authorization", "retry"):
        problems.append(f"{status} on {path}: undocumented action {payload['action']!r}")
    return problems


def health_problems(emu: Emulator, deep: bool = False) -> list[str]:
    if not emu.alive():
        return [f"the emulator exited ({emu.process.returncode})"]
    problems = []
    outcome = good_get(emu, "/_emulator/config")
    if outcome.kind != "response" or outcome.status != 200:
        problems.append(f"GET /_emulator/config afterwards: {outcome}")
    if deep:
        body = json.dumps({"software_statement": SOFTWARE_STATEMENT}).encode()
        outcome = exchange(emu, request_bytes("POST", "/o/client/register", [
            ("Content-Type", "application/json"), ("X-Device-Info", DEVICE_INFO),
            ("Accept", "application/json"), ("Connection", "close")], body))
        if outcome.kind != "response" or outcome.status != 201:
            problems.append(f"POST /o/client/register afterwards: {outcome}")
        outcome = exchange(emu, request_bytes("GET", f"/api/v2/{SP}/configuration", v2_headers(emu) + [
            ("Connection", "close")]))
        if outcome.kind != "response" or outcome.status != 200:
            problems.append(f"GET configuration afterwards: {outcome}")
    return problems


def v2_headers(emu: Emulator) -> list[tuple[str, str]]:
    return [("Authorization", f"Bearer {emu.access_token}"), ("AP-Device-Identifier", DEVICE_ID),
            ("X-Device-Info", DEVICE_INFO), ("Accept", "application/json")]


def access_token(emu: Emulator, client: dict) -> str:
    form = (f"client_id={client['client_id']}&client_secret={client['client_secret']}"
            "&grant_type=client_credentials").encode()
    tok = exchange(emu, request_bytes("POST", "/o/client/token", [
        ("Content-Type", "application/x-www-form-urlencoded"), ("X-Device-Info", DEVICE_INFO),
        ("Connection", "close")], form))
    assert tok.status == 201, tok
    return json.loads(tok.body)["access_token"]


@pytest.fixture(scope="module")
def emu():
    emulator = Emulator()
    body = json.dumps({"software_statement": SOFTWARE_STATEMENT}).encode()
    reg = exchange(emulator, request_bytes("POST", "/o/client/register", [
        ("Content-Type", "application/json"), ("X-Device-Info", DEVICE_INFO), ("Connection", "close")], body))
    assert reg.status == 201, reg
    emulator.access_token = access_token(emulator, json.loads(reg.body))
    yield emulator
    emulator.stop()


def traceback_problems(emu: Emulator, since: int) -> list[str]:
    """A Python traceback the emulator wrote to stderr after the mark `since`."""
    text = emu.stderr_since(since)
    at = text.find("Traceback")
    if at < 0:
        return []
    return ["traceback on the emulator's stderr:\n" + text[max(0, at - 300): at + 3000]]


# --- hand-written cases -----------------------------------------------------------------------

@dataclass
class Case:
    name: str
    build: Callable[[Emulator], bytes | list[bytes]]  # the bytes to send (a list: sent apart)
    expect: tuple[int, ...] | None = None  # when given: one of these statuses, or a closed connection
    half_close: bool = False  # shut the sending side down after the request (EOF for the emulator)
    timeout: float = CASE_TIMEOUT_S
    pause_s: float = 0.0  # between the parts of a list
    head: bool = False  # a HEAD request: the answer has no body


FORM = "application/x-www-form-urlencoded"
CHUNKED = [("Transfer-Encoding", "chunked")]
BODY = b'{"resources": ["a"]}'
BODY_REF30 = b'{"resources": ["REF30"]}'
CHUNKED_REF30 = b"18\r\n" + BODY_REF30 + b"\r\n0\r\n\r\n"
HUGE = 20 * 1024 * 1024
DEEP_JSON = b"[" * 100000 + b"]" * 100000
DEEP_3000 = b"[" * 3000 + b"]" * 3000  # fits a header (and the 16 KiB SSO token limit) once encoded
PROFILES = f"/api/v2/{SP}/profiles"


def decisions(emu, body: bytes, content_type: str | None = "application/json", kind="authorize",
              extra=()) -> bytes:
    headers = v2_headers(emu) + list(extra)
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    return request_bytes("POST", f"/api/v2/{SP}/decisions/{kind}/{MVPD}", headers, body)


def sessions(emu, body: bytes, content_type=FORM, extra=()) -> bytes:
    headers = v2_headers(emu) + [("Content-Type", content_type)] + list(extra)
    return request_bytes("POST", f"/api/v2/{SP}/sessions", headers, body)


def register(body: bytes, content_type="application/json", extra=()) -> bytes:
    return request_bytes("POST", "/o/client/register",
                         [("Content-Type", content_type), ("X-Device-Info", DEVICE_INFO), *extra], body)


def v2_get(emu, path: str, extra=(), drop=()) -> bytes:
    headers = [h for h in v2_headers(emu) if h[0] not in drop] + list(extra)
    return request_bytes("GET", path, headers)


def with_header(emu, name: str, value: str | bytes, path: str = PROFILES) -> bytes:
    """GET `path` with the V2 headers, `name` replaced by `value`."""
    return v2_get(emu, path, drop=(name,), extra=[(name, value)])


def v1_form(emu, path: str, body: bytes, extra=()) -> bytes:
    headers = [("Authorization", f"Bearer {emu.access_token}"), ("Content-Type", FORM),
               ("Accept", "application/json"), *extra]
    return request_bytes("POST", path, headers, body)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jws(header: bytes, payload: bytes) -> str:
    return f"{b64url(header)}.{b64url(payload)}.c2ln"


def deep_statement_client(emu) -> str:
    """The access token of a client registered with a software statement whose payload is deeply
    nested JSON (DCR checks only the statement's shape; V1's regcode reads its claims)."""
    statement = jws(b'{"alg":"RS256"}', DEEP_3000)
    reg = exchange(emu, register(json.dumps({"software_statement": statement}).encode(),
                                 extra=[("Connection", "close")]))
    assert reg.status == 201, reg
    return access_token(emu, json.loads(reg.body))


CASES = [
    # Bad JSON to the JSON endpoints (decisions, DCR register).
    Case("json-truncated", lambda e: decisions(e, b'{"resources": ["a"'), (400,)),
    Case("json-empty-body", lambda e: decisions(e, b""), (400,)),
    Case("json-not-object", lambda e: decisions(e, b'["REF30"]'), (400,)),
    Case("json-null", lambda e: decisions(e, b"null"), (400,)),
    Case("json-resources-string", lambda e: decisions(e, b'{"resources": "REF30"}'), (400,)),
    Case("json-resources-numbers", lambda e: decisions(e, b'{"resources": [1, 2, {}]}', kind="preauthorize"),
         (400,)),
    Case("json-resources-empty", lambda e: decisions(e, b'{"resources": []}'), (400,)),
    Case("json-resources-empty-string", lambda e: decisions(e, b'{"resources": [""]}'), (200, 400)),
    # RFC 8259 §8.1: JSON text is UTF-8; the emulator must not turn the bytes into U+FFFD and go on.
    Case("json-invalid-utf8", lambda e: decisions(e, b'{"resources": ["\xff\xfe\xc3("]}'), (400,)),
    Case("json-nul", lambda e: decisions(e, b'{"resources": ["a\x00b"]}'), (400,)),
    Case("json-escaped-nul", lambda e: decisions(e, b'{"resources": ["a\\u0000b"]}'), (200, 400)),
    Case("json-lone-surrogate", lambda e: decisions(e, b'{"resources": ["\\ud800"]}'), (200, 400)),
    Case("json-deep-nesting", lambda e: decisions(e, DEEP_JSON), (400,)),
    Case("json-deep-object", lambda e: decisions(e, b'{"resources": ' + DEEP_JSON + b"}"), (400,)),
    Case("json-huge-number", lambda e: decisions(e, b'{"resources": ["a"], "n": 1e999999}'), (200, 400)),
    Case("json-huge-int", lambda e: decisions(e, b'{"resources": ["a"], "n": ' + b"9" * 5000 + b"}"),
         (200, 400)),
    Case("json-nan", lambda e: decisions(e, b'{"resources": [NaN]}'), (400,)),
    Case("json-duplicate-keys", lambda e: decisions(e, b'{"resources": 1, "resources": ["a"]}'), (200, 400)),
    Case("json-bom", lambda e: decisions(e, b'\xef\xbb\xbf{"resources": ["a"]}'), (200, 400)),
    Case("json-utf16", lambda e: decisions(e, '{"resources": ["a"]}'.encode("utf-16")), (400,)),
    Case("json-long-resource", lambda e: decisions(e, b'{"resources": ["' + b"r" * 200000 + b'"]}'),
         (200, 400)),
    Case("json-many-resources", lambda e: decisions(
        e, json.dumps({"resources": [f"r{i}" for i in range(5000)]}).encode(), kind="preauthorize"),
         (400, 403)),
    Case("register-bad-json", lambda e: register(b'{"software_statement": '), (400,)),
    Case("register-json-array", lambda e: register(b'[1,2]'), (400,)),
    Case("register-statement-number", lambda e: register(b'{"software_statement": 5}'), (400,)),
    Case("register-invalid-utf8", lambda e: register(b'{"software_statement": "\xff\xfe"}'), (400,)),
    Case("register-deep", lambda e: register(DEEP_JSON), (400,)),
    # Deeply nested JSON wherever the emulator reads JSON from a client (json.loads raises
    # RecursionError there, which is not a ValueError).
    Case("deep-json-register-device-info", lambda e: register(
        json.dumps({"software_statement": SOFTWARE_STATEMENT}).encode()).replace(
        DEVICE_INFO.encode(), b64(DEEP_3000).encode()), (400,)),
    Case("deep-json-service-token", lambda e: v2_get(e, PROFILES, extra=[
        ("AD-Service-Token", jws(DEEP_3000, b'{"iss":"x"}'))]), (200, 400)),
    Case("deep-json-service-token-payload", lambda e: v2_get(e, PROFILES, extra=[
        ("AD-Service-Token", jws(b'{"alg":"RS256"}', DEEP_3000))]), (200, 400)),
    Case("deep-json-subject-token", lambda e: v2_get(e, PROFILES, extra=[
        ("Adobe-Subject-Token", jws(b'{"alg":"RS256"}', DEEP_3000))]), (200, 400)),
    Case("deep-json-pfs", lambda e: request_bytes(
        "POST", f"/api/v2/{SP}/sessions/sso/Apple",
        v2_headers(e) + [("Content-Type", FORM), ("AP-Partner-Framework-Status", b64(DEEP_3000))],
        b"domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com"), (200, 400)),
    Case("deep-json-temppass-identity", lambda e: v2_get(e, f"{PROFILES}/flexibleTempPass", extra=[
        ("AP-TempPass-Identity", b64(DEEP_3000))]), (200, 400, 403)),
    Case("deep-json-v1-device-info", lambda e: v1_form(
        e, f"/reggie/v1/{SP}/regcode",
        b"deviceId=abc&device_info=" + b64(DEEP_3000).replace("+", "%2B").replace("/", "%2F").encode()),
         (400,)),
    Case("deep-json-v1-generic-data", lambda e: v1_form(
        e, "/api/v1/authenticate/freepreview",
        f"requestor_id={SP}&deviceId=abc&mso_id=flexibleTempPass&domain_name=adobe.com&generic_data=".encode()
        + DEEP_3000.replace(b"[", b"%5B").replace(b"]", b"%5D"), extra=[("X-Device-Info", DEVICE_INFO)]),
         (400,)),
    Case("deep-json-v1-software-statement", lambda e: request_bytes("POST", f"/reggie/v1/{SP}/regcode", [
        ("Authorization", f"Bearer {deep_statement_client(e)}"), ("Content-Type", FORM),
        ("X-Device-Info", DEVICE_INFO), ("Accept", "application/json")], b"deviceId=abc"), (201,)),
    Case("deep-json-control-api", lambda e: request_bytes("POST", "/_emulator/config", [
        ("Content-Type", "application/json")], DEEP_JSON), (400,)),
    # Wrong Content-Type.
    Case("ctype-form-on-json", lambda e: decisions(e, BODY, FORM), (400, 415)),
    Case("ctype-missing-on-json", lambda e: decisions(e, BODY, None), (400, 415)),
    Case("ctype-text", lambda e: decisions(e, BODY, "text/plain"), (400, 415)),
    Case("ctype-garbage", lambda e: decisions(e, BODY, ";;;=\x7f"), (400, 415)),
    Case("ctype-json-on-form", lambda e: sessions(e, b'{"mvpd": "Cablevision"}', "application/json"),
         (400, 415)),
    Case("ctype-multipart", lambda e: sessions(e, b"--x\r\n\r\n--x--", "multipart/form-data; boundary=x"),
         (400, 415)),
    Case("ctype-form-on-register", lambda e: register(b"software_statement=a.b.c", FORM), (400,)),
    # Huge bodies and Content-Length lies.
    Case("huge-body-sent", lambda e: decisions(e, b'{"resources": ["' + b"x" * HUGE + b'"]}'),
         (200, 400, 413), timeout=30),
    Case("huge-form-sent", lambda e: sessions(e, b"mvpd=" + b"A" * HUGE), (200, 400, 413), timeout=30),
    Case("content-length-never-sent", lambda e: decisions(e, BODY, extra=[("Content-Length", str(HUGE))]),
         (400, 408, 413), timeout=STALL_TIMEOUT_S),
    Case("content-length-absurd", lambda e: decisions(e, BODY, extra=[("Content-Length", "1" + "0" * 30)]),
         (400, 413), timeout=STALL_TIMEOUT_S),
    Case("content-length-int64", lambda e: decisions(e, BODY, extra=[("Content-Length", str(2 ** 63 - 1))]),
         (400, 413), timeout=STALL_TIMEOUT_S),
    Case("content-length-short-then-close", lambda e: decisions(e, BODY, extra=[("Content-Length", "4000")]),
         (400, 408), half_close=True),
    Case("content-length-negative", lambda e: decisions(e, BODY, extra=[("Content-Length", "-1")]), (400,)),
    Case("content-length-garbage", lambda e: decisions(e, BODY, extra=[("Content-Length", "abc")]), (400,)),
    Case("content-length-hex", lambda e: decisions(e, BODY, extra=[("Content-Length", "0x14")]), (400,)),
    Case("content-length-plus", lambda e: decisions(e, BODY, extra=[("Content-Length", "+20")]), (400,)),
    Case("content-length-empty", lambda e: decisions(e, BODY, extra=[("Content-Length", "")]), (400,)),
    Case("content-length-list", lambda e: decisions(e, BODY, extra=[("Content-Length", "20, 20")]),
         (200, 400)),
    Case("content-length-conflicting", lambda e: decisions(e, BODY, extra=[
        ("Content-Length", "20"), ("Content-Length", "2")]), (400,)),
    Case("content-length-unicode-digits", lambda e: decisions(e, BODY, extra=[
        ("Content-Length", "\u0662\u0660".encode("utf-8"))]), (400,)),
    Case("content-length-on-get", lambda e: request_bytes("GET", PROFILES, v2_headers(e), b"unexpected body"),
         (200, 400)),
    Case("expect-100-continue", lambda e: decisions(e, BODY_REF30, extra=[("Expect", "100-continue")]),
         (200,)),
    # Invalid UTF-8 and NUL bytes in paths, query strings, headers and form bodies.
    Case("path-invalid-utf8", lambda e: v2_get(e, f"{PROFILES}/\xff\xfe\xc3(")),
    Case("path-percent-invalid-utf8", lambda e: v2_get(e, f"{PROFILES}/%FF%FE%C3%28")),
    Case("path-sp-invalid-utf8", lambda e: v2_get(e, "/api/v2/\xff\xfe/configuration"), (400,)),
    Case("path-sp-percent", lambda e: v2_get(e, "/api/v2/%FF%00/configuration")),
    Case("path-nul", lambda e: v2_get(e, f"/api/v2/{SP}\x00/configuration")),
    Case("path-percent-nul", lambda e: v2_get(e, f"{PROFILES}/Cable%00vision")),
    Case("path-code-invalid-utf8", lambda e: v2_get(e, f"{PROFILES}/code/\xff\x00\xfe")),
    Case("path-dot-segments", lambda e: v2_get(e, f"/api/v2/{SP}/../../../etc/passwd")),
    Case("path-encoded-slash", lambda e: v2_get(e, f"/api/v2/{SP}%2Fprofiles")),
    Case("path-absolute-form", lambda e: v2_get(e, f"http://127.0.0.1{PROFILES}"), (200,)),
    Case("path-absolute-form-garbage", lambda e: v2_get(e, "http://[::1/api/v2"), (400,)),
    Case("path-asterisk", lambda e: request_bytes("OPTIONS", "*", [])),
    Case("path-no-slash", lambda e: v2_get(e, "api/v2/REF30/profiles")),
    Case("path-very-long", lambda e: v2_get(e, f"{PROFILES}/" + "m" * 60000)),
    Case("query-invalid-utf8", lambda e: v2_get(
        e, f"/api/v2/{SP}/logout/{MVPD}?redirectUrl=\xff\xfe%FF%C3%28"), (200, 400)),
    Case("query-nul", lambda e: v2_get(e, f"/api/v2/{SP}/logout/{MVPD}?redirectUrl=https%3A%2F%2Fa%00b"),
         (200, 400)),
    Case("query-garbage", lambda e: v2_get(
        e, f"/api/v2/{SP}/logout/{MVPD}?%%%&&&==&redirectUrl&redirectUrl=x"), (200, 400)),
    Case("query-many-params", lambda e: v2_get(
        e, f"{PROFILES}?" + "&".join(f"p{i}={i}" for i in range(5000)))),
    Case("header-auth-invalid-utf8", lambda e: with_header(e, "Authorization", b"Bearer \xff\xfe\x80"),
         (401,)),
    Case("header-auth-nul", lambda e: with_header(e, "Authorization", b"Bearer a\x00b"), (400, 401)),
    Case("header-device-id-invalid-utf8", lambda e: with_header(
        e, "AP-Device-Identifier", b"fingerprint \xff\xfe"), (400,)),
    Case("header-device-id-base64-invalid-utf8", lambda e: with_header(
        e, "AP-Device-Identifier", "fingerprint " + b64(b"\xff\xfe\x00")), (200, 400)),
    Case("header-device-info-invalid-utf8", lambda e: with_header(e, "X-Device-Info", b"\xff\xfe\xfd"),
         (400,)),
    Case("header-device-info-base64-garbage", lambda e: with_header(
        e, "X-Device-Info", b64(b"\xff\xfe{\x00")), (400,)),
    Case("header-device-info-json-array", lambda e: with_header(e, "X-Device-Info", b64(b"[1,2,3]")), (400,)),
    Case("header-device-info-deep", lambda e: with_header(
        e, "X-Device-Info", b64(b"[" * 20000 + b"]" * 20000)), (400,)),
    Case("header-device-info-wrong-types", lambda e: with_header(e, "X-Device-Info", b64(json.dumps({
        "model": 5, "osName": [], "version": {}, "osVersion": None, "connectionType": True}).encode())),
         (200, 400)),
    Case("header-pfs-garbage", lambda e: v2_get(e, PROFILES, extra=[
        ("AP-Partner-Framework-Status", b"\xff\x00==")]), (200, 400)),
    Case("header-pfs-deep", lambda e: v2_get(e, PROFILES, extra=[
        ("AP-Partner-Framework-Status", b64(b"{\"a\":" * 5000 + b"1" + b"}" * 5000))]), (200, 400)),
    Case("header-temppass-identity-garbage", lambda e: v2_get(e, f"{PROFILES}/flexibleTempPass", extra=[
        ("AP-TempPass-Identity", b"\xff\xfe")]), (400, 403)),
    Case("header-sso-token-garbage", lambda e: v2_get(e, PROFILES, extra=[
        ("AD-Service-Token", b"\xff.\x00.\xfe"), ("Adobe-Subject-Token", "a.b.c.d.e"),
        ("X-Roku-Reserved-Roku-Connect-Token", "." * 3000)]), (200, 400)),
    Case("header-host-garbage", lambda e: v2_get(e, f"/api/v2/{SP}/configuration", extra=[
        ("X-Forwarded-Host", b"\xff\xfe:99999999"), ("X-Forwarded-Proto", b"\x00"),
        ("Forwarded", b";;;=\xff")]), (200,)),
    Case("header-accept-garbage", lambda e: with_header(e, "Accept", b"\xff/\xfe;q=zz"), (200, 400, 406)),
    Case("header-nul-name", lambda e: v2_get(e, PROFILES, extra=[("X-\x00", "v")])),
    Case("header-no-colon", lambda e: v2_get(e, PROFILES, extra=[("NoColonHere", "")]).replace(
        b"NoColonHere: ", b"NoColonHere")),
    Case("header-obs-fold", lambda e: v2_get(e, PROFILES).replace(
        b"Accept: application/json", b"Accept: application/json\r\n  folded")),
    Case("header-repeated-device-id", lambda e: v2_get(e, PROFILES, extra=[
        ("AP-Device-Identifier", "fingerprint b3RoZXI=")]), (200, 400)),
    Case("form-invalid-utf8", lambda e: sessions(e, b"mvpd=\xff\xfe&domainName=%FF%C3%28&redirectUrl=\x80"),
         (200, 400)),
    Case("form-nul", lambda e: sessions(
        e, b"mvpd=Cable%00vision&domainName=adobe.com\x00&redirectUrl=https%3A%2F%2Fadobe.com"), (200, 400)),
    Case("form-garbage", lambda e: sessions(e, b"&&&===%%%%&mvpd&mvpd=&=x"), (200, 400)),
    Case("form-many-fields", lambda e: sessions(e, "&".join(f"f{i}={i}" for i in range(20000)).encode()),
         (200, 400)),
    Case("token-form-invalid-utf8", lambda e: request_bytes("POST", "/o/client/token", [
        ("Content-Type", FORM), ("X-Device-Info", DEVICE_INFO)],
        b"client_id=\xff&client_secret=%FF&grant_type=client_credentials\x00"), (400,)),
    Case("token-query-invalid-utf8", lambda e: request_bytes(
        "POST", "/o/client/token?client_id=%FF\xfe&grant_type=\x00",
        [("Content-Type", FORM), ("X-Device-Info", DEVICE_INFO)], b""), (400,)),
    # Unknown paths, wrong methods.
    Case("unknown-root", lambda e: v2_get(e, "/"), (404,)),
    Case("unknown-api", lambda e: v2_get(e, "/api/v3/REF30/profiles"), (404,)),
    Case("unknown-v2", lambda e: v2_get(e, f"/api/v2/{SP}/nothing/here"), (404,)),
    Case("unknown-o", lambda e: v2_get(e, "/o/client/nothing"), (404,)),
    Case("unknown-emulator", lambda e: v2_get(e, "/_emulator/\xff"), (404,)),
    *[Case(f"method-{method.lower()}-{name}",
           (lambda m, p: lambda e: request_bytes(m, p, v2_headers(e), b"{}"))(method, path), (404, 405, 501))
      for method in ("PUT", "DELETE", "PATCH", "OPTIONS", "TRACE")
      for name, path in (("sessions", f"/api/v2/{SP}/sessions"), ("profiles", PROFILES),
                         ("decisions", f"/api/v2/{SP}/decisions/authorize/{MVPD}"),
                         ("logout", f"/api/v2/{SP}/logout/{MVPD}"), ("register", "/o/client/register"))],
    Case("method-head", lambda e: request_bytes("HEAD", PROFILES, v2_headers(e)), (404, 405), head=True),
    Case("method-get-on-post", lambda e: v2_get(e, f"/api/v2/{SP}/decisions/authorize/{MVPD}"), (405,)),
    Case("method-post-on-get", lambda e: request_bytes("POST", f"/api/v2/{SP}/configuration", v2_headers(e),
                                                       b""), (405,)),
    Case("method-unknown", lambda e: request_bytes("FROB", PROFILES, v2_headers(e)), (405, 501)),
    Case("method-lowercase", lambda e: request_bytes("get", PROFILES, v2_headers(e)), (400, 405, 501)),
    Case("method-connect", lambda e: request_bytes("CONNECT", "127.0.0.1:443", []), (400, 404, 405, 501)),
    Case("method-invalid-utf8", lambda e: request_bytes("G\xffT", "/", []), (400, 405, 501)),
    # Header section limits.
    Case("overlong-request-line", lambda e: v2_get(e, "/" + "a" * 70000), (414,)),
    Case("overlong-header-line", lambda e: v2_get(e, PROFILES, extra=[("X-Long", "v" * 70000)]), (400, 431)),
    Case("overlong-device-info", lambda e: with_header(e, "X-Device-Info", "A" * 60000), (400, 431)),
    Case("too-many-headers", lambda e: v2_get(e, PROFILES, extra=[(f"X-H{i}", str(i)) for i in range(500)]),
         (400, 431)),
    Case("many-repeated-headers", lambda e: v2_get(e, PROFILES, extra=[("Accept", "application/json")] * 90),
         (200, 400, 406)),
    # Request lines. HTTP/0.9-style lines (no version) are answered with a status line all the same.
    Case("http09-get", lambda e: f"GET /api/v2/{SP}/configuration\r\n\r\n".encode(), (400, 401)),
    Case("http09-get-no-blank", lambda e: b"GET /\r\n", (404,), half_close=True),
    Case("http09-post", lambda e: b"POST /o/client/register\r\n\r\n", (400,)),
    Case("http2-version", lambda e: request_bytes("GET", "/", [], version="HTTP/2.0"), (400, 505)),
    Case("http-version-garbage", lambda e: request_bytes("GET", "/", [], version="HTTP/1.1.1"), (400,)),
    Case("http-version-huge", lambda e: request_bytes("GET", "/", [], version="HTTP/" + "9" * 50 + ".1"),
         (400, 505)),
    Case("http10", lambda e: request_bytes("GET", PROFILES, v2_headers(e), version="HTTP/1.0"), (200,)),
    Case("request-line-extra-words", lambda e: b"GET / HTTP/1.1 extra\r\n\r\n", (400,)),
    Case("request-line-tabs", lambda e: b"GET\t/\tHTTP/1.1\r\nHost: x\r\n\r\n", (400, 404)),
    Case("request-line-lf-only", lambda e: request_bytes("GET", "/", [("X-A", "1")]).replace(b"\r\n", b"\n"),
         (404,)),
    Case("request-line-cr-only", lambda e: b"GET / HTTP/1.1\rHost: x\r\r", half_close=True),
    Case("empty-lines-first", lambda e: b"\r\n\r\n" + request_bytes("GET", "/", []), half_close=True),
    # Garbage bytes and truncated requests.
    Case("garbage-random", lambda e: random.Random(7).randbytes(4096), half_close=True),
    Case("garbage-random-no-close", lambda e: random.Random(8).randbytes(300) + b"\r\n\r\n"),
    Case("garbage-tls-client-hello", lambda e: bytes.fromhex("16030100a5010000a10303")
         + random.Random(9).randbytes(160), half_close=True),
    Case("garbage-nul-bytes", lambda e: b"\x00" * 5000, half_close=True),
    Case("garbage-crlf-flood", lambda e: b"\r\n" * 20000, half_close=True),
    Case("empty-then-close", lambda e: b"", half_close=True),
    Case("truncated-request-line", lambda e: f"GET /api/v2/{SP}/prof".encode(), half_close=True),
    Case("truncated-headers", lambda e: v2_get(e, PROFILES)[:-30], half_close=True),
    Case("truncated-body", lambda e: decisions(e, BODY_REF30)[:-8], (400, 408), half_close=True),
    Case("split-slowly", lambda e: (lambda r: [r[:10], r[10:60], r[60:]])(decisions(e, BODY_REF30)), (200,),
         pause_s=0.3),
    Case("pipelined-two", lambda e: v2_get(e, PROFILES) * 2, (200,)),
    Case("pipelined-good-then-garbage", lambda e: v2_get(e, PROFILES) + b"\xff\xfe garbage\r\n\r\n", (200,)),
    # Chunked bodies.
    Case("chunked-good", lambda e: decisions(e, CHUNKED_REF30, extra=CHUNKED), (200,)),
    Case("chunked-bad-size", lambda e: decisions(e, b"zz\r\nabc\r\n0\r\n\r\n", extra=CHUNKED), (400,)),
    Case("chunked-negative-size", lambda e: decisions(e, b"-5\r\nabc\r\n0\r\n\r\n", extra=CHUNKED), (400,)),
    Case("chunked-huge-size", lambda e: decisions(e, b"FFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n", extra=CHUNKED),
         (400, 413), timeout=STALL_TIMEOUT_S),
    Case("chunked-absurd-size", lambda e: decisions(e, b"F" * 200 + b"\r\nabc\r\n0\r\n\r\n", extra=CHUNKED),
         (400, 413), timeout=STALL_TIMEOUT_S),
    Case("chunked-size-never-sent", lambda e: decisions(e, b"100\r\nabc", extra=CHUNKED), (400, 408),
         timeout=STALL_TIMEOUT_S),
    Case("chunked-no-terminator-close", lambda e: decisions(e, b"3\r\nabc\r\n", extra=CHUNKED), (400, 408),
         half_close=True),
    Case("chunked-missing-crlf", lambda e: decisions(e, b"3\r\nabcXX4\r\nabcd\r\n0\r\n\r\n", extra=CHUNKED),
         (400,)),
    Case("chunked-extension", lambda e: decisions(
        e, b"18;name=val\r\n" + BODY_REF30 + b"\r\n0\r\n\r\n", extra=CHUNKED), (200,)),
    Case("chunked-long-size-line", lambda e: decisions(
        e, b"1;" + b"e" * 100000 + b"\r\na\r\n0\r\n\r\n", extra=CHUNKED), (400, 413, 431)),
    Case("chunked-endless-trailers", lambda e: decisions(
        e, b"0\r\n" + b"X-T: 1\r\n" * 100000 + b"\r\n", extra=CHUNKED), (400, 413, 431)),
    Case("chunked-and-length", lambda e: decisions(
        e, CHUNKED_REF30, extra=CHUNKED + [("Content-Length", "5")]), (200, 400)),
    Case("chunked-uppercase", lambda e: decisions(e, CHUNKED_REF30, extra=[("Transfer-Encoding", "CHUNKED")]),
         (200,)),
    Case("transfer-encoding-gzip", lambda e: decisions(e, BODY_REF30, extra=[("Transfer-Encoding", "gzip")]),
         (200, 400, 501)),
    Case("chunked-on-get", lambda e: request_bytes("GET", PROFILES, v2_headers(e) + CHUNKED,
                                                   b"5\r\nhello\r\n0\r\n\r\n"), (200, 400)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_request(emu: Emulator, case: Case):
    since = emu.stderr_mark()
    payload = case.build(emu)
    started = time.monotonic()
    outcome = exchange(emu, payload, timeout=case.timeout, half_close=case.half_close, head=case.head,
                       pause_s=case.pause_s)
    elapsed = time.monotonic() - started
    raw = payload if isinstance(payload, bytes) else b"".join(payload)
    problems = answer_problems(raw, outcome, head=case.head)
    if case.expect and outcome.kind == "response" and outcome.status not in case.expect:
        problems.append(f"status {outcome.status}, expected one of {case.expect}: {outcome}")
    problems += health_problems(emu, deep=True)
    problems += traceback_problems(emu, since)
    assert not problems, f"{case.name} ({elapsed:.2f} s): " + "\n".join(problems)


# --- the seeded mutator -----------------------------------------------------------------------

def base_requests(emu: Emulator) -> list[bytes]:
    """Valid requests of every kind (V2, DCR, partner SSO, V1), the mutator's seeds."""
    h = v2_headers(emu)
    form_h = [("Content-Type", FORM)]
    json_h = [("Content-Type", "application/json")]
    pfs = b64(json.dumps({"frameworkPermissionInfo": {"accessStatus": "granted"},
                          "frameworkProviderInfo": {"id": "Cablevision", "expirationDate": "9999999999999"}},
                         ).encode())
    registration = {"software_statement": SOFTWARE_STATEMENT, "redirect_uri": "x://y"}
    return [
        request_bytes("POST", "/o/client/register", json_h + [("X-Device-Info", DEVICE_INFO)],
                      json.dumps(registration).encode()),
        request_bytes("POST", "/o/client/token", form_h + [("X-Device-Info", DEVICE_INFO)],
                      b"client_id=abc&client_secret=def&grant_type=client_credentials"),
        request_bytes("GET", f"/api/v2/{SP}/configuration", h),
        request_bytes("POST", f"/api/v2/{SP}/sessions", h + form_h,
                      b"mvpd=Cablevision&domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com"),
        request_bytes("GET", f"/api/v2/{SP}/profiles", h),
        request_bytes("GET", f"/api/v2/{SP}/profiles/{MVPD}", h),
        request_bytes("GET", f"/api/v2/{SP}/profiles/code/ABCDEFG", h[:1] + [("Accept", "application/json")]),
        request_bytes("POST", f"/api/v2/{SP}/decisions/preauthorize/{MVPD}", h + json_h,
                      b'{"resources": ["REF30", "PREMIUM-DENIED", '
                      b'"<rss><channel><title>x</title></channel></rss>"]}'),
        request_bytes("POST", f"/api/v2/{SP}/decisions/authorize/{MVPD}", h + json_h, BODY_REF30),
        request_bytes("GET", f"/api/v2/{SP}/logout/{MVPD}?redirectUrl=https%3A%2F%2Fadobe.com", h),
        request_bytes("POST", f"/api/v2/{SP}/sessions/sso/Apple",
                      h + form_h + [("AP-Partner-Framework-Status", pfs)],
                      b"domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com"),
        request_bytes("GET", f"/api/v1/config/{SP}", h),
        request_bytes("POST", f"/reggie/v1/{SP}/regcode", h + form_h, b"deviceId=abc&mvpd=Cablevision"),
    ]


INTERESTING = [b"\x00", b"\xff", b"\xfe", b"\x80", b"\r", b"\n", b"\r\n", b":", b"%", b"%FF", b"%00", b"{",
               b"}", b"\"", b"\\", b";", b",", b"=", b"&", b"+", b" ", b"\t", b"-1", b"99999999999",
               b"\xc3(", b"\xed\xa0\x80", b"chunked", b"0\r\n\r\n"]


def mutate(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    data = bytearray(raw)
    ops = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        op = rng.choice(("flip", "truncate", "dup-header", "insert", "delete", "lf-only", "content-length",
                         "replace", "repeat-header-other", "splice"))
        head_end = data.find(b"\r\n\r\n")
        if op == "flip" and data:
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        elif op == "truncate" and data:
            data = data[: rng.randrange(len(data))]
        elif op in ("dup-header", "repeat-header-other") and head_end > 0:
            lines = bytes(data[:head_end]).split(b"\r\n")
            if len(lines) > 1:
                j = rng.randrange(1, len(lines))
                line = lines[j]
                if op == "repeat-header-other":
                    name = line.split(b":", 1)[0]
                    line = name + b": " + rng.choice(INTERESTING) * rng.randint(1, 3)
                lines.insert(rng.randrange(1, len(lines) + 1), line)
                data = bytearray(b"\r\n".join(lines)) + data[head_end:]
        elif op == "insert":
            i = rng.randrange(len(data) + 1)
            data[i:i] = rng.choice(INTERESTING) if rng.random() < 0.7 else rng.randbytes(rng.randint(1, 16))
        elif op == "delete" and data:
            i = rng.randrange(len(data))
            del data[i: i + rng.randint(1, 12)]
        elif op == "lf-only":
            data = bytearray(bytes(data).replace(b"\r\n", b"\n"))
        elif op == "content-length":
            value = rng.choice((b"-1", b"0", b"1", b"abc", b"999999", b"", b"1e3", b"18446744073709551616"))
            data = bytearray(re.sub(rb"Content-Length: [^\r\n]*", b"Content-Length: " + value, bytes(data),
                                    count=1))
            if b"Content-Length" not in data and head_end > 0:
                data[head_end:head_end] = b"\r\nContent-Length: " + value
        elif op == "replace" and data:
            i = rng.randrange(len(data))
            data[i] = rng.choice(b"\x00\xff\x80\r\n:%{ ")
        elif op == "splice" and head_end > 0:
            # Body of one request spliced onto another's header section.
            data = data[: head_end + 4] + rng.choice([b'{"resources": [', b"a=b&c", b"\xff" * 10, b""])
        ops.append(op)
    return bytes(data), "+".join(ops)


MUTATIONS = 200
SEED = 20240601


def test_seeded_mutations(emu: Emulator):
    rng = random.Random(SEED)
    bases = base_requests(emu)
    failures: list[str] = []
    for n in range(MUTATIONS):
        since = emu.stderr_mark()
        raw, ops = mutate(rng, rng.choice(bases))
        # Half-close: a request whose Content-Length now promises more than was sent ends at EOF
        # at once, instead of the emulator waiting for the rest (its own read timeout is tested above).
        outcome = exchange(emu, raw, half_close=True)
        problems = answer_problems(raw, outcome)
        problems += health_problems(emu, deep=n % 25 == 24)  # deep: a registration and a V2 call too
        problems += traceback_problems(emu, since)
        if problems:
            failures.append(f"#{n} [{ops}] {raw[:200]!r}\n    " + "\n    ".join(problems))
        if not emu.alive():
            break
    assert not failures, (f"{len(failures)} of {MUTATIONS} mutated requests failed:\n"
                          + "\n".join(failures[:40]))
