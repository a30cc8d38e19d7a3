# SPDX-License-Identifier: Apache-2.0
"""Event-loop mode: callbacks wait for ae_client_dispatch() on the host's thread; the event fd
is readable exactly while callbacks are queued."""
import select
import threading
import time

from conftest import both_apis
from harness import ae


def run_loop(client, until, timeout=15):
    """A poll() loop on the client's event fd, dispatching until `until()` is true."""
    poller = select.poll()
    poller.register(client.event_fd(), select.POLLIN)
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "event loop timed out"
        if poller.poll(100):
            client.dispatch()


@both_apis
def test_the_whole_flow_from_one_poll_loop(make_client, recorder, emulator):
    emulator.config(auto_login_ms=300)
    client = make_client(callback_mode=ae.AE_CALLBACKS_EVENT_LOOP)
    fd = client.event_fd()
    caller = threading.get_ident()
    client.set_requestor("REF30")
    time.sleep(0.5)
    assert recorder.events == []  # nothing runs without dispatch
    assert select.select([fd], [], [], 0)[0] == [fd]  # readable: a callback is queued
    run_loop(client, lambda: recorder.of("set_requestor_complete"))
    assert select.select([fd], [], [], 0)[0] == []  # drained: not readable any more

    recorder.hooks["display_provider_dialog"] = lambda mvpds: client.set_selected_provider("Cablevision")
    recorder.hooks["set_authentication_status"] = lambda status, code: status == 1 and client.get_authorization("LIVE")
    client.get_authentication()
    run_loop(client, lambda: recorder.of("set_token"))
    recorder.hooks.clear()
    client.logout()
    run_loop(client, lambda: len(recorder.of("set_authentication_status")) == 2)
    assert recorder.threads == {caller}  # every callback ran on the loop's thread
    assert recorder.names()[:2] == ["set_requestor_complete", "display_provider_dialog"]


def test_dispatch_runs_what_was_queued_and_counts_it(make_client, recorder):
    client = make_client(callback_mode=ae.AE_CALLBACKS_EVENT_LOOP)
    client.set_requestor("REF30")
    client.check_authentication()
    client.set_options({"deviceIdMetadata": True})
    client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    expected = ["set_requestor_complete", "set_authentication_status", "set_metadata_status"]
    deadline = time.monotonic() + 10
    total = 0
    while recorder.names() != expected and time.monotonic() < deadline:  # (+ tracking, not named)
        total += client.dispatch()
        time.sleep(0.02)
    settled = time.monotonic() + 1  # then anything else that would come: there must be nothing
    while time.monotonic() < settled:
        total += client.dispatch()
        time.sleep(0.02)
    assert recorder.names() == expected
    assert total == len(recorder.events)


def test_dispatch_inside_a_callback_returns_at_once(make_client, recorder):
    client = make_client(callback_mode=ae.AE_CALLBACKS_EVENT_LOOP)
    nested = []
    recorder.hooks["set_requestor_complete"] = lambda status: nested.append(client.dispatch())
    client.set_requestor("REF30")
    run_loop(client, lambda: nested)
    assert nested == [0]


def test_destroy_inside_a_dispatched_callback(make_client, recorder):
    client = make_client(callback_mode=ae.AE_CALLBACKS_EVENT_LOOP)
    recorder.hooks["set_requestor_complete"] = lambda status: client.close()
    client.set_requestor("REF30")
    client.check_authentication()  # queued behind: must not run
    handle = client.handle.value
    deadline = time.monotonic() + 10
    while not recorder.events and time.monotonic() < deadline:
        ae.lib.ae_client_dispatch(handle, None)
        time.sleep(0.02)
    time.sleep(0.3)
    assert recorder.names() == ["set_requestor_complete"]
    assert ae.lib.ae_client_dispatch(handle, None) == ae.AE_E_INVALID_HANDLE


def test_destroy_from_another_thread_waits_for_a_running_dispatch(make_client, recorder):
    client = make_client(callback_mode=ae.AE_CALLBACKS_EVENT_LOOP)
    inside, release = threading.Event(), threading.Event()

    def slow(status):
        inside.set()
        release.wait(5)

    recorder.hooks["set_requestor_complete"] = slow
    client.set_requestor("REF30")
    loop = threading.Thread(target=lambda: run_loop(client, lambda: recorder.events))
    loop.start()
    assert inside.wait(10)
    destroyed = threading.Event()
    threading.Thread(target=lambda: (client.close(), destroyed.set())).start()
    assert not destroyed.wait(0.3)  # destroy waits for the callback that is running
    release.set()
    assert destroyed.wait(5)
    loop.join(5)


def test_thread_mode_has_no_event_fd(ready_client):
    assert ae.lib.ae_client_event_fd(ready_client.handle) == -1
    assert "event-loop" in ae.last_error_message()
    assert ae.lib.ae_client_dispatch(ready_client.handle, None) == ae.AE_E_INVALID_ARG
