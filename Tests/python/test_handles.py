# SPDX-License-Identifier: Apache-2.0
"""Handles at the C boundary (one handle table for clients, partner requests and HTTP requests):
a stale handle — a destroyed client, an answered or timed-out partner request, an answered HTTP
request — gives AE_E_INVALID_HANDLE from every function that takes it, before its other
arguments are looked at, also from several threads at once; a handle of one kind is unknown to
the functions of another; answering one request from several threads at once is accepted once."""
import ctypes
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from harness import ae

from accessenabler.partner import PartnerSimulator
from accessenabler.transport import Transport

THREADS = 8
ROUNDS = 50


def from_threads(call, threads=THREADS, rounds=ROUNDS):
    """The statuses `call()` returns, called `rounds` times on each of `threads` threads started together."""
    barrier = threading.Barrier(threads)

    def worker():
        barrier.wait()
        return [call() for _ in range(rounds)]

    with ThreadPoolExecutor(threads) as pool:
        return [status for statuses in pool.map(lambda _: worker(), range(threads)) for status in statuses]


def wait_for(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class HoldingPartner(PartnerSimulator):
    """Answers nothing by itself: keeps every reply for the test."""

    def __init__(self, **script):
        super().__init__(**script)
        self.held = []

    def check_access_status(self, prompt, reply):
        self.held.append(reply)

    def enqueue(self, request, reply):
        self.held.append(reply)


class HoldingTransport(Transport):
    """Keeps every request for the test, which answers them itself."""

    def __init__(self):
        super().__init__()
        self.held = []

    def send(self, request, reply):
        self.held.append((request, reply))


def partner_calls(handle):
    """Every partner reply function on `handle`, with good and with bad arguments."""
    lib = ae.lib
    return [lambda: lib.ae_partner_request_reply_access_status(handle, 3, 1),
            lambda: lib.ae_partner_request_reply_access_status(handle, 99, 7),  # bad arguments
            lambda: lib.ae_partner_request_reply_metadata(handle, b"{}"),
            lambda: lib.ae_partner_request_reply_metadata(handle, b"not json"),
            lambda: lib.ae_partner_request_reply_metadata(handle, None),
            lambda: lib.ae_partner_request_reply_error(handle, 2, b"detail"),
            lambda: lib.ae_partner_request_reply_error(handle, 8, None)]  # TIMEOUT is no reply


def http_calls(handle):
    """Every HTTP reply function on `handle`, with good and with bad arguments."""
    lib = ae.lib
    return [lambda: lib.ae_http_request_reply(handle, 200, None, None, 0),
            lambda: lib.ae_http_request_reply(handle, 42, None, None, 5),  # bad status, NULL body of length 5
            lambda: lib.ae_http_request_reply_error(handle, ae.AE_HTTP_E_FAILED, b"gave up"),
            lambda: lib.ae_http_request_reply_error(handle, 99, None)]


def client_calls(handle):
    """Every client function on `handle`, with good and with bad arguments."""
    lib = ae.lib
    status = ctypes.c_int32()
    return [lambda: lib.ae_check_authentication(handle),
            lambda: lib.ae_set_requestor(handle, b"REF30", None),
            lambda: lib.ae_set_requestor(handle, None, b"not json"),
            lambda: lib.ae_set_options(handle, b"nope"),
            lambda: lib.ae_get_authentication(handle, 0, b"[]", None),
            lambda: lib.ae_set_selected_provider(handle, b""),
            lambda: lib.ae_get_authorization(handle, None, None),
            lambda: lib.ae_check_preauthorized_resources(handle, b"{}", 0),
            lambda: lib.ae_get_metadata(handle, b"{}"),
            lambda: lib.ae_logout(handle),
            lambda: lib.ae_handle_external_url(handle, None),
            lambda: lib.ae_preauthorize(handle, None, ae.PREAUTHORIZE_FN(), None),
            lambda: lib.ae_client_store_status(handle, None),
            lambda: lib.ae_client_store_status(handle, ctypes.byref(status)),
            lambda: lib.ae_client_dispatch(handle, None)]


def assert_all_invalid_handle(calls):
    for call in calls:
        statuses = set(from_threads(call, rounds=10))
        assert statuses == {ae.AE_E_INVALID_HANDLE}, statuses


# --- partner requests ------------------------------------------------------------------------

def test_an_answered_partner_request_is_stale_for_every_reply_from_every_thread(make_client, recorder):
    partner = HoldingPartner(account="Comcast")
    make_client(partner=partner).set_requestor("REF30")
    wait_for(lambda: partner.held)
    request = partner.held[0].request
    # Answered from several threads at once: one answer is taken, every other is refused.
    statuses = from_threads(lambda: ae.lib.ae_partner_request_reply_access_status(request, 3, 1), rounds=5)
    assert statuses.count(ae.AE_OK) == 1
    assert set(statuses) == {ae.AE_OK, ae.AE_E_INVALID_HANDLE}
    assert_all_invalid_handle(partner_calls(request))


def test_a_timed_out_partner_request_is_stale(make_client, recorder):
    partner = HoldingPartner(account="Comcast", timeout_ms=300)
    make_client(partner=partner).set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=10) == (1,)  # went on without the partner
    assert partner.held and partner.held[0].request in partner.cancellations()  # the platform was told
    assert_all_invalid_handle(partner_calls(partner.held[0].request))


def test_a_partner_request_of_a_destroyed_client_is_stale(make_client, recorder):
    partner = HoldingPartner(account="Comcast")
    client = make_client(partner=partner)
    client.set_requestor("REF30")
    wait_for(lambda: partner.held)
    client.close()
    assert_all_invalid_handle(partner_calls(partner.held[0].request))


# --- host HTTP requests ----------------------------------------------------------------------

def test_an_answered_http_request_is_stale_and_never_answers_the_next_one(make_client, recorder):
    transport = HoldingTransport()
    make_client(transport=transport).set_requestor("REF30")
    wait_for(lambda: transport.held)
    first = transport.held[0][1].request
    # The request could not connect: the SDK sends it once more, as a new request.
    statuses = from_threads(lambda: ae.lib.ae_http_request_reply_error(first, ae.AE_HTTP_E_CANNOT_CONNECT, b"no route"),
                            rounds=5)
    assert statuses.count(ae.AE_OK) == 1 and set(statuses) == {ae.AE_OK, ae.AE_E_INVALID_HANDLE}
    wait_for(lambda: len(transport.held) == 2)
    second = transport.held[1][1].request
    assert second != first  # handles are never reused
    assert_all_invalid_handle(http_calls(first))
    # The stale handle answered nothing: the new request is still pending and takes its answer.
    assert ae.lib.ae_http_request_reply_error(second, ae.AE_HTTP_E_CANNOT_CONNECT, b"no route") == ae.AE_OK
    assert recorder.wait("set_requestor_complete") == (0,)


def test_http_requests_of_a_destroyed_client_are_stale(make_client, recorder):
    transport = HoldingTransport()
    client = make_client(transport=transport)
    client.set_requestor("REF30")
    wait_for(lambda: transport.held)
    client.close()
    assert_all_invalid_handle(http_calls(transport.held[0][1].request))


# --- clients ---------------------------------------------------------------------------------

def test_a_destroyed_client_handle_is_refused_by_every_call_from_every_thread(make_client, recorder):
    client = make_client()
    handle = client.handle.value
    client.close()
    assert_all_invalid_handle(client_calls(handle))
    assert ae.lib.ae_client_event_fd(handle) == -1
    ae.lib.ae_client_destroy(handle)  # a second destroy is a no-op
    # A new client gets a new handle; the old one stays refused.
    other = make_client()
    assert other.handle.value != handle
    assert ae.lib.ae_check_authentication(handle) == ae.AE_E_INVALID_HANDLE
    assert ae.lib.ae_set_options(other.handle, b"{}") == ae.AE_OK


def test_destroying_from_several_threads_at_once(make_client, recorder):
    client = make_client()
    handle = client.handle.value
    from_threads(lambda: ae.lib.ae_client_destroy(handle), rounds=3)
    assert_all_invalid_handle(client_calls(handle)[:3])


# --- one kind of handle is not another -------------------------------------------------------

def test_a_handle_of_one_kind_is_unknown_to_the_functions_of_another(make_client, recorder):
    partner = HoldingPartner(account="Comcast")
    with_partner = make_client(partner=partner)
    with_partner.set_requestor("REF30")
    transport = HoldingTransport()
    with_transport = make_client(transport=transport)
    with_transport.set_requestor("REF30")
    wait_for(lambda: partner.held and transport.held)
    request, http, client = partner.held[0].request, transport.held[0][1].request, with_partner.handle.value
    assert_all_invalid_handle(partner_calls(http) + partner_calls(client))
    assert_all_invalid_handle(http_calls(request) + http_calls(client))
    assert_all_invalid_handle(client_calls(request)[:3] + client_calls(http)[:3])
    # Each handle still works with its own functions.
    assert ae.lib.ae_partner_request_reply_access_status(request, 3, 1) == ae.AE_OK
    assert ae.lib.ae_http_request_reply_error(http, ae.AE_HTTP_E_FAILED, b"gave up") == ae.AE_OK
    assert ae.lib.ae_set_options(client, b"{}") == ae.AE_OK
