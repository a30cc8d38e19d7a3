#!/usr/bin/env python3
"""Check logged requests against Adobe's OpenAPI files (restApiV2.json, dcrApi.json), and REST
API V1 requests against the V1 endpoint table (aepass/v1/spec.py; Adobe has no V1 OpenAPI file).

    aepass-emulator validate LOG.jsonl [LOG2.jsonl ...] [--spec-dir DIR]
    python3 -m aepass.validate LOG.jsonl ...        (python3 Emulator/validate_requests.py: deprecated alias)

Exit status: 0 all requests valid, 1 some request invalid, 2 no API request found at all.
Importable: `validate_entries(entries) -> list[str]` (one line per problem).

Log entries are the emulator's (see README.md): method, path, query, headers, body, operation.
Page entries (`operation == "page"`) and control calls (`/_emulator/...`) are skipped.
JSON request bodies are checked with `jsonschema` (the `validate` extra: `pip install
'aepass-emulator[validate]'`), imported when the first JSON body is checked.

Errata applied (openapi/NOTICE.md): E8 logout requires `redirectUrl`; E9 profiles/sso requires
`AP-Partner-Framework-Status`; E13 configuration requires `AP-Device-Identifier` and
`X-Device-Info`; E11 register's `redirect_uri` is optional; E12 token parameters
may come as a form body instead of the query. A `client_secret` in a query string is a problem, and
so is an SSO token header (Adobe-Subject-Token, X-Roku-Reserved-Roku-Connect-Token,
AD-Service-Token) on a DCR request.

A connection warm-up, `HEAD /` of the service's origin (docs/DECISIONS.md "Warm connections": the SDK
sends it over HTTP/1.1 so a warmed connection stays usable), is not an Adobe operation: it is counted
apart and checked to carry nothing, no query, no body, no credential, device or SSO header.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

from .schemas import draft4_validator
from .v1.spec import request_problems as v1_request_problems
from .web import form_fields

SPEC_DIR = Path(__file__).resolve().parent / "openapi"
FORM_TYPE = "application/x-www-form-urlencoded"
TOKEN_OPERATION = "generateAccessTokenUsingPOST"
V1_PREFIXES = ("/api/v1/", "/reggie/v1/")
# Platform identity and service token SSO headers: never on DCR calls (the emulator flags them in its
# log too, `unexpected_sso_header`).
SSO_HEADERS = ("Adobe-Subject-Token", "X-Roku-Reserved-Roku-Connect-Token", "AD-Service-Token")
# Headers a warm-up must not carry: it is no API call, and it goes before Adobe knows the request.
WARM_UP_FORBIDDEN_HEADERS = ("authorization", "cookie", "ap-device-identifier", "x-device-info",
                             "ap-visitor-identifier", "ap-partner-framework-status",
                             *(name.lower() for name in SSO_HEADERS))
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Operation:
    """One OpenAPI operation, with the full path template (server base path included)."""

    template: str
    method: str  # upper case
    spec: dict[str, Any]
    document: dict[str, Any]  # the whole OpenAPI file, for $ref resolution
    parameters: tuple[dict[str, Any], ...]  # path-item + operation parameters, errata applied

    @property
    def operation_id(self) -> str:
        return self.spec.get("operationId", "")

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template)) + "$")

    @property
    def literal_segments(self) -> int:
        return sum(1 for s in self.template.split("/") if s and not s.startswith("{"))

    def resolve(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Follow a local `$ref` (one level is all these files use outside schemas)."""
        ref = obj.get("$ref")
        if not ref:
            return obj
        node: Any = self.document
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return node

    def schema_validator(self, schema: dict[str, Any]) -> Any:
        """A jsonschema Draft 4 validator whose `#/components/...` references resolve against this file."""
        return draft4_validator({**schema, "components": self.document.get("components", {})})


# --- loading -------------------------------------------------------------------------------

def _apply_errata(name: str, document: dict[str, Any]) -> dict[str, Any]:
    document = copy.deepcopy(document)
    if name == "dcrApi.json":  # E11
        schema = document["components"]["schemas"]["ClientRegistrationRequest"]
        schema["required"] = [r for r in schema.get("required", []) if r != "redirect_uri"]
    if name == "restApiV2.json":
        for path, method, param in (
            ("/{serviceProvider}/logout/{mvpd}", "get", "redirectUrl"),  # E8
            ("/{serviceProvider}/profiles/sso/{partner}", "post", "AP-Partner-Framework-Status"),  # E9
        ):
            for p in document["paths"][path][method]["parameters"]:
                if p["name"] == param:
                    p["required"] = True
        # E13: the configuration page and the Apple SSO cookbook (step C.1) require the device
        # headers; the file lists neither (Adobe's release 3.4.0 made them optional).
        configuration = document["paths"]["/{serviceProvider}/configuration"]["get"]["parameters"]
        for name in ("AP-Device-Identifier", "X-Device-Info"):
            if not any(p["name"] == name for p in configuration):
                configuration.append({"name": name, "in": "header", "required": True,
                                      "schema": {"type": "string"}})
    return document


def _base_path(document: dict[str, Any]) -> str:
    """"https://sp.auth.adobe.com/api/v2" -> "/api/v2"."""
    return urlsplit(document["servers"][0]["url"]).path.rstrip("/")


@lru_cache(maxsize=4)
def load_operations(spec_dir: str = str(SPEC_DIR)) -> tuple[Operation, ...]:
    operations: list[Operation] = []
    for name in ("restApiV2.json", "dcrApi.json"):
        raw = json.loads((Path(spec_dir) / name).read_text(encoding="utf-8"))
        document = _apply_errata(name, raw)
        base = _base_path(document)
        for path, item in document["paths"].items():
            shared = item.get("parameters", [])
            for method in HTTP_METHODS:
                if method in item:
                    spec = item[method]
                    operations.append(Operation(
                        template=base + path,
                        method=method.upper(),
                        spec=spec,
                        document=document,
                        parameters=tuple(shared) + tuple(spec.get("parameters", [])),
                    ))
    return tuple(operations)


def find_operation(method: str, path: str, spec_dir: str = str(SPEC_DIR)) -> tuple[Operation | None, bool]:
    """(operation, path_known): the most specific template matching `path`, for `method`."""
    candidates = [op for op in load_operations(spec_dir) if op.regex.match(path)]
    candidates.sort(key=lambda op: -op.literal_segments)
    for op in candidates:
        if op.method == method.upper():
            return op, True
    return None, bool(candidates)


# --- checks ---------------------------------------------------------------------------------

def is_api_entry(entry: dict[str, Any]) -> bool:
    path = entry.get("path") or ""
    return entry.get("operation") != "page" and not path.startswith("/_emulator/")


def is_warm_up(entry: dict[str, Any]) -> bool:
    """A connection warm-up: `HEAD /` (docs/DECISIONS.md "Warm connections"), no Adobe operation."""
    return entry.get("method") == "HEAD" and entry.get("path") == "/"


def _warm_up_problems(entry: dict[str, Any]) -> list[str]:
    headers = {k.lower() for k in (entry.get("headers") or {})}
    problems = [f"a warm-up carries {name!r}" for name in WARM_UP_FORBIDDEN_HEADERS if name in headers]
    if entry.get("query"):
        problems.append("a warm-up has a query string")
    if entry.get("body"):
        problems.append("a warm-up has a body")
    return problems


def _media_type(headers: dict[str, str]) -> str | None:
    value = headers.get("content-type")
    return value.split(";")[0].strip().lower() if value else None


def _form_problems(text: str, schema: dict[str, Any], op: Operation) -> list[str]:
    schema = op.resolve(schema)
    properties = schema.get("properties", {})
    parsed = form_fields(text)
    problems = [f"form parameter {k!r} is not in the schema" for k in parsed if k not in properties]
    problems += [f"form parameter {k!r} is repeated" for k, v in parsed.items() if len(v) > 1]
    problems += [f"required form parameter {k!r} is missing" for k in schema.get("required", [])
                 if not parsed.get(k, [""])[0]]
    return problems


def _json_problems(text: str, schema: dict[str, Any], op: Operation) -> list[str]:
    try:
        body = json.loads(text)
    except ValueError as error:
        return [f"body is not JSON ({error})"]
    return [f"body: {e.message} (at /{'/'.join(map(str, e.absolute_path))})"
            for e in op.schema_validator(schema).iter_errors(body)]


def _body_problems(entry: dict[str, Any], op: Operation, headers: dict[str, str]) -> list[str]:
    body = entry.get("body") or ""
    request_body = op.spec.get("requestBody")
    media = _media_type(headers)
    if request_body is None:
        if op.operation_id == TOKEN_OPERATION and body:  # E12: parameters in a form body
            if media != FORM_TYPE:
                return [f"the token body must be {FORM_TYPE}, not {media}"]
            names = {p["name"] for p in op.parameters if p["in"] == "query"}
            return _form_problems(body, {"properties": {n: {"type": "string"} for n in names}}, op)
        return ["the operation takes no request body, but one was sent"] if body else []
    if not body:
        return ["a request body is required"] if request_body.get("required") else []
    content = request_body.get("content", {})
    if media not in content:
        return [f"body media type {media!r} is not one of {sorted(content)}"]
    schema = content[media].get("schema", {})
    if media == FORM_TYPE:
        return _form_problems(body, schema, op)
    if media == "application/json":
        return _json_problems(body, schema, op)
    return []


def _parameter_problems(entry: dict[str, Any], op: Operation, headers: dict[str, str],
                        query: dict[str, list[str]]) -> list[str]:
    problems: list[str] = []
    form = form_fields(entry.get("body") or "") if op.operation_id == TOKEN_OPERATION else {}
    declared_query = {p["name"] for p in op.parameters if p["in"] == "query"}
    problems += [f"query parameter {k!r} is not declared" for k in query if k not in declared_query]
    for param in op.parameters:
        if not param.get("required"):
            continue
        name, where = param["name"], param["in"]
        if where == "header" and not headers.get(name.lower()):
            problems.append(f"required header {name!r} is missing")
        elif where == "query" and not query.get(name, [""])[0] and not form.get(name, [""])[0]:
            problems.append(f"required query parameter {name!r} is missing")
    return problems


def validate_entry(entry: dict[str, Any], spec_dir: str = str(SPEC_DIR)) -> list[str]:
    """Problems of one logged request (empty when valid or not an API request)."""
    if not is_api_entry(entry):
        return []
    method, path = entry.get("method", ""), entry.get("path", "")
    label = f"#{entry.get('seq', '?')} {method} {path}"
    if is_warm_up(entry):
        return [f"{label} [warm-up]: {p}" for p in _warm_up_problems(entry)]
    if path.startswith(V1_PREFIXES):  # no OpenAPI file for V1: Adobe's documented parameters
        headers = {k.lower(): v for k, v in (entry.get("headers") or {}).items()}
        problems = v1_request_problems(method, path, entry.get("query") or "", headers, entry.get("body") or "")
        return [f"{label} {p}" for p in problems]
    op, path_known = find_operation(method, path, spec_dir)
    if op is None:
        reason = "method not allowed by" if path_known else "no path in"
        return [f"{label}: {reason} the OpenAPI files"]
    headers = {k.lower(): v for k, v in (entry.get("headers") or {}).items()}
    query = form_fields(entry.get("query") or "")
    problems = _parameter_problems(entry, op, headers, query)
    if "client_secret" in query:
        problems.append("client_secret is sent in the query string (secrets must go in the body)")
    if path.startswith("/o/"):  # DCR defines no SSO header (dcrApi.json): a token sent there leaks
        problems += [f"SSO header {name!r} is sent to a DCR endpoint" for name in SSO_HEADERS
                     if headers.get(name.lower())]
    problems += _body_problems(entry, op, headers)
    return [f"{label} [{op.operation_id}]: {p}" for p in problems]


def validate_entries(entries: Iterable[dict[str, Any]], spec_dir: str = str(SPEC_DIR)) -> list[str]:
    return [problem for entry in entries for problem in validate_entry(entry, spec_dir)]


def read_log(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The validator's command line; returns the exit status."""
    if prog is None and __name__ == "__main__":  # python3 -m aepass.validate
        prog = "python3 -m aepass.validate"
    parser = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").splitlines()[0])
    parser.add_argument("logs", nargs="+", help="JSONL request logs written by the emulator")
    parser.add_argument("--spec-dir", default=str(SPEC_DIR), help="folder with the OpenAPI files")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    entries = [e for path in args.logs for e in read_log(path) if is_api_entry(e)]
    warm_ups = [e for e in entries if is_warm_up(e)]
    api_entries = [e for e in entries if not is_warm_up(e)]
    if not api_entries:
        print("no API requests found in " + ", ".join(args.logs))
        return 2
    invalid = 0
    for entry in entries:
        problems = validate_entry(entry, args.spec_dir)
        invalid += bool(problems)
        for problem in problems:
            print(problem)
    print(f"{len(api_entries)} API requests checked, {len(warm_ups)} connection warm-ups (HEAD /, "
          f"no Adobe operation), {invalid} invalid")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
