"""The emulator's clock: real time plus an offset that only moves forward (virtual time).

`POST /_emulator/clock {"advance_ms": N}` adds N ms to the offset; `POST /_emulator/reset` sets it
back to 0. Everything the emulator judges by time reads this clock: token, code, profile,
authorization, media token and TempPass lifetimes, pending partner requests, PFS
`expirationDate`s, the simulated viewer's `auto_login_ms`, the throttle's refill, the `Date`
header of every answer and the request log's `t_ms`. Waits that are about the wire (`latency_ms`,
the `latency` and `never_ending` faults, keep-alive) stay in real time.

One clock per process (the emulator serves one `State`).
"""

from __future__ import annotations

import time

# An offset beyond this would take the Date header past what HTTP dates (and time.gmtime) express.
MAX_OFFSET_MS = 100 * 366 * 24 * 3600 * 1000


class ClockError(ValueError):
    """An advance that is not a non-negative integer number of ms, or one that goes too far."""


class Clock:
    def __init__(self) -> None:
        self._offset_ms = 0

    @property
    def offset_ms(self) -> int:
        return self._offset_ms

    def now_ms(self) -> int:
        """Wall-clock time in ms since the epoch, moved forward by the offset."""
        return int(time.time() * 1000) + self._offset_ms

    def monotonic_s(self) -> float:
        """The monotonic clock in seconds, moved forward by the offset (throttle refill)."""
        return time.monotonic() + self._offset_ms / 1000

    def advance(self, ms: object) -> int:
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise ClockError("advance_ms must be an integer >= 0")
        if self._offset_ms + ms > MAX_OFFSET_MS:
            raise ClockError(f"the clock offset may not exceed {MAX_OFFSET_MS} ms (100 years)")
        self._offset_ms += ms
        return self._offset_ms

    def reset(self) -> None:
        self._offset_ms = 0

    def to_json(self) -> dict[str, int]:
        return {"offset_ms": self._offset_ms, "now_ms": self.now_ms()}


CLOCK = Clock()
