"""JSON from a client: `loads` refuses what `json.loads` lets through or crashes on.

Every failure is a ValueError, which the callers already turn into the documented answer: bytes
that are not UTF-8 (RFC 8259 §8.1; `json.loads` of text decoded with `errors="replace"` would
silently turn them into U+FFFD and accept a changed value), and nesting deep enough to exhaust
Python's recursion (`json.loads` raises RecursionError, which no handler expected: a 500 and a
traceback instead of a 400).
"""

from __future__ import annotations

import json
from typing import Any


def loads(data: bytes | str) -> Any:
    """json.loads, raising ValueError (UnicodeDecodeError is one) for every malformed input."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
