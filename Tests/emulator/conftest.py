"""Fixtures: a real emulator process on port 0, and an HTTP client that checks every API answer.

Every API answer is checked against the OpenAPI response schemas (`response_contract`), and
after each test every request the test sent is checked with `validate_requests` — except the
ones sent with `invalid=True` (deliberately malformed requests, tagged `X-Test-Invalid: 1`).
The helpers themselves are in `emulator_testkit.py` (re-exported here).
"""

from __future__ import annotations

from typing import Iterator

import pytest

from emulator_testkit import (  # noqa: F401 (re-exported)
    ALL_SESSION_PARAMS, EMULATOR, HERE, INVALID_MARK, REDIRECT_URL, SOFTWARE_STATEMENT, Api, Client, Reply,
    b64, device_headers, device_info, start_emulator, stop_emulator,
)
from validate_requests import validate_entries


@pytest.fixture(scope="session")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log_file = tmp_path_factory.mktemp("emulator") / "requests.jsonl"
    process, base_url = start_emulator("--throttle", "off", "--log-file", str(log_file))
    yield base_url
    assert stop_emulator(process) == 0


@pytest.fixture
def api(emulator: str) -> Iterator[Api]:
    """A client on a freshly reset emulator (the settings it started with, the clock at real time);
    afterwards, the test's requests must be valid."""
    client = Api(emulator)
    client.control("POST", "reset", {"config": True})
    yield client
    sent = [e for e in client.log() if INVALID_MARK not in e["headers"]]
    assert validate_entries(sent) == []
