# SPDX-License-Identifier: Apache-2.0
"""The phases of an outage run and the moments they start, in seconds from the measurement's start.

    steady  | 503 (every Adobe request answered HTTP 503) | refused (connections refused) | after
    0       steady                                        outage_start + o503           recovery   end
"""
from __future__ import annotations

from dataclasses import dataclass

PHASES = ("steady", "503", "refused", "after")


@dataclass(frozen=True)
class Timeline:
    steady: float
    outage_503: float
    outage_refused: float
    after: float

    @property
    def outage_start(self) -> float:
        return self.steady

    @property
    def refused_start(self) -> float:
        return self.steady + self.outage_503

    @property
    def recovery(self) -> float:
        return self.refused_start + self.outage_refused

    @property
    def end(self) -> float:
        return self.recovery + self.after

    def bounds(self, phase: str) -> tuple[float, float]:
        """[start, end) of a phase, in seconds from the start."""
        return {"steady": (0.0, self.outage_start), "503": (self.outage_start, self.refused_start),
                "refused": (self.refused_start, self.recovery), "after": (self.recovery, self.end)}[phase]

    def phase_at(self, t: float) -> str:
        """The phase of moment t (seconds from the start); "after" past the end too."""
        for phase in PHASES:
            start, end = self.bounds(phase)
            if t < end:
                return phase
        return "after"

    def in_outage(self, t: float) -> bool:
        return self.outage_start <= t < self.recovery
