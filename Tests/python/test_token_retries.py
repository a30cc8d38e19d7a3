# SPDX-License-Identifier: Apache-2.0
"""DCR's token call (`/o/client/token`, idempotent by design) meeting a transient 5xx, through the C
API (issue 16 item 16, with the outage breaker): a 5xx with a short `Retry-After` (within the call's
budget: at most 5 s and the request timeout) is waited for and the request repeated once, so neither a
cold setRequestor nor the token renewal a getAuthorization needs fails on it; a long `Retry-After`
fails the call at once with its named error, and the breaker holds the next calls back for that long
(docs/ERRORS.md "Retries", docs/OUTAGE.md)."""
import time

import pytest
from harness import WIRE

TOKEN = WIRE["v2"].token  # DCR: the same for both generations
both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)


def entries(emulator, operation):
    return [e for e in emulator.log() if e["operation"] == operation]


def login(client, recorder, emulator, mvpd="Cablevision"):
    """(conftest.login: `from conftest import` is ambiguous next to Tests/emulator's conftest.)"""
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider(mvpd)
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status", lambda status, code: status == 1) == (1, "")


@both_apis
def test_a_cold_set_requestor_waits_out_a_token_503_with_a_short_retry_after(make_client, recorder, emulator, wire):
    emulator.faults({"operation": TOKEN, "kind": "status", "status": 503, "retry_after": 1, "requests": [1]})
    client = make_client(request_timeout_ms=3000)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=20) == (1,), recorder.summary()
    first, second = entries(emulator, TOKEN)
    assert (first["status"], second["status"]) == (503, 201)
    # The breaker's hold: Retry-After, plus up to a quarter of it (full jitter over the fleet).
    assert 1000 - 5 <= second["t_ms"] - first["t_ms"] <= 1250 + 500
    assert recorder.find_status("CFG503") is None and recorder.find_status("R401") is None


@pytest.mark.parametrize("fault", [{"kind": "status", "status": 503, "retry_after": 1},
                                   {"kind": "status", "status": 502},
                                   {"kind": "html_error", "status": 503}],
                         ids=["503-retry-after-1", "502", "html-503"])
@both_apis
def test_a_token_renewal_during_get_authorization_survives_one_transient_5xx(
        make_client, recorder, emulator, wire, fault, tmp_path):
    client = make_client(storage_path=str(tmp_path / "store.sqlite"), request_timeout_ms=3000)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    emulator.clear_log()
    # The decision call finds the access token expired (401): the SDK renews it, and the token
    # endpoint fails once.
    emulator.faults({"operation": wire.decision, "kind": "expire_access_token", "requests": [1]},
                    {"operation": TOKEN, "requests": [1], **fault})
    client.get_authorization("LIVE")
    name = None
    with recorder.condition:
        assert recorder.condition.wait_for(
            lambda: recorder.of("set_token") or recorder.of("token_request_failed"), timeout=20)
        name = "set_token" if recorder.of("set_token") else "token_request_failed"
    assert name == "set_token", recorder.summary()
    assert recorder.of("set_token")[-1][1] == "LIVE"
    first, *_ = wire.authorize()
    calls = [(e["operation"], e["status"]) for e in emulator.log() if e["operation"] in (first, TOKEN)]
    assert calls[:4] == [(first, 401), (TOKEN, fault["status"]), (TOKEN, 201), (first, 200)], calls


def test_a_long_retry_after_fails_at_once_and_the_breaker_holds_the_next_call(make_client, recorder, emulator):
    emulator.faults({"operation": TOKEN, "kind": "status", "status": 503, "retry_after": 30})
    client = make_client()
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=20) == (0,)
    assert time.monotonic() - started < 2.0, "not waited for within the call"
    status = recorder.statuses()[-1]
    assert status["errorId"] == "R401" and status["enhancedError"]["action"] == "retry", status
    assert len(entries(emulator, TOKEN)) == 1, "not repeated within the call"
    # The same client's next call is answered at once without a request (Retry-After across calls).
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2, timeout=20) == (0,)
    assert time.monotonic() - started < 2.0
    held = recorder.statuses()[-1]
    assert held["enhancedError"]["code"] == "service_unavailable" and "Not sent" in held["message"], held
    assert len(entries(emulator, TOKEN)) == 1
