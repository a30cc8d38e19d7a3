"""Transport-neutral request and response values, and response builders."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

JSON_TYPE = "application/json;charset=UTF-8"
HTML_TYPE = "text/html;charset=UTF-8"


@dataclass
class Request:
    method: str
    path: str
    query: str  # raw query string, without "?"
    headers: list[tuple[str, str]]  # as received, in order
    body: bytes
    client_ip: str
    local_address: str  # "host:port" the server is bound to, when Host is absent
    path_params: dict[str, str] = field(default_factory=dict)
    client_id: str | None = None  # filled in by handlers, for the request log
    # SSO token verdicts by "<token>/<where>" (sso.judge), for the request log's `sso` entries.
    sso_results: dict[str, dict[str, Any]] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        """Value of a header (case-insensitive); repeated headers are joined with ", "."""
        values = [v for k, v in self.headers if k.lower() == name.lower()]
        return ", ".join(values) if values else None

    def headers_for_log(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for name, value in self.headers:
            result[name] = f"{result[name]}, {value}" if name in result else value
        return result

    def media_type(self) -> str | None:
        """Content-Type without parameters, lower-cased."""
        value = self.header("Content-Type")
        return value.split(";")[0].strip().lower() if value else None

    def query_params(self) -> dict[str, list[str]]:
        return form_fields(self.query)

    @property
    def base_url(self) -> str:
        return f"http://{self.header('Host') or self.local_address}"

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def form_fields(text: str) -> dict[str, list[str]]:
    """A form body (application/x-www-form-urlencoded) or a query string, decoded exactly as
    `urllib.parse.parse_qsl(text, keep_blank_values=True)` does — '+' is a space, '%2B' a plus,
    percent-escapes are UTF-8 (a bad sequence becomes U+FFFD), a name without '=' has the value
    "" — grouped by name, values in order. Every form and query parser of the emulator uses it."""
    fields: dict[str, list[str]] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        fields.setdefault(name, []).append(value)
    return fields


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    # Fault injection (faults.py): the fault kind, for the request log, and how the server sends
    # the answer: None (normally), "reset_mid_body" or "never_ending".
    fault: str | None = None
    transport: str | None = None
    declared_length: int | None = None  # never_ending: the Content-Length announced
    hold_s: float = 0.0  # never_ending: how long the connection is held open at most


def json_response(status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> Response:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return Response(status, body, [("Content-Type", JSON_TYPE), *(headers or [])])


def html_response(status: int, html: str, headers: list[tuple[str, str]] | None = None) -> Response:
    return Response(status, html.encode("utf-8"), [("Content-Type", HTML_TYPE), *(headers or [])])


def redirect(location: str) -> Response:
    return Response(302, b"", [("Location", location)])
