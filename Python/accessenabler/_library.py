# SPDX-License-Identifier: Apache-2.0
"""Loading libaccessenabler.so, and its functions declared with the header's restype and argtypes.

Which library, first found: $AE_LIBRARY (a path; an error if it is not a file); a copy bundled in this
package (libaccessenabler.so*, see ../pyproject.toml); the repository's release build
(.build/release/libaccessenabler.so, when this package is used from the source tree); the system's (an
installed package: libaccessenabler.so.<SOVERSION>, found by the dynamic loader).
"""
import ctypes
import ctypes.util
import glob
import os

from . import _abi


def _find_library():
    """The library to load (see the module's docstring); ImportError naming what was tried."""
    path = os.environ.get("AE_LIBRARY")
    if path:
        if not os.path.isfile(path):
            raise ImportError(f"AE_LIBRARY={path!r} is not a file (point it at libaccessenabler.so)")
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = sorted(glob.glob(os.path.join(here, "libaccessenabler.so*")))
    source_tree = os.path.join(here, "..", "..", ".build", "release", "libaccessenabler.so")
    for candidate in bundled + [source_tree]:
        if os.path.isfile(candidate):
            return candidate
    system = ctypes.util.find_library("accessenabler")
    if system:
        return system
    raise ImportError("libaccessenabler.so not found: set AE_LIBRARY to its path, bundle it in the package "
                      "(Python/pyproject.toml), or install it (cmake --install)")


lib = ctypes.CDLL(_find_library())
LIBRARY_PATH = lib._name


def _declare(signatures):
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


# The partner framework's functions (ae_partner_*) are declared when the library has them: a library
# built before the partner framework still loads, and only Client(partner=...) is refused.
_SIGNATURES = {name: signature for name, signature in _abi._SIGNATURES.items() if not name.startswith("ae_partner_")}
_PARTNER_SIGNATURES = {name: signature for name, signature in _abi._SIGNATURES.items() if name not in _SIGNATURES}
HAS_PARTNER_FRAMEWORK = all(hasattr(lib, name) for name in _PARTNER_SIGNATURES)
_declare(_SIGNATURES)
if HAS_PARTNER_FRAMEWORK:
    _declare(_PARTNER_SIGNATURES)


def version():
    return lib.ae_version_string().decode()
