"""`python3 -m aepass ...`: the `aepass-emulator` command (see cli.py)."""

import sys

from .cli import main

sys.exit(main())
