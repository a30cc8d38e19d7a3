"""Tests of validate_requests.py with hand-made log entries: every check passes a good
entry and fails a bad one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from validate_requests import validate_entries, validate_entry

VALIDATOR = Path(__file__).resolve().parents[2] / "Emulator" / "validate_requests.py"
AUTH = {"Authorization": "Bearer token"}
DEVICE = {"AP-Device-Identifier": "fingerprint dHYtMQ==", "X-Device-Info": "eyJtb2RlbCI6IngifQ=="}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
JSON_CT = {"Content-Type": "application/json;charset=utf-8"}


def entry(method: str, path: str, headers: dict[str, str] | None = None, body: str | None = None,
          query: str = "", operation: str | None = "x") -> dict[str, Any]:
    return {"seq": 1, "method": method, "path": path, "query": query, "headers": headers or {},
            "body": body, "operation": operation, "status": 200}


GOOD = {
    "register": entry("POST", "/o/client/register", {**JSON_CT, "X-Device-Info": "e30="},
                      '{"software_statement": "a.b.c", "redirect_uri": "app://x"}'),
    "token": entry("POST", "/o/client/token", FORM,
                   "client_id=a&client_secret=b&grant_type=client_credentials"),
    "configuration": entry("GET", "/api/v2/REF30/configuration", {**AUTH, **DEVICE}),
    "session": entry("POST", "/api/v2/REF30/sessions", {**AUTH, **DEVICE, **FORM},
                     "mvpd=Cablevision&domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com"),
    "resume": entry("POST", "/api/v2/REF30/sessions/ABC1234", {**AUTH, **FORM}, ""),
    "authenticate": entry("GET", "/api/v2/authenticate/REF30/ABC1234"),
    "profiles": entry("GET", "/api/v2/REF30/profiles", {**AUTH, **DEVICE}),
    "profile_code": entry("GET", "/api/v2/REF30/profiles/code/ABC1234", AUTH),
    "authorize": entry("POST", "/api/v2/REF30/decisions/authorize/Cablevision", {**AUTH, **DEVICE, **JSON_CT},
                       '{"resources": ["REF30"]}'),
    "logout": entry("GET", "/api/v2/REF30/logout/Cablevision", {**AUTH, **DEVICE},
                    query="redirectUrl=https%3A%2F%2Fadobe.com"),
    "partner_session": entry("POST", "/api/v2/REF30/sessions/sso/Apple",
                             {**AUTH, **DEVICE, **FORM, "AP-Partner-Framework-Status": "e30="},
                             "domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com"),
    "partner_profile": entry("POST", "/api/v2/REF30/profiles/sso/Apple",
                             {**AUTH, **DEVICE, **FORM, "AP-Partner-Framework-Status": "e30="},
                             "SAMLResponse=abc"),
}


def problems_of(e: dict[str, Any]) -> str:
    return "\n".join(validate_entry(e))


def with_headers(name: str, **changes: str | None) -> dict[str, Any]:
    headers = {k: v for k, v in GOOD[name]["headers"].items() if k not in changes}
    headers.update({k: v for k, v in changes.items() if v is not None})
    return {**GOOD[name], "headers": headers}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_entries_pass(name: str) -> None:
    assert validate_entry(GOOD[name]) == []


def test_pages_and_control_calls_are_skipped() -> None:
    assert validate_entries([
        entry("POST", "/_emulator/mvpd/login", body="code=X", operation="page"),
        entry("GET", "/adobe-services/logout", operation="page"),
        entry("POST", "/_emulator/reset", operation=None),
    ]) == []


def test_unknown_path_and_wrong_method() -> None:
    assert "no path in the OpenAPI files" in problems_of(entry("GET", "/api/v2/REF30/nothing"))
    assert "no path in the OpenAPI files" in problems_of(entry("GET", "/api/v2/REF30/configuration/"))
    assert "method not allowed" in problems_of(entry("DELETE", "/api/v2/REF30/profiles", AUTH))
    assert "method not allowed" in problems_of(entry("POST", "/api/v2/authenticate/REF30/ABC1234"))


@pytest.mark.parametrize("name, header", [
    ("configuration", "Authorization"),
    ("session", "AP-Device-Identifier"),
    ("session", "X-Device-Info"),
    ("session", "Content-Type"),
    ("profiles", "AP-Device-Identifier"),
    ("authorize", "Content-Type"),
    ("logout", "X-Device-Info"),
    ("register", "X-Device-Info"),
    ("partner_profile", "AP-Partner-Framework-Status"),  # erratum E9
    ("configuration", "AP-Device-Identifier"),  # erratum E13
    ("configuration", "X-Device-Info"),  # erratum E13
])
def test_required_headers(name: str, header: str) -> None:
    assert f"required header {header!r} is missing" in problems_of(with_headers(name, **{header: None}))
    assert f"required header {header!r} is missing" in problems_of(with_headers(name, **{header: ""}))


def test_header_names_are_case_insensitive() -> None:
    lower = {**GOOD["profiles"], "headers": {k.lower(): v for k, v in GOOD["profiles"]["headers"].items()}}
    assert validate_entry(lower) == []


def test_query_parameters() -> None:
    no_redirect = {**GOOD["logout"], "query": ""}  # erratum E8
    assert "required query parameter 'redirectUrl' is missing" in problems_of(no_redirect)
    extra = {**GOOD["configuration"], "query": "debug=1"}
    assert "query parameter 'debug' is not declared" in problems_of(extra)
    assert validate_entry({**GOOD["configuration"], "query": "profile=x"}) == []


def test_request_body_presence() -> None:
    assert "a request body is required" in problems_of({**GOOD["authorize"], "body": None})
    assert "takes no request body" in problems_of({**GOOD["profiles"], "body": "x=1"})
    assert validate_entry({**GOOD["session"], "body": None}) == []  # createSession's body is optional


def test_body_media_type() -> None:
    as_json = with_headers("session", **{"Content-Type": "application/json"})
    assert "body media type 'application/json' is not one of" in problems_of(as_json)
    as_form = with_headers("authorize", **{"Content-Type": "application/x-www-form-urlencoded"})
    assert "is not one of ['application/json']" in problems_of(as_form)
    assert validate_entry(with_headers("authorize", **{"Content-Type": "application/json"})) == []


def test_json_body_schema() -> None:
    assert "body is not JSON" in problems_of({**GOOD["authorize"], "body": "{resources"})
    assert "is not of type 'array'" in problems_of({**GOOD["authorize"], "body": '{"resources": "REF30"}'})
    assert "is not of type 'string'" in problems_of({**GOOD["authorize"], "body": '{"resources": [1]}'})
    no_statement = {**GOOD["register"], "body": '{"redirect_uri": "app://x"}'}
    assert "'software_statement' is a required property" in problems_of(no_statement)
    no_redirect_uri = {**GOOD["register"], "body": '{"software_statement": "a.b.c"}'}
    assert validate_entry(no_redirect_uri) == []  # erratum E11


def test_form_body_schema() -> None:
    unknown = {**GOOD["session"], "body": "mvpd=Cablevision&domain=adobe.com"}
    assert "form parameter 'domain' is not in the schema" in problems_of(unknown)
    repeated = {**GOOD["session"], "body": "mvpd=Cablevision&mvpd=Dish"}
    assert "form parameter 'mvpd' is repeated" in problems_of(repeated)
    no_saml = {**GOOD["partner_profile"], "body": "other=1"}
    assert "required form parameter 'SAMLResponse' is missing" in problems_of(no_saml)
    assert validate_entry({**GOOD["partner_profile"], "body": "SAMLResponse=PGE%2Bw7%2FDvj88L2E%2B"}) == []
    no_redirect = {**GOOD["partner_session"], "body": "domainName=adobe.com"}
    assert "required form parameter 'redirectUrl' is missing" in problems_of(no_redirect)
    with_mvpd = {**GOOD["partner_session"], "body": GOOD["partner_session"]["body"] + "&mvpd=Cablevision"}
    assert "form parameter 'mvpd' is not in the schema" in problems_of(with_mvpd)


def test_partner_framework_status_is_optional_on_sessions_sso() -> None:
    # Erratum E9 covers profiles/sso only: without the header, sessions/sso falls back (pfs_fallback).
    assert validate_entry(with_headers("partner_session", **{"AP-Partner-Framework-Status": None})) == []


def test_token_parameters_and_secrets() -> None:
    in_query = {**GOOD["token"], "headers": {}, "body": None,
                "query": "client_id=a&client_secret=b&grant_type=client_credentials"}
    assert problems_of(in_query).count("\n") == 0
    assert "client_secret is sent in the query string" in problems_of(in_query)
    missing = {**GOOD["token"], "body": "client_id=a&grant_type=client_credentials"}
    assert "required query parameter 'client_secret' is missing" in problems_of(missing)
    neither = {**GOOD["token"], "headers": {}, "body": None}
    assert problems_of(neither).count("is missing") == 3
    wrong_type = with_headers("token", **{"Content-Type": "application/json"})
    assert "the token body must be application/x-www-form-urlencoded" in problems_of(wrong_type)
    unknown = {**GOOD["token"], "body": GOOD["token"]["body"] + "&scope=x"}
    assert "form parameter 'scope' is not in the schema" in problems_of(unknown)
    leaked = {**GOOD["configuration"], "query": "client_secret=b"}
    assert "client_secret is sent in the query string" in problems_of(leaked)


@pytest.mark.parametrize("sent, named", [("Adobe-Subject-Token", "Adobe-Subject-Token"),
                                          ("X-Roku-Reserved-Roku-Connect-Token", "X-Roku-Reserved-Roku-Connect-Token"),
                                          ("ad-service-token", "AD-Service-Token")])
def test_sso_headers_never_go_to_dcr(sent: str, named: str) -> None:
    for name in ("register", "token"):
        leaked = with_headers(name, **{sent: "redacted:sha256:0123456789ab"})
        assert problems_of(leaked).endswith(f"SSO header {named!r} is sent to a DCR endpoint"), name
    for name in ("session", "profiles", "authorize", "logout", "configuration", "profile_code"):
        assert problems_of(with_headers(name, **{sent: "x.y.z"})) == "", name  # V2 takes (or tolerates) them


def run_cli(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(VALIDATOR), *map(str, paths)],
                          capture_output=True, text=True, timeout=60)


def test_cli_exit_codes(tmp_path: Path) -> None:
    def write(name: str, entries: list[dict[str, Any]]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
        return path

    good = write("good.jsonl", list(GOOD.values()))
    bad = write("bad.jsonl", [with_headers("profiles", **{"X-Device-Info": None})])
    pages_only = write("pages.jsonl", [entry("GET", "/adobe-services/logout", operation="page")])
    empty = write("empty.jsonl", [])
    assert run_cli(good).returncode == 0
    result = run_cli(good, bad)
    assert result.returncode == 1 and "required header 'X-Device-Info' is missing" in result.stdout
    assert run_cli(empty).returncode == 2
    assert run_cli(pages_only).returncode == 2


def test_a_connection_warm_up_is_no_operation_and_must_carry_nothing() -> None:
    assert validate_entry(entry("HEAD", "/", {"User-Agent": "AccessEnabler/1.4.0"})) == []
    assert "carries 'authorization'" in problems_of(entry("HEAD", "/", AUTH))
    assert "carries 'ap-device-identifier'" in problems_of(entry("HEAD", "/", DEVICE))
    assert "carries 'adobe-subject-token'" in problems_of(entry("HEAD", "/", {"Adobe-Subject-Token": "x"}))
    assert "has a query string" in problems_of(entry("HEAD", "/", query="a=b"))
    assert "has a body" in problems_of(entry("HEAD", "/", body="x"))
    # Another method on "/", or HEAD of an API path, is no warm-up: the OpenAPI files judge it.
    assert "no path in the OpenAPI files" in problems_of(entry("GET", "/"))
    assert "method not allowed" in problems_of(entry("HEAD", "/api/v2/REF30/configuration", AUTH))
