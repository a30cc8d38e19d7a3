"""`EmulatorProcess`: the emulator in a subprocess on a free port, with its control API.

    with EmulatorProcess("--throttle", "off") as emulator:
        emulator.url            # "http://127.0.0.1:<port>": point the client here
        emulator.login(code)    # the control API (Control's methods)

The subprocess runs `aepass-emulator serve --port 0 --quiet --exit-with-parent ARGS` with this very
`aepass` package (found by its location, so a source tree on `sys.path` works as well as an installed
package) and the current interpreter.
"""

from __future__ import annotations

import collections
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Mapping

from .control import Control

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])  # the folder that holds `aepass`
# `python -c BOOT PACKAGE_PARENT serve ...`: runs this package's command line whatever sys.path the
# child would have had (an installed aepass-emulator of another version included).
BOOT = "import sys; sys.path.insert(0, sys.argv.pop(1)); from aepass.cli import main; sys.exit(main(sys.argv[1:]))"
DEFAULT_ARGS = ("--port", "0", "--quiet", "--exit-with-parent")
LISTENING = "AE_EMULATOR_LISTENING"  # serve.LISTENING (not imported: the tests' process need not load the server)


class EmulatorStartError(RuntimeError):
    """The emulator process exited, or said nothing, before it listened."""


def serve_command(*args: str) -> list[str]:
    """The command line that starts an emulator (on a free port, quiet, stopping with its parent)."""
    return [sys.executable, "-c", BOOT, PACKAGE_PARENT, "serve", *DEFAULT_ARGS, *args]


class EmulatorProcess(Control):
    """An emulator subprocess (started by the constructor) and the client of its control API.

    `args`: `serve` options (e.g. "--throttle", "off", "--strict", "--log-file", PATH); `env`: the
    subprocess's environment (default: this one's). Its stderr is copied to this process's stderr
    (fd 2) line by line, and its last lines are kept for error messages (`stderr_tail()`)."""

    log_file: Path | None = None  # where its requests are logged, when the starter says (the pytest plugin does)

    def __init__(self, *args: str, env: Mapping[str, str] | None = None, start_timeout: float = 30.0) -> None:
        self.args = tuple(args)
        self.env = dict(env) if env is not None else None
        self.start_timeout = start_timeout
        self._stderr: collections.deque[str] = collections.deque(maxlen=200)
        super().__init__(self._start())

    # --- life cycle ------------------------------------------------------------------------------

    def _start(self) -> str:
        self._stderr.clear()
        self._stderr_lines = 0
        self.process = subprocess.Popen(serve_command(*self.args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        encoding="utf-8", errors="replace", env=self.env)
        self._stderr_reader = threading.Thread(target=self._copy_stderr, args=(self.process,), daemon=True,
                                               name=f"aepass-emulator-{self.process.pid}-stderr")
        self._stderr_reader.start()
        try:
            return self._listening_url()
        except EmulatorStartError:
            self._reap()
            raise

    def _listening_url(self) -> str:
        """Reads the `AE_EMULATOR_LISTENING http://host:port` line, within start_timeout."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], self.start_timeout)
        if not ready:
            raise EmulatorStartError(self._failure(f"said nothing within {self.start_timeout:g} s"))
        line = self.process.stdout.readline().strip()
        if not line:
            try:
                code = self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            raise EmulatorStartError(self._failure(f"exited with status {code} before listening"))
        if not line.startswith(LISTENING + " "):
            raise EmulatorStartError(self._failure(f"printed {line!r} instead of {LISTENING} <url>"))
        return line.split(" ", 1)[1]

    def _failure(self, what: str) -> str:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._stderr_reader.join(timeout=2)
        tail = self.stderr_tail().strip()
        command = " ".join(["aepass-emulator serve", *DEFAULT_ARGS, *self.args])
        return f"the emulator ({command}) {what}" + (f"; its stderr:\n{tail}" if tail else "")

    def _copy_stderr(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line)
            self._stderr_lines += 1
            try:
                os.write(2, line.encode("utf-8", "replace"))
            except OSError:
                pass

    def stderr_tail(self) -> str:
        """The last lines (up to 200) the emulator wrote to its stderr."""
        return "".join(self._stderr)

    def stderr_mark(self) -> int:
        """How many lines the emulator has written to its stderr so far: a mark for `stderr_since`."""
        return self._stderr_lines

    def stderr_since(self, mark: int) -> str:
        """The stderr lines written after `mark` (those of the last 200 that are still kept), e.g. to
        check that a request left no traceback."""
        lines = list(self._stderr)
        return "".join(lines[max(0, len(lines) - (self._stderr_lines - mark)):])

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, then waits for the exit; returns the exit status (0: a clean stop). A process that
        does not stop within `timeout` is killed, and RuntimeError is raised."""
        self.process.send_signal(signal.SIGTERM)  # nothing, if it already exited
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self._reap()
            raise RuntimeError(f"the emulator (pid {self.pid}) did not stop within {timeout:g} s of SIGTERM; "
                               "killed") from None
        self._reap()
        return code

    def restart(self) -> None:
        """A new process with the same arguments (stopping this one if it runs); `url` changes."""
        if self.alive():
            self.stop()
        self.url = self._start()

    def _reap(self) -> None:
        self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        self._stderr_reader.join(timeout=2)
        if self.process.stderr and not self._stderr_reader.is_alive():
            self.process.stderr.close()

    def __enter__(self) -> EmulatorProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.alive():
            self.stop()
