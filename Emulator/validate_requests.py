#!/usr/bin/env python3
"""DEPRECATED alias: the request validator is `aepass/validate.py` (`aepass.validate`).

Run as a script, `python3 Emulator/validate_requests.py LOG.jsonl ... [--spec-dir DIR]` is
`aepass-emulator validate LOG.jsonl ...` (the same output and exit status). Imported (with this
folder on `sys.path`), it re-exports `aepass.validate`: `validate_entries`, `validate_entry`,
`find_operation`, `load_operations`, `SPEC_DIR`, `main`, ... New callers use `aepass.validate` or
the console script; this alias may be removed in a later release.
"""

from __future__ import annotations

import sys

from aepass.validate import *  # noqa: F401,F403 - the alias re-exports the module
from aepass.validate import (  # noqa: F401 - the names callers import, listed for readers and linters
    SPEC_DIR, V1_PREFIXES, Operation, find_operation, is_api_entry, is_warm_up, load_operations, main, read_log,
    validate_entries, validate_entry,
)

if __name__ == "__main__":
    sys.exit(main(prog="validate_requests.py"))
