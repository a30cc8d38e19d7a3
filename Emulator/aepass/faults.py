"""Fault injection: make chosen API requests fail the way real networks and servers do.

Configured with `POST /_emulator/faults {"faults": [fault, ...]}` (replaces the list; `[]` clears
it) and read back with `GET /_emulator/faults`; `POST /_emulator/reset` clears it. A fault:

    {"operation": "<OpenAPI operationId>" | "*",   # "*": every API request (/api/v2/*, /o/client/*)
     "requests": [n, ...],                         # optional: the n-th matching requests (1-based,
                                                   # counted since the list was set); omitted: all
     "kind": "<kind>", ...kind parameters}

The pipeline (`App._answer`) asks `FaultSet.select` for each API request that passed the
throttle: every fault whose operation matches counts the request, and the first one (in list
order) whose `requests` include that count is applied by `apply`. Kinds and their parameters are
in `KINDS`; README.md describes each.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .errors import CODES, HELP_URL
from .throttle import TOO_MANY_REQUESTS_HTML
from .web import HTML_TYPE, JSON_TYPE, Response, json_response

if TYPE_CHECKING:
    from .state import State

MIB = 1 << 20
DECISIONS_OPERATIONS = (
    "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1",
    "retrieveAuthorizeDecisionsForMvpdUsingPOST",
)

# Adobe codes a fault is likely to inject that the emulator never answers by itself:
# (action, HTTP status, message), from Adobe's Enhanced Error Codes list.
EXTRA_CODES: dict[str, tuple[str, int, str]] = {
    "network_connection_timeout": (
        "retry", 403, "There was a connection timeout with the associated partner service."),
    "network_received_error": (
        "retry", 403, "There was a read error when retrieving the response from the associated partner service."),
    "maximum_execution_time_exceeded": (
        "retry", 403, "The request did not complete in the maximum allowed time."),
    "authorization_denied_by_parental_controls": (
        "none", 403, "The MVPD has returned a \"Deny\" decision due to parental control settings."),
    "temporarily_unavailable": ("retry", 503, "The service is temporarily unavailable."),
}

HTML_503 = (
    "<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head><body>"
    "<center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center>"
    "</body></html>"
)


class FaultError(ValueError):
    """A fault description is invalid (answered 400 by the control API)."""


# --- parameter checks ----------------------------------------------------------------------------

def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _integer(low: int, high: int | None = None) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return (isinstance(value, int) and not isinstance(value, bool) and value >= low
                and (high is None or value <= high))
    return check


def _string(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _any_body(value: Any) -> bool:
    return isinstance(value, (str, dict, list))


_STATUS = (_integer(100, 599), "an HTTP status (100-599)")
_CODE = (_string, "a non-empty string")

# kind -> {parameter: (check, description, default)}; a default of REQUIRED must be given.
REQUIRED = object()
KINDS: dict[str, dict[str, tuple[Callable[[Any], bool], str, Any]]] = {
    "latency": {"ms": (_number, "a number of milliseconds >= 0", REQUIRED)},
    "status": {"status": (*_STATUS, REQUIRED),
               "body": (_any_body, "a string or a JSON object/array", None),
               "content_type": (_CODE[0], "a media type", None),
               "retry_after": (_integer(0), "an integer number of seconds >= 0", None)},
    "throttle": {"retry_after": (_integer(0), "an integer number of seconds >= 0", 1)},
    "malformed_json": {"body": (_string, "a non-empty string", '{"profiles": {')},
    "truncated_json": {},
    "wrong_content_type": {"content_type": (_string, "a media type", "text/plain")},
    "html_error": {"status": (*_STATUS, 503)},
    "oversized": {"bytes": (_integer(16), "an integer >= 16", 8 * MIB)},
    "reset_mid_body": {},
    "never_ending": {"hold_s": (lambda v: _number(v) and v > 0, "a number of seconds > 0", 120),
                     "content_length": (_integer(1, 1 << 40), "an integer >= 1", 64 * 1024)},
    "expire_access_token": {},
    "enhanced_error": {"status": (*_STATUS, None), "code": (*_CODE, REQUIRED),
                       "action": (*_CODE, None), "message": (*_CODE, None), "details": (*_CODE, None)},
    "item_error": {"status": (*_STATUS, None), "code": (*_CODE, REQUIRED),
                   "action": (*_CODE, None), "message": (*_CODE, None), "details": (*_CODE, None)},
}
COMMON_KEYS = ("operation", "requests", "kind")


@dataclass
class Fault:
    spec: dict[str, Any]  # normalized: operation, requests (or None), kind, every kind parameter
    matched: int = 0
    applied: int = 0

    @property
    def kind(self) -> str:
        return self.spec["kind"]

    def to_json(self) -> dict[str, Any]:
        spec = {k: v for k, v in self.spec.items() if v is not None}
        return {**spec, "matched": self.matched, "applied": self.applied}


def parse_fault(raw: Any, operations: set[str]) -> Fault:
    """Checks one fault description and fills in the defaults of its kind."""
    if not isinstance(raw, dict):
        raise FaultError("a fault must be a JSON object")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise FaultError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    operation = raw.get("operation")
    if operation != "*" and operation not in operations:
        raise FaultError(f"operation must be \"*\" or an API operationId ({', '.join(sorted(operations))}); "
                         f"got {operation!r}")
    if kind == "item_error" and operation not in DECISIONS_OPERATIONS:
        raise FaultError(f"item_error applies to the decisions operations only ({', '.join(DECISIONS_OPERATIONS)})")
    requests = raw.get("requests")
    if requests is not None and not (isinstance(requests, list) and requests
                                     and all(_integer(1)(n) for n in requests)):
        raise FaultError("requests must be a non-empty list of integers >= 1 (1-based request counts)")
    parameters = KINDS[kind]
    unknown = set(raw) - set(COMMON_KEYS) - set(parameters)
    if unknown:
        raise FaultError(f"unknown key(s) for kind {kind}: {', '.join(sorted(unknown))}")
    spec: dict[str, Any] = {"operation": operation, "requests": requests, "kind": kind}
    for name, (check, expected, default) in parameters.items():
        if name in raw:
            if not check(raw[name]):
                raise FaultError(f"{kind}.{name} must be {expected}")
            spec[name] = copy.deepcopy(raw[name])
        elif default is REQUIRED:
            raise FaultError(f"{kind} needs {name} ({expected})")
        else:
            spec[name] = default
    if kind in ("enhanced_error", "item_error"):
        _fill_error_defaults(spec)
    return Fault(spec)


def _fill_error_defaults(spec: dict[str, Any]) -> None:
    """status/action/message of a known code default to Adobe's; unknown codes need status and action."""
    code = spec["code"]
    known: tuple[str, int, str] | None = None
    if code in CODES:
        known = (CODES[code].action, CODES[code].status, CODES[code].message)
    elif code in EXTRA_CODES:
        known = EXTRA_CODES[code]
    if known is None and (spec["status"] is None or spec["action"] is None):
        raise FaultError(f"{spec['kind']} with the unknown code {code!r} needs status and action")
    action, status, message = known or (spec["action"], spec["status"], f"Injected error {code}.")
    spec["action"] = spec["action"] or action
    spec["status"] = spec["status"] or status
    spec["message"] = spec["message"] or message


class FaultSet:
    """The configured faults and their counters (guarded by `State.lock`)."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []

    def replace(self, raw: Any, operations: set[str]) -> None:
        if not isinstance(raw, list):
            raise FaultError('expected {"faults": [fault, ...]}')
        self.faults = [parse_fault(item, operations) for item in raw]

    def clear(self) -> None:
        self.faults = []

    def to_json(self) -> list[dict[str, Any]]:
        return [fault.to_json() for fault in self.faults]

    def select(self, operation: str | None) -> Fault | None:
        """Counts the request against every matching fault; the one to apply, if any. The caller
        counts `applied` once the fault has changed the answer (`item_error` may not)."""
        chosen: Fault | None = None
        for fault in self.faults:
            if fault.spec["operation"] not in ("*", operation):
                continue
            fault.matched += 1
            wanted = fault.spec["requests"]
            if chosen is None and (wanted is None or fault.matched in wanted):
                chosen = fault
        return chosen


# --- applying a fault --------------------------------------------------------------------------------

def error_body(spec: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"action": spec["action"], "status": spec["status"], "code": spec["code"],
                            "message": spec["message"]}
    if spec.get("details"):
        body["details"] = spec["details"]
    body["helpUrl"] = HELP_URL
    body["trace"] = str(uuid.uuid4())
    return body


def _faulted(response: Response, kind: str) -> Response:
    response.fault = kind
    return response


def apply(spec: dict[str, Any], state: "State", run: Callable[[], Response], sleep: Callable[[float], None],
          ) -> Response:
    """The answer to a request that `spec` applies to. `run` produces the correct answer."""
    kind = spec["kind"]
    if kind == "latency":
        sleep(spec["ms"] / 1000)
        return _faulted(run(), kind)
    if kind == "expire_access_token":
        with state.lock:
            for token in state.tokens.values():
                token.revoked = True
        return _faulted(run(), kind)
    if kind == "status":
        response = _status_answer(spec)
        if spec["retry_after"] is not None:
            response.headers.append(("Retry-After", str(spec["retry_after"])))
        return _faulted(response, kind)
    if kind == "throttle":
        headers = [("Content-Type", HTML_TYPE), ("Retry-After", str(spec["retry_after"]))]
        return _faulted(Response(429, TOO_MANY_REQUESTS_HTML.encode(), headers), kind)
    if kind == "malformed_json":
        return _faulted(Response(200, spec["body"].encode(), [("Content-Type", JSON_TYPE)]), kind)
    if kind == "html_error":
        return _faulted(Response(spec["status"], HTML_503.encode(), [("Content-Type", HTML_TYPE)]), kind)
    if kind == "oversized":
        prefix, suffix = b'{"padding":"', b'"}'
        body = prefix + b"x" * (spec["bytes"] - len(prefix) - len(suffix)) + suffix
        return _faulted(Response(200, body, [("Content-Type", JSON_TYPE)]), kind)
    if kind == "enhanced_error":
        return _faulted(json_response(spec["status"], error_body(spec)), kind)
    if kind == "never_ending":
        response = Response(200, b'{"', [("Content-Type", JSON_TYPE)])
        response.transport = "never_ending"
        response.declared_length = spec["content_length"]
        response.hold_s = spec["hold_s"]
        return _faulted(response, kind)
    correct = run()
    if kind == "truncated_json":
        correct.body = correct.body[: len(correct.body) // 2]
        return _faulted(correct, kind)
    if kind == "wrong_content_type":
        correct.headers = [(k, v) for k, v in correct.headers if k.lower() != "content-type"]
        correct.headers.append(("Content-Type", spec["content_type"]))
        return _faulted(correct, kind)
    if kind == "reset_mid_body":
        correct.transport = "reset_mid_body"
        return _faulted(correct, kind)
    if kind == "item_error":
        return _item_error(spec, correct)
    raise AssertionError(f"unhandled fault kind {kind}")


def _status_answer(spec: dict[str, Any]) -> Response:
    status, body = spec["status"], spec["body"]
    if body is None:
        default = {"code": "internal_server_error", "status": status,
                   "action": "retry" if status >= 500 else "none",
                   "message": CODES["internal_server_error"].message}
        return json_response(status, error_body(default))
    if isinstance(body, str):
        return Response(status, body.encode(), [("Content-Type", spec["content_type"] or "text/plain;charset=UTF-8")])
    response = json_response(status, body)
    if spec["content_type"]:
        response.headers = [("Content-Type", spec["content_type"])]
    return response


def _item_error(spec: dict[str, Any], correct: Response) -> Response:
    """Every decision denied with the configured item-level error (a non-200 answer passes unchanged)."""
    if correct.status != 200:
        return correct
    try:
        payload = json.loads(correct.body)
    except ValueError:
        return correct
    if not isinstance(payload, dict) or not isinstance(payload.get("decisions"), list):
        return correct
    for decision in payload["decisions"]:
        decision.pop("token", None)
        decision["authorized"] = False
        decision["error"] = error_body(spec)
    return _faulted(json_response(200, payload), "item_error")

