#!/usr/bin/env python3
"""Adobe Pass REST API V2 + V1 + DCR emulator, from a source tree: `python3 Emulator/emulator.py ARGS`.

The same as `aepass-emulator serve ARGS` (the installed console script, `aepass/serve.py`): prints
`AE_EMULATOR_LISTENING http://<host>:<port>` once bound and runs until SIGTERM/SIGINT. Standard
library only; verifying platform identity and service token SSO tokens needs `cryptography`.
See README.md next to this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # this folder's `aepass`, even when one is installed

from aepass.serve import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="emulator.py"))
