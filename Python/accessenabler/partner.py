# SPDX-License-Identifier: Apache-2.0
"""The partner framework (the platform's TV-provider SSO) on the Python side of the C ABI.

`Partner` bridges the two C callbacks of `ae_partner_framework` to Python methods:

    check_access_status(prompt: bool, reply)    answer with reply.access_status(...) or reply.error(...)
    enqueue(request: dict, reply)               answer with reply.metadata({...}) or reply.error(...)

`reply` is a `Reply`: it calls the matching ae_partner_request_reply_* function with the request handle,
from any thread, at any later time (exactly one reply per request; a second one returns
AE_E_INVALID_HANDLE from the library). A method that raises is answered with
AE_PARTNER_E_FAILED if it had not replied yet.

`PartnerSimulator` is a scriptable platform for tests (Apple's Video Subscriber Account model):
it records every request it receives and answers from its script; its SAML response is the
shared simulated platform's (`simulated_saml`), exactly as produced (messy).

Give a partner to `accessenabler.Client(..., partner=simulator)`. This module does not load the
library by itself: it can be loaded by file path without the package (the script logic and
`Reply` work with any object that has the three ae_partner_request_reply_* functions), and only
`Partner.framework()` needs the ctypes layer of the package.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

try:
    from . import _abi, simulated_saml
except ImportError:  # loaded by file path, outside the package: load the sibling files the same way
    import importlib.util
    from pathlib import Path

    def _sibling(name: str, file: str) -> Any:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(spec.name, module)
        spec.loader.exec_module(module)
        return module

    simulated_saml = _sibling("accessenabler_simulated_saml", "simulated_saml.py")
    _abi = _sibling("accessenabler_abi", "_abi.py")  # the header's names (it loads no library)

# --- the header's values (accessenabler/_abi.py, generated from it) -----------------------------------
AE_OK = _abi.AE_OK
AE_PARTNER_FRAMEWORK_VERSION = _abi.AE_PARTNER_FRAMEWORK_VERSION
ACCESS_STATUS = {"notDetermined": _abi.AE_PARTNER_ACCESS_NOT_DETERMINED,
                 "restricted": _abi.AE_PARTNER_ACCESS_RESTRICTED,
                 "denied": _abi.AE_PARTNER_ACCESS_DENIED,
                 "granted": _abi.AE_PARTNER_ACCESS_GRANTED}
SIGNED_IN = {None: _abi.AE_PARTNER_SIGNED_IN_UNKNOWN, False: _abi.AE_PARTNER_SIGNED_OUT,
             True: _abi.AE_PARTNER_SIGNED_IN}
# AE_PARTNER_E_<NAME> by NAME ("TIMEOUT" is set by the SDK only; never a reply)
ERRORS = {name[len("AE_PARTNER_E_"):]: value for name, value in vars(_abi).items() if name.startswith("AE_PARTNER_E_")}
AUTO = "auto"  # signed_in: derived from `account` (signed in when there is one)
DAY_MS = 86_400_000


def now_ms() -> int:
    return int(time.time() * 1000)


def access_status_code(status: str | int) -> int:
    """"granted" / "denied" / "restricted" / "notDetermined" (or the AE_PARTNER_ACCESS_* int)."""
    return status if isinstance(status, int) else ACCESS_STATUS[status]


def signed_in_code(signed_in: bool | int | None) -> int:
    """True / False / None (unknown), or the AE_PARTNER_SIGNED_* int."""
    if isinstance(signed_in, bool) or signed_in is None:
        return SIGNED_IN[signed_in]
    return signed_in


def error_code(error: str | int) -> int:
    """"USER_CANCELLED" / "user_cancelled" (or the AE_PARTNER_E_* int)."""
    return error if isinstance(error, int) else ERRORS[error.upper()]


class Reply:
    """Answers one pending partner request; callable from any thread, at any time.

    `lib` is anything with ae_partner_request_reply_access_status / _metadata / _error (the loaded
    library, or a fake in tests). Every call is recorded in `answers` as (method, args, status).
    """

    def __init__(self, request: int | None, lib: Any, kind: str) -> None:
        self.request = request  # the ae_partner_request handle (a number)
        self.kind = kind  # "check_access_status" or "enqueue"
        self._lib = lib
        self._lock = threading.Lock()
        self.answers: list[tuple[str, tuple[Any, ...], int]] = []

    @property
    def answered(self) -> bool:
        with self._lock:
            return bool(self.answers)

    def _record(self, method: str, args: tuple[Any, ...], status: int) -> int:
        with self._lock:
            self.answers.append((method, args, status))
        return status

    def access_status(self, status: str | int, signed_in: bool | int | None = None) -> int:
        result = self._lib.ae_partner_request_reply_access_status(
            self.request, access_status_code(status), signed_in_code(signed_in))
        return self._record("access_status", (status, signed_in), result)

    def metadata(self, metadata: dict[str, Any] | str | bytes) -> int:
        """`metadata`: {"accountProviderIdentifier", "authenticationExpirationDate",
        "samlAttributeQueryResponse"} (a dict is sent as JSON; text is sent as is)."""
        text = metadata if isinstance(metadata, (str, bytes)) else json.dumps(metadata)
        data = text.encode("utf-8") if isinstance(text, str) else text
        result = self._lib.ae_partner_request_reply_metadata(self.request, data)
        return self._record("metadata", (metadata,), result)

    def error(self, code: str | int, detail: str | None = None) -> int:
        result = self._lib.ae_partner_request_reply_error(
            self.request, error_code(code), None if detail is None else detail.encode("utf-8"))
        return self._record("error", (code, detail), result)


class Partner:
    """Base class: override check_access_status(prompt, reply) and enqueue(request, reply).

    `name` is the partner name on the wire (None: "Apple"); `timeout_ms` the SDK's longest wait
    for a reply (0: the SDK's defaults).
    """

    def __init__(self, name: str | None = None, timeout_ms: int = 0) -> None:
        self.name = name
        self.timeout_ms = timeout_ms
        self._framework: Any = None
        self._thunks: list[Any] = []
        self._lib: Any = None

    # --- to override -----------------------------------------------------------------------
    def check_access_status(self, prompt: bool, reply: Reply) -> None:
        raise NotImplementedError

    def enqueue(self, request: dict[str, Any], reply: Reply) -> None:
        raise NotImplementedError

    def cancelled(self, request: int | None) -> None:
        """The SDK stopped waiting for `request` (login cancelled, timeout, destroy): dismiss its UI."""

    # --- the C bridge --------------------------------------------------------------------------
    def on_check_access_status(self, prompt: int, request: int | None, lib: Any) -> None:
        """The C callback's body (also callable directly in tests)."""
        self._call(Reply(request, lib, "check_access_status"), self.check_access_status, bool(prompt))

    def on_enqueue_metadata_request(self, request_json: bytes | str | None, request: int | None,
                                    lib: Any) -> None:
        reply = Reply(request, lib, "enqueue")
        try:
            text = request_json.decode("utf-8") if isinstance(request_json, bytes) else request_json
            decoded = json.loads(text or "null")
            if not isinstance(decoded, dict):
                raise ValueError("the metadata request is not a JSON object")
        except (UnicodeDecodeError, ValueError) as problem:
            reply.error("FAILED", f"unreadable metadata request: {problem}")
            return
        self._call(reply, self.enqueue, decoded)

    def on_cancel_request(self, request: int | None) -> None:
        try:
            self.cancelled(request)
        except Exception:  # never let an exception cross into C
            traceback.print_exc(file=sys.stderr)

    @staticmethod
    def _call(reply: Reply, method: Any, argument: Any) -> None:
        try:
            method(argument, reply)
        except Exception as problem:  # never let an exception cross into C
            traceback.print_exc(file=sys.stderr)
            if not reply.answered:
                reply.error("FAILED", f"{type(problem).__name__}: {problem}")

    def framework(self, lib: Any = None) -> Any:
        """The `ae_partner_framework` struct for ae_config.partner (built once; kept alive here).

        `lib`: the library whose ae_partner_request_reply_* the replies call (default: the package's).
        """
        if self._framework is not None and (lib is None or lib is self._lib):
            return self._framework
        if lib is None:
            from . import lib  # noqa: PLC0415 (the package loads the library)
        framework = _abi.PartnerFramework()
        if hasattr(lib, "ae_partner_framework_init"):
            status = lib.ae_partner_framework_init(framework, AE_PARTNER_FRAMEWORK_VERSION)
            if status != AE_OK:
                raise RuntimeError(f"ae_partner_framework_init failed: {status}")
        else:
            framework.version = AE_PARTNER_FRAMEWORK_VERSION
        check = _abi.PARTNER_CHECK_ACCESS_STATUS_FN(
            lambda prompt, request, _user_data: self.on_check_access_status(prompt, request, lib))
        enqueue = _abi.PARTNER_ENQUEUE_METADATA_REQUEST_FN(
            lambda request_json, request, _user_data: self.on_enqueue_metadata_request(request_json, request, lib))
        framework.name = None if self.name is None else self.name.encode("utf-8")
        framework.timeout_ms = self.timeout_ms
        cancel = _abi.PARTNER_CANCEL_REQUEST_FN(lambda request, _user_data: self.on_cancel_request(request))
        framework.check_access_status = check
        framework.enqueue_metadata_request = enqueue
        framework.cancel_request = cancel
        self._thunks = [check, enqueue, cancel]
        self._framework, self._lib = framework, lib
        return framework


@dataclass
class Received:
    """One request the simulator received, and what it did with it."""

    kind: str  # "check_access_status" or "enqueue"
    request: dict[str, Any]  # {"prompt": bool} or the decoded metadata request JSON
    thread: int  # threading.get_ident() of the thread the callback ran on (an SDK thread)
    thread_name: str
    at: float  # time.monotonic()
    answer: tuple[Any, ...]  # ("access_status", status, signed_in) / ("metadata", dict) /
    #                          ("error", code, detail) / ("silence",)
    reply: Reply
    reply_thread: int | None = None  # the thread that replied (None: not yet, or never)
    result: int | None = None  # the status the ae_partner_request_reply_* call returned
    replied: threading.Event = field(default_factory=threading.Event)

    @property
    def inline(self) -> bool:
        """The reply was made from inside the callback (on the callback's thread)."""
        return self.reply_thread == self.thread


class PartnerSimulator(Partner):
    """A scriptable platform SSO. The script is read when a request arrives; change it at any time.

    access          "granted" | "denied" | "restricted" | "notDetermined" | "error" (the platform fails)
    signed_in       True | False | None (unknown) | AUTO (default: True when `account` is set)
    account         the provider id the platform is signed in to, or None
    expiration_ms   authenticationExpirationDate (default: now + 1 day, fixed at construction); None: null
    picker          what the viewer does in the platform's provider picker (a metadata request with
                    isInterruptionAllowed and no account): a provider id (signs the viewer in to it;
                    a provider missing from a non-empty supportedAccountProviderIdentifiers answers
                    UNSUPPORTED_PROVIDER, as Apple's picker does), "cancel" (default) → USER_CANCELLED,
                    "other" → OTHER_PROVIDER, ("unsupported", id) → UNSUPPORTED_PROVIDER with detail id,
                    "unavailable" → SERVICE_UNAVAILABLE, "rejected" → REJECTED, "silence" → no reply
    saml            for a request with a verificationToken: "ok" → the simulated platform's SAML response
                    to it, "error" → FAILED, "none" → metadata with samlAttributeQueryResponse null
    reply_delay_ms  replies come from another thread after this delay (0: from a new thread at once)
    reply_inline    reply from inside the callback, on the SDK's thread (the delay is not applied)
    status_error    None, or an error (code, or (code, detail)) that check_access_status answers
    """

    def __init__(self, access: str = "granted", signed_in: Any = AUTO, account: str | None = None,
                 expiration_ms: Any = AUTO, picker: Any = "cancel", saml: str = "ok",
                 reply_delay_ms: int = 0, reply_inline: bool = False, status_error: Any = None,
                 name: str | None = None, timeout_ms: int = 0) -> None:
        super().__init__(name=name, timeout_ms=timeout_ms)
        self.access = access
        self.signed_in = signed_in
        self.account = account
        self.expiration_ms = now_ms() + DAY_MS if expiration_ms == AUTO else expiration_ms
        self.picker = picker
        self.saml = saml
        self.reply_delay_ms = reply_delay_ms
        self.reply_inline = reply_inline
        self.status_error = status_error
        self._condition = threading.Condition()
        self._received: list[Received] = []
        self._reply_threads: list[threading.Thread] = []
        self._cancelled: list[int | None] = []

    # --- what was received ------------------------------------------------------------------
    def cancelled(self, request: int | None) -> None:
        with self._condition:
            self._cancelled.append(request)
            self._condition.notify_all()

    def cancellations(self) -> list[int | None]:
        """The requests the SDK said it no longer waits for (cancel_request), in order."""
        with self._condition:
            return list(self._cancelled)

    def received(self, kind: str | None = None) -> list[Received]:
        with self._condition:
            return [r for r in self._received if kind is None or r.kind == kind]

    def wait_for(self, count: int, kind: str | None = None, timeout: float = 10.0) -> list[Received]:
        """Block until `count` requests (of `kind`) have arrived; TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                found = [r for r in self._received if kind is None or r.kind == kind]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(found)} of {count} {kind or 'partner'} requests received")
                self._condition.wait(left)

    def join(self, timeout: float = 10.0) -> None:
        """Wait until every scheduled reply has been made."""
        deadline = time.monotonic() + timeout
        with self._condition:
            threads = list(self._reply_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in threads):
            raise TimeoutError("partner replies still pending")

    # --- the platform ------------------------------------------------------------------------
    def check_access_status(self, prompt: bool, reply: Reply) -> None:
        self._handle("check_access_status", {"prompt": prompt}, reply, self.access_answer())

    def enqueue(self, request: dict[str, Any], reply: Reply) -> None:
        self._handle("enqueue", request, reply, self.metadata_answer(request))

    def access_answer(self) -> tuple[Any, ...]:
        """What check_access_status answers under the current script."""
        if self.status_error is not None:
            return _error_answer(self.status_error)
        if self.access == "error":
            return ("error", "FAILED", "simulated platform failure")
        if self.access not in ACCESS_STATUS:
            raise ValueError(f"unknown access script {self.access!r}")
        signed_in = self.account is not None if self.signed_in == AUTO else self.signed_in
        return ("access_status", self.access, signed_in)

    def metadata_answer(self, request: dict[str, Any]) -> tuple[Any, ...]:
        """What a metadata request gets under the current script (picking signs the viewer in)."""
        if self.access == "error":
            return ("error", "FAILED", "simulated platform failure")
        if self.access not in ACCESS_STATUS:
            raise ValueError(f"unknown access script {self.access!r}")
        if self.access != "granted":
            return ("error", "ACCESS_NOT_GRANTED", None)
        if self.saml not in ("ok", "error", "none"):
            raise ValueError(f"unknown saml script {self.saml!r}")
        if self.account is None:
            if not request.get("isInterruptionAllowed"):
                return ("metadata", self._metadata(request, None))
            picked = self._pick(request)
            if picked is not None:
                return picked
        token = request.get("verificationToken")
        if not token:
            return ("metadata", self._metadata(request, None))
        if self.saml == "error":
            return ("error", "FAILED", "simulated SAML failure")
        if self.saml == "none":
            return ("metadata", self._metadata(request, None))
        request_id = simulated_saml.request_id_of(token)
        if request_id is None:
            return ("error", "FAILED", "the verificationToken is not a readable SAML request")
        names = request.get("attributeNames") or []
        text = simulated_saml.saml_response(request_id, self.account, list(names))
        return ("metadata", self._metadata(request, text))

    def _pick(self, request: dict[str, Any]) -> tuple[Any, ...] | None:
        """The viewer in the provider picker: an error answer, or None once signed in."""
        choice = self.picker
        simple = {"cancel": "USER_CANCELLED", "other": "OTHER_PROVIDER",
                  "unavailable": "SERVICE_UNAVAILABLE", "rejected": "REJECTED"}
        if choice == "silence":
            return ("silence",)
        if isinstance(choice, str) and choice in simple:
            return ("error", simple[choice], None)
        if isinstance(choice, (tuple, list)) and len(choice) == 2 and choice[0] == "unsupported":
            return ("error", "UNSUPPORTED_PROVIDER", str(choice[1]))
        if not isinstance(choice, str) or not choice:
            raise ValueError(f"unknown picker script {choice!r}")
        supported = request.get("supportedAccountProviderIdentifiers") or []
        if supported and choice not in supported:
            return ("error", "UNSUPPORTED_PROVIDER", choice)
        self.account = choice
        return None

    def _metadata(self, request: dict[str, Any], saml: str | None) -> dict[str, Any]:
        signed = self.account is not None
        return {
            "accountProviderIdentifier":
                self.account if signed and request.get("includeAccountProviderIdentifier") else None,
            "authenticationExpirationDate":
                self.expiration_ms if signed and request.get("includeAuthenticationExpirationDate") else None,
            "samlAttributeQueryResponse": saml,
        }

    # --- replying ----------------------------------------------------------------------------
    def _handle(self, kind: str, request: dict[str, Any], reply: Reply, answer: tuple[Any, ...]) -> None:
        current = threading.current_thread()
        record = Received(kind, request, threading.get_ident(), current.name, time.monotonic(), answer, reply)
        with self._condition:
            self._received.append(record)
            self._condition.notify_all()
        if answer[0] == "silence":
            return
        if self.reply_inline:
            self._send(record)
            return
        delay_s = max(0, self.reply_delay_ms) / 1000
        thread = threading.Thread(target=self._send, args=(record, delay_s), daemon=True,
                                  name=f"partner-reply-{kind}")
        with self._condition:
            self._reply_threads = [t for t in self._reply_threads if t.is_alive()] + [thread]
        thread.start()

    @staticmethod
    def _send(record: Received, delay_s: float = 0.0) -> None:
        if delay_s:
            time.sleep(delay_s)
        reply, answer = record.reply, record.answer
        try:
            if answer[0] == "access_status":
                result = reply.access_status(answer[1], answer[2])
            elif answer[0] == "metadata":
                result = reply.metadata(answer[1])
            else:
                result = reply.error(answer[1], answer[2])
        except Exception as problem:  # a bad script value: still answer once
            traceback.print_exc(file=sys.stderr)
            result = reply.error("FAILED", f"{type(problem).__name__}: {problem}") if not reply.answered else None
        record.reply_thread, record.result = threading.get_ident(), result
        record.replied.set()


def _error_answer(error: Any) -> tuple[Any, ...]:
    if isinstance(error, (tuple, list)):
        code, detail = error
        return ("error", code, detail)
    return ("error", error, None)
