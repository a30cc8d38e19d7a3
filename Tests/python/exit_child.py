# SPDX-License-Identifier: Apache-2.0
"""A Python host that exits while the SDK is busy (issue 28, item 4; test_exit.py runs it many times):
the interpreter must end with status 0 and no signal.

    python3 exit_child.py <mode> <curl|host> <base url> <seed> [ca_file]

mode:
  alive       three clients keep calling (each callback starts the next call); the main thread returns
              after a delay, the clients alive (held by a module global) with requests in flight
  destroyed   three clients; once each got its set_requestor_complete (0 behind a bad front: the
              requests failed on TLS), they are closed and the interpreter ends at once
  dropped     as alive, but the clients are dropped (no reference left, no close()) just before the end
  leaked      as alive, but each client also has a reference that nothing releases (as a leak in an
              extension would): the interpreter's teardown never destroys them
  event-loop  as alive, in event-loop mode: the main thread dispatches, then returns with callbacks queued

curl: the SDK's libcurl. host: accessenabler.transport.HttpClientTransport (a daemon thread per request,
http.client and the ssl module): at exit those threads are mid-request.

`seed` picks the delay (0-249 ms) and whether the ssl module is imported (so OpenSSL initialised) before
accessenabler is (odd seeds), as a TLS test harness does. Exit status 0 once the program got to its end;
3 when no callback came at all (a broken setup, not the defect under test).
"""
import ctypes
import selectors
import sys
import threading
import time

MODE, TRANSPORT, URL, SEED = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
CA_FILE = sys.argv[5] if len(sys.argv) > 5 else None
if SEED % 2 == 1:
    import ssl  # noqa: F401 (OpenSSL initialised by the interpreter first)
import accessenabler as ae  # noqa: E402

if TRANSPORT == "host":
    from accessenabler.transport import HttpClientTransport  # noqa: E402

STATEMENT = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImV4aXQifQ.c2ln"
CLIENTS = 3


class Caller:
    """Every callback starts the client's next call, so that requests stay in flight until the end."""

    def __init__(self, keep_calling):
        self.client = None
        self.keep_calling = keep_calling
        self.count = 0
        self.completed = threading.Event()

    def _next(self, requestor_failed=False):
        self.count += 1
        if not self.keep_calling or self.client is None:
            return
        try:
            if requestor_failed:
                self.client.set_requestor("REF30")
            elif self.count % 3 == 0:
                self.client.get_authorization("LIVE")
            elif self.count % 3 == 1:
                self.client.check_authentication()
            else:
                self.client.get_metadata('{"opCode":0}')
        except ae.AEError:  # closed meanwhile
            pass

    def set_requestor_complete(self, status):
        self.completed.set()
        self._next(requestor_failed=status != 1)

    def set_authentication_status(self, status, code):
        self._next()

    def set_token(self, token, resource):
        self._next()

    def token_request_failed(self, resource, code, description):
        self._next()

    def set_metadata_status(self, metadata, encrypted, key, arguments):
        self._next()


clients = []  # module global: alive until the interpreter tears the module down


def main():
    delay = (SEED * 7919) % 250 / 1000
    callers = [Caller(keep_calling=MODE != "destroyed") for _ in range(CLIENTS)]
    for index, caller in enumerate(callers):
        options = dict(base_url=URL, device_id=f"exit-{SEED}-{index}", max_requests_per_second=-1,
                       connect_timeout_ms=2000, request_timeout_ms=4000)
        if TRANSPORT == "host":
            options["transport"] = HttpClientTransport()
        elif CA_FILE:
            options["ca_file"] = CA_FILE
        if MODE == "event-loop":
            options["callback_mode"] = ae.AE_CALLBACKS_EVENT_LOOP
        client = ae.Client(STATEMENT, caller, **options)
        caller.client = client
        clients.append(client)
        client.set_requestor("REF30")

    if MODE == "event-loop":
        selector = selectors.DefaultSelector()
        for client in clients:
            selector.register(client.event_fd(), selectors.EVENT_READ, client)
        start = time.monotonic()
        while not (sum(c.count for c in callers) > 0 and time.monotonic() - start >= delay):
            if time.monotonic() - start > 10:
                print("no callback in 10 s", file=sys.stderr)
                return 3
            for key, _ in selector.select(timeout=0.05):
                key.data.dispatch()
        count = sum(c.count for c in callers)
        print(f"return from the event loop with {CLIENTS} clients alive after {count} callbacks")
        return 0

    if MODE == "destroyed":
        for caller in callers:
            if not caller.completed.wait(10):
                print("no set_requestor_complete in 10 s", file=sys.stderr)
                return 3
        for client in clients:
            client.close()
        print("closed")
        return 0

    time.sleep(delay)
    if not any(c.completed.is_set() for c in callers):
        time.sleep(0.2)
    if MODE == "leaked":
        for client in clients:
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(client))
    if MODE == "dropped":
        for caller in callers:
            caller.client = None
        clients.clear()
    print(f"{MODE}: end with clients alive after {sum(c.count for c in callers)} callbacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
