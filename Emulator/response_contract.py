"""DEPRECATED alias: the answer checker is `aepass/contract.py` (`aepass.contract`).

Imported with this folder on `sys.path`, it re-exports `aepass.contract` (`response_problems`, ...).
New callers use `aepass.contract` or `aepass.testing.answer_problems`; this alias may be removed in a
later release.
"""

from __future__ import annotations

from aepass.contract import *  # noqa: F401,F403 - the alias re-exports the module
from aepass.contract import response_problems  # noqa: F401
