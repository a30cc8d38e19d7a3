"""Check emulator answers to REST API V1 requests (test support; there is no V1 OpenAPI file).

Statuses must be the endpoint page's (aepass/v1/spec.py) or a common one (400, DCR's 401/403,
405, 429); bodies must parse in the format they declare; error bodies must be V1's legacy shape
(`status` equal to the HTTP status, a `message`) or DCR's `{"error"}`; success bodies must carry
the fields of Adobe's samples, with their types (`expires` a string on tokens, a number on
registration records).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from typing import Any

from .spec import COMMON_STATUSES, find_endpoint

# operation -> (JSON fields of a 200/201 answer, XML root element)
SUCCESS_SHAPES: dict[str, tuple[dict[str, type | tuple[type, ...]], str]] = {
    "v1RegistrationCodeRequest": ({"id": str, "code": str, "requestor": str, "generated": int, "expires": int,
                                   "info": dict}, "{model.mvc.reggie.pass.adobe.com}regcode"),
    "v1ProvideMvpdList": ({"requestor": dict}, "config"),
    "v1RetrieveAuthenticationToken": ({"requestor": str, "mvpd": str, "userId": str, "expires": str},
                                      "authentication"),
    "v1InitiateAuthorization": ({"requestor": str, "mvpd": str, "resource": str, "expires": str}, "authorization"),
    "v1ObtainShortMediaToken": ({"requestor": str, "mvpdId": str, "resource": str, "expires": str,
                                 "serializedToken": str, "userId": str}, "play"),
    "v1Preauthorize": ({"resources": list}, "resources"),
    "v1UserMetadata": ({"updated": int, "encrypted": list, "data": dict}, "metadata"),
}
SUCCESS_SHAPES["v1ReturnRegistrationRecord"] = SUCCESS_SHAPES["v1RegistrationCodeRequest"]
SUCCESS_SHAPES["v1RetrieveAuthenticationTokenByCode"] = SUCCESS_SHAPES["v1RetrieveAuthenticationToken"]
SUCCESS_SHAPES["v1RetrieveAuthorizationToken"] = SUCCESS_SHAPES["v1InitiateAuthorization"]
SUCCESS_SHAPES["v1PreauthorizeBySecondScreen"] = SUCCESS_SHAPES["v1Preauthorize"]
EMPTY_SUCCESS = {"v1CheckAuthnBySecondScreen", "v1CheckAuthenticationToken"}


def _parsed(content_type: str, body: bytes) -> tuple[str, Any] | str:
    """("json", value) / ("xml", root element), or a problem."""
    if content_type == "application/json;charset=UTF-8":
        try:
            return "json", json.loads(body)
        except ValueError:
            return "the body is not JSON"
    if content_type == "application/xml;charset=UTF-8":
        try:
            return "xml", ElementTree.fromstring(body)
        except ElementTree.ParseError:
            return "the body is not XML"
    return f"unexpected Content-Type {content_type!r}"


def _error_problems(kind: str, value: Any, status: int) -> list[str]:
    if kind == "json" and isinstance(value, dict) and set(value) == {"error"} and status in (400, 401, 403):
        return []  # DCR
    if kind == "json":
        ok = isinstance(value, dict) and value.get("status") == status and isinstance(value.get("message"), str)
        return [] if ok else [f"not a V1 error body with status {status}: {value!r}"]
    ok = value.tag == "error" and value.findtext("status") == str(status) and value.findtext("message")
    return [] if ok else [f"not a V1 XML error with status {status}"]


def _success_problems(operation: str, kind: str, value: Any) -> list[str]:
    shape = SUCCESS_SHAPES.get(operation)
    if shape is None:
        return []
    fields, root = shape
    if kind == "xml":
        return [] if value.tag == root else [f"XML root is {value.tag!r}, expected {root!r}"]
    if not isinstance(value, dict):
        return ["a success body must be a JSON object"]
    return [f"field {name!r} must be {kind_.__name__ if isinstance(kind_, type) else kind_}"
            for name, kind_ in fields.items() if not isinstance(value.get(name), kind_)
            or isinstance(value.get(name), bool)]


def v1_response_problems(method: str, path: str, status: int, headers: dict[str, str], body: bytes) -> list[str]:
    endpoint, path_known = find_endpoint(method, path)
    if endpoint is None:
        expected = 405 if path_known else 404
        return [] if status == expected else [f"expected {expected} for an undocumented request, got {status}"]
    if status not in endpoint.statuses + COMMON_STATUSES:
        return [f"status {status} is not documented for {endpoint.operation}"]
    if status == 302:
        return [] if headers.get("location") and not body else ["302 needs a Location and no body"]
    if status == 204 or (status == 200 and endpoint.operation in EMPTY_SUCCESS):
        return [] if not body else [f"{status} must have no body"]
    content_type = headers.get("content-type", "")
    if endpoint.operation == "v1RetrieveProfileRequest" and status == 200:
        return [] if content_type == "application/octet-stream" and body else ["200 must be a non-empty octet-stream"]
    parsed = _parsed(content_type, body)
    if isinstance(parsed, str):
        return [parsed]
    kind, value = parsed
    if status >= 400:
        return _error_problems(kind, value, status)
    return _success_problems(endpoint.operation, kind, value)
