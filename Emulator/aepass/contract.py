"""Check emulator responses against the OpenAPI response schemas (test support).

`response_problems(method, path, status, headers, body)` is importable by anyone testing against
the emulator (`aepass.testing.answer_problems` wraps it); REST API V1 answers are checked by
`aepass.v1.contract`. JSON is checked with `jsonschema` (the `validate` extra), imported lazily.

Errata applied (openapi/NOTICE.md): E1 attribute `value` may be any JSON type; E2 error
`message` is a string; E3 profiles/sso may answer 201; E4 the authenticate 302 has no body
and its errors are text/html; E5/E6 documented 403 top-level errors of profiles/{mvpd},
profiles/code and decisions; E7 429 is text/html; E10 DCR 400 bodies are {"error": "<code>"}.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .errors import CODES, UNNAMED
from .schemas import draft4_validator
from .v1.contract import v1_response_problems
from .validate import V1_PREFIXES, find_operation

JSON_CONTENT_TYPE = "application/json;charset=UTF-8"
EEC_FIELDS = ("action", "status", "code", "message", "helpUrl", "trace")
# Failures Adobe's code list names no code for (a malformed request, a wrong method, an unknown
# path) are answered without `code`: recognised by their message.
UNNAMED_MESSAGES = {CODES[name].message: CODES[name].status for name in UNNAMED}
ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorInformation"}
DCR_ERROR_SCHEMA = {
    "type": "object",
    "properties": {"error": {"type": "string"}},
    "required": ["error"],
    "additionalProperties": False,
}
EXTRA_403 = {  # E5, E6
    "getProfileForMvpdUsingGET", "getProfileForCodeUsingGET_1",
    "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1", "retrieveAuthorizeDecisionsForMvpdUsingPOST",
}


_COMPONENTS: dict[int, dict[str, Any]] = {}  # by id() of the loaded (never freed) OpenAPI document


def _components(document: dict[str, Any]) -> dict[str, Any]:
    key = id(document)
    if key not in _COMPONENTS:
        components = copy.deepcopy(document.get("components", {}))
        schemas = components.get("schemas", {})
        if "UserMetadataResponse" in schemas:  # E1
            schemas["UserMetadataResponse"]["properties"]["value"] = {}
        if "ErrorInformation" in schemas:  # E2
            schemas["ErrorInformation"]["properties"]["message"] = {"type": "string"}
        _COMPONENTS[key] = components
    return _COMPONENTS[key]


def _schema_problems(schema: dict[str, Any], document: dict[str, Any], payload: Any) -> list[str]:
    components = _components(document)
    validator = draft4_validator({**schema, "components": components})
    return [f"{e.message} (at /{'/'.join(map(str, e.absolute_path))})"
            for e in validator.iter_errors(payload)]


def _expected_schema(op: Any, status: int) -> dict[str, Any] | None:
    """The JSON schema of `status` for `op`, or None when the status is not documented."""
    responses = op.spec.get("responses", {})
    if op.operation_id == "createPartnerProfileUsingPOST" and status == 201:  # E3
        status = 200
    if status == 403 and op.operation_id in EXTRA_403:
        return ERROR_SCHEMA
    if op.template.startswith("/o/") and status == 400:  # E10
        return DCR_ERROR_SCHEMA
    if status == 405:
        return ERROR_SCHEMA
    documented = responses.get(str(status))
    if documented is None:
        return None
    content = documented.get("content", {}).get("application/json")
    return content.get("schema", {}) if content else {}


def response_problems(method: str, path: str, status: int, headers: dict[str, str], body: bytes) -> list[str]:
    """Problems of one emulator answer to an API request (headers keyed in lower case)."""
    content_type = headers.get("content-type", "")
    if status == 429:  # E7
        ok = content_type.startswith("text/html") and b"429 Too Many Requests" in body
        ok = ok and headers.get("retry-after") == "1"
        return [] if ok else ["429 must be text/html with Retry-After: 1"]
    if path.startswith(V1_PREFIXES):
        return v1_response_problems(method, path, status, headers, body)
    op, path_known = find_operation(method, path)
    if op is None:
        expected = 405 if path_known else 404
        if status != expected:
            return [f"expected {expected} for an undocumented request, got {status}"]
        return []
    if op.operation_id == "startAuthenticationUsingGET":  # E4
        if status == 302:
            return [] if headers.get("location") and not body else ["302 needs a Location and no body"]
        return [] if content_type.startswith("text/html") else [f"{status} must be text/html"]
    schema = _expected_schema(op, status)
    if schema is None:
        return [f"status {status} is not documented for {op.operation_id}"]
    if content_type != JSON_CONTENT_TYPE:
        return [f"Content-Type is {content_type!r}, expected {JSON_CONTENT_TYPE!r}"]
    try:
        payload = json.loads(body)
    except ValueError:
        return ["the body is not JSON"]
    problems = _schema_problems(schema, op.document, payload)
    if schema is ERROR_SCHEMA or (status >= 400 and not op.template.startswith("/o/")):
        problems += _eec_problems(payload, status)
    return problems


def _eec_problems(payload: Any, status: int) -> list[str]:
    if not isinstance(payload, dict):
        return ["an error body must be an object"]
    unnamed = UNNAMED_MESSAGES.get(payload.get("message")) == status
    problems = [f"error field {f!r} is missing" for f in EEC_FIELDS
                if f not in payload and not (f == "code" and unnamed)]
    if payload.get("status") != status:
        problems.append(f"error status {payload.get('status')} differs from HTTP {status}")
    return problems
