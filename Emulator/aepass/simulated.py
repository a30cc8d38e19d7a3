"""The simulated platform's SAML, shared with the partner simulator of the Python package.

`Python/accessenabler/simulated_saml.py` is the one definition of the SAML request the emulator
hands out and of the (messy) SAML response the simulated platform returns. It is loaded here
**by file path** (`importlib.util.spec_from_file_location`), not through `sys.path`: importing
the `accessenabler` package would load libaccessenabler.so through ctypes, and the emulator must
stay standard-library only and runnable without the library. The file imports nothing but the
standard library.

In the repository `aepass/simulated_saml.py` is a relative symbolic link to that file, so that the
installed package (`pip install ./Emulator` copies the file it points to) carries it too; the path
below is resolved, so in a source tree it names the shared file itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SIMULATED_SAML_FILE = (Path(__file__).resolve().parent / "simulated_saml.py").resolve()
MODULE_NAME = "aepass_simulated_saml"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(MODULE_NAME, SIMULATED_SAML_FILE)
    if spec is None or spec.loader is None or not SIMULATED_SAML_FILE.is_file():
        raise ImportError(f"the simulated SAML module is missing: {SIMULATED_SAML_FILE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    spec.loader.exec_module(module)
    return module


simulated_saml = _load()
