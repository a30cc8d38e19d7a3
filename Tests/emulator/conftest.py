"""Fixtures: a real emulator process on port 0, and an HTTP client that checks every API answer.

Every API answer is checked against the OpenAPI response schemas (`aepass.contract`), and after
each test every request the test sent is checked with `aepass.validate` — except the ones sent
with `invalid=True` (deliberately malformed requests, tagged `X-Test-Invalid: 1`).
The process is `aepass.testing.EmulatorProcess`, as in the package's pytest plugin; this suite
does not load the plugin (it runs from the source tree, installed or not). The helpers themselves
are in `emulator_testkit.py` (re-exported here).
"""

from __future__ import annotations

from typing import Iterator

import pytest

from emulator_testkit import (  # noqa: F401 (re-exported)
    ALL_SESSION_PARAMS, EMULATOR, HERE, INVALID_MARK, REDIRECT_URL, SOFTWARE_STATEMENT, Api, Client, Reply,
    b64, device_headers, device_info, start_emulator, stop_emulator,
)
from aepass.testing import EmulatorProcess, assert_valid_requests


@pytest.fixture(scope="session")
def emulator_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorProcess]:
    """The session's emulator (`--throttle off`), logging to a file of its own."""
    log_file = tmp_path_factory.mktemp("emulator") / "requests.jsonl"
    process = EmulatorProcess("--throttle", "off", "--log-file", str(log_file))
    yield process
    assert process.stop() == 0


@pytest.fixture(scope="session")
def emulator(emulator_process: EmulatorProcess) -> str:
    """The session emulator's URL."""
    return emulator_process.url


@pytest.fixture
def api(emulator_process: EmulatorProcess) -> Iterator[Api]:
    """A client on a freshly reset emulator (the settings it started with, the clock at real time);
    afterwards, the test's requests must be valid."""
    emulator_process.reset(config=True)
    client = Api(emulator_process.url)
    yield client
    assert_valid_requests(client.log())
