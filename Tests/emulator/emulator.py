#!/usr/bin/env python3
"""DEPRECATED alias: the emulator moved to `Emulator/emulator.py` (a top-level folder of its own).

`python3 Tests/emulator/emulator.py ARGS...` keeps working for the scripts and harnesses that
still call it: it replaces this process with `Emulator/emulator.py ARGS...` (exec: the same pid,
parent, standard streams, signals and exit status). New callers use `Emulator/emulator.py`; this
alias may be removed in a later release.
"""
import os
import sys
from pathlib import Path

EMULATOR = Path(__file__).resolve().parents[2] / "Emulator" / "emulator.py"
os.execv(sys.executable, [sys.executable, str(EMULATOR), *sys.argv[1:]])
