"""REST API V1 answers: the response format (JSON or XML), rendering, and the legacy error body.

The format is chosen by ONE of: the `Accept` header, the `format` parameter, or a `.json` /
`.xml` path suffix (rest-api-v1.md §2.1). XML is the default. Selectors that disagree are a
400. Error bodies are V1's legacy shape, `{"status", "message", "details"}` /
`<error><status/><message/><details/></error>` (Enhanced Error Codes are opt-in at Adobe and
not emulated for V1, except inside preauthorize items, where Adobe documents them).
"""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import escape

from ..errors import HttpError
from ..web import JSON_TYPE, Request, Response, form_fields

JSON, XML = "json", "xml"
XML_TYPE = "application/xml;charset=UTF-8"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
_ACCEPTED = {"application/json": JSON, "application/xml": XML, "text/xml": XML}


class V1Error(HttpError):
    """A V1 error, answered in the request's format (set by the handler wrapper)."""

    def __init__(self, status: int, message: str, details: str | None = None) -> None:
        super().__init__(f"{status} {message}" + (f": {details}" if details else ""))
        self.status = status
        self.message = message
        self.details = details
        self.fmt = XML

    def response(self) -> Response:
        message = self.message
        if self.fmt == XML and message == "Not Found":
            message = "Not found"  # Adobe's XML samples say "Not found", the JSON ones "Not Found"
        return render(self.status, {"status": self.status, "message": message, "details": self.details},
                      self.fmt, "error")


def missing(name: str) -> V1Error:
    return V1Error(400, f"Required '{name}' is not present")


def bad_request(details: str) -> V1Error:
    return V1Error(400, "Bad Request", details)


def _accept_formats(req: Request) -> list[str]:
    accept = req.header("Accept") or ""
    ranges = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    return list(dict.fromkeys(_ACCEPTED[r] for r in ranges if r in _ACCEPTED))


def response_format(req: Request) -> str:
    """JSON or XML, from the path suffix, the `format` parameter, or Accept; XML by default."""
    explicit: list[str] = []
    if req.path_params.get("_format"):
        explicit.append(req.path_params["_format"])
    sources = [req.query]
    if req.media_type() == "application/x-www-form-urlencoded":
        sources.append(req.text())
    for source in sources:
        for value in form_fields(source).get("format", []):
            if value not in (JSON, XML):
                raise bad_request(f"format must be json or xml, not {value!r}")
            explicit.append(value)
    accepted = _accept_formats(req)
    if len(set(explicit)) > 1 or (explicit and accepted and explicit[0] not in accepted):
        raise bad_request("the path suffix, the format parameter and Accept ask for different formats")
    if explicit:
        return explicit[0]
    return accepted[0] if accepted else XML


def _xml(tag: str, value: Any) -> str:
    """dict -> child elements; list -> repeated children named by the singular of `tag`
    (`mvpds` -> `mvpd`; `value` when `tag` has no plural s); None -> left out."""
    name = tag.split(" ")[0]
    if value is None:
        return ""
    if isinstance(value, dict):
        inner = "".join(_xml(k, v) for k, v in value.items())
    elif isinstance(value, list):
        item = name[:-1] if name.endswith("s") and len(name) > 1 else "value"
        inner = "".join(_xml(item, v) for v in value)
    elif isinstance(value, bool):
        inner = "true" if value else "false"
    else:
        inner = escape(str(value))
    return f"<{tag}>{inner}</{name}>"


def render(status: int, payload: Any, fmt: str, root: str, headers: list[tuple[str, str]] | None = None,
           ) -> Response:
    """`payload` as JSON, or as XML under the element `root` (which may carry attributes)."""
    if fmt == JSON:
        body = json.dumps(payload, separators=(",", ":"))
        return Response(status, body.encode("utf-8"), [("Content-Type", JSON_TYPE), *(headers or [])])
    name = root.split(" ")[0]
    if isinstance(payload, dict) and list(payload) == [name]:  # {"resources": [...]} -> <resources>
        payload = payload[name]
    body = XML_DECLARATION + _xml(root, payload)
    return Response(status, body.encode("utf-8"), [("Content-Type", XML_TYPE), *(headers or [])])


def no_content() -> Response:
    return Response(204)
