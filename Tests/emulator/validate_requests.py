#!/usr/bin/env python3
"""DEPRECATED alias: the request validator moved to `Emulator/validate_requests.py`.

Run as a script (`python3 Tests/emulator/validate_requests.py LOG.jsonl ...`) it replaces this
process with `Emulator/validate_requests.py` and the same arguments. Imported (`import
validate_requests` with this folder on `sys.path`, as the emulator's tests have it) it is the
moved module itself. New callers use `Emulator/validate_requests.py`; this alias may be removed
in a later release.
"""
import os
import sys
from pathlib import Path

EMULATOR_DIR = Path(__file__).resolve().parents[2] / "Emulator"

if __name__ == "__main__":
    os.execv(sys.executable, [sys.executable, str(EMULATOR_DIR / "validate_requests.py"), *sys.argv[1:]])

# Imported: load the real module under this name (the import system then hands it to the importer).
# Its folder goes first on sys.path, and stays there: the module imports `aepass` from it.
if str(EMULATOR_DIR) in sys.path:
    sys.path.remove(str(EMULATOR_DIR))
sys.path.insert(0, str(EMULATOR_DIR))
del sys.modules[__name__]
import validate_requests  # noqa: E402,F401 - Emulator/validate_requests.py, now in sys.modules
