"""The request log: in memory (GET /_emulator/log) and optionally appended to a JSONL file."""

from __future__ import annotations

import json
import threading
from typing import IO, Any


class RequestLog:
    def __init__(self, path: str | None = None) -> None:
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []
        self._seq = 0  # never reset, so `since` cursors stay valid across clear/reset
        self._file: IO[str] | None = open(path, "a", encoding="utf-8") if path else None

    def append(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            record = {"seq": self._seq, **entry}
            self._entries.append(record)
            if self._file:
                self._file.write(json.dumps(record, separators=(",", ":")) + "\n")
                self._file.flush()

    def since(self, seq: int) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self._entries if e["seq"] > seq]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def close(self) -> None:
        with self._lock:
            if self._file:
                self._file.close()
                self._file = None
