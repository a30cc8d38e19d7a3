"""pytest plugin of aepass-emulator (entry point `pytest11`: `aepass`): fixtures that run the emulator.

Fixtures (all prefixed `aepass_`):

* `aepass_server` (session): one emulator process for the session, started with `--aepass-args` /
  ini `aepass_args` (default `--throttle off`), logging to a file in a temporary folder
  (`aepass_server.log_file`).
* `aepass_emulator`: that emulator, reset before the test (`POST /_emulator/reset {"config": true}`:
  no client, token, profile, fault or log entry of an earlier test, its starting settings, its clock
  at real time), restarted if an earlier test took it down. An `EmulatorProcess`: `.url` and the
  control API. A test marked `@pytest.mark.aepass_args(...)` gets a process of its own instead.
* `aepass_isolated_emulator`: a fresh process for this test alone, started with the configured
  arguments plus those of the `aepass_args` marker or of indirect parametrization (`request.param`:
  a string or a list of strings); stopped after the test.
* `aepass_control`: the control API of `aepass_emulator` (the same object).
* `aepass_requests`: a function returning the API requests the test's emulator logged so far.

Checks: with the marker `@pytest.mark.aepass_validate`, the ini option `aepass_validate = true` or
`--aepass-validate`, every request the test sent must pass Adobe's OpenAPI files after the test
(`aepass.validate`; requests with an `X-Test-Invalid` header are skipped). Needs `jsonschema`.

Load it once: installed, pytest loads it through its entry point; from a source tree (Emulator/ on
sys.path, the package not installed) with `-p aepass.pytest_plugin` or `pytest_plugins =
["aepass.pytest_plugin"]` in the root conftest.py — not both (pytest refuses a plugin registered twice).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

if TYPE_CHECKING:
    from .testing import EmulatorProcess

DEFAULT_ARGS = "--throttle off"
ARGS_MARKER = "aepass_args"
VALIDATE_MARKER = "aepass_validate"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("aepass", "Adobe Pass emulator (aepass-emulator)")
    group.addoption("--aepass-args", dest="aepass_args", default=None, metavar="ARGS",
                    help="serve options of the session's emulator, one string: --aepass-args=\"--strict\" "
                         f"(default: the ini option aepass_args, else {DEFAULT_ARGS!r})")
    group.addoption("--aepass-validate", dest="aepass_validate", action="store_true", default=None,
                    help="after each test, check the requests it sent to the emulator against Adobe's OpenAPI files")
    parser.addini("aepass_args", f"serve options of the session's emulator (default {DEFAULT_ARGS!r})",
                  type="args", default=shlex.split(DEFAULT_ARGS))
    parser.addini("aepass_validate", "check every test's requests against Adobe's OpenAPI files",
                  type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{ARGS_MARKER}(*args): serve options added to the emulator's for this "
                                       "test, which gets an emulator process of its own")
    config.addinivalue_line("markers", f"{VALIDATE_MARKER}: after the test, every request it sent to the "
                                       "emulator must pass Adobe's OpenAPI files")


def _configured_args(config: pytest.Config) -> list[str]:
    given = config.getoption("aepass_args")
    return shlex.split(given) if given is not None else list(config.getini("aepass_args"))


def _test_args(request: pytest.FixtureRequest) -> list[str]:
    """The serve options a test asks for: indirect parametrization's, then its markers'."""
    args: list[str] = []
    param = getattr(request, "param", None)
    if isinstance(param, str):
        args += shlex.split(param)
    elif param is not None:
        args += [str(arg) for arg in param]
    for marker in reversed(list(request.node.iter_markers(ARGS_MARKER))):  # the closest marker last: it wins
        args += [str(arg) for arg in marker.args]
    return args


def _validating(request: pytest.FixtureRequest) -> bool:
    config = request.config
    return bool(request.node.get_closest_marker(VALIDATE_MARKER) or config.getoption("aepass_validate")
                or config.getini("aepass_validate"))


def _start(args: list[str], log_file: Path) -> EmulatorProcess:
    """An emulator logging to `log_file`; a start-up failure fails the test with the emulator's words."""
    from .testing import EmulatorProcess, EmulatorStartError  # noqa: PLC0415 - imported when a fixture is used
    try:
        emulator = EmulatorProcess(*args, "--log-file", str(log_file))
    except EmulatorStartError as error:
        problem = str(error)
    else:
        emulator.log_file = log_file
        return emulator
    pytest.fail(problem, pytrace=False)  # outside the except block: no "during handling of..." chain


def _check_requests(request: pytest.FixtureRequest, emulator: EmulatorProcess) -> None:
    """The validation after a test, when asked for (the emulator still running)."""
    if not _validating(request) or not emulator.alive():
        return
    from .testing import request_problems  # noqa: PLC0415
    problems = request_problems(emulator.raw_log())
    if problems:
        pytest.fail(f"{len(problems)} request(s) the test sent break Adobe's OpenAPI files "
                    f"(mark deliberate ones with an X-Test-Invalid header):\n" + "\n".join(problems), pytrace=False)


@pytest.fixture(scope="session")
def aepass_server(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorProcess]:
    """The session's emulator process (serve options: --aepass-args / ini aepass_args)."""
    emulator = _start(_configured_args(request.config), tmp_path_factory.mktemp("aepass") / "requests.jsonl")
    yield emulator
    if emulator.alive():
        emulator.stop()


@pytest.fixture
def aepass_isolated_emulator(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmulatorProcess]:
    """A fresh emulator process for this test (configured options plus the test's own)."""
    emulator = _start(_configured_args(request.config) + _test_args(request), tmp_path / "aepass-requests.jsonl")
    yield emulator
    try:
        _check_requests(request, emulator)
    finally:
        if emulator.alive():
            emulator.stop()


@pytest.fixture
def aepass_emulator(request: pytest.FixtureRequest) -> Iterator[EmulatorProcess]:
    """The session's emulator, reset (its own process when the test has an `aepass_args` marker)."""
    if request.node.get_closest_marker(ARGS_MARKER) is not None:
        yield request.getfixturevalue("aepass_isolated_emulator")
        return
    emulator: EmulatorProcess = request.getfixturevalue("aepass_server")
    if not emulator.alive():  # an earlier test took it down: a new one, same options, same log file
        from .testing import EmulatorStartError  # noqa: PLC0415
        problem = None
        try:
            emulator.restart()
        except EmulatorStartError as error:
            problem = str(error)
        if problem:
            pytest.fail(f"restarting the session's emulator: {problem}", pytrace=False)
    emulator.reset(config=True)
    yield emulator
    _check_requests(request, emulator)


@pytest.fixture
def aepass_control(aepass_emulator: EmulatorProcess) -> EmulatorProcess:
    """The control API of `aepass_emulator` (the same object: `login`, `config`, `faults`, ...)."""
    return aepass_emulator


@pytest.fixture
def aepass_requests(request: pytest.FixtureRequest) -> Callable[[], list[dict[str, Any]]]:
    """`aepass_requests()`: the API requests the test's emulator logged so far (pages left out)."""
    name = "aepass_isolated_emulator" if "aepass_isolated_emulator" in request.fixturenames else "aepass_emulator"
    emulator: EmulatorProcess = request.getfixturevalue(name)
    return emulator.log
