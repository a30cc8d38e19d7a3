# SPDX-License-Identifier: Apache-2.0
"""The parts of Benchmarks/outage.py, the simulation of a fleet of set-top players in an Adobe outage.

| module | what it holds |
|---|---|
| `timeline.py` | the phases of a run (steady, 503, refused, after) and which one a moment falls in |
| `proxy.py` | the switch proxy between the clients and the emulator: forwards, or refuses connections |
| `worker.py` | one client process: N real SDK clients, logged in, then the player's authorization loop |
| `shim.py` | builds `Benchmarks/connect_counter.c` (the LD_PRELOAD connect() counter) and reads it |
| `cpu.py` | samples the machine's and each process's CPU once a second |
| `analysis.py` | per-second series, the summary figures, the CSV and the Markdown table |
| `plot.py` | the PNG (matplotlib, optional) |
"""
