# SPDX-License-Identifier: Apache-2.0
"""CPU load during a run: the machine's busy share (/proc/stat) and each watched process's CPU
(/proc/<pid>/stat utime + stime), sampled once a second on a thread."""
from __future__ import annotations

import os
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def _machine() -> tuple[int, int]:
    """(busy, total) jiffies since boot, all cores."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _process(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used, or None once it is gone."""
    try:
        text = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of stat)


class CpuSampler:
    """Samples every second: {"t": Unix time, "machine": busy fraction of all cores (0–1),
    "<name>": the process's CPU in cores (1.0 = one core busy)}."""

    def __init__(self, processes: dict[str, int]):
        self.processes = dict(processes)
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        machine = _machine()
        used = {name: _process(pid) for name, pid in self.processes.items()}
        then = time.monotonic()
        while not self._stop.wait(1.0):
            now = time.monotonic()
            machine_now = _machine()
            used_now = {name: _process(pid) for name, pid in self.processes.items()}
            elapsed = now - then
            sample = {"t": time.time(),
                      "machine": (machine_now[0] - machine[0]) / max(1, machine_now[1] - machine[1])}
            for name, seconds in used_now.items():
                if seconds is not None and used[name] is not None:
                    sample[name] = (seconds - used[name]) / elapsed
            self.samples.append(sample)
            machine, used, then = machine_now, used_now, now
