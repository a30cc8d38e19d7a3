"""Tests of Python/accessenabler/partner.py without libaccessenabler.so.

* The simulator's script → replies, with a fake reply library (plain Python): partner.py is
  loaded by file path, so the `accessenabler` package (which loads the library) is not imported.
* The constants and structs of partner.py and _abi.py (the package's declarations, generated from the
  header; it loads no library) against Include/accessenabler.h.
* The ctypes bridge end to end against a fake C library (fakelib/fake_accessenabler.c, built
  here with cc; skipped without a C compiler): struct layout, Client(partner=...), callbacks
  from C threads, inline and threaded replies.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PACKAGE = REPO / "Python" / "accessenabler"
HEADER = REPO / "Include" / "accessenabler.h"
ISSUER = "https://saml.sp.auth.adobe.com"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


partner = _load("standalone_partner", PACKAGE / "partner.py")
abi = _load("standalone_abi", PACKAGE / "_abi.py")
saml = partner.simulated_saml


class FakeLib:
    """The three ae_partner_request_reply_* functions: records calls; a second reply → AE_E_INVALID_HANDLE."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.lock = threading.Lock()

    def _record(self, *call: Any) -> int:
        with self.lock:
            again = any(c[1] == call[1] for c in self.calls)
            self.calls.append(call)
        return 2 if again else 0

    def ae_partner_request_reply_access_status(self, request: int, status: int, signed_in: int) -> int:
        return self._record("access_status", request, status, signed_in)

    def ae_partner_request_reply_metadata(self, request: int, text: bytes) -> int:
        return self._record("metadata", request, json.loads(text))

    def ae_partner_request_reply_error(self, request: int, error: int, detail: bytes | None) -> int:
        return self._record("error", request, error, None if detail is None else detail.decode())


def token(request_id: str = "_req1", mvpd: str = "Cablevision") -> str:
    return base64.b64encode(saml.saml_request(request_id, "REF30", mvpd, ISSUER).encode()).decode()


def metadata_request(**changes: Any) -> dict[str, Any]:
    request = {"channelIdentifier": ISSUER, "includeAccountProviderIdentifier": True,
               "includeAuthenticationExpirationDate": True, "isInterruptionAllowed": False,
               "supportedAccountProviderIdentifiers": [], "featuredAccountProviderIdentifiers": []}
    request.update(changes)
    return {k: v for k, v in request.items() if v is not None}


def run(sim: Any, kind: str, payload: Any = None, request: int = 1) -> tuple[Any, ...]:
    """Deliver one request through the C-callback entry points; return the one reply made."""
    lib = FakeLib()
    if kind == "check":
        sim.on_check_access_status(1 if payload is None else payload, request, lib)
    else:
        sim.on_enqueue_metadata_request(json.dumps(payload).encode(), request, lib)
    if isinstance(sim, partner.PartnerSimulator):
        sim.join()
    assert len(lib.calls) <= 1, lib.calls
    return lib.calls[0] if lib.calls else ()


# --- the header's constants and struct -------------------------------------------------------------

def header_defines() -> dict[str, int]:
    text = HEADER.read_text()
    # The version is a #define; the access, sign-in and error values are enumerators.
    pattern = r"^(?:#define |\s+)(AE_PARTNER_\w+)(?: | = )\(?(-?\d+)\)?"
    return {m.group(1): int(m.group(2)) for m in re.finditer(pattern, text, re.M)}


def test_constants_match_the_header() -> None:
    defines = header_defines()
    names = {"notDetermined": "NOT_DETERMINED", "restricted": "RESTRICTED", "denied": "DENIED", "granted": "GRANTED"}
    assert {k: defines[f"AE_PARTNER_ACCESS_{names[k]}"] for k in partner.ACCESS_STATUS} == partner.ACCESS_STATUS
    assert defines["AE_PARTNER_SIGNED_IN_UNKNOWN"] == partner.SIGNED_IN[None]
    assert defines["AE_PARTNER_SIGNED_OUT"] == partner.SIGNED_IN[False]
    assert defines["AE_PARTNER_SIGNED_IN"] == partner.SIGNED_IN[True]
    errors = {k[len("AE_PARTNER_E_"):]: v for k, v in defines.items() if k.startswith("AE_PARTNER_E_")}
    assert errors == partner.ERRORS
    assert defines["AE_PARTNER_FRAMEWORK_VERSION"] == partner.AE_PARTNER_FRAMEWORK_VERSION
    # _abi.py (the package's declarations; the package itself is not importable here: it loads the library)
    assert {name: value for name, value in vars(abi).items() if name.startswith("AE_PARTNER_")} == defines
    config_version = re.search(r"#define AE_CONFIG_VERSION (\d+)", HEADER.read_text()).group(1)
    assert abi.AE_CONFIG_VERSION == int(config_version)


def _c_fields(struct: str) -> list[str]:
    body = re.search(rf"typedef struct {struct} \{{(.*?)\}} {struct};", HEADER.read_text(), re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return [re.search(r"\(\s*\*\s*(\w+)\s*\)|(\w+)\s*;", d).group(1) or re.search(r"(\w+)\s*;", d).group(1)
            for d in body.split(";")[:-1] for d in [d + ";"]]


def _python_fields(cls: str) -> list[str]:
    return [name for name, _ in getattr(abi, cls)._fields_]


def test_struct_fields_match_the_header() -> None:
    assert _python_fields("PartnerFramework") == _c_fields("ae_partner_framework") == [
        "version", "user_data", "name", "timeout_ms", "check_access_status", "enqueue_metadata_request",
        "cancel_request"]
    assert _python_fields("Config") == _c_fields("ae_config")
    assert "partner" in _python_fields("Config")


# --- check_access_status ------------------------------------------------------------------------------

def test_access_status_replies() -> None:
    assert run(partner.PartnerSimulator(), "check") == ("access_status", 1, 3, 0)  # granted, signed out
    assert run(partner.PartnerSimulator(account="Cablevision"), "check") == ("access_status", 1, 3, 1)
    assert run(partner.PartnerSimulator(account="X", signed_in=None), "check") == ("access_status", 1, 3, -1)
    assert run(partner.PartnerSimulator(signed_in=True), "check")[3] == 1
    for access, code in partner.ACCESS_STATUS.items():
        assert run(partner.PartnerSimulator(access=access), "check")[2] == code
    assert run(partner.PartnerSimulator(access="error"), "check")[:3] == ("error", 1, 7)
    assert run(partner.PartnerSimulator(status_error="SERVICE_UNAVAILABLE"), "check") == ("error", 1, 3, None)
    assert run(partner.PartnerSimulator(status_error=("REJECTED", "no")), "check") == ("error", 1, 4, "no")
    sim = partner.PartnerSimulator()
    run(sim, "check", payload=0)
    assert sim.received()[0].request == {"prompt": False} and sim.received()[0].kind == "check_access_status"


# --- enqueue: without a verificationToken -------------------------------------------------------------------

def test_metadata_when_signed_in() -> None:
    sim = partner.PartnerSimulator(account="Cablevision", expiration_ms=1_900_000_000_000)
    assert run(sim, "enqueue", metadata_request()) == ("metadata", 1, {
        "accountProviderIdentifier": "Cablevision", "authenticationExpirationDate": 1_900_000_000_000,
        "samlAttributeQueryResponse": None})
    # what was not asked for is null, as with Apple's include flags
    not_asked = run(sim, "enqueue", metadata_request(includeAccountProviderIdentifier=False,
                                                     includeAuthenticationExpirationDate=None))
    assert not_asked[2] == {"accountProviderIdentifier": None, "authenticationExpirationDate": None,
                            "samlAttributeQueryResponse": None}
    default = partner.PartnerSimulator(account="Cablevision")
    expiration = run(default, "enqueue", metadata_request())[2]["authenticationExpirationDate"]
    assert abs(expiration - (time.time() * 1000 + 86_400_000)) < 60_000


def test_metadata_when_signed_out_without_interruption() -> None:
    sim = partner.PartnerSimulator(picker="Cablevision")
    assert run(sim, "enqueue", metadata_request())[2] == {
        "accountProviderIdentifier": None, "authenticationExpirationDate": None, "samlAttributeQueryResponse": None}
    assert sim.account is None  # no picker without isInterruptionAllowed


def test_access_not_granted() -> None:
    for access in ("denied", "restricted", "notDetermined"):
        assert run(partner.PartnerSimulator(access=access, account="X"), "enqueue", metadata_request()) == (
            "error", 1, 6, None)
    assert run(partner.PartnerSimulator(access="error"), "enqueue", metadata_request())[:3] == ("error", 1, 7)


def test_picker_choosing_a_provider_signs_in() -> None:
    sim = partner.PartnerSimulator(picker="Comcast", expiration_ms=5)
    picked = run(sim, "enqueue", metadata_request(isInterruptionAllowed=True,
                                                  supportedAccountProviderIdentifiers=["Cablevision", "Comcast"]))
    assert picked[2] == {"accountProviderIdentifier": "Comcast", "authenticationExpirationDate": 5,
                         "samlAttributeQueryResponse": None}
    assert sim.account == "Comcast"
    assert run(sim, "check") == ("access_status", 1, 3, 1)  # signed in from now on


@pytest.mark.parametrize("picker, error, detail", [
    ("cancel", 2, None),
    ("other", 5, None),
    (("unsupported", "Spectrum"), 1, "Spectrum"),
    ("unavailable", 3, None),
    ("rejected", 4, None),
    ("Spectrum", 1, "Spectrum"),  # not in supportedAccountProviderIdentifiers: Apple's unsupportedProvider
])
def test_picker_outcomes(picker: Any, error: int, detail: str | None) -> None:
    sim = partner.PartnerSimulator(picker=picker)
    request = metadata_request(isInterruptionAllowed=True, supportedAccountProviderIdentifiers=["Cablevision"])
    assert run(sim, "enqueue", request) == ("error", 1, error, detail)
    assert sim.account is None


def test_picker_silence_never_replies() -> None:
    sim = partner.PartnerSimulator(picker="silence")
    assert run(sim, "enqueue", metadata_request(isInterruptionAllowed=True)) == ()
    received = sim.received("enqueue")[0]
    assert received.answer == ("silence",) and not received.replied.is_set() and received.result is None
    lib = FakeLib()
    late = partner.Reply(1, lib, "enqueue")  # the test may still answer later, by hand
    assert late.error("USER_CANCELLED") == 0 and lib.calls == [("error", 1, 2, None)]


# --- enqueue: with a verificationToken -------------------------------------------------------------------

def test_saml_ok_is_the_platform_response_exactly() -> None:
    sim = partner.PartnerSimulator(account="Cablevision")
    names = ["uid", "NameID", "uniqueId", "zip"]
    reply = run(sim, "enqueue", metadata_request(attributeNames=names, verificationToken=token("_abc")))
    assert reply[0] == "metadata"
    text = reply[2]["samlAttributeQueryResponse"]
    assert text == saml.saml_response("_abc", "Cablevision", names)
    assert "\r\n" in text and "\t" in text  # as messy as produced: the SDK cleans it up
    assert reply[2]["accountProviderIdentifier"] == "Cablevision"
    assert sim.received("enqueue")[0].request["verificationToken"] == token("_abc")


def test_saml_after_the_picker() -> None:
    sim = partner.PartnerSimulator(picker="Cablevision")
    reply = run(sim, "enqueue", metadata_request(isInterruptionAllowed=True, attributeNames=["uid"],
                                                 verificationToken=token("_p")))
    assert reply[2]["samlAttributeQueryResponse"] == saml.saml_response("_p", "Cablevision", ["uid"])


def test_saml_without_account_and_interruption_is_null() -> None:
    reply = run(partner.PartnerSimulator(), "enqueue", metadata_request(verificationToken=token()))
    assert reply[2] == {"accountProviderIdentifier": None, "authenticationExpirationDate": None,
                        "samlAttributeQueryResponse": None}


def test_saml_error_none_and_unreadable_token() -> None:
    request = metadata_request(attributeNames=["uid"], verificationToken=token())
    assert run(partner.PartnerSimulator(account="X", saml="error"), "enqueue", request)[:3] == ("error", 1, 7)
    none = run(partner.PartnerSimulator(account="X", saml="none"), "enqueue", request)
    assert none[0] == "metadata" and none[2]["samlAttributeQueryResponse"] is None
    assert none[2]["accountProviderIdentifier"] == "X"
    bad = run(partner.PartnerSimulator(account="X"), "enqueue", {**request, "verificationToken": "%%%"})
    assert bad[:3] == ("error", 1, 7) and "verificationToken" in bad[3]


# --- threads ----------------------------------------------------------------------------------------------

def test_replies_come_from_another_thread_by_default() -> None:
    sim = partner.PartnerSimulator()
    run(sim, "check")
    received = sim.received()[0]
    assert received.thread == threading.get_ident() and received.reply_thread != received.thread
    assert received.replied.is_set() and received.result == 0 and not received.inline


def test_reply_delay() -> None:
    sim = partner.PartnerSimulator(reply_delay_ms=150)
    lib = FakeLib()
    started = time.monotonic()
    sim.on_check_access_status(1, 5, lib)
    assert lib.calls == [] and time.monotonic() - started < 0.1  # the callback returned at once
    sim.join()
    assert lib.calls == [("access_status", 5, 3, 0)] and time.monotonic() - started >= 0.15


def test_inline_replies_happen_inside_the_callback() -> None:
    sim = partner.PartnerSimulator(reply_inline=True, reply_delay_ms=10_000)
    lib = FakeLib()
    sim.on_check_access_status(1, 3, lib)
    assert lib.calls == [("access_status", 3, 3, 0)]  # before the callback returned
    assert sim.received()[0].inline


def test_wait_for_requests_from_other_threads() -> None:
    sim = partner.PartnerSimulator()
    lib = FakeLib()
    threads = [threading.Thread(target=sim.on_check_access_status, args=(1, n, lib)) for n in range(1, 4)]
    for thread in threads:
        thread.start()
    received = sim.wait_for(3, "check_access_status")
    for thread in threads:
        thread.join()
    sim.join()
    assert threading.get_ident() not in {r.thread for r in received}
    assert sorted(c[1] for c in lib.calls) == [1, 2, 3]
    with pytest.raises(TimeoutError):
        sim.wait_for(1, "enqueue", timeout=0.05)


# --- the bridge and Reply ------------------------------------------------------------------------------------

def test_reply_converts_and_records() -> None:
    lib = FakeLib()
    reply = partner.Reply(9, lib, "enqueue")
    assert not reply.answered
    assert reply.access_status("notDetermined", None) == 0
    assert reply.access_status(3, 1) == 2  # a second reply: the library refuses it
    assert reply.error("user_cancelled", "détail") == 2
    assert reply.metadata('{"accountProviderIdentifier": null}') == 2
    assert lib.calls == [("access_status", 9, 0, -1), ("access_status", 9, 3, 1), ("error", 9, 2, "détail"),
                         ("metadata", 9, {"accountProviderIdentifier": None})]
    assert reply.answered and [a[2] for a in reply.answers] == [0, 2, 2, 2]


def test_bridge_answers_failed_for_unreadable_requests_and_exceptions() -> None:
    sim = partner.PartnerSimulator()
    lib = FakeLib()
    sim.on_enqueue_metadata_request(b"not json", 1, lib)
    sim.on_enqueue_metadata_request(b"[1]", 2, lib)
    sim.access = "bogus"
    sim.on_check_access_status(1, 3, lib)
    assert [c[:3] for c in lib.calls] == [("error", 1, 7), ("error", 2, 7), ("error", 3, 7)]
    assert "ValueError" in lib.calls[2][3]

    class Raises(partner.Partner):
        def check_access_status(self, prompt: bool, reply: Any) -> None:
            reply.access_status("granted", True)
            raise RuntimeError("after replying")

        def enqueue(self, request: dict[str, Any], reply: Any) -> None:
            raise RuntimeError("boom")

    lib = FakeLib()
    Raises().on_check_access_status(1, 4, lib)
    Raises().on_enqueue_metadata_request(b"{}", 5, lib)
    assert lib.calls == [("access_status", 4, 3, 1), ("error", 5, 7, "RuntimeError: boom")]


def test_base_partner_is_abstract() -> None:
    lib = FakeLib()
    partner.Partner().on_check_access_status(1, 1, lib)
    assert lib.calls[0][:3] == ("error", 1, 7)


def test_standalone_load_does_not_import_the_package() -> None:
    assert saml.__file__ == str(PACKAGE / "simulated_saml.py")
    # Checked in a fresh interpreter: in one pytest session with Tests/python, the package (and
    # the library) has already been imported by that suite's harness.
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('standalone_partner', {str(PACKAGE / 'partner.py')!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['standalone_partner'] = module\n"
        "spec.loader.exec_module(module)\n"
        "print('accessenabler' in sys.modules, module.simulated_saml.__file__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", str(PACKAGE / "simulated_saml.py")], result.stderr


# --- against a fake C library ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fake_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        pytest.skip("no C compiler")
    build = tmp_path_factory.mktemp("fakelib")
    source = (HERE / "fakelib" / "fake_accessenabler.c").read_text()
    implemented = set(re.findall(r"^\S[^\n(]*?\b(ae_\w+)\(", source, re.M))
    declared = re.findall(r"AE_API[^;{]*?\b(ae_\w+)\s*\(", HEADER.read_text())
    stubs = "".join(f"int {name}(void) {{ return 0; }}\n" for name in declared if name not in implemented)
    (build / "stubs.c").write_text("/* never called: lets the ctypes layer find every symbol */\n" + stubs)
    library = build / "libfake_accessenabler.so"
    result = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-Wall", "-pthread", "-I", str(REPO / "Include"),
         "-o", str(library), str(HERE / "fakelib" / "fake_accessenabler.c"), str(build / "stubs.c")],
        capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        pytest.fail(f"building the fake library failed:\n{result.stderr}")
    return library


@pytest.fixture(scope="module")
def bridge_report(fake_library: Path) -> dict[str, Any]:
    env = {**os.environ, "AE_LIBRARY": str(fake_library), "PYTHONPATH": str(REPO / "Python")}
    result = subprocess.run([sys.executable, str(HERE / "fakelib" / "driver.py")], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ctypes_layout_matches_the_c_struct(bridge_report: dict[str, Any]) -> None:
    layout = bridge_report["layout"]
    for name in ("config_size", "config_partner", "config_log_level", "framework_size"):
        c_value, python_value = layout[name]
        assert c_value == python_value, name
    assert all(c == python for c, python in layout["framework_fields"])
    assert bridge_report["has_partner_framework"] is True


def test_client_passes_the_partner_framework(bridge_report: dict[str, Any]) -> None:
    assert bridge_report["framework"] == {"has": 1, "version": 2, "name": "Apple", "timeout_ms": 1234,
                                          "callbacks": 1, "kept": True}
    assert bridge_report["old_config"] == 3  # AE_E_UNSUPPORTED_VERSION: no partner with a version-1 config


def test_callbacks_from_c_threads_and_replies(bridge_report: dict[str, Any]) -> None:
    check, enqueue = bridge_report["check"], bridge_report["enqueue"]
    assert check["request"] == {"prompt": True} and check["answer"] == ["access_status", "granted", True]
    assert check["callback_on_sdk_thread"] and check["reply_on_other_thread"] and check["result"] == 0
    assert enqueue["inline"] and enqueue["result"] == 0
    assert enqueue["request"]["verificationToken"] == enqueue["token"]
    replies = bridge_report["replies"]
    assert [(r["kind"], r["request"], r["status"]) for r in replies] == [
        ("access_status", 7, 0), ("metadata", 8, 0), ("error", 8, 2), ("error", 9, 0), ("error", 10, 0)]
    assert (replies[0]["a"], replies[0]["b"]) == (3, 1)
    assert json.loads(replies[1]["text"]) == {
        "accountProviderIdentifier": "Cablevision", "authenticationExpirationDate": bridge_report["expiration_ms"],
        "samlAttributeQueryResponse": enqueue["expected_saml"]}
    assert bridge_report["second_reply"] == 2  # AE_E_INVALID_HANDLE
    assert replies[3]["a"] == 7 and "unreadable metadata request" in replies[3]["text"]
    assert replies[4]["a"] == 7 and "ValueError" in replies[4]["text"]
