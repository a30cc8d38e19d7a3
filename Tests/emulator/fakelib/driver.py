"""Runs the ctypes partner bridge against the fake library (fake_accessenabler.c) and prints a
JSON report of what happened. Run by test_partner_simulator.py in a subprocess with
AE_LIBRARY=<the fake .so> and PYTHONPATH=<repo>/Python, so that `import accessenabler` loads the
fake instead of libaccessenabler.so.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import sys
import threading
from typing import Any

import accessenabler as ae
from accessenabler import simulated_saml
from accessenabler.partner import PartnerSimulator

fake = ctypes.CDLL(os.environ["AE_LIBRARY"])
fake.fake_framework_name.restype = ctypes.c_char_p
fake.fake_check_access_status.argtypes = [ctypes.c_int32, ctypes.c_size_t, ctypes.c_int32]
fake.fake_enqueue.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int32]
fake.fake_reply_at.restype = ctypes.c_char_p
fake.fake_reply_at.argtypes = [ctypes.c_int32] + [ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_uint64),
                                                  ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32),
                                                  ctypes.POINTER(ctypes.c_int32)]
fake.fake_set_config_version.argtypes = [ctypes.c_uint32]
for name in ("fake_sizeof_config", "fake_offsetof_config_partner", "fake_offsetof_config_log_level",
             "fake_sizeof_partner_framework", "fake_offsetof_partner"):
    getattr(fake, name).restype = ctypes.c_size_t


def replies() -> list[dict[str, Any]]:
    found = []
    for index in range(fake.fake_reply_count()):
        kind, a, b, status = (ctypes.c_int32() for _ in range(4))
        request = ctypes.c_uint64()
        text = fake.fake_reply_at(index, ctypes.byref(kind), ctypes.byref(request), ctypes.byref(a),
                                  ctypes.byref(b), ctypes.byref(status))
        found.append({"kind": {1: "access_status", 2: "metadata", 3: "error"}[kind.value],
                      "request": request.value, "a": a.value, "b": b.value, "status": status.value,
                      "text": None if text is None else text.decode()})
    return found


class Delegate:
    pass


def main() -> dict[str, Any]:
    report: dict[str, Any] = {"has_partner_framework": ae.HAS_PARTNER_FRAMEWORK}
    report["layout"] = {
        "config_size": [fake.fake_sizeof_config(), ctypes.sizeof(ae.Config)],
        "config_partner": [fake.fake_offsetof_config_partner(), ae.Config.partner.offset],
        "config_log_level": [fake.fake_offsetof_config_log_level(), ae.Config.log_level.offset],
        "framework_size": [fake.fake_sizeof_partner_framework(), ctypes.sizeof(ae.PartnerFramework)],
        "framework_fields": [[fake.fake_offsetof_partner(i), getattr(ae.PartnerFramework, f[0]).offset]
                             for i, f in enumerate(ae.PartnerFramework._fields_)],
    }
    main_thread = threading.get_ident()

    simulator = PartnerSimulator(account="Cablevision", name="Apple", timeout_ms=1234)
    client = ae.Client("a.b.c", Delegate(), partner=simulator)
    report["framework"] = {"has": fake.fake_has_framework(), "version": fake.fake_framework_version(),
                           "name": fake.fake_framework_name().decode(), "timeout_ms": fake.fake_framework_timeout_ms(),
                           "callbacks": fake.fake_framework_callbacks_set(),
                           "kept": any(k is simulator for k in client._keep)}

    # check_access_status from an SDK thread; the reply comes from another (new) thread
    fake.fake_check_access_status(1, 7, 1)
    simulator.join()
    first = simulator.received("check_access_status")[0]
    report["check"] = {"request": first.request, "answer": list(first.answer), "result": first.result,
                       "callback_on_sdk_thread": first.thread != main_thread,
                       "reply_on_other_thread": first.reply_thread not in (None, first.thread)}

    # enqueue with a verificationToken, replied inline (inside the callback, on the SDK thread)
    simulator.reply_inline = True
    saml_request = simulated_saml.saml_request("_req42", "REF30", "Cablevision", "https://saml.sp.auth.adobe.com")
    token = base64.b64encode(saml_request.encode()).decode()
    request = {"channelIdentifier": "https://saml.sp.auth.adobe.com", "includeAccountProviderIdentifier": True,
               "includeAuthenticationExpirationDate": True, "isInterruptionAllowed": False,
               "attributeNames": ["uid", "NameID"], "verificationToken": token}
    fake.fake_enqueue(json.dumps(request).encode(), 8, 1)
    second = simulator.received("enqueue")[0]
    report["enqueue"] = {"request": second.request, "inline": second.inline, "result": second.result,
                         "expected_saml": simulated_saml.saml_response("_req42", "Cablevision", ["uid", "NameID"]),
                         "token": token}

    # a second reply to the same request is refused by the library
    report["second_reply"] = second.reply.error("FAILED", "again")

    # an undecodable request is answered FAILED by the bridge; so is a script that raises
    fake.fake_enqueue(b"not json", 9, 0)
    simulator.access = "bogus"
    fake.fake_check_access_status(0, 10, 0)
    simulator.access = "granted"
    report["replies"] = replies()
    report["expiration_ms"] = simulator.expiration_ms
    client.close()

    # a library whose ae_config_init says version 1 cannot take a partner
    fake.fake_set_config_version(1)
    try:
        ae.Client("a.b.c", Delegate(), partner=PartnerSimulator())
        report["old_config"] = "accepted"
    except ae.AEError as error:
        report["old_config"] = error.status
    return report


if __name__ == "__main__":
    json.dump(main(), sys.stdout)
