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
        # Counts resets: an entry of a request that arrived before the last reset is written to
        # the file (the request was sent) but kept out of memory (it belongs to what was forgotten).
        self.epoch = 0
        self._file: IO[str] | None = open(path, "a", encoding="utf-8") if path else None

    def append(self, entry: dict[str, Any], epoch: int | None = None) -> None:
        """Logs `entry`; `epoch`: `self.epoch` when its request arrived (None: now)."""
        with self._lock:
            self._seq += 1
            record = {"seq": self._seq, **entry}
            if epoch is None or epoch == self.epoch:
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

    def reset(self) -> None:
        """Clears the in-memory log, and keeps requests already in progress out of it."""
        with self._lock:
            self._entries.clear()
            self.epoch += 1

    def close(self) -> None:
        with self._lock:
            if self._file:
                self._file.close()
                self._file = None
