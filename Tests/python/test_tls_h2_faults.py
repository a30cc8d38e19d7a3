# SPDX-License-Identifier: Apache-2.0
"""A TLS front that breaks a request after the handshake: at the HTTP/2 layer (tlsfront.GoawayServer,
ResetStreamServer: the handshake succeeds, ALPN h2, the test root's certificate, then the request's
stream gets a GOAWAY or a RST_STREAM, before any answer or in the middle of one), or by never answering
(tlsfront.SilentServer, over h2 and over HTTP/1.1: a named timeout within the request timeout). Each call ends in its documented callback with a
named error (CFG404 for setRequestor, Z120 for getAuthorization, libcurl's text naming the HTTP/2
failure) well within the configured timeouts, sends nothing on to Adobe, leaves the store as it was, and
the same client succeeds once the front is fixed (the same URL: a good front on the broken one's port)."""
import re
import time

import pytest
import tlsfront
from conftest import login
from harness import ae
from test_tls import client_for, fronts, pki, store_rows  # noqa: F401 (fronts, pki: fixtures)

CONNECT_TIMEOUT_MS = 1000


def request_timeout_ms(mode):
    """2 s; refused_stream's six connections (six TLS handshakes with a Python server) get 8 s, so that
    a loaded machine (eight test workers on two cores) does not turn libcurl's give-up into a timeout."""
    return 8000 if mode == "refused_stream" else 2000


def bound_s(mode):
    return request_timeout_ms(mode) / 1000 + 3  # as test_faults.py bounds a never-ending answer

# mode: (server, its options, libcurl's message (7.88.1) that the SDK passes on, connections libcurl opens
# for the one request). The SDK itself sends neither request again: registration (setRequestor's first
# request on a cold store) and the authorization decision are not idempotent (RequestExecutor.Retry.standard).
MODES = {
    # GOAWAY last-stream-id 0, NO_ERROR: "not processed". libcurl logs "received GOAWAY, error=0,
    # last_stream=0" and fails the transfer (CURLE_HTTP2) without trying a new connection: one.
    "goaway_unprocessed": (tlsfront.GoawayServer, {"mode": "unprocessed"}, r"Error in the HTTP2 framing layer", 1),
    # GOAWAY last-stream-id = the request's stream, INTERNAL_ERROR, then the server closes: the stream
    # may have been processed, libcurl does not repeat it, and names the stream cut off by the close.
    "goaway_error": (tlsfront.GoawayServer, {"mode": "error"},
                     r"HTTP/2 stream 1 was not closed cleanly before end of the underlying stream", 1),
    # :status 200, content-length 64, 11 bytes of DATA, then that GOAWAY and the close.
    "goaway_mid_body": (tlsfront.GoawayServer, {"mode": "mid_body"},
                        r"HTTP/2 stream 1 was not closed cleanly before end of the underlying stream", 1),
    "rst_stream": (tlsfront.ResetStreamServer, {}, r"HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR", 1),
    "rst_stream_mid_body": (tlsfront.ResetStreamServer, {"mid_response": True},
                            r"HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR", 1),
    # REFUSED_STREAM says the request was not processed: libcurl sends it again on a new connection
    # (its refused-stream retry), at most 5 times (CONN_MAX_RETRIES), then gives up: 6 connections,
    # each with the request on stream 1. The message no longer names REFUSED_STREAM.
    "refused_stream": (tlsfront.ResetStreamServer, {"error": tlsfront.REFUSED_STREAM},
                       r"Connection died, tried 5 times before giving up", 6),
}


def broken(fronts, pki, mode, port=0):
    kind, options, _, _ = MODES[mode]
    server = kind(pki.good, port=port, **options)
    fronts.running.append(server)
    return server


def assert_named_failure(recorder, callback, mode, error_id, prefix):
    """The cause (a status) came right before `callback`; it names the HTTP/2 failure."""
    assert recorder.names()[-2:] == ["status", callback], recorder.summary()
    status = recorder.statuses()[-1]
    assert (status["errorId"], status["level"], status["enhancedError"]["code"]) == (error_id, "error", "network_error")
    assert status["message"].startswith(prefix) and re.search(MODES[mode][2], status["message"]), status
    return status


def assert_one_request_per_connection(server, mode, spare=False):
    """MODES' connections, each with its request on stream 1; `spare`: and maybe 1 more without a stream (a
    client's first request opens a spare beside it once its host name is resolved, closed before any request
    over HTTP/2; a first request that fails at once may end before the spare starts)."""
    expected = MODES[mode][3]
    server.wait_connections(expected)
    if spare:
        time.sleep(0.2)
        assert server.connections in (expected, expected + 1), server.connections
    else:
        assert server.connections == expected
    assert server.streams == [1] * expected


@pytest.mark.parametrize("mode", MODES)
def test_a_cold_set_requestor_through_a_broken_h2_front_is_cfg404_and_the_fixed_front_works(
        fronts, pki, make_client, recorder, emulator, tmp_path, mode):
    store = str(tmp_path / "store.sqlite")
    server = broken(fronts, pki, mode)
    client = client_for(make_client, pki, server.url, storage_path=store, connect_timeout_ms=CONNECT_TIMEOUT_MS,
                        request_timeout_ms=request_timeout_ms(mode))
    before = store_rows(store)  # the schema, no row
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=bound_s(mode) + 5) == (0,)
    assert time.monotonic() - started < bound_s(mode)
    assert_named_failure(recorder, "set_requestor_complete", mode, "CFG404", "Adobe's servers cannot be reached: ")
    assert_one_request_per_connection(server, mode, spare=True)
    assert store_rows(store) == before and not any(before.values()), "nothing half-registered"
    assert emulator.log() == []
    server.stop()
    fronts.start(pki.good, port=server.port)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)


@pytest.mark.parametrize("mode", MODES)
def test_get_authorization_through_a_broken_h2_front_is_z120_loses_nothing_and_the_fixed_front_works(
        fronts, pki, make_client, recorder, emulator, tmp_path, mode):
    store = str(tmp_path / "store.sqlite")
    good = fronts.start(pki.good)
    client = client_for(make_client, pki, good.url, storage_path=store, connect_timeout_ms=CONNECT_TIMEOUT_MS,
                        request_timeout_ms=request_timeout_ms(mode))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    good.stop()  # the same URL now reaches the broken server
    server = broken(fronts, pki, mode, port=good.port)
    emulator.clear_log()
    before = store_rows(store)
    started = time.monotonic()
    client.get_authorization("LIVE")
    resource, code, description = recorder.wait("token_request_failed", timeout=bound_s(mode) + 5)
    assert time.monotonic() - started < bound_s(mode)
    status = assert_named_failure(recorder, "token_request_failed", mode, "Z120", "Network error: ")
    assert (resource, code, description) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR, status["message"])
    assert "set_token" not in recorder.names()
    assert_one_request_per_connection(server, mode)
    assert store_rows(store) == before
    assert emulator.log() == []
    server.stop()
    fronts.start(pki.good, port=good.port)
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"


# --- a front that completes the handshake and then says nothing -------------------------------------
STALL_TIMEOUT_MS = 2000
TIMED_OUT = r"timed out"  # the SDK names a timeout (TransportError.timedOut), whatever libcurl said


@pytest.mark.parametrize("alpn", ["h2", "http/1.1"])
def test_a_front_that_stalls_after_the_handshake_fails_a_cold_set_requestor_within_the_request_timeout(
        fronts, pki, make_client, recorder, emulator, tmp_path, alpn):
    store = str(tmp_path / "store.sqlite")
    server = tlsfront.SilentServer(pki.good, alpn=alpn)
    fronts.running.append(server)
    client = client_for(make_client, pki, server.url, storage_path=store, connect_timeout_ms=CONNECT_TIMEOUT_MS,
                        request_timeout_ms=STALL_TIMEOUT_MS)
    before = store_rows(store)
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=15) == (0,)
    elapsed = time.monotonic() - started
    assert STALL_TIMEOUT_MS / 1000 - 0.1 <= elapsed < STALL_TIMEOUT_MS / 1000 + 2, elapsed
    assert recorder.names()[-2:] == ["status", "set_requestor_complete"], recorder.summary()
    status = recorder.statuses()[-1]
    assert (status["errorId"], status["enhancedError"]["code"]) == ("CFG404", "network_error"), status
    assert re.search(TIMED_OUT, status["message"]), status
    if alpn == "h2":
        assert server.streams == [1], "the registration went out once (not idempotent: not repeated)"
    else:  # and the spare connection's warm-up (a HEAD of "/", no API path) on a connection of its own
        assert sorted(server.request_lines) == ["HEAD /", "POST /o/client/register"], server.request_lines
    assert store_rows(store) == before and not any(before.values()), "nothing half-registered"
    assert emulator.log() == []
    server.stop()
    fronts.start(pki.good, port=server.port, alpn="h2,http/1.1" if alpn == "h2" else "http/1.1")
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)


@pytest.mark.parametrize("alpn", ["h2", "http/1.1"])
def test_a_front_that_stalls_after_the_handshake_fails_get_authorization_within_the_request_timeout(
        fronts, pki, make_client, recorder, emulator, tmp_path, alpn):
    store = str(tmp_path / "store.sqlite")
    front_alpn = "h2,http/1.1" if alpn == "h2" else "http/1.1"
    good = fronts.start(pki.good, alpn=front_alpn)
    client = client_for(make_client, pki, good.url, storage_path=store, connect_timeout_ms=CONNECT_TIMEOUT_MS,
                        request_timeout_ms=STALL_TIMEOUT_MS)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    good.stop()  # the same URL now reaches the silent server
    server = tlsfront.SilentServer(pki.good, alpn=alpn, port=good.port)
    fronts.running.append(server)
    emulator.clear_log()
    before = store_rows(store)
    started = time.monotonic()
    client.get_authorization("LIVE")
    resource, code, description = recorder.wait("token_request_failed", timeout=15)
    elapsed = time.monotonic() - started
    assert STALL_TIMEOUT_MS / 1000 - 0.1 <= elapsed < STALL_TIMEOUT_MS / 1000 + 2, elapsed
    assert recorder.names()[-2:] == ["status", "token_request_failed"], recorder.summary()
    status = recorder.statuses()[-1]
    assert (status["errorId"], status["enhancedError"]["code"]) == ("Z120", "network_error"), status
    assert re.search(TIMED_OUT, status["message"]), status
    assert (resource, code, description) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR, status["message"])
    assert server.streams and len(server.streams) == 1, "the decision went out once"
    assert store_rows(store) == before
    assert emulator.log() == []
    server.stop()
    fronts.start(pki.good, port=good.port, alpn=front_alpn)
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
