# SPDX-License-Identifier: Apache-2.0
"""The PNG of an outage run: requests/s reaching Adobe and connection attempts/s over time, the
outage phases shaded, the steady-state mean and twice it as lines. Needs matplotlib; `available()`
says whether it can be imported, so the caller can still write the CSV without it."""
from __future__ import annotations

from pathlib import Path

from fleet.timeline import Timeline


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plot(rows: list[dict], timeline: Timeline, summary: dict, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [row["t"] for row in rows] + [timeline.end]  # the last second's step drawn to its end

    def values(column):
        return [row[column] for row in rows] + [rows[-1][column] if rows else 0]
    steady = summary["steady_requests_per_s"]
    figure, axes = plt.subplots(figsize=(13, 5), dpi=120)
    axes.axvspan(*timeline.bounds("503"), color="tab:orange", alpha=0.18, label="HTTP 503 for every request")
    axes.axvspan(*timeline.bounds("refused"), color="tab:red", alpha=0.15, label="connections refused")
    axes.step(t, values("requests_received"), where="post", color="tab:blue", linewidth=1.4,
              label="requests reaching Adobe (emulator log)")
    axes.step(t, values("connection_attempts"), where="post", color="tab:purple", linewidth=1.0,
              linestyle="--", label="connection attempts (connect() calls in the clients)")
    axes.axhline(steady, color="tab:green", linewidth=1.2, label=f"steady-state mean ({steady:.1f}/s)")
    axes.axhline(2 * steady, color="tab:green", linewidth=0.8, linestyle=":", label="2 × steady (goal)")
    axes.axvline(timeline.recovery, color="black", linewidth=0.8)
    axes.annotate("recovery", (timeline.recovery, axes.get_ylim()[1] * 0.95), xytext=(4, 0),
                  textcoords="offset points", fontsize=8)
    axes.set_xlim(0, timeline.end)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("seconds from the start of the measurement")
    axes.set_ylabel("per second")
    axes.set_title(title, fontsize=10)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
