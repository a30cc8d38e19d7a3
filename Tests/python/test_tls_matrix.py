# SPDX-License-Identifier: Apache-2.0
"""The certificate-failure matrix through the C API, behind a real TLS front (nghttpx, tlsfront.py) with
test certificates made at test time: expired, not yet valid, wrong host name, self-signed, untrusted root,
TLS 1.1- and TLS 1.0-only servers, a pin mismatch, a server that drops the handshake, one that answers
no TLS, one that stalls it. Each failure ends in its documented callback with SEC420 and a named cause
(or a timeout's named error), sends nothing to Adobe (the front forwarded no request), leaves every
store row as it was, cold or signed in, and the same client succeeds once the front is fixed."""
import time
from urllib.parse import urlsplit

import pytest
import tlsfront
from conftest import login
from harness import Recorder
from test_tls import client_for, failure_records, fronts, pki, sec420, store_rows  # noqa: F401 (fronts, pki: fixtures)


# --- the certificate-failure matrix ---------------------------------------------------------------
# Each case on a cold store (setRequestor: the registration would carry the software statement) and on
# a signed-in one (a profile and tokens; a new process starts from it and calls getAuthorization, whose
# request would carry the access token): SEC420 with its cause, no request through the bad front, every
# store row as it was, and the same client goes on once a good front is on that port.

MATRIX = [
    ("expired", "certificate_expired"),
    ("not_yet_valid", "certificate_not_yet_valid"),
    ("wrong_host", "host_name_mismatch"),
    ("self_signed", "certificate_self_signed"),
    ("untrusted", "certificate_untrusted"),
    ("tls_1_1_only", "tls_version_refused"),
    ("tls_1_0_only", "tls_version_refused"),
    ("pin_mismatch", "pinned_key_mismatch"),
]


def start_bad(fronts, pki, case, port=None):
    """The front of a MATRIX case (on `port`: the same URL as a good front's)."""
    if case in ("tls_1_1_only", "tls_1_0_only"):  # OpenSSL 3 serves both at security level 0 (tlsfront.Front)
        return fronts.start(pki.good, port=port, tls_max=case[4:7].replace("_", "."))
    if case == "pin_mismatch":  # trusted (the test root signed it), but another key than the pinned one
        return fronts.start(pki.good_rsa, port=port)
    return fronts.start(getattr(pki, case), port=port)


def case_options(pki, case):
    """The client options of a MATRIX case: the pin_mismatch clients pin pki.good's key (as every good front's)."""
    return {"pinned_public_keys": [tlsfront.pin(pki.good.cert)]} if case == "pin_mismatch" else {}


def signed_in_store(fronts, pki, make_client, recorder, emulator, tmp_path, **options):
    """A store signed in through a good front (then stopped: its port is free for the bad one); returns
    (store path, port, requests the front's access log holds)."""
    store = str(tmp_path / "store.sqlite")
    good = fronts.start(pki.good)
    client = client_for(make_client, pki, good.url, storage_path=store, **options)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.close()
    good.stop()
    emulator.clear_log()
    return store, good.port, len(good.requests())


def fails_signed_in(pki, make_client, emulator, store, port, cause, **options):
    """A new process on the signed-in store, through whatever now listens on `port`: the warm setRequestor
    completes from the store (no request), getAuthorization ends in SEC420 with `cause` and sends
    nothing, the store keeps every row; once a good front is on the port, the same client gets the token.
    Returns the failed client's recorder."""
    recorder = Recorder()
    client = client_for(make_client, pki, f"https://localhost:{port}", storage_path=store, delegate=recorder,
                        **options)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    before = store_rows(store)
    assert before["profiles"] and before["access_tokens"], before.keys()
    client.get_authorization("LIVE")
    assert recorder.wait("token_request_failed", timeout=20)[0] == "LIVE"
    assert sec420(recorder)["cause"] == cause
    assert "set_token" not in recorder.names()
    assert emulator.log() == [], "no request (so no token) left the SDK"
    assert store_rows(store) == before
    return client, recorder


def fixed(fronts, pki, bad, client, recorder):
    """The front on `bad`'s port is replaced by a good one: the same client's getAuthorization works."""
    bad.stop()
    fronts.start(pki.good, port=bad.port)
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"


@pytest.mark.parametrize("case,cause", MATRIX)
def test_a_bad_front_is_sec420_with_its_cause_sends_nothing_and_the_fixed_front_works(
        fronts, pki, make_client, recorder, emulator, tmp_path, case, cause):
    store = str(tmp_path / "store.sqlite")
    bad = start_bad(fronts, pki, case)
    client = client_for(make_client, pki, bad.url, storage_path=store, **case_options(pki, case))
    before = store_rows(store)  # the schema, no row
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert sec420(recorder)["cause"] == cause
    assert emulator.log() == [] and bad.requests() == [], "no request (so no credential) left the SDK"
    assert store_rows(store) == before and not any(before.values())
    # What it did write: the failure, for accessenabler-diag (SEC420 naming the cause, then setRequestor's).
    records = failure_records(store)
    assert records[0][:2] == ("error", "SEC420") and cause in records[0][2], records
    # The metrics name the cause (docs/METRICS.md: ae.tls.failures by error.type), and no handshake.
    host = urlsplit(bad.url).hostname
    failures = {(s["labels"]["server.address"], s["labels"]["error.type"]) for s in client.metrics()
                if s["name"] == "ae.tls.failures"}
    assert failures == {(host, cause)}
    assert not [s for s in client.metrics() if s["name"] == "ae.tls.handshakes"]
    # The front is fixed (the same URL, a good certificate): the same client goes on.
    bad.stop()
    fronts.start(pki.good, port=bad.port)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)
    assert sum(s["count"] for s in client.metrics() if s["name"] == "ae.tls.handshakes") >= 1


@pytest.mark.parametrize("case,cause", MATRIX)
def test_a_bad_front_before_a_signed_in_store_loses_nothing_and_the_fixed_front_works(
        fronts, pki, make_client, recorder, emulator, tmp_path, case, cause):
    options = case_options(pki, case)
    store, port, answered = signed_in_store(fronts, pki, make_client, recorder, emulator, tmp_path, **options)
    bad = start_bad(fronts, pki, case, port=port)
    client, failed = fails_signed_in(pki, make_client, emulator, store, port, cause, **options)
    assert len(bad.requests()) == answered, "no request went through the bad front"
    fixed(fronts, pki, bad, client, failed)


def test_a_certificate_going_bad_mid_session_loses_nothing(fronts, pki, make_client, recorder, emulator, tmp_path):
    store = str(tmp_path / "store.sqlite")
    good = fronts.start(pki.good)
    client = client_for(make_client, pki, good.url, storage_path=store)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    answered = len(good.requests())  # a front on the same port appends to the same access log
    good.stop()
    bad = fronts.start(pki.expired, port=good.port)
    client.get_authorization("LIVE")
    failed = recorder.wait("token_request_failed")
    assert failed[0] == "LIVE"
    assert sec420(recorder)["cause"] == "certificate_expired"
    assert len(bad.requests()) == answered, "no request went through the expired front"
    bad.stop()
    fronts.start(pki.good, port=good.port)
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, ""), "the profile survived"
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"


@pytest.mark.parametrize("kind", [tlsfront.HandshakeDropper, tlsfront.GarbageServer])
def test_a_server_that_breaks_the_handshake_is_sec420_and_the_fixed_front_works(
        fronts, pki, make_client, recorder, emulator, tmp_path, kind):
    store = str(tmp_path / "store.sqlite")
    server = fronts.broken(kind)
    client = client_for(make_client, pki, server.url, storage_path=store)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert sec420(recorder)["cause"] == "handshake_failed"
    assert emulator.log() == [] and not any(store_rows(store).values())
    server.stop()
    fronts.start(pki.good, port=server.port)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)


@pytest.mark.parametrize("kind", [tlsfront.HandshakeDropper, tlsfront.GarbageServer])
def test_a_server_that_breaks_the_handshake_before_a_signed_in_store_loses_nothing(
        fronts, pki, make_client, recorder, emulator, tmp_path, kind):
    store, port, answered = signed_in_store(fronts, pki, make_client, recorder, emulator, tmp_path)
    server = kind(port=port)
    fronts.running.append(server)
    client, failed = fails_signed_in(pki, make_client, emulator, store, port, "handshake_failed")
    assert server.connections >= 1
    fixed(fronts, pki, server, client, failed)


def test_a_server_that_stalls_ends_within_the_timeout(fronts, pki, make_client, recorder, emulator):
    server = fronts.broken(tlsfront.StallServer)
    client = client_for(make_client, pki, server.url, connect_timeout_ms=1000, request_timeout_ms=1500)
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=20) == (0,)
    assert time.monotonic() - started < 15, "bounded by the timeouts (and the SDK's retries)"
    assert any(s["errorId"] in ("CFG404", "SEC420") for s in recorder.statuses())
    assert emulator.log() == []
