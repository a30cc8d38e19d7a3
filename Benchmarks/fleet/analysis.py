# SPDX-License-Identifier: Apache-2.0
"""From what a run recorded to its figures: the per-second series (the CSV), the summary (the JSON
and the Markdown table).

Inputs: the timeline; t0 (a whole Unix second: bin s of the series is [t0 + s, t0 + s + 1)); the
calls of every client (Benchmarks/fleet/worker.py); the fleet's connect() calls per Unix second;
the emulator's request log (one entry per request that reached it, `t_ms` its arrival).
"""
from __future__ import annotations

import collections
import csv
import math
import statistics
from pathlib import Path

from fleet.timeline import PHASES, Timeline

COLUMNS = ("t", "phase", "requests_received", "connection_attempts", "calls_started", "calls_failed",
           "calls_succeeded")
FAILED = ("failed", "refused", "no_answer")
RECOVERY_WINDOW_S = 10  # "the first 10 s after recovery"
LATE_WINDOW_S = 30  # the end of the run: has the fleet spread out again?
GOAL_AFTER_RECOVERY = 2.0  # peak and mean after recovery, relative to the steady state


def series(timeline: Timeline, t0: int, clients: list[dict], connects: dict[int, int],
           log: list[dict]) -> list[dict]:
    """One row per second of the measurement (COLUMNS)."""
    seconds = math.ceil(timeline.end)
    rows = [{"t": s, "phase": timeline.phase_at(s), "requests_received": 0,
             "connection_attempts": connects.get(t0 + s, 0), "calls_started": 0, "calls_failed": 0,
             "calls_succeeded": 0} for s in range(seconds)]

    def bin_of(unix: float | None) -> int | None:
        if unix is None:
            return None
        s = math.floor(unix - t0)
        return s if 0 <= s < seconds else None

    for entry in log:
        s = bin_of(entry["t_ms"] / 1000)
        if s is not None:
            rows[s]["requests_received"] += 1
    for call in (call for client in clients for call in client["calls"]):
        if (s := bin_of(call["start"])) is not None:
            rows[s]["calls_started"] += 1
        if (s := bin_of(call["end"])) is not None:
            if call["outcome"] == "token":
                rows[s]["calls_succeeded"] += 1
            elif call["outcome"] in FAILED:
                rows[s]["calls_failed"] += 1
    return rows


def write_csv(rows: list[dict], path: Path) -> None:
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def _mean(values) -> float:
    values = list(values)
    return statistics.fmean(values) if values else 0.0


def _ratio(value: float, base: float) -> float | None:
    return round(value / base, 2) if base else None


def _percentiles(values: list[float]) -> dict | None:
    if not values:
        return None
    ordered = sorted(values)

    def at(fraction):
        return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]
    return {"p50": round(at(0.5), 3), "p99": round(at(0.99), 3), "max": round(ordered[-1], 3)}


def _named(call: dict) -> bool:
    """A failure the host can show: the SDK named it with an advanced status errorId."""
    return call["outcome"] == "failed" and bool(call.get("error_id"))


def summarize(timeline: Timeline, t0: int, rows: list[dict], clients: list[dict], log: list[dict]) -> dict:
    """The figures of the run (the JSON; `markdown` renders them)."""
    by_phase = {phase: [row for row in rows if row["phase"] == phase] for phase in PHASES}
    steady = _mean(row["requests_received"] for row in by_phase["steady"])
    steady_attempts = _mean(row["connection_attempts"] for row in by_phase["steady"])
    phases = {}
    for phase, phase_rows in by_phase.items():
        requests = _mean(row["requests_received"] for row in phase_rows)
        attempts = _mean(row["connection_attempts"] for row in phase_rows)
        phases[phase] = {"seconds": len(phase_rows), "requests_per_s": round(requests, 2),
                         "requests_vs_steady": _ratio(requests, steady),
                         "connection_attempts_per_s": round(attempts, 2),
                         "attempts_vs_steady_requests": _ratio(attempts, steady),
                         "calls_started_per_s": round(_mean(row["calls_started"] for row in phase_rows), 2),
                         "calls_failed": sum(row["calls_failed"] for row in phase_rows),
                         "calls_succeeded": sum(row["calls_succeeded"] for row in phase_rows)}

    after = by_phase["after"]
    first = after[:RECOVERY_WINDOW_S]
    peak_row = max(after, key=lambda row: row["requests_received"]) if after else None
    peak_attempts = max((row["connection_attempts"] for row in first), default=0)
    recovery_mean = _mean(row["requests_received"] for row in first)
    late = after[-LATE_WINDOW_S:]
    late_peak = max((row["requests_received"] for row in late), default=0)

    outage_start, recovery = t0 + timeline.outage_start, t0 + timeline.recovery
    recovered_after, never, called, named, unnamed_calls = [], [], 0, 0, 0
    open_at_recovery = collections.Counter()
    errors = {phase: collections.Counter() for phase in PHASES}
    examples = {}  # errorId → what the first failed call with it said
    for client in clients:
        calls = client["calls"]
        for call in calls:
            if call["outcome"] in FAILED:
                errors[timeline.phase_at(call["start"] - t0)][call.get("error_id") or "(none)"] += 1
                examples.setdefault(call.get("error_id") or "(none)", {
                    key: call.get(key) for key in ("message", "http_status", "error_code", "code", "description")})
        # Calls that began while Adobe was down and were answered (or should have been) before it came back.
        during = [c for c in calls if outage_start <= c["start"] < recovery
                  and (c["end"] is None or c["end"] < recovery or c["outcome"] == "no_answer")]
        for c in calls:
            if outage_start <= c["start"] < recovery and c["end"] is not None and c["end"] >= recovery:
                open_at_recovery[c["outcome"]] += 1
        if during:
            called += 1
            bad = [c for c in during if not _named(c)]
            unnamed_calls += len(bad)
            named += not bad
        success = next((c["end"] for c in calls if c["outcome"] == "token" and c["end"] >= recovery), None)
        if success is None:
            never.append(client["index"])
        else:
            recovered_after.append(success - recovery)

    outcomes = collections.Counter(call["outcome"] for client in clients for call in client["calls"])
    lag = {phase: _percentiles([c["start"] - c["due"] for client in clients for c in client["calls"]
                                if timeline.phase_at(c["start"] - t0) == phase]) for phase in PHASES}
    latency = {phase: _percentiles([c["end"] - c["start"] for client in clients for c in client["calls"]
                                    if c["end"] is not None and timeline.phase_at(c["start"] - t0) == phase])
               for phase in PHASES}
    statuses = collections.Counter(str(entry.get("status")) for entry in log
                                   if 0 <= entry["t_ms"] / 1000 - t0 < timeline.end)
    return {
        "clients": len(clients),
        "steady_requests_per_s": round(steady, 2),
        "steady_connection_attempts_per_s": round(steady_attempts, 2),
        "phases": phases,
        "after_recovery": {
            "peak_requests_per_s": peak_row["requests_received"] if peak_row else 0,
            "peak_at_s_after_recovery": (peak_row["t"] - timeline.recovery) if peak_row else None,
            "peak_vs_steady": _ratio(peak_row["requests_received"], steady) if peak_row else None,
            f"mean_requests_per_s_first_{RECOVERY_WINDOW_S}s": round(recovery_mean, 2),
            f"mean_vs_steady_first_{RECOVERY_WINDOW_S}s": _ratio(recovery_mean, steady),
            f"peak_connection_attempts_per_s_first_{RECOVERY_WINDOW_S}s": peak_attempts,
            "late_window_s": len(late),  # the last seconds of the run
            "late_peak_requests_per_s": late_peak,
            "late_peak_vs_steady": _ratio(late_peak, steady),
            "goal_vs_steady": GOAL_AFTER_RECOVERY,
        },
        "time_to_all_recovered_s": round(max(recovered_after), 2) if recovered_after and not never else None,
        "recovery_time_p50_s": round(statistics.median(recovered_after), 2) if recovered_after else None,
        "clients_called_during_outage": called,
        "clients_named_error_during_outage": named,
        "outage_calls_without_named_error": unnamed_calls,
        "outage_calls_answered_after_recovery": dict(open_at_recovery),
        "clients_never_recovered": len(never),
        "never_recovered": never,
        "total_requests": sum(row["requests_received"] for row in rows),
        "requests_by_status": dict(statuses),
        "total_connection_attempts": sum(row["connection_attempts"] for row in rows),
        "calls": dict(outcomes),
        "calls_without_answer": outcomes.get("no_answer", 0) + outcomes.get("open", 0),
        "errors_by_phase": {phase: dict(counter) for phase, counter in errors.items() if counter},
        "error_examples": examples,
        "scheduling_lag_s": lag,
        "call_duration_s": latency,
    }


def _x(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}×"


def markdown(summary: dict, timeline: Timeline, cpu: dict | None = None) -> str:
    """The summary table (and the CPU load) in Markdown."""
    p, a = summary["phases"], summary["after_recovery"]
    steady = summary["steady_requests_per_s"]
    first_mean = a[f"mean_requests_per_s_first_{RECOVERY_WINDOW_S}s"]
    first_ratio = a[f"mean_vs_steady_first_{RECOVERY_WINDOW_S}s"]
    recovered = summary["time_to_all_recovered_s"]

    def verdict(ratio):
        if ratio is None:
            return ""
        return f" (goal ≤ {a['goal_vs_steady']:g}×: {'met' if ratio <= a['goal_vs_steady'] else '**missed**'})"
    lines = [
        f"### Fleet in an Adobe outage: {summary['clients']} clients", "",
        f"Steady {timeline.steady:g} s, HTTP 503 for {timeline.outage_503:g} s, connections refused for "
        f"{timeline.outage_refused:g} s, then {timeline.after:g} s after recovery.", "",
        "| figure | value |", "|---|---:|",
        f"| steady-state requests/s (mean of the steady phase) | {steady:.2f} |",
        f"| 503 phase: requests/s reaching Adobe | {p['503']['requests_per_s']:.2f} "
        f"({_x(p['503']['requests_vs_steady'])} steady) |",
        f"| refused phase: connection attempts/s | {p['refused']['connection_attempts_per_s']:.2f} "
        f"({_x(p['refused']['attempts_vs_steady_requests'])} steady requests/s) |",
        f"| after recovery: peak 1-s requests | {a['peak_requests_per_s']} at +{a['peak_at_s_after_recovery']} s "
        f"({_x(a['peak_vs_steady'])} steady){verdict(a['peak_vs_steady'])} |",
        f"| after recovery: mean requests/s, first {RECOVERY_WINDOW_S} s | {first_mean:.2f} "
        f"({_x(first_ratio)} steady){verdict(first_ratio)} |",
        f"| end of the run (last {a['late_window_s']} s): peak 1-s requests | {a['late_peak_requests_per_s']} "
        f"({_x(a['late_peak_vs_steady'])} steady) |",
        f"| recovery → every client has had a token again | {'never' if recovered is None else f'{recovered:.1f} s'} "
        f"(median client {summary['recovery_time_p50_s']} s) |",
        f"| clients with a named error during the outage / clients that called | "
        f"{summary['clients_named_error_during_outage']} / {summary['clients_called_during_outage']} |",
        f"| outage calls with no named error (silent failure or no answer) | "
        f"{summary['outage_calls_without_named_error']} |",
        f"| clients that never recovered | {summary['clients_never_recovered']} |",
        f"| total requests reaching Adobe (measurement) | {summary['total_requests']:,} |",
        f"| total connection attempts (measurement) | {summary['total_connection_attempts']:,} |",
    ]
    errors = summary["errors_by_phase"]
    if errors:
        lines += ["", "Failed calls by phase (of the call's start) and errorId: " + "; ".join(
            f"{phase}: " + ", ".join(f"{error} ×{count}" for error, count in sorted(counter.items()))
            for phase, counter in errors.items()) + "."]
    if summary["error_examples"]:
        lines += ["", "What they said (the first of each errorId): " + "; ".join(
            f"{error}: \"{(example['message'] or '')[:120]}\" (HTTP {example['http_status']}, {example['error_code']})"
            for error, example in sorted(summary["error_examples"].items())) + "."]
    check = summary.get("cross_check")
    if check:
        lines += ["", f"Cross-check of the connect() counter: outside the refused phase it counted "
                  f"{check['attempts_outside_refused']} attempts, the proxy accepted "
                  f"{check['proxy_accepted_outside_refused']} connections."]
    lag = summary["scheduling_lag_s"]
    lines += ["", "Calls started late (due → started, p99 / max): " + "; ".join(
        f"{phase} {v['p99'] * 1000:.0f} / {v['max'] * 1000:.0f} ms" for phase, v in lag.items() if v) + "."]
    if cpu:
        lines += ["", f"CPU ({cpu['cores']} cores, 1-s samples): the machine was busy {cpu['machine_mean']:.0%} on "
                  f"average, {cpu['machine_max']:.0%} at most; in % of one core, mean / max: "
                  + ", ".join(f"{name} {v['mean']:.0%} / {v['max']:.0%}" for name, v in cpu["processes"].items())
                  + "."]
    return "\n".join(lines)


def cpu_summary(samples: list[dict], t0: float, end: float, cores: int, groups: dict[str, list[str]]) -> dict:
    """Mean and max CPU over the measurement: the machine (fraction of all cores) and each group of
    processes (in cores, summed per sample)."""
    window = [s for s in samples if t0 <= s["t"] <= end + 1] or samples
    result = {"cores": cores, "samples": len(window),
              "machine_mean": round(_mean(s["machine"] for s in window), 3),
              "machine_max": round(max((s["machine"] for s in window), default=0.0), 3), "processes": {}}
    ours = [name for names in groups.values() for name in names]
    groups = {**groups, "everything else on the machine": []}
    for group, names in groups.items():
        if names:
            values = [sum(s.get(name, 0.0) for name in names) for s in window]
        else:  # the machine's busy cores less the run's own processes
            values = [max(0.0, s["machine"] * cores - sum(s.get(name, 0.0) for name in ours)) for s in window]
        result["processes"][group] = {"mean": round(_mean(values), 3), "max": round(max(values, default=0.0), 3)}
    return result
