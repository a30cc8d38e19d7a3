"""Path templates ("/api/v2/{serviceProvider}/sessions/{code}") as regular expressions."""

from __future__ import annotations

import re


def template_regex(template: str, format_suffix: bool = False) -> re.Pattern[str]:
    """`{name}` matches one path segment. With `format_suffix` (REST API V1), the path may end in
    `.json` / `.xml`, captured as `_format`, and parameters match lazily so that they leave it."""
    lazy = "?" if format_suffix else ""
    pattern = re.sub(r"\\\{(\w+)\\\}", rf"(?P<\1>[^/]+{lazy})", re.escape(template))
    if format_suffix:
        pattern += r"(?:\.(?P<_format>json|xml))?"
    return re.compile(f"^{pattern}$")
