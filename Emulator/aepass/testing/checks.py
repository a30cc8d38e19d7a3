"""Checks of what a test sent and got: requests against Adobe's OpenAPI files (`aepass.validate`),
answers against the response schemas (`aepass.contract`). Both need `jsonschema` (the `validate`
extra) for JSON bodies.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

# A request sent wrong on purpose carries this header (any value): the request checks skip it.
INVALID_MARK = "X-Test-Invalid"


def marked_invalid(entry: Mapping[str, Any]) -> bool:
    """Whether a logged request carries the `X-Test-Invalid` header (any case)."""
    return any(name.lower() == INVALID_MARK.lower() for name in entry.get("headers") or {})


def request_problems(entries: Iterable[Mapping[str, Any]], skip_marked: bool = True) -> list[str]:
    """One line per problem of the logged requests (`Control.raw_log()` / `log()` entries, or the
    lines of a log file) against Adobe's OpenAPI files and V1 table; pages, control calls and (with
    `skip_marked`) requests marked `X-Test-Invalid` are not checked."""
    from ..validate import validate_entries  # noqa: PLC0415 - loads the OpenAPI files on first use
    return validate_entries(dict(e) for e in entries if not (skip_marked and marked_invalid(e)))


def assert_valid_requests(entries: Iterable[Mapping[str, Any]], skip_marked: bool = True) -> None:
    """AssertionError listing every problem of `request_problems(entries)`, if any."""
    problems = request_problems(entries, skip_marked)
    if problems:
        raise AssertionError(f"{len(problems)} request problem(s) against Adobe's OpenAPI files:\n"
                             + "\n".join(problems))


def answer_problems(method: str, path: str, status: int, headers: Mapping[str, str], body: bytes | str) -> list[str]:
    """Problems of the emulator's answer to an API request (`path` without its query) against the
    OpenAPI response schemas (V1: the endpoint table's statuses and sample fields); [] when none."""
    from ..contract import response_problems  # noqa: PLC0415
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return response_problems(method, path.split("?", 1)[0], status, {k.lower(): v for k, v in headers.items()}, raw)
