# SPDX-License-Identifier: Apache-2.0
"""The AccessEnabler calls with typed arguments (issue 31 item 2): each one against its JSON form on a
real flow (the same callbacks, the same values), and their bad input (NULL arrays and entries, invalid
UTF-8, unknown opcodes and flags, a bad handle before bad arguments)."""
import ctypes
import json
import threading

from conftest import login
from harness import ae

lib = ae.lib


def strings(*items):
    return (ctypes.c_char_p * len(items))(*[None if item is None else item.encode() if isinstance(item, str) else item
                                            for item in items])


class Completions:
    """ae_preauthorize_fn thunks kept alive, with the responses they got."""

    def __init__(self):
        self.responses, self.done = [], threading.Event()
        self.function = ae.PREAUTHORIZE_FN(self.called)

    def called(self, response, _):
        self.responses.append(json.loads(response.decode()))
        self.done.set()


def test_preauthorize_list_is_preauthorize(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    by_json, answered = [], threading.Event()
    ready_client.preauthorize({"resources": ["LIVE", "NEWS"], "disableFeatures": ["LOCAL_CACHE"]},
                              lambda response: (by_json.append(response), answered.set()))
    completions = Completions()
    status = lib.ae_preauthorize_list(ready_client.handle, strings("LIVE", "NEWS"), 2, ae.AE_PREAUTHORIZE_NO_LOCAL_CACHE,
                                      completions.function, None)
    assert status == ae.AE_OK
    assert completions.done.wait(15)
    typed = completions.responses[0]
    assert answered.wait(15)
    assert [(d["id"], d["authorized"]) for d in typed["decisions"]] == \
        [(d["id"], d["authorized"]) for d in by_json[0]["decisions"]]


def test_check_preauthorized_resources_list_is_the_json_call(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    ready_client.check_preauthorized_resources(["LIVE", "NEWS"], cache=False)
    by_json = recorder.wait("preauthorized_resources")[0]
    assert lib.ae_check_preauthorized_resources_list(ready_client.handle, strings("LIVE", "NEWS"), 2, 0) == ae.AE_OK
    assert recorder.wait("preauthorized_resources", count=2)[0] == by_json
    assert lib.ae_check_preauthorized_resources_list(ready_client.handle, None, 0, 1) == ae.AE_OK  # an empty list
    assert recorder.wait("preauthorized_resources", count=3)[0] == []


def test_get_metadata_key_is_get_metadata(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    ready_client.get_metadata({"opCode": ae.AE_METADATA_AUTHENTICATION})
    by_json = recorder.wait("set_metadata_status")
    assert lib.ae_get_metadata_key(ready_client.handle, ae.AE_METADATA_AUTHENTICATION, None) == ae.AE_OK
    assert recorder.wait("set_metadata_status", count=2) == by_json
    assert lib.ae_get_metadata_key(ready_client.handle, ae.AE_METADATA_USER_META, b"zip") == ae.AE_OK
    value, encrypted, key, arguments = recorder.wait("set_metadata_status", count=3)
    assert key == ae.AE_METADATA_USER_META and arguments == {"opCode": 3, "user_metadata_name": "zip"}


def test_set_option_string_and_bool_are_set_options(ready_client, recorder, emulator):
    login(ready_client, recorder, emulator)
    assert lib.ae_get_metadata_key(ready_client.handle, ae.AE_METADATA_DEVICE_ID, None) == ae.AE_OK
    assert recorder.wait("set_metadata_status")[0] is None  # off by default (META403)
    assert lib.ae_set_option_bool(ready_client.handle, ae.AE_OPTION_DEVICE_ID_METADATA.encode(), 1) == ae.AE_OK
    assert lib.ae_get_metadata_key(ready_client.handle, ae.AE_METADATA_DEVICE_ID, None) == ae.AE_OK
    assert isinstance(recorder.wait("set_metadata_status", count=2)[0], str)
    assert lib.ae_set_option_string(ready_client.handle, ae.AE_OPTION_VISITOR_ID.encode(), b"visitor-1") == ae.AE_OK
    ready_client.check_authorization("LIVE")
    recorder.wait("set_token")
    assert emulator.log()[-1]["headers"].get("AP-Visitor-Identifier") == "visitor-1"


def test_typed_calls_refuse_bad_input_by_name(ready_client):
    handle = ready_client.handle
    fn = ae.PREAUTHORIZE_FN(lambda response, _: None)
    invalid_utf8 = strings(b"\xff\xfe")
    cases = [
        lambda h: lib.ae_check_preauthorized_resources_list(h, None, 2, 0),
        lambda h: lib.ae_check_preauthorized_resources_list(h, strings("A", None), 2, 0),
        lambda h: lib.ae_check_preauthorized_resources_list(h, invalid_utf8, 1, 0),
        lambda h: lib.ae_check_preauthorized_resources_list(h, strings("A"), ae.AE_MAX_STRING_LENGTH + 1, 0),
        lambda h: lib.ae_preauthorize_list(h, strings("A"), 0, 0, fn, None),
        lambda h: lib.ae_preauthorize_list(h, strings("A"), 1, 4, fn, None),
        lambda h: lib.ae_preauthorize_list(h, strings("A"), 1, 0, ctypes.cast(None, ae.PREAUTHORIZE_FN), None),
        lambda h: lib.ae_preauthorize_list(h, strings(""), 1, 0, fn, None),
        lambda h: lib.ae_get_metadata_key(h, 9, None),
        lambda h: lib.ae_get_metadata_key(h, ae.AE_METADATA_AUTHORIZATION, None),
        lambda h: lib.ae_get_metadata_key(h, ae.AE_METADATA_AUTHENTICATION, b"extra"),
        lambda h: lib.ae_set_option_string(h, None, b"x"),
        lambda h: lib.ae_set_option_string(h, ae.AE_OPTION_VISITOR_ID.encode(), b"a\r\nX-Injected: 1"),
        lambda h: lib.ae_set_option_string(h, ae.AE_OPTION_DEVICE_ID_METADATA.encode(), b"true"),
        lambda h: lib.ae_set_option_bool(h, ae.AE_OPTION_PROFILE.encode(), 1),
    ]
    for index, case in enumerate(cases):
        assert case(handle) == ae.AE_E_INVALID_ARG, f"case {index}"
        assert ae.last_error_message(), f"case {index}: no message"
        assert case(None) == ae.AE_E_INVALID_HANDLE, f"case {index}: the handle is checked first"
