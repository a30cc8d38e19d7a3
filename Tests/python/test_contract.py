# SPDX-License-Identifier: Apache-2.0
"""The C contract through the real .so: call order, bad input, handles and lifetime."""
import ctypes
import threading
import time

import pytest

from conftest import both_apis, login
from harness import ae

lib = ae.lib


def test_calls_before_set_requestor_are_refused_without_callback(make_client, recorder):
    client = make_client()
    for call in (client.check_authentication, client.get_authentication, client.get_selected_provider,
                 client.logout, lambda: client.get_authorization("R"), lambda: client.check_authorization("R"),
                 lambda: client.check_preauthorized_resources(["R"]), lambda: client.get_metadata({"opCode": 2}),
                 lambda: client.set_selected_provider("Cablevision"), lambda: client.handle_external_url("x://y"),
                 lambda: client.preauthorize({"resources": ["R"]}, lambda response: None)):
        with pytest.raises(ae.AEError) as error:
            call()
        assert error.value.status == ae.AE_E_NO_REQUESTOR
        assert "setRequestor" in error.value.message
    recorder.settle()
    assert recorder.events == []


@both_apis
def test_calls_after_a_failed_set_requestor_are_refused(make_client, recorder):
    client = make_client()
    client.set_requestor("UNKNOWN")
    assert recorder.wait("set_requestor_complete") == (0,)
    with pytest.raises(ae.AEError) as error:
        client.check_authentication()
    assert error.value.status == ae.AE_E_NO_REQUESTOR


@both_apis
def test_calls_during_set_requestor_are_queued_and_run_after_it_in_order(make_client, recorder, emulator):
    emulator.config(latency_ms=200)  # setRequestor is still running when the calls below are made
    client = make_client()
    client.set_options({"deviceIdMetadata": True})
    client.set_requestor("REF30")
    client.check_authentication()
    client.get_selected_provider()
    client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    client.check_preauthorized_resources(["LIVE"])
    recorder.wait("preauthorized_resources")
    assert recorder.names() == ["set_requestor_complete", "set_authentication_status", "selected_provider",
                                "set_metadata_status", "preauthorized_resources"]


@both_apis
def test_queued_calls_end_with_their_failure_callbacks_when_set_requestor_fails(make_client, recorder, emulator):
    # Without latency a fast machine could see setRequestor fail before the next line runs; the calls
    # would then be refused (AE_E_NO_REQUESTOR) instead of queued (seen once in CI).
    emulator.config(latency_ms=200)
    client = make_client()
    client.set_requestor("UNKNOWN")
    client.check_authentication()
    client.get_authorization("LIVE")
    recorder.wait("token_request_failed")
    assert recorder.names() == ["status", "set_requestor_complete", "set_authentication_status", "token_request_failed"]
    assert recorder.of("token_request_failed")[0][:2] == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)


INVALID_UTF8 = b"\xff\xfe\xfd"
TOO_LONG = b"a" * (ae.AE_MAX_STRING_LENGTH + 1)


@pytest.fixture
def handle(ready_client, recorder):
    recorder.events.clear()
    return ready_client.handle


PREAUTHORIZE_CALLBACK = ae.PREAUTHORIZE_FN(lambda response, user_data: None)

# (call, argument values that must be refused); the argument under test is the lambda's parameter
BAD_INPUT = {
    "ae_set_options": (lambda h, v: lib.ae_set_options(h, v), [None, INVALID_UTF8, TOO_LONG, b"not json", b"[1]",
                                                              b'{"visitorID": 5}', b'{"device_info": "@@"}']),
    "ae_set_requestor": (lambda h, v: lib.ae_set_requestor(h, v, None), [None, INVALID_UTF8, TOO_LONG, b""]),
    "ae_set_requestor(service_providers)": (lambda h, v: lib.ae_set_requestor(h, b"REF30", v),
                                            [INVALID_UTF8, b"{}", b"[]", b"[1]", b'["ftp://x"]', b"[nope"]),
    "ae_get_authentication(data)": (lambda h, v: lib.ae_get_authentication(h, 0, v, None), [INVALID_UTF8, b"[]", b"{"]),
    "ae_get_authentication(filter)": (lambda h, v: lib.ae_get_authentication(h, 0, None, v),
                                      [INVALID_UTF8, b"[]", b'{"TV_PROVIDERS": "x"}']),
    "ae_set_selected_provider": (lambda h, v: lib.ae_set_selected_provider(h, v), [INVALID_UTF8, TOO_LONG, b""]),
    "ae_check_authorization": (lambda h, v: lib.ae_check_authorization(h, v, None), [None, INVALID_UTF8, TOO_LONG, b""]),
    "ae_get_authorization": (lambda h, v: lib.ae_get_authorization(h, v, None), [None, INVALID_UTF8, TOO_LONG, b""]),
    "ae_get_authorization(data)": (lambda h, v: lib.ae_get_authorization(h, b"R", v), [INVALID_UTF8, b"1", b"{x}"]),
    "ae_check_preauthorized_resources": (lambda h, v: lib.ae_check_preauthorized_resources(h, v, 1),
                                         [None, INVALID_UTF8, b"{}", b"[1]", b'[""]', b"[x"]),
    "ae_get_metadata": (lambda h, v: lib.ae_get_metadata(h, v), [None, INVALID_UTF8, b"{}", b'{"opCode": 9}',
                                                                 b'{"opCode": 1}', b'{"opCode": 3}', b"x"]),
    "ae_handle_external_url": (lambda h, v: lib.ae_handle_external_url(h, v), [None, INVALID_UTF8, TOO_LONG, b""]),
    "ae_preauthorize": (lambda h, v: lib.ae_preauthorize(h, v, PREAUTHORIZE_CALLBACK, None),
                        [None, INVALID_UTF8, b'{"resources": []}', b'{"resources": [1]}', b"{",
                         b'{"resources": ["a"], "disableFeatures": ["X"]}']),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_bad_input_is_refused_without_callback(handle, recorder, name):
    call, values = BAD_INPUT[name]
    for value in values:
        status = call(handle, value)
        assert status == ae.AE_E_INVALID_ARG, (name, value[:40] if value else value, status)
        message = ae.last_error_message()
        assert message, name
    recorder.settle()
    assert recorder.events == [], name


def test_preauthorize_without_callback_is_refused(handle):
    assert lib.ae_preauthorize(handle, b'{"resources": ["a"]}', ae.PREAUTHORIZE_FN(), None) == ae.AE_E_INVALID_ARG


def test_last_error_message_is_per_call_and_per_thread(handle):
    assert lib.ae_set_options(handle, b"nope") == ae.AE_E_INVALID_ARG
    assert "options_json" in ae.last_error_message()
    other = []
    thread = threading.Thread(target=lambda: other.append(ae.last_error_message()))
    thread.start()
    thread.join()
    assert other == [None]
    assert lib.ae_check_authentication(handle) == ae.AE_OK
    assert ae.last_error_message() is None


def test_handles_after_destroy_and_null(make_client, recorder):
    client = make_client()
    handle = ctypes.c_void_p(client.handle.value)
    lib.ae_client_destroy(handle)
    assert lib.ae_check_authentication(handle) == ae.AE_E_INVALID_HANDLE
    assert lib.ae_set_requestor(handle, b"REF30", None) == ae.AE_E_INVALID_HANDLE
    lib.ae_client_destroy(handle)  # twice: still harmless
    lib.ae_client_destroy(None)
    assert lib.ae_check_authentication(None) == ae.AE_E_INVALID_HANDLE
    assert lib.ae_check_authentication(ctypes.c_void_p(0xdeadbeef)) == ae.AE_E_INVALID_HANDLE
    client._handle = ae._CLIENT()  # already destroyed


@both_apis
def test_destroy_with_requests_in_flight_stops_every_callback(make_client, recorder, emulator):
    emulator.config(latency_ms=300)
    client = make_client()
    client.set_requestor("REF30")
    client.check_authentication()
    started = time.monotonic()
    client.close()
    assert time.monotonic() - started < 2
    count = len(recorder.events)
    recorder.settle(1.0)
    assert len(recorder.events) == count


@both_apis
def test_destroy_from_inside_a_callback(make_client, recorder, emulator):
    client = make_client()
    destroyed = threading.Event()

    def destroy(status):
        client.close()
        destroyed.set()

    recorder.hooks["set_requestor_complete"] = destroy
    client.set_requestor("REF30")
    client.check_authentication()  # queued behind setRequestor: must never be delivered
    assert destroyed.wait(10)
    recorder.settle(0.5)
    assert recorder.names() == ["set_requestor_complete"]


@both_apis
def test_polling_stops_when_the_client_is_destroyed(ready_client, recorder, emulator):
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    ready_client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    ready_client.close()
    emulator.clear_log()
    time.sleep(2.5)
    assert emulator.operations() == []


@both_apis
def test_many_threads_calling_at_once(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    errors = []

    def work(index):
        try:
            for i in range(25):
                ready_client.check_authentication()
                ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "zip"})
                if i % 5 == 0:
                    ready_client.get_authorization(f"R{index}-{i}")
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    recorder.wait("set_token", count=40, timeout=60)
    recorder.wait("set_metadata_status", count=200)
    assert len([1 for s, _ in recorder.of("set_authentication_status") if s == 1]) == 1 + 200
    assert len(recorder.threads) == 1
