# SPDX-License-Identifier: Apache-2.0
"""accessenabler-diag for the tests (test_diag_tool.py, test_diag_bad_input.py): the program CMake builds
($AE_DIAG_TOOL, as scripts/test.sh's CMake package step installs it), else built here from Tools/diag as
CMake builds it (its --help from help.txt by GenerateHelp.cmake, then the system C compiler with the same
warnings) against the header and the library under test ($AE_LIBRARY)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness import ROOT, Emulator, ae


def build(directory):
    """The tool's path: $AE_DIAG_TOOL, or a build of Tools/diag in `directory`."""
    given = os.environ.get("AE_DIAG_TOOL")
    if given:
        return Path(given)
    directory = Path(directory)
    version = ae.version()
    subprocess.run(["cmake", f"-DHELP_TEXT={ROOT / 'Tools/diag/help.txt'}", f"-DOUTPUT_DIR={directory}",
                    f"-DVERSION={version}", "-P", str(ROOT / "Tools/diag/GenerateHelp.cmake")], check=True)
    # The library under its SONAME (libaccessenabler.so.MAJOR), as installed: a build with that SONAME and
    # one without it (SwiftPM's default) are then found alike.
    libraries = directory / "lib"
    libraries.mkdir()
    soname = f"libaccessenabler.so.{version.split('.')[0]}"
    (libraries / soname).symlink_to(Path(ae.LIBRARY_PATH).resolve())
    tool = directory / "accessenabler-diag"
    compiler = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([compiler, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-D_FORTIFY_SOURCE=2",
                    "-I", str(ROOT / "Include"), "-I", str(directory), str(ROOT / "Tools/diag/accessenabler-diag.c"),
                    "-L", str(libraries), f"-l:{soname}", f"-Wl,-rpath,{libraries}", "-o", str(tool)], check=True)
    return tool


def unlogged_emulator():
    """An emulator that logs nowhere, for doctor: its request lacks, on purpose, the headers Adobe requires
    (Adobe's refusal of it proves the service answers), and the conformance step (scripts/test.sh) checks
    every request the emulators log. Stop it after use."""
    return Emulator("--throttle", "off", env={**os.environ, "AE_EMULATOR_LOG_DIR": ""})


class Tool:
    """Runs the tool; keeps every output (stdout and stderr of every run) for the redaction check."""

    def __init__(self, path):
        self.path = path
        self.outputs = []

    def run(self, *args, timeout=60):
        result = subprocess.run([str(self.path), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                                env={**os.environ, "AE_STORE": ""})
        self.outputs += [result.stdout, result.stderr]
        return result

    def json(self, *args, status=0):
        result = self.run(*args)
        assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
        return json.loads(result.stdout)


HASHES = """import hashlib, json, os, sys
store = sys.argv[1]
found = {}
for suffix in ("", "-wal", "-shm"):
    path = store + suffix
    found[suffix or "db"] = hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.exists(path) else None
found["directory"] = sorted(os.listdir(os.path.dirname(store)))
print(json.dumps(found))
"""


def hashes(store):
    """The SHA-256 of the store and of its -wal and -shm (None: absent), and the names beside it. Read by a
    process of its own: closing a descriptor of a file drops every POSIX lock this process holds on it,
    SQLite's locks of the clients a test has open among them."""
    result = subprocess.run([sys.executable, "-c", HASHES, str(store)], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)
