# SPDX-License-Identifier: Apache-2.0
"""The typed views of callback data (ae_callback_payload, ae_payload_*) against the JSON form, field by
field, inside every callback the ctypes suite sees (issue 31).

The Recorder calls `check(name, args)` inside each callback: the view of the running callback is read
through every accessor and compared with what the callback's JSON (or string) arguments say, using the
JSON key the header documents for each AE_FIELD_* (`/**< "errorId" (string) ...`): so the library's
table of keys (Sources/AccessEnablerCABI/Payload.swift) is checked against the header, its one
documented home. A mismatch is recorded, never raised inside the callback (ctypes would swallow it);
conftest's autouse fixture fails the test that produced it.
"""
import ctypes
import re
import threading
from pathlib import Path

from harness import ae

HEADER = Path(__file__).resolve().parents[2] / "Include" / "accessenabler.h"

# AE_FIELD_* -> the JSON keys its documentation quotes ("ID" of a provider, "id" of a decision).
FIELD_KEYS = {}
for _name, _doc in re.findall(r"^\s*(AE_FIELD_\w+) = \d+,?\s*/\*\*<(.*?)\*/", HEADER.read_text(), re.M | re.S):
    FIELD_KEYS[getattr(ae, _name)] = re.findall(r'"(\w+)"', _doc.split("(")[0])
FIELD_NAMES = {getattr(ae, name): name for name in dir(ae) if name.startswith("AE_FIELD_")}

# What each callback's arguments say its view holds: (kind, the JSON value the view must equal).
EXPECTED = {
    "set_requestor_complete": lambda status: None,
    "set_authentication_status": lambda status, code: None,
    "navigate_to_url": lambda url: None,
    "set_token": lambda token, resource: (ae.AE_PAYLOAD_TOKEN, {"token": token, "resource": resource}),
    "token_request_failed": lambda resource, code, description: (
        ae.AE_PAYLOAD_TOKEN_FAILURE, {"resource": resource, "errorCode": code, "errorDescription": description}),
    "selected_provider": lambda mvpd: None if mvpd is None else (ae.AE_PAYLOAD_PROVIDER, mvpd),
    "display_provider_dialog": lambda mvpds: (ae.AE_PAYLOAD_PROVIDERS, mvpds),
    "send_tracking_data": lambda event, data: (ae.AE_PAYLOAD_TRACKING, {"eventType": event, "data": data}),
    "set_metadata_status": lambda metadata, encrypted, key, arguments: (ae.AE_PAYLOAD_METADATA, dict(
        {"key": key, "encrypted": encrypted, "arguments": arguments}, **({} if metadata is None else {"value": metadata}))),
    "preauthorized_resources": lambda resources: (ae.AE_PAYLOAD_RESOURCES, resources),
    "present_tv_provider_dialog": lambda dialog: (ae.AE_PAYLOAD_PARTNER_DIALOG, dialog),
    "dismiss_tv_provider_dialog": lambda dialog: (ae.AE_PAYLOAD_PARTNER_DIALOG, dialog),
    "status": lambda status: (ae.AE_PAYLOAD_STATUS, status),
    "preauthorize": lambda response: (ae.AE_PAYLOAD_PREAUTHORIZE, response),
}

MISMATCHES = []
_lock = threading.Lock()
checked = {"callbacks": 0, "fields": 0}

lib = ae.lib


def _string(view, field):
    length = ctypes.c_size_t(99)
    pointer = lib.ae_payload_string(view, field, ctypes.byref(length))
    return None if pointer is None else ctypes.string_at(pointer, length.value).decode()


def _integer(view, field):
    value = ctypes.c_int64()
    return value.value if lib.ae_payload_int64(view, field, ctypes.byref(value)) == ae.AE_OK else None


def _boolean(view, field):
    value = ctypes.c_int32(7)
    return bool(value.value) if lib.ae_payload_bool(view, field, ctypes.byref(value)) == ae.AE_OK else None


def _items(view):
    found = []
    for index in range(lib.ae_payload_count(view)):
        item = lib.ae_payload_at(view, index)
        if lib.ae_payload_kind(item) == ae.AE_PAYLOAD_STRING:
            length = ctypes.c_size_t()
            found.append(ctypes.string_at(lib.ae_payload_text(item, ctypes.byref(length)), length.value).decode())
        else:
            found.append(("view", item))
    return found


def _compare(view, expected, path, problems):
    """Every field the header names, read through its accessor, against `expected` (a JSON value)."""
    if isinstance(expected, list):
        items = _items(view)
        if len(items) != len(expected):
            problems.append(f"{path}: {len(items)} items, JSON has {len(expected)}")
            return
        for index, (item, value) in enumerate(zip(items, expected)):
            if isinstance(item, tuple):
                _compare(item[1], value, f"{path}[{index}]", problems)
            elif item != value:
                problems.append(f"{path}[{index}]: {item!r}, JSON has {value!r}")
        if lib.ae_payload_at(view, len(expected)) is not None:
            problems.append(f"{path}: an item past the end")
        return
    if not isinstance(expected, dict):
        problems.append(f"{path}: a view for the JSON value {expected!r}")
        return
    for field, keys in FIELD_KEYS.items():
        key = next((k for k in keys if k in expected), None)
        value = expected.get(key) if key else None
        kind = lib.ae_payload_type(view, field)
        where = f"{path}.{FIELD_NAMES[field]}"
        checked["fields"] += 1
        if key is None:
            if kind != ae.AE_VALUE_ABSENT:
                problems.append(f"{where}: type {kind}, the JSON has no {keys}")
            continue
        if isinstance(value, bool):
            got, want_kind = _boolean(view, field), ae.AE_VALUE_BOOLEAN
        elif isinstance(value, int):
            got, want_kind = _integer(view, field), ae.AE_VALUE_INTEGER
        elif isinstance(value, str):
            got, want_kind = _string(view, field), ae.AE_VALUE_STRING
        elif isinstance(value, (list, dict)):
            want_kind = ae.AE_VALUE_LIST if isinstance(value, list) else ae.AE_VALUE_OBJECT
            child = lib.ae_payload_child(view, field)
            if child is None or lib.ae_payload_child(view, field) != child:
                problems.append(f"{where}: no stable child view")
            else:
                _compare(child, value, where, problems)
            got = value
        else:
            got, want_kind = value, ae.AE_VALUE_OTHER
        if kind != want_kind:
            problems.append(f"{where}: type {kind}, JSON {key!r} is {type(value).__name__} (expected type {want_kind})")
        elif got != value:
            problems.append(f"{where}: {got!r}, JSON {key!r} has {value!r}")


def check(name, args):
    """Inside callback `name` (its decoded arguments): the running callback's view against them."""
    expectation = EXPECTED[name](*args)
    view = lib.ae_callback_payload()
    problems = []
    if expectation is None:
        if view is not None:
            problems.append(f"{name}: a view (kind {lib.ae_payload_kind(view)}) for a callback without data")
    elif view is None:
        problems.append(f"{name}: no view")
    else:
        kind, value = expectation
        if name == "set_token" and lib.ae_payload_type(view, ae.AE_FIELD_NOT_AFTER) != ae.AE_VALUE_ABSENT:
            value = dict(value, notAfter=_integer(view, ae.AE_FIELD_NOT_AFTER))  # not among set_token's arguments
            if not isinstance(value["notAfter"], int) or value["notAfter"] <= 0:
                problems.append(f"set_token: notAfter {value['notAfter']!r} is no expiry")
        if lib.ae_payload_kind(view) != kind:
            problems.append(f"{name}: kind {lib.ae_payload_kind(view)}, expected {kind}")
        if lib.ae_callback_payload() != view:
            problems.append(f"{name}: ae_callback_payload() is not the same view twice")
        _compare(view, value, name, problems)
    with _lock:
        checked["callbacks"] += 1
        MISMATCHES.extend(problems)


def take_mismatches():
    with _lock:
        found = list(MISMATCHES)
        MISMATCHES.clear()
    return found
