# SPDX-License-Identifier: Apache-2.0
"""The connect() counter (Benchmarks/connect_counter.c): built at run time, preloaded into the client
processes, and read there through ctypes."""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "connect_counter.c"
PORT_VARIABLE = "AE_CONNECT_COUNTER_PORT"
EPOCH_VARIABLE = "AE_CONNECT_COUNTER_EPOCH"


def build(directory: Path) -> Path:
    """Compiles the shim into `directory`; RuntimeError with the compiler's message if it cannot."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise RuntimeError("no C compiler (cc or gcc) to build Benchmarks/connect_counter.c: install one "
                           "(apt-get install gcc), or set CC")
    library = directory / "connect_counter.so"
    result = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-o", str(library),
                             str(SOURCE), "-ldl"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building {SOURCE.name} failed:\n{result.stderr}")
    return library


def environment(library: Path, port: int, epoch: int) -> dict[str, str]:
    """The variables that preload the shim into a child process and tell it what to count."""
    preload = " ".join(filter(None, [str(library), os.environ.get("LD_PRELOAD", "")]))
    return {"LD_PRELOAD": preload, PORT_VARIABLE: str(port), EPOCH_VARIABLE: str(epoch)}


class Counter:
    """The counts of the shim preloaded into this process (None if it is not)."""

    def __init__(self):
        self._process = ctypes.CDLL(None)
        try:
            self._at = self._process.connect_counter_at
            self._total = self._process.connect_counter_total
        except AttributeError:
            raise RuntimeError("the connect() counter is not preloaded (LD_PRELOAD=connect_counter.so)") from None
        self._at.argtypes, self._at.restype = [ctypes.c_longlong], ctypes.c_ulonglong
        self._total.argtypes, self._total.restype = [], ctypes.c_ulonglong

    def total(self) -> int:
        return self._total()

    def per_second(self, first: int, last: int) -> dict[int, int]:
        """Unix second → connect() calls to the watched port, for the seconds first..last with any."""
        counts = {second: self._at(second) for second in range(first, last + 1)}
        return {second: count for second, count in counts.items() if count}
