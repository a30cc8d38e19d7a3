"""Transport-neutral request and response values, and response builders."""

from __future__ import annotations

import json
import re
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
    local_address: str  # "host:port" the client's connection reached, when Host is absent
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
        """`scheme://host[:port]` as the client reached the emulator, for the absolute URLs it hands
        out (logos, the login redirect, logout pages): behind a proxy or TLS front, the first value of
        X-Forwarded-Proto and X-Forwarded-Host, else of RFC 7239 Forwarded's proto= and host=; else
        http and the Host header; else the address the connection reached. A scheme other than http or
        https, or a host that is not a host name or address with an optional port, is ignored."""
        forwarded = _forwarded_first(self.header("Forwarded"))
        scheme = (_first(self.header("X-Forwarded-Proto")) or forwarded.get("proto") or "").lower()
        if scheme not in ("http", "https"):
            scheme = "http"
        for host in (_first(self.header("X-Forwarded-Host")), forwarded.get("host"), self.header("Host")):
            if host and _HOST.fullmatch(host):
                return f"{scheme}://{host}"
        return f"{scheme}://{self.local_address}"

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


# A Host value: a name or IPv4 address, or a bracketed IPv6 address, and an optional port.
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def _first(value: str | None) -> str | None:
    """The first of a comma-separated header value (the client-side proxy's), stripped; None if empty."""
    first = value.split(",")[0].strip() if value else ""
    return first or None


def _forwarded_first(value: str | None) -> dict[str, str]:
    """The parameters of the first element of an RFC 7239 Forwarded header, names lower-cased and
    quotes removed: `for=192.0.2.1;proto=https;host="tv.example:8443", for=...` -> {"for": ..., ...}."""
    params: dict[str, str] = {}
    for pair in (_first(value) or "").split(";"):
        name, sep, text = pair.partition("=")
        if sep:
            params[name.strip().lower()] = text.strip().strip('"')
    return params


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
