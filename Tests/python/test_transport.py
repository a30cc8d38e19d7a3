# SPDX-License-Identifier: Apache-2.0
"""The host's HTTP stack (ae_http_transport), written in Python, carrying the whole flow; and the
network policy of the default libcurl transport (TLS always verified, plain http loopback only)."""
import http.server
import socket
import ssl
import subprocess
import threading
import time

import pytest

from conftest import login
from harness import SOFTWARE_STATEMENT, Recorder, ae

from accessenabler.transport import HttpClientTransport, Transport


def test_the_whole_flow_over_a_host_transport(make_client, recorder, emulator):
    transport = HttpClientTransport()
    client = make_client(transport=transport)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    methods = [(r["method"], r["url"].split("/")[-1]) for r in transport.sent]
    assert ("POST", "register") in methods and ("POST", "Cablevision") in methods
    register = next(r for r in transport.sent if r["url"].endswith("/o/client/register"))
    assert ("Content-Type", "application/json;charset=utf-8") in register["headers"]
    assert b"software_statement" in register["body"]
    assert all(r["timeout_ms"] > 0 for r in transport.sent)
    assert len(transport.sent) == len(emulator.log())  # everything went through the host's stack


class Scripted(Transport):
    """Answers from a function, on another thread or never."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer
        self.replies = []

    def send(self, request, reply):
        self.replies.append(reply)
        threading.Thread(target=self.answer, args=(request, reply), daemon=True).start()


def test_host_transport_errors_are_named(make_client, recorder):
    transport = Scripted(lambda request, reply: reply.error(ae.AE_HTTP_E_CANNOT_CONNECT, "no route"))
    client = make_client(transport=transport)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert recorder.find_status("CFG404")["enhancedError"]["code"] == "network_error"
    assert len(transport.replies) == 2  # a request that could not connect is tried once more


def test_tls_failure_reported_by_the_host_is_sec420(make_client, recorder):
    client = make_client(transport=Scripted(lambda request, reply: reply.error(ae.AE_HTTP_E_TLS, "bad certificate")))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert recorder.find_status("SEC420") is not None


def test_a_host_that_never_replies_is_bounded_and_late_replies_are_refused(make_client, recorder):
    transport = Scripted(lambda request, reply: None)
    client = make_client(transport=transport, request_timeout_ms=500)
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=10) == (0,)
    assert time.monotonic() - started < 5
    assert transport.replies[0].response(200, [("Content-Type", "application/json")], b"{}") == ae.AE_E_INVALID_HANDLE
    assert transport.cancelled  # the host was told it need not answer


def test_destroy_cancels_host_requests(make_client, recorder):
    transport = Scripted(lambda request, reply: None)
    client = make_client(transport=transport)
    client.set_requestor("REF30")
    deadline = time.monotonic() + 5
    while not transport.replies and time.monotonic() < deadline:
        time.sleep(0.01)
    client.close()
    assert transport.replies[0].response(200, [], b"") == ae.AE_E_INVALID_HANDLE


def test_bad_replies_are_refused(make_client, recorder, emulator):
    held = []
    transport = Scripted(lambda request, reply: held.append(reply))
    client = make_client(transport=transport)
    client.set_requestor("REF30")
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        time.sleep(0.01)
    reply = held[0]
    assert ae.lib.ae_http_request_reply(reply.request, 42, None, None, 0) == ae.AE_E_INVALID_ARG
    assert ae.lib.ae_http_request_reply(reply.request, 200, None, None, 5) == ae.AE_E_INVALID_ARG  # NULL body, length 5
    bad_header = (ae.c_char_p * 2)(b"no colon here", None)
    assert ae.lib.ae_http_request_reply(reply.request, 200, bad_header, None, 0) == ae.AE_E_INVALID_ARG
    assert ae.lib.ae_http_request_reply_error(reply.request, 99, None) == ae.AE_E_INVALID_ARG
    assert reply.error(ae.AE_HTTP_E_FAILED, "gave up") == ae.AE_OK  # still pending: a good reply works
    assert reply.error(ae.AE_HTTP_E_FAILED) == ae.AE_E_INVALID_HANDLE


def test_oversized_host_answer_is_refused(make_client, recorder):
    big = b"{" + b" " * (5 << 20) + b"}"
    client = make_client(transport=Scripted(lambda request, reply: reply.response(
        201, [("Content-Type", "application/json")], big)))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert "4194304" in recorder.statuses()[0]["message"]


# --- libcurl: TLS verification is always on ---------------------------------------------------

@pytest.fixture
def self_signed_server(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_an_untrusted_certificate_is_refused(make_client, recorder, self_signed_server):
    client = make_client(base_url=self_signed_server)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    assert recorder.find_status("SEC420")["level"] == "error"


@pytest.mark.parametrize("url,status", [("http://127.0.0.1:9", ae.AE_OK), ("http://localhost:9", ae.AE_OK),
                                        ("http://[::1]:9", ae.AE_OK), ("http://sp.auth.adobe.com", ae.AE_E_INSECURE_URL),
                                        ("http://10.1.2.3", ae.AE_E_INSECURE_URL), ("https://sp.auth.adobe.com", ae.AE_OK)])
def test_plain_http_only_to_loopback(recorder, url, status):
    try:
        client = ae.Client("a.b.c", recorder, base_url=url)
        client.close()
        got = ae.AE_OK
    except ae.AEError as error:
        got = error.status
    assert got == status


def test_transport_struct_versions_and_send_are_checked(emulator):
    """An ae_http_transport of an unknown version, or without `send`, is refused at create."""
    recorder = Recorder()
    class Altered(Scripted):
        def __init__(self, version, with_send):
            super().__init__(lambda request, reply: None)
            self.version, self.with_send = version, with_send

        def framework(self):
            framework = super().framework()
            framework.version = self.version
            if not self.with_send:
                framework.send = ae.HTTP_SEND_FN()
            return framework

    for version, with_send, expected in [(99, True, ae.AE_E_UNSUPPORTED_VERSION), (0, True, ae.AE_E_UNSUPPORTED_VERSION),
                                         (ae.AE_HTTP_TRANSPORT_VERSION, False, ae.AE_E_INVALID_ARG)]:
        transport = Altered(version, with_send)
        with pytest.raises(ae.AEError) as error:
            ae.Client(SOFTWARE_STATEMENT, recorder, base_url=emulator.url, transport=transport)
        assert error.value.status == expected, (version, with_send)
    assert recorder.events == []


# --- libcurl: connect timeout -------------------------------------------------------------------

def test_connect_timeout_is_bounded(make_client, recorder):
    """A host that never completes the TCP handshake: connect_timeout_ms ends the request (the
    request timeout is far longer). Loopback: a listener whose accept queue is full drops SYNs."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(8):  # fill the accept queue (nobody accepts); later handshakes hang
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    time.sleep(0.2)
    try:
        client = make_client(base_url=f"http://127.0.0.1:{port}", connect_timeout_ms=500, request_timeout_ms=20000)
        started = time.monotonic()
        client.set_requestor("REF30")
        assert recorder.wait("set_requestor_complete", timeout=15) == (0,)
        elapsed = time.monotonic() - started
        status = recorder.statuses()[-1]
        assert status["errorId"] == "CFG404" and status["enhancedError"]["code"] == "network_error", status
        assert "timed out" in status["message"], status  # not refused: the handshake never completed
        assert elapsed < 10  # the connect timeout, not the 20 s request timeout, ended it
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
