# SPDX-License-Identifier: Apache-2.0
"""Test harness: a real emulator process (one per pytest worker, reset before each test), and a
delegate that records callbacks."""
import os
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EMULATOR_DIR = ROOT / "Emulator"
if str(EMULATOR_DIR) not in sys.path:  # the emulator's package, `aepass`, from the source tree
    sys.path.insert(0, str(EMULATOR_DIR))
import aepass  # noqa: E402

if Path(aepass.__file__).resolve().parent != EMULATOR_DIR / "aepass":
    raise ImportError(f"aepass was imported from {aepass.__file__}, not from {EMULATOR_DIR}: an installed "
                      "aepass-emulator's pytest plugin loaded it first; run pytest with -p no:aepass")
from aepass.testing import EmulatorProcess, Headers  # noqa: E402,F401 - Headers: re-exported
try:
    import accessenabler as ae  # the installed package (pip install ./Python: scripts/test.sh does)
except ImportError:
    sys.path.insert(0, str(ROOT / "Python"))  # else the source tree's
    import accessenabler as ae

def libcurl_loaded():
    """(version, path) of the libcurl this process has loaded, the library's (`ae` loaded it): its file
    from /proc/self/maps and `curl_version()` of that very file, e.g. ("libcurl/8.14.1 OpenSSL/3.5.1 ...",
    "/usr/lib/x86_64-linux-gnu/libcurl.so.4.8.0"); (None, None) when none is loaded."""
    import ctypes
    with open("/proc/self/maps") as maps:
        paths = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
    curl = sorted(p for p in paths if os.path.basename(p).startswith(("libcurl.so", "libcurl-gnutls.so")))
    if not curl:
        return None, None
    library = ctypes.CDLL(curl[0])  # already loaded: the same handle
    library.curl_version.restype = ctypes.c_char_p
    return library.curl_version().decode(), curl[0]


SOFTWARE_STATEMENT = (
    "eyJhbGciOiJSUzI1NiJ9."
    "eyJzb2Z0d2FyZV9pZCI6ImFjY2Vzc2VuYWJsZXItbGludXgtdGVzdHMiLCJjbGllbnRfbmFtZSI6IlRlc3RzIn0."
    "c2lnbmF0dXJl"
)


# The SDK judges expiries on Adobe's clock, learned from `Date` headers (one-second resolution) and
# moved only when a new one disagrees by more than 2 s (ServerClock.toleranceMillis): a test that
# waits for something to expire waits this much longer than its lifetime.
CLOCK_SLACK_S = 2.6


class Wire:
    """What a flow looks like on the wire of one REST API generation: the emulator's operation names
    (V2: the OpenAPI operationIds; V1: the names of Emulator/aepass/v1/spec.py)."""

    def __init__(self, api, **operations):
        self.api = api
        self.__dict__.update(operations)

    def authorize(self, cached=False):
        """The requests of one getAuthorization: V2 one decision; V1 authorize + media token, or
        the media token alone while Adobe holds the authorization (`cached`)."""
        if self.api == "v2":
            return [self.decision]
        return [self.media] if cached else [self.decision, self.media]

    def login_url_code(self, url):
        """The registration code in a login URL (REGCODE `url`, navigate_to_url)."""
        if self.api == "v2":
            return url.rsplit("/", 1)[1]
        return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["reg_code"][0]


WIRE = {
    "v2": Wire("v2", register="processSoftwareStatementUsingPOST", token="generateAccessTokenUsingPOST",
               configuration="handleRequestUsingGET", profiles="getProfilesUsingGET_1",
               session="createSessionUsingPOST", poll="getProfileForCodeUsingGET_1",
               decision="retrieveAuthorizeDecisionsForMvpdUsingPOST", media=None,
               preauthorize="retrievePreAuthorizeDecisionsForMvpdUsingPOST_1", logout="getLogoutForMvpdUsingGET",
               login_path="/api/v2/authenticate/REF30/"),
    "v1": Wire("v1", register="processSoftwareStatementUsingPOST", token="generateAccessTokenUsingPOST",
               configuration="v1ProvideMvpdList", profiles="v1RetrieveAuthenticationToken",
               session="v1RegistrationCodeRequest", poll="v1RetrieveAuthenticationToken",
               decision="v1InitiateAuthorization", media="v1ObtainShortMediaToken",
               preauthorize="v1Preauthorize", logout="v1InitiateLogout",
               login_path="/api/v1/authenticate?reg_code="),
}


class Emulator(EmulatorProcess):
    """The Python emulator (`aepass.testing.EmulatorProcess`: `aepass-emulator serve` from Emulator/) in a
    subprocess on port 0; its log goes to $AE_EMULATOR_LOG_DIR. The suite shares one per worker
    (conftest.py) and resets it before each test: `reset()` takes it back to the state it started in,
    settings and clock included. Every control call of the class is there (`config`, `faults`,
    `fault_counts`, `login`, `advance_clock`, `log`, `clear_log`, `operations`, `control`, ...).
    $AE_EMULATOR_START_TIMEOUT (seconds, default 30) bounds its start: scripts/cross-test.sh gives more
    under qemu-user, where four workers and their emulators start together, every Python emulated."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("start_timeout", float(os.environ.get("AE_EMULATOR_START_TIMEOUT", "30")))
        super().__init__(*args, **kwargs)


class Recorder:
    """A delegate that records every callback (with its thread) and lets tests wait for one."""

    NAMES = [name for name, _ in ae._CALLBACKS]

    def __init__(self):
        self.events = []
        self.threads = set()
        self.condition = threading.Condition()
        self.hooks = {}

    def __getattr__(self, name):
        if name not in Recorder.NAMES:
            raise AttributeError(name)

        def record(*args):
            import payload_views  # noqa: PLC0415 - it imports this module
            payload_views.check(name, args)  # the typed view, inside the callback, against the JSON
            with self.condition:
                self.events.append((name, args))
                self.threads.add(threading.get_ident())
                self.condition.notify_all()
            hook = self.hooks.get(name)
            if hook:
                hook(*args)
        return record

    def wait(self, name, predicate=lambda *args: True, timeout=15, count=1):
        """Waits for the count-th event `name` whose args satisfy predicate; returns its args."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                found = [args for event, args in self.events if event == name and predicate(*args)]
                if len(found) >= count:
                    return found[count - 1]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for {name}; events: {self.summary()}")
                self.condition.wait(remaining)

    def wait_any(self, names, timeout=15):
        """Waits for the next event among `names` not returned before; returns (name, args)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            seen = getattr(self, "_seen_any", 0)
            while True:
                for index in range(seen, len(self.events)):
                    if self.events[index][0] in names:
                        self._seen_any = index + 1
                        return self.events[index]
                seen = len(self.events)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for one of {names}; events: {self.summary()}")
                self.condition.wait(remaining)

    def names(self, include_tracking=False):
        with self.condition:
            return [n for n, _ in self.events if include_tracking or n != "send_tracking_data"]

    def of(self, name):
        with self.condition:
            return [args for event, args in self.events if event == name]

    def statuses(self):
        return [args[0] for args in self.of("status")]

    def find_status(self, error_id):
        return next((s for s in self.statuses() if s["errorId"] == error_id), None)

    def summary(self):
        return [(n, a if n != "display_provider_dialog" else "...") for n, a in self.events]

    def settle(self, seconds=0.2):
        """Lets in-flight callbacks land (used before asserting that nothing more arrives)."""
        time.sleep(seconds)


def authorize_once_adobe_is_back(client, recorder, resource="LIVE", timeout=40):
    """getAuthorization as a host calls it again after an outage: once Adobe failed a whole call's
    attempts, the SDK holds further calls back at once (Z120, enhanced error `service_unavailable`:
    nothing sent) until its outage breaker lets a probe out, a random time of at most 2 s after a
    first opening (30 s at most in all). Returns the set_token args and how many calls were held."""
    deadline = time.monotonic() + timeout
    held = 0
    while True:
        tokens, failures = len(recorder.of("set_token")), len(recorder.of("token_request_failed"))
        client.get_authorization(resource)
        with recorder.condition:
            recorder.condition.wait_for(lambda: len(recorder.of("set_token")) > tokens
                                        or len(recorder.of("token_request_failed")) > failures, timeout=20)
        if len(recorder.of("set_token")) > tokens:
            return recorder.of("set_token")[-1], held
        assert len(recorder.of("token_request_failed")) > failures, "no answer to getAuthorization"
        status = recorder.statuses()[-1]
        assert status["enhancedError"]["code"] == "service_unavailable", status
        assert time.monotonic() < deadline, "the breaker never let a probe out"
        held += 1
        time.sleep(0.1)
