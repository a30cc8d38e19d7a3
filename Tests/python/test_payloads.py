# SPDX-License-Identifier: Apache-2.0
"""Typed callback data (ae_callback_payload, ae_payload_*; issue 31): the accessors on bad input, views
after their callback, hostile answers from Adobe, and the comparison harness itself (payload_views.py,
which compares every callback of the suite field by field)."""
import ctypes
import json
import threading

import payload_views
from harness import ae

lib = ae.lib


def _inside(recorder, name, read):
    """Runs read() inside each callback `name` (on its thread); returns an Event set once it has run
    (the recorder's wait may return before its hook did)."""
    done = threading.Event()

    def hook(*args):
        try:
            read()
        finally:
            done.set()
    recorder.hooks[name] = hook
    return done


def test_outside_a_callback_there_is_no_view_and_every_accessor_says_so():
    assert lib.ae_callback_payload() is None
    value, flag, length = ctypes.c_int64(5), ctypes.c_int32(5), ctypes.c_size_t(5)
    for view in (None, 1, 0x15, 0xDEADBEEF5, ctypes.c_void_p(-1).value):
        assert lib.ae_payload_kind(view) == ae.AE_PAYLOAD_NONE
        assert lib.ae_payload_type(view, ae.AE_FIELD_ERROR_ID) == ae.AE_VALUE_ABSENT
        assert lib.ae_payload_string(view, ae.AE_FIELD_ERROR_ID, ctypes.byref(length)) is None and length.value == 0
        assert lib.ae_payload_int64(view, ae.AE_FIELD_NOT_AFTER, ctypes.byref(value)) == ae.AE_E_INVALID_HANDLE
        assert lib.ae_payload_bool(view, ae.AE_FIELD_IS_TEMP_PASS, ctypes.byref(flag)) == ae.AE_E_INVALID_HANDLE
        assert value.value == 5 and flag.value == 5
        assert lib.ae_payload_child(view, ae.AE_FIELD_ENHANCED_ERROR) is None
        assert lib.ae_payload_count(view) == 0
        assert lib.ae_payload_at(view, 0) is None
        assert lib.ae_payload_text(view, None) is None


def test_a_view_is_dead_after_its_callback_and_on_other_threads(ready_client, recorder):
    seen = {}

    def read():
        view = lib.ae_callback_payload()
        seen["view"] = view
        seen["list"] = lib.ae_payload_count(view)
        other = {}
        thread = threading.Thread(target=lambda: other.update(
            kind=lib.ae_payload_kind(view), count=lib.ae_payload_count(view), root=lib.ae_callback_payload()))
        thread.start()
        thread.join()
        seen["other thread"] = other
        item = lib.ae_payload_at(view, 0)
        seen["item"] = item
        seen["name"] = ctypes.string_at(lib.ae_payload_string(item, ae.AE_FIELD_DISPLAY_NAME, None)).decode()
        seen["out of range"] = lib.ae_payload_at(view, seen["list"])
        seen["huge index"] = lib.ae_payload_at(view, ctypes.c_size_t(-1).value)
        # a client handle is no view
        seen["client as view"] = lib.ae_payload_kind(ctypes.cast(ready_client.handle, ctypes.c_void_p).value)

    done = _inside(recorder, "display_provider_dialog", read)
    ready_client.get_authentication()
    mvpds = recorder.wait("display_provider_dialog")[0]
    assert done.wait(10)
    assert seen["list"] == len(mvpds) > 1
    assert seen["name"] == mvpds[0]["displayName"]
    assert seen["other thread"] == {"kind": ae.AE_PAYLOAD_NONE, "count": 0, "root": None}
    assert seen["out of range"] is None and seen["huge index"] is None
    assert seen["client as view"] == ae.AE_PAYLOAD_NONE
    # After the callback: the same handles read as absent, never as freed memory.
    value = ctypes.c_int32(3)
    for view in (seen["view"], seen["item"]):
        assert lib.ae_payload_kind(view) == ae.AE_PAYLOAD_NONE
        assert lib.ae_payload_string(view, ae.AE_FIELD_DISPLAY_NAME, None) is None
        assert lib.ae_payload_bool(view, ae.AE_FIELD_IS_TEMP_PASS, ctypes.byref(value)) == ae.AE_E_INVALID_HANDLE
    assert lib.ae_payload_count(seen["view"]) == 0
    ready_client.set_selected_provider(None)


def test_absent_is_not_empty_and_a_wrong_type_reads_as_absent(make_client, recorder, emulator):
    """Adobe's provider list with a provider that lacks fields and has an empty name: absent fields read
    NULL / AE_E_INVALID_ARG (the out value untouched), the empty name "" with length 0; a field read with
    the accessor of another type reads as absent."""
    base = emulator.url
    mvpds = [{"id": "Sparse", "displayName": ""},
             {"id": "Full", "displayName": "Full \u00e9\u6f22", "logoUrl": f"{base}/logo.png"}]
    emulator.faults({"operation": "handleRequestUsingGET", "kind": "status", "status": 200,
                     "body": {"id": "REF30", "mvpds": mvpds}})
    client = make_client()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete")[0] == 1
    got = {}

    def read():
        view = lib.ae_callback_payload()
        items = [lib.ae_payload_at(view, i) for i in range(lib.ae_payload_count(view))]
        sparse = next(i for i in items if ctypes.string_at(lib.ae_payload_string(i, ae.AE_FIELD_ID, None)) == b"Sparse")
        length = ctypes.c_size_t(9)
        name = lib.ae_payload_string(sparse, ae.AE_FIELD_DISPLAY_NAME, ctypes.byref(length))
        got["empty name"] = (ctypes.string_at(name), length.value)
        got["logo"] = lib.ae_payload_string(sparse, ae.AE_FIELD_LOGO_URL, None)
        got["logo type"] = lib.ae_payload_type(sparse, ae.AE_FIELD_LOGO_URL)
        flag = ctypes.c_int32(4)
        got["temp pass"] = (lib.ae_payload_bool(sparse, ae.AE_FIELD_IS_TEMP_PASS, ctypes.byref(flag)), flag.value)
        flag = ctypes.c_int32(4)
        got["authorized"] = (lib.ae_payload_bool(sparse, ae.AE_FIELD_AUTHORIZED, ctypes.byref(flag)), flag.value)
        got["boarding"] = lib.ae_payload_type(sparse, ae.AE_FIELD_BOARDING_STATUS)
        number = ctypes.c_int64(6)
        got["name as integer"] = (lib.ae_payload_int64(sparse, ae.AE_FIELD_DISPLAY_NAME, ctypes.byref(number)),
                                  number.value)
        got["name as list"] = lib.ae_payload_child(sparse, ae.AE_FIELD_DISPLAY_NAME)
        got["null out"] = lib.ae_payload_bool(sparse, ae.AE_FIELD_IS_TEMP_PASS, None)
        full = next(i for i in items if ctypes.string_at(lib.ae_payload_string(i, ae.AE_FIELD_ID, None)) == b"Full")
        text = lib.ae_payload_string(full, ae.AE_FIELD_DISPLAY_NAME, ctypes.byref(length))
        got["full name"] = ctypes.string_at(text, length.value).decode()

    done = _inside(recorder, "display_provider_dialog", read)
    client.get_authentication()
    delivered = recorder.wait("display_provider_dialog")[0]
    assert done.wait(10)
    assert got["empty name"] == (b"", 0)
    sparse = next(m for m in delivered if m["ID"] == "Sparse")
    assert "logoURL" not in sparse, sparse  # the JSON form lacks it too
    assert got["logo"] is None and got["logo type"] == ae.AE_VALUE_ABSENT
    assert got["temp pass"] == (ae.AE_OK, 0) and sparse["isTempPass"] is False
    assert got["authorized"] == (ae.AE_E_INVALID_ARG, 4)  # absent: the out value untouched
    assert got["boarding"] == ae.AE_VALUE_ABSENT or "boardingStatus" in sparse
    assert got["name as integer"] == (ae.AE_E_INVALID_ARG, 6) and got["name as list"] is None
    assert got["null out"] == ae.AE_E_INVALID_ARG
    assert got["full name"] == "Full \u00e9\u6f22"
    client.set_selected_provider(None)


def test_a_huge_provider_list_is_indexable(make_client, recorder, emulator):
    mvpds = [{"id": f"M{i}", "displayName": f"Provider {i}"} for i in range(3000)]
    emulator.faults({"operation": "handleRequestUsingGET", "kind": "status", "status": 200,
                     "body": {"id": "REF30", "mvpds": mvpds}})
    client = make_client()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete")[0] == 1
    got = {}

    def read():
        view = lib.ae_callback_payload()
        count = lib.ae_payload_count(view)
        last = lib.ae_payload_at(view, count - 1)
        got["count"] = count
        got["last"] = ctypes.string_at(lib.ae_payload_string(last, ae.AE_FIELD_ID, None)).decode()

    done = _inside(recorder, "display_provider_dialog", read)
    client.get_authentication()
    delivered = recorder.wait("display_provider_dialog", timeout=60)[0]
    assert done.wait(10)
    assert got == {"count": len(delivered), "last": delivered[-1]["ID"]}
    client.set_selected_provider(None)


def test_the_harness_catches_a_view_that_differs_from_the_json(ready_client, recorder, monkeypatch):
    """payload_views compares what it is told the JSON keys are: with a wrong key it must complain."""
    keys = dict(payload_views.FIELD_KEYS)
    keys[ae.AE_FIELD_DISPLAY_NAME] = ["displayNameX"]
    monkeypatch.setattr(payload_views, "FIELD_KEYS", keys)
    ready_client.get_authentication()
    recorder.wait("display_provider_dialog")
    mismatches = payload_views.take_mismatches()
    assert any("AE_FIELD_DISPLAY_NAME" in line for line in mismatches), mismatches
    ready_client.set_selected_provider(None)


def test_the_renamed_identity_token_call_and_its_old_name_are_one_function(ready_client):
    for function in (lib.ae_set_identity_token, lib.ae_client_set_identity_token):
        assert function(ready_client.handle, 99, None) == ae.AE_E_INVALID_ARG
        assert function(ready_client.handle, ae.AE_IDENTITY_TOKEN_PLATFORM, b"not.a.token") == ae.AE_E_INVALID_ARG
        assert function(ready_client.handle, ae.AE_IDENTITY_TOKEN_PLATFORM, None) == ae.AE_OK
        assert function(None, ae.AE_IDENTITY_TOKEN_PLATFORM, None) == ae.AE_E_INVALID_HANDLE
    assert "ae_client_set_identity_token" in ae._SIGNATURES and "ae_set_identity_token" in ae._SIGNATURES


def test_the_suite_compares_views_on_every_kind_of_callback():
    """The harness ran (this module is collected after others on the same worker only sometimes, so
    this checks the accessor surface instead): every AE_FIELD_* the header documents has a JSON key."""
    assert len(payload_views.FIELD_KEYS) == len([n for n in dir(ae) if n.startswith("AE_FIELD_")]) >= 40
    assert all(payload_views.FIELD_KEYS.values())
    assert json.dumps(sorted(payload_views.EXPECTED)) == json.dumps(sorted(
        [name for name, _ in ae._CALLBACKS] + ["preauthorize"]))


def test_the_token_view_has_its_expiry_as_getmetadata_reports_it(ready_client, recorder, emulator):
    """set_token's view: the token, its resource and its expiry (AE_FIELD_NOT_AFTER), the same expiry
    getMetadata opcode 1 then answers for the resource."""
    from conftest import login
    login(ready_client, recorder, emulator)
    got = {}

    def read():
        view = lib.ae_callback_payload()
        value = ctypes.c_int64()
        got["status"] = lib.ae_payload_int64(view, ae.AE_FIELD_NOT_AFTER, ctypes.byref(value))
        got["not after"] = value.value
        got["resource"] = ctypes.string_at(lib.ae_payload_string(view, ae.AE_FIELD_RESOURCE, None)).decode()

    done = _inside(recorder, "set_token", read)
    ready_client.get_authorization("LIVE")
    recorder.wait("set_token")
    assert done.wait(10)
    assert got["status"] == ae.AE_OK and got["resource"] == "LIVE"
    ready_client.get_metadata({"opCode": ae.AE_METADATA_AUTHORIZATION, "resource_id": "LIVE"})
    expiry = recorder.wait("set_metadata_status")[0]
    assert got["not after"] == expiry > 0


class _CorruptingReply:
    """A reply that puts invalid UTF-8 into the configuration's provider names before answering."""

    def __init__(self, reply, url):
        self.reply, self.url = reply, url

    def response(self, status, headers, body):
        if "/configuration" in self.url and b'"displayName":"' in body.replace(b'": "', b'":"'):
            body = body.replace(b'"displayName": "', b'"displayName": "\xff\xfe').replace(
                b'"displayName":"', b'"displayName":"\xff\xfe')
        return self.reply.response(status, headers, body)

    def error(self, code, message=None):
        return self.reply.error(code, message)


def test_invalid_utf8_from_adobe_is_refused_and_never_reaches_a_view(make_client, recorder, emulator):
    """Adobe's configuration with invalid UTF-8 in the providers' names (through a host transport that
    corrupts the real answer): the SDK refuses the answer by name, no callback carries those bytes, and
    the views of the callbacks that do run read as usual (the suite's harness compares each with its
    JSON)."""
    from accessenabler.transport import HttpClientTransport

    class Corrupting(HttpClientTransport):
        def send(self, request, reply):
            super().send(request, _CorruptingReply(reply, request["url"]))

    client = make_client(transport=Corrupting())
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete")[0] == 0
    statuses = [args[0] for name, args in recorder.events if name == "status"]
    assert statuses and all(isinstance(s, dict) for s in statuses)
    assert "\ufffd" not in repr(recorder.events) and "\\xff" not in repr(recorder.events)
