# SPDX-License-Identifier: Apache-2.0
"""The TLS fixtures themselves (tlsfront.py), without the SDK: Python's ssl and http.client, the openssl
and curl command lines. This module neither imports accessenabler nor uses conftest.py's fixtures (its
own emulator: `backend`), so it also runs where libaccessenabler.so is not built, with conftest.py
(which imports harness, which loads the library) left out:

    python3 -m pytest -q --noconftest Tests/python/test_tls_front.py
"""
import http.client
import json
import shutil
import socket
import ssl
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import tlsfront
from tlsfront import (NGHTTPX, STATIC_RSA_CIPHERS, Front, GarbageServer, GoawayServer, HandshakeDropper,
                      ResetStreamServer, StallServer, make_pki, pin)

ROOT = Path(__file__).resolve().parents[2]
CURL = shutil.which("curl")
needs_curl = pytest.mark.skipif(CURL is None, reason="no curl command")

if not (Path(NGHTTPX).is_file() and shutil.which("openssl")):
    pytest.skip("needs nghttpx (Debian: nghttp2-proxy) and the openssl command", allow_module_level=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def backend():
    """An emulator of this module's own (conftest.py's comes with the library): its http:// URL."""
    process = subprocess.Popen([sys.executable, str(ROOT / "Emulator/emulator.py"), "--port", "0", "--quiet",
                                "--exit-with-parent"], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().split()
    assert line[:1] == ["AE_EMULATOR_LISTENING"], line
    yield line[1]
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def front(backend, tmp_path):
    """front(pair, **options): a started Front on the emulator, stopped after the test."""
    started = []

    def start(pair, **options):
        started.append(Front(backend, pair, tmp_path, **options).start())
        return started[-1]

    yield start
    for each in started:
        each.stop()


def client_context(pki, alpn=None, **locations):
    context = ssl.create_default_context(**(locations or {"cafile": pki.ca_file}))
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


def handshake(port, context, host="localhost"):
    """The (TLS version, ALPN protocol) of a handshake with 127.0.0.1 or ::1 (`host` is the name checked)."""
    address = "::1" if host == "::1" else "127.0.0.1"
    with socket.create_connection((address, port), timeout=5) as raw, \
            context.wrap_socket(raw, server_hostname=host) as tls:
        return tls.version(), tls.selected_alpn_protocol()


def get_config(connection):
    """GET /_emulator/config on an open http.client connection: the emulator's settings."""
    connection.request("GET", "/_emulator/config")
    response = connection.getresponse()
    assert response.status == 200
    return json.loads(response.read())


def curl(*args):
    return subprocess.run([CURL, "-sS", *map(str, args)], capture_output=True, text=True, timeout=30)


def wait_requests(front, count):
    """The access log's requests once it has `count` (nghttpx writes a line when an answer is finished)."""
    deadline = time.monotonic() + 5
    while len(front.requests()) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return front.requests()


def test_pki_has_the_root_under_its_hash_and_the_pin_of_openssl(pki):
    subject_hash = subprocess.run(["openssl", "x509", "-in", pki.ca_file, "-noout", "-subject_hash"],
                                  capture_output=True, text=True, check=True).stdout.strip()
    assert (pki.ca_path / f"{subject_hash}.0").resolve().read_bytes() == pki.ca_file.read_bytes()
    pipeline = (f"openssl x509 -in {pki.good.cert} -pubkey -noout | openssl pkey -pubin -outform der"
                " | openssl dgst -sha256 -binary | base64")
    expected = subprocess.run(pipeline, shell=True, capture_output=True, text=True, check=True).stdout.strip()
    assert pin(pki.good.cert) == f"sha256//{expected}"
    assert pin(pki.expired.cert) == pin(pki.good.cert)  # one key for the certificates of the root's server
    assert pin(pki.self_signed.cert) not in (pin(pki.good.cert), pin(pki.ca_file))


@pytest.mark.parametrize("name, error", [
    ("good", None),
    ("good_rsa", None),
    ("expired", "certificate has expired"),
    ("not_yet_valid", "certificate is not yet valid"),
    ("wrong_host", "hostname mismatch"),
    ("self_signed", "self-signed certificate"),
    ("untrusted", "unable to get local issuer certificate"),
])
def test_openssl_verify_judges_each_certificate_by_the_ca_path(pki, name, error):
    for check in ("-verify_hostname", "localhost"), ("-verify_ip", "127.0.0.1"), ("-verify_ip", "::1"):
        done = subprocess.run(["openssl", "verify", "-no-CAfile", "-no-CAstore", "-CApath", pki.ca_path, *check,
                               getattr(pki, name).cert], capture_output=True, text=True)
        if error is None:
            assert done.returncode == 0 and done.stdout.endswith(": OK\n"), done.stderr
        else:
            expected = "IP address mismatch" if name == "wrong_host" and check[0] == "-verify_ip" else error
            assert done.returncode == 2 and f"lookup: {expected}\n" in done.stderr, done.stderr


@needs_curl
def test_the_emulators_urls_through_the_front_name_the_front(pki, front, backend):
    """nghttpx passes the client's Host on and adds X-Forwarded-Proto: https, so the absolute URLs the emulator
    writes in its answers through it name the front, https included: the logout page a player shows (and
    the logos) stay on TLS (Emulator/README.md, "A real box on the LAN (TLS front)"). nghttpx rewrites a
    Location naming its own host to https itself; the body's URLs are the emulator's to get right."""
    sys.path.insert(0, str(ROOT / "Tests/emulator"))  # only for this import: its folder also has a conftest.py
    try:
        from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api, device_headers
    finally:
        sys.path.remove(str(ROOT / "Tests/emulator"))
    api = Api(backend)  # the login is made at the emulator itself; the answers with URLs come through the front
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    good = front(pki.good)
    base = f"https://localhost:{good.port}"
    done = curl("--cacert", pki.ca_file, "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{redirect_url}",
                f"{base}/api/v2/authenticate/REF30/{code}")
    assert done.stdout == f"2 302 {base}/_emulator/mvpd/login?code={code}", done.stderr
    api.login(code, userID="alice")
    headers = [arg for name, value in {"Authorization": f"Bearer {token}", **device_headers("tv-1")}.items()
               for arg in ("-H", f"{name}: {value}")]
    for protocol in ("--http2", "--http1.1"):
        done = curl("--cacert", pki.ca_file, protocol, *headers, f"{base}/api/v2/REF30/configuration")
        logos = {m["logoUrl"] for m in json.loads(done.stdout)["requestor"]["mvpds"]}
        assert logos and all(url.startswith(f"{base}/_emulator/logos/") for url in logos), (logos, done.stderr)
    done = curl("--cacert", pki.ca_file, *headers, f"{base}/api/v2/REF30/logout/Cablevision?redirectUrl={REDIRECT_URL}")
    assert json.loads(done.stdout)["logouts"]["Cablevision"]["url"].startswith(f"{base}/adobe-services/logout?"), \
        (done.stdout, done.stderr)


def test_good_front_answers_http11_requests_on_one_connection(pki, front):
    good = front(pki.good)
    connection = http.client.HTTPSConnection("localhost", good.port, context=client_context(pki), timeout=10)
    assert "throttle" in get_config(connection)
    get_config(connection)
    connection.close()
    requests = wait_requests(good, 2)
    assert [(r.method, r.path, r.status, r.alpn, r.http) for r in requests] == \
        [("GET", "/_emulator/config", 200, "http/1.1", "HTTP/1.1")] * 2
    assert len(good.connections()) == 1
    assert requests[0].sni == "localhost" and requests[0].tls == "TLSv1.3" and not requests[0].resumed


def test_good_front_is_trusted_through_ca_path_and_by_address(pki, front):
    good = front(pki.good)
    assert handshake(good.port, client_context(pki, capath=pki.ca_path)) == ("TLSv1.3", None)
    assert handshake(good.port, client_context(pki), host="127.0.0.1")[0] == "TLSv1.3"


def test_ipv6_front_listens_on_both_loopbacks(pki, front):
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback")
    good = front(pki.good, ipv6=True)
    assert good.url_v6 == f"https://[::1]:{good.port}"
    assert handshake(good.port, client_context(pki), host="::1")[0] == "TLSv1.3"
    assert handshake(good.port, client_context(pki))[0] == "TLSv1.3"


@pytest.mark.parametrize("alpn, offered, selected", [
    ("h2,http/1.1", ["h2", "http/1.1"], "h2"),
    ("h2,http/1.1", ["http/1.1"], "http/1.1"),
    ("http/1.1", ["h2", "http/1.1"], "http/1.1"),
    ("h2", ["h2", "http/1.1"], "h2"),
])
def test_alpn(pki, front, alpn, offered, selected):
    served = front(pki.good, alpn=alpn)
    assert handshake(served.port, client_context(pki, offered)) == ("TLSv1.3", selected)


def test_h2_only_front_closes_an_http11_connection_unanswered(pki, front):
    h2 = front(pki.good, alpn="h2")
    connection = http.client.HTTPSConnection("localhost", h2.port, context=client_context(pki), timeout=10)
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        get_config(connection)
    assert h2.requests() == []


@needs_curl
def test_curl_sends_two_requests_on_one_h2_connection(pki, front):
    good = front(pki.good)
    url = f"{good.url}/_emulator/config"
    done = curl("--http2", "--cacert", pki.ca_file, "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_version}\n",
                url, url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]
    requests = wait_requests(good, 2)
    assert [(r.alpn, r.http, r.status) for r in requests] == [("h2", "HTTP/2", 200)] * 2
    assert len(good.connections()) == 1


@needs_curl
def test_the_latency_proxy_delays_and_counts_connections_handshakes_and_bytes(pki, front):
    good = front(pki.good)
    with tlsfront.LatencyProxy(good.port, 50) as proxy:
        url = f"{proxy.url}/_emulator/config"
        started = time.monotonic()
        done = curl("--http2", "--cacert", pki.ca_file, "-o", "/dev/null", "-o", "/dev/null", url, url)
        elapsed = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        counted = proxy.counters()
    # One connection, one TLS handshake, two requests on it: at least TCP + TLS + 2 requests = 4 RTT.
    assert (counted["connections"], counted["handshakes"], counted["handshakes_full"]) == (1, 1, 1)
    assert counted["bytes_up"] > 500 and counted["bytes_down"] > 1000, counted
    assert elapsed >= 4 * 0.1


def test_the_latency_proxy_charges_the_tcp_handshake_and_tells_resumed_handshakes(pki, front):
    # A wire's TCP handshake costs a round trip before the client's first byte can leave; the kernel
    # completes it at once on loopback, so the proxy holds that byte for one RTT. The second connection
    # offers the first one's TLS 1.3 session (its ticket arrives after the handshake: read once): the
    # server's ServerHello says it resumed (pre_shared_key), and the proxy counts it apart.
    good = front(pki.good)
    context = client_context(pki)
    with tlsfront.LatencyProxy(good.port, 100) as proxy:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as raw, \
                context.wrap_socket(raw, server_hostname="localhost") as tls:
            handshaken = time.monotonic() - started
            connection = http.client.HTTPConnection("localhost")
            connection.sock = tls
            get_config(connection)
            session = tls.session
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as raw, \
                context.wrap_socket(raw, server_hostname="localhost", session=session) as tls:
            assert tls.session_reused
        time.sleep(0.3)
        counted = proxy.counters()
    # TCP (1 RTT, held by the proxy) + the TLS 1.3 handshake (1 RTT): 2 RTT of 200 ms; without the TCP
    # round trip the handshake alone would be done after about 200 ms.
    assert handshaken >= 0.38, handshaken
    assert (counted["handshakes"], counted["handshakes_full"], counted["handshakes_resumed"]) == (2, 1, 1), counted
    with tlsfront.LatencyProxy(good.port, 100, tcp_handshake=False) as proxy:
        started = time.monotonic()
        handshake(proxy.port, context)
        assert time.monotonic() - started < 0.38, "no TCP round trip when it is turned off"


@needs_curl
def test_assert_protocol_names_a_request_made_over_another_protocol(pki, front):
    # What conftest checks after every test of an AE_TEST_HTTPS run (scripts/test.sh): the requests the
    # shared front forwarded used the protocol of the run.
    h2, http11 = front(pki.good), front(pki.good, alpn="http/1.1")
    for served in (h2, http11):
        done = curl("--http2", "--cacert", pki.ca_file, "-o", "/dev/null", f"{served.url}/_emulator/config")
        assert done.returncode == 0, done.stderr
    assert [r.http for r in wait_requests(h2, 1)] == ["HTTP/2"] and len(wait_requests(http11, 1)) == 1
    assert len(h2.assert_protocol("h2")) == 1 and len(http11.assert_protocol("http/1.1")) == 1
    with pytest.raises(AssertionError, match="over http/1.1 \\(HTTP/1.1\\), not h2"):
        http11.assert_protocol("h2")
    with pytest.raises(AssertionError, match="over h2 \\(HTTP/2\\), not http/1.1"):
        h2.assert_protocol("http/1.1")
    assert h2.assert_protocol("http/1.1", since=1) == []  # only the requests from `since` on


def test_the_latency_proxy_sets_tcp_nodelay_on_both_sides(pki, front):
    # Without it, Nagle's algorithm holds a delayed chunk until the previous one is acknowledged,
    # which a delayed ACK puts off by up to 40 ms: about 0.4 RTT of the proxy's own at 100 ms.
    good = front(pki.good)
    with tlsfront.LatencyProxy(good.port, 0) as proxy:
        handshake(proxy.port, client_context(pki))
        assert len(proxy.pairs) == 1
        for sock in proxy.pairs[0]:
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


@needs_curl
def test_curl_gets_http11_from_an_http11_only_front(pki, front):
    done = curl("--http2", "--cacert", pki.ca_file, "-o", "/dev/null", "-w", "%{http_version}",
                f"{front(pki.good, alpn='http/1.1').url}/_emulator/config")
    assert (done.returncode, done.stdout) == (0, "1.1"), done.stderr


@pytest.mark.parametrize("name, code, message", [
    ("expired", 10, "certificate has expired"),
    ("not_yet_valid", 9, "certificate is not yet valid"),
    ("wrong_host", 62, "Hostname mismatch"),
    ("self_signed", 18, "self-signed certificate"),
    ("untrusted", 20, "unable to get local issuer certificate"),
])
def test_bad_certificate_fails_verification(pki, front, name, code, message):
    bad = front(getattr(pki, name))
    with pytest.raises(ssl.SSLCertVerificationError) as failure:
        handshake(bad.port, client_context(pki))
    assert (failure.value.verify_code, failure.value.verify_message.split(",")[0]) == (code, message)


@needs_curl
def test_pin_is_what_curl_accepts(pki, front):
    good = front(pki.good)
    url = f"{good.url}/_emulator/config"
    accepted = curl("--cacert", pki.ca_file, "--pinnedpubkey", pin(pki.good.cert), "-o", "/dev/null", url)
    assert accepted.returncode == 0, accepted.stderr
    refused = curl("--cacert", pki.ca_file, "--pinnedpubkey", pin(pki.self_signed.cert), "-o", "/dev/null", url)
    assert refused.returncode == 90, refused.stderr  # CURLE_SSL_PINNEDPUBKEYNOTMATCH


@pytest.mark.parametrize("version, s_client_flag, name, python", [
    ("1.1", "-tls1_1", "TLSv1.1", "TLSv1_1"),
    ("1.0", "-tls1", "TLSv1", "TLSv1"),  # OpenSSL 3.0 still serves TLS 1.0 at security level 0
])
def test_legacy_only_front_refuses_tls12_clients_and_serves_its_version(pki, front, version, s_client_flag, name,
                                                                         python):
    old = front(pki.good, tls_max=version)
    assert (old.tls_min, old.tls_max, old.alpn, old.ciphers) == (f"TLSv{version}", f"TLSv{version}", "http/1.1",
                                                                 "DEFAULT:@SECLEVEL=0")
    with pytest.raises(ssl.SSLError, match="TLSV1_ALERT_PROTOCOL_VERSION"):
        handshake(old.port, client_context(pki))
    s_client = subprocess.run(["openssl", "s_client", "-brief", "-connect", f"127.0.0.1:{old.port}",
                               "-servername", "localhost", "-CAfile", pki.ca_file, s_client_flag,
                               "-cipher", "DEFAULT@SECLEVEL=0"], input="", capture_output=True, text=True)
    assert s_client.returncode == 0 and f"Protocol version: {name}\n" in s_client.stderr, s_client.stderr
    legacy = client_context(pki)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ssl.TLSVersion.TLSv1_1, TLSv1
        legacy.minimum_version = getattr(ssl.TLSVersion, python)
    legacy.set_ciphers("DEFAULT:@SECLEVEL=0")
    assert "throttle" in get_config(http.client.HTTPSConnection("localhost", old.port, context=legacy, timeout=10))
    assert [(r.tls, r.alpn) for r in wait_requests(old, 1)] == [(name, "http/1.1")]  # OpenSSL says TLSv1 for 1.0


@needs_curl
def test_a_tls11_front_that_libcurl_completes_at_its_default_security_level(pki, front):
    """TLS 1.1 signs its handshake with SHA-1 (ECDSA) or MD5+SHA-1 (RSA), which OpenSSL 3 refuses at
    level 1 on either side; RSA key exchange (pki.good_rsa, STATIC_RSA_CIPHERS) signs nothing."""
    def tls11_curl(served):
        return curl("--tlsv1.0", "--tls-max", "1.1", "--cacert", pki.ca_file, "-o", "/dev/null",
                    "-w", "%{http_code}", f"{served.url}/_emulator/config")

    signed = tls11_curl(front(pki.good, tls_max="1.1"))
    assert signed.returncode == 35 and "legacy sigalg disallowed" in signed.stderr, signed.stderr
    unsigned = front(pki.good_rsa, tls_max="1.1", ciphers=STATIC_RSA_CIPHERS)
    done = tls11_curl(unsigned)
    assert (done.returncode, done.stdout) == (0, "200"), done.stderr
    assert [(r.tls, r.cipher) for r in wait_requests(unsigned, 1)] == [("TLSv1.1", "AES128-SHA")]


def test_front_that_cannot_start_raises_with_the_nghttpx_log(pki, backend, tmp_path):
    broken = Front(backend, pki.good._replace(key=tmp_path / "missing.key"), tmp_path)
    with pytest.raises(RuntimeError, match=r"(?s)nghttpx exited \(1\): .*missing.key.*SSL_CTX_use_PrivateKey_file"):
        broken.start()


def test_front_ends_with_the_process_that_started_it(pki, backend, tmp_path):
    script = ("import sys, os; sys.path.insert(0, sys.argv[1]); from tlsfront import Front, Pair; "
              "f = Front(sys.argv[2], Pair(sys.argv[3], sys.argv[4]), sys.argv[5]).start(); "
              "print(f.process.pid, flush=True); os._exit(0)")
    done = subprocess.run([sys.executable, "-c", script, Path(__file__).parent, backend, pki.good.cert,
                           pki.good.key, tmp_path], capture_output=True, text=True, timeout=30)
    pid = int(done.stdout)
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)


def alive(pid):
    """True while `pid` runs (a zombie nobody reaps does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_handshake_dropper_resets_the_handshake():
    with HandshakeDropper() as dropper:
        with pytest.raises((ConnectionResetError, ssl.SSLError)):
            handshake(dropper.port, ssl.create_default_context())
        dropper.wait_connections(1)
        assert dropper.received[0][:2] == b"\x16\x03"  # a TLS handshake record: the ClientHello


def test_garbage_server_is_no_tls():
    with GarbageServer() as garbage:
        with pytest.raises(ssl.SSLError, match="WRONG_VERSION_NUMBER"):
            handshake(garbage.port, ssl.create_default_context())
        assert garbage.connections == 1


def test_stall_server_holds_the_handshake_until_the_client_gives_up():
    with StallServer() as stall:
        context = ssl.create_default_context()
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", stall.port), timeout=0.5) as raw:
            with pytest.raises(TimeoutError):
                context.wrap_socket(raw, server_hostname="localhost")
        assert time.monotonic() - started >= 0.5
        assert (stall.connections, stall.received[0][:2]) == (1, b"\x16\x03")


# --- HTTP/2 that breaks the request -----------------------------------------------------------------

GOAWAY_UNPROCESSED = (tlsfront.GOAWAY, 0, 0, bytes(8) + b"h2 fault")  # last stream 0, NO_ERROR
GOAWAY_ERROR = (tlsfront.GOAWAY, 0, 0, b"\0\0\0\1\0\0\0\2h2 fault")  # last stream 1, INTERNAL_ERROR
RST_INTERNAL, RST_REFUSED = (tlsfront.RST_STREAM, 0, 1, b"\0\0\0\2"), (tlsfront.RST_STREAM, 0, 1, b"\0\0\0\7")
H2_BREAKS = [  # the server, its options, a partial answer first?, the frame that breaks the stream, curl's exit
    pytest.param(GoawayServer, {"mode": "unprocessed"}, False, GOAWAY_UNPROCESSED, 16, id="goaway_unprocessed"),
    pytest.param(GoawayServer, {"mode": "error"}, False, GOAWAY_ERROR, 18, id="goaway_error"),
    pytest.param(GoawayServer, {"mode": "mid_body"}, True, GOAWAY_ERROR, 18, id="goaway_mid_body"),
    pytest.param(ResetStreamServer, {}, False, RST_INTERNAL, 92, id="rst_stream"),
    pytest.param(ResetStreamServer, {"mid_response": True}, True, RST_INTERNAL, 92, id="rst_stream_mid_body"),
    pytest.param(ResetStreamServer, {"error": tlsfront.REFUSED_STREAM}, False, RST_REFUSED, 56, id="refused_stream"),
]
PARTIAL_ANSWER = [
    (tlsfront.HEADERS, tlsfront.END_HEADERS, 1, b"".join(tlsfront.hpack_literal(name, value) for name, value in [
        (":status", "200"), ("content-type", "application/json"), ("content-length", "64")])),
    (tlsfront.DATA, 0, 1, b'{"partial":'),
]


def h2_frames(tls, count):
    """The next `count` frames as (type, flags, stream, payload)."""
    frames = []
    for _ in range(count):
        header = tlsfront.read_exactly(tls, 9)
        payload = tlsfront.read_exactly(tls, int.from_bytes(header[:3], "big"))
        frames.append((header[3], header[4], int.from_bytes(header[5:], "big"), payload))
    return frames


@pytest.mark.parametrize("kind, options, partial, last, _", H2_BREAKS)
def test_h2_servers_break_the_stream_with_the_frames_they_say(pki, kind, options, partial, last, _):
    # A bare HTTP/2 client: the preface, an empty SETTINGS, a HEADERS on stream 1 (its block is not read).
    with kind(pki.good, **options) as server, socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw, \
            client_context(pki, ["h2"]).wrap_socket(raw, server_hostname="localhost") as tls:
        assert tls.selected_alpn_protocol() == "h2"
        tls.sendall(tlsfront.PREFACE + tlsfront.h2_frame(tlsfront.SETTINGS, 0, 0))
        assert h2_frames(tls, 2) == [(tlsfront.SETTINGS, 0, 0, b""), (tlsfront.SETTINGS, tlsfront.ACK, 0, b"")]
        tls.sendall(tlsfront.h2_frame(tlsfront.HEADERS, tlsfront.END_HEADERS | tlsfront.END_STREAM, 1, b"\x82"))
        expected = (PARTIAL_ANSWER if partial else []) + [last]
        assert h2_frames(tls, len(expected)) == expected
        assert server.streams == [1]


@needs_curl
@pytest.mark.parametrize("kind, options, _, last, exit_code", H2_BREAKS)
def test_curl_meets_each_h2_break(pki, kind, options, _, last, exit_code):
    with kind(pki.good, **options) as server:
        done = curl("--http2", "--cacert", pki.ca_file, "-m", "10", "-d", "{}", f"{server.url}/x")
        assert done.returncode == exit_code, done.stderr
        # curl sends a refused request again on a new connection, 5 times at most (curl 7.88.1: not
        # after a GOAWAY that says stream 1 was not processed: exit 16, "Error in the HTTP2 framing layer")
        assert server.connections == (6 if last == RST_REFUSED else 1)
