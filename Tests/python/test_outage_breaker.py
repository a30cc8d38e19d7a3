# SPDX-License-Identifier: Apache-2.0
"""The outage breaker through the C API: once Adobe failed a whole call's attempts (5xx, refused,
timed out), further calls are answered at once with a named error and send nothing, until a random
time (full jitter) lets one probe out; its success closes the breaker. A 5xx with Retry-After holds
every call back for that long; the call that met it is repeated once at the end of the hold when
the Retry-After is short (at most 5 s and the request timeout), else it fails at once. Docs:
docs/OUTAGE.md, docs/ERRORS.md "Retries"."""
import time

import pytest
from conftest import login
from harness import Recorder, authorize_once_adobe_is_back

both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)  # `wire`: its operations
REQUEST_TIMEOUT_MS = 2000  # a Retry-After of 3 s is longer than a call's budget, 1 s is within it


@pytest.fixture
def signed_in(make_client, recorder, emulator, tmp_path):
    client = make_client(storage_path=str(tmp_path / "store.sqlite"), request_timeout_ms=REQUEST_TIMEOUT_MS)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    emulator.clear_log()
    return client


def decision_requests(emulator, wire):
    return [e for e in emulator.log() if e["operation"] == wire.decision]


def authorize(client, recorder):
    """One getAuthorization; returns ("set_token" | "token_request_failed", the status before it, seconds)."""
    tokens, failures = len(recorder.of("set_token")), len(recorder.of("token_request_failed"))
    started = time.monotonic()
    client.get_authorization("LIVE")
    with recorder.condition:
        assert recorder.condition.wait_for(lambda: len(recorder.of("set_token")) > tokens
                                           or len(recorder.of("token_request_failed")) > failures, timeout=20)
    elapsed = time.monotonic() - started
    if len(recorder.of("set_token")) > tokens:
        return "set_token", None, elapsed
    return "token_request_failed", recorder.statuses()[-1], elapsed


@both_apis
def test_after_a_failed_call_the_next_ones_send_nothing_until_a_probe(signed_in, recorder, emulator, wire):
    emulator.faults({"operation": "*", "kind": "status", "status": 503})
    name, status, _ = authorize(signed_in, recorder)
    assert name == "token_request_failed" and status["errorId"] == "Z500"  # Adobe's own answer, 3 attempts
    sent = len(emulator.log())
    assert len(decision_requests(emulator, wire)) == 3
    for _ in range(3):
        name, status, elapsed = authorize(signed_in, recorder)
        assert name == "token_request_failed" and status["errorId"] == "Z120", status
        assert status["enhancedError"]["code"] == "service_unavailable"
        assert "HTTP 503" in status["message"] and "Not sent" in status["message"]
        assert elapsed < 1.0  # answered at once, not after a timeout
        if len(emulator.log()) > sent:
            break  # the first draw (at most 2 s) may have passed: a probe went out
    emulator.faults()
    (_, resource), held = authorize_once_adobe_is_back(signed_in, recorder)
    assert resource == "LIVE"
    # Nothing but probes reached Adobe while it was failing: one request per opening at most.
    failed_probes = [e for e in decision_requests(emulator, wire)[3:] if e["status"] == 503]
    assert len(failed_probes) <= 1 + held


def test_refused_connections_open_it_too_and_setrequestor_keeps_the_stored_configuration(
        make_client, emulator, tmp_path):
    # A client on a port where nothing listens: the first setRequestor meets refused connections
    # (its attempts), the next one is answered at once without a connection (CFG404, named so).
    recorder = Recorder()
    client = make_client(delegate=recorder, base_url="http://127.0.0.1:9", storage_path=str(tmp_path / "s.sqlite"))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert recorder.statuses()[-1]["errorId"] == "CFG404"
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (0,)
    status = recorder.statuses()[-1]
    assert status["errorId"] == "CFG404", status
    if status["enhancedError"]["code"] == "service_unavailable":  # (unless the draw was ~0: a probe)
        assert "Not sent" in status["message"] and time.monotonic() - started < 1.0


@both_apis
def test_a_5xx_with_retry_after_holds_every_call_back_that_long(signed_in, recorder, emulator, wire):
    # 3 s: longer than the call's budget (the 2-s request timeout), so not waited for within it.
    emulator.faults({"operation": wire.decision, "kind": "status", "status": 503, "retry_after": 3})
    started = time.monotonic()
    name, status, elapsed = authorize(signed_in, recorder)
    assert name == "token_request_failed" and status["errorId"] == "Z500"
    assert elapsed < 1.5 and len(decision_requests(emulator, wire)) == 1  # not repeated within the call
    emulator.faults()
    held = 0
    while True:
        name, status, _ = authorize(signed_in, recorder)
        if name == "set_token":
            break
        assert status["enhancedError"]["code"] == "service_unavailable"
        held += 1
        time.sleep(0.25)
    waited = time.monotonic() - started
    assert held > 0 and waited >= 3.0 - 0.1, "calls went out before Retry-After"
    assert len(decision_requests(emulator, wire)) == 2


@both_apis
def test_a_short_retry_after_is_waited_out_within_the_call_and_the_request_repeated_once(
        signed_in, recorder, emulator, wire):
    # A 503 (action retry) with Retry-After: 1, within the call's budget: the call waits out the
    # breaker's hold (1 to 1.25 s) and sends its request once more, which gets the token.
    emulator.faults({"operation": wire.decision, "kind": "status", "status": 503, "retry_after": 1, "requests": [1]})
    name, status, elapsed = authorize(signed_in, recorder)
    assert name == "set_token", status
    first, second = decision_requests(emulator, wire)
    assert (first["status"], second["status"]) == (503, 200)
    assert 1000 - 5 <= second["t_ms"] - first["t_ms"] <= 1250 + 500
    assert elapsed < 1.25 + 1.5
