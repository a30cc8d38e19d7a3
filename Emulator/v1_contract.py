"""DEPRECATED alias: the V1 answer checker is `aepass/v1/contract.py` (`aepass.v1.contract`).

Imported with this folder on `sys.path`, it re-exports `aepass.v1.contract` (`v1_response_problems`,
...). This alias may be removed in a later release.
"""

from __future__ import annotations

from aepass.v1.contract import *  # noqa: F401,F403 - the alias re-exports the module
from aepass.v1.contract import v1_response_problems  # noqa: F401
