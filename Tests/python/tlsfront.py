# SPDX-License-Identifier: Apache-2.0
"""A real TLS + HTTP/2 front for the emulator, and test certificates made at test time (standard library only).

    pki = make_pki(tmp_path / "pki")                  # openssl CLI: two roots, seven server certificates
    with Front(emulator.url, pki.good, tmp_path) as front:
        context = ssl.create_default_context(cafile=pki.ca_file)
        urllib.request.urlopen(f"{front.url}/_emulator/config", context=context)   # https://localhost:PORT
        front.requests()      # the access log: [Request(client="127.0.0.1 51234", alpn="http/1.1", …)]
        front.connections()   # ["127.0.0.1 51234"]: one TLS connection

An SDK client under test: `make_client(base_url=front.url, ca_file=str(pki.ca_file))` (or
`ca_path=str(pki.ca_path)`, `pinned_public_keys=[pin(pki.good.cert)]`); with pki.good and the default
ALPN, libcurl sends a whole set_requestor (register, token, configuration, profiles) over one h2 connection.
The emulator writes the URLs it hands out (logos, logout, the login redirect) with the scheme and host the
client used: behind a Front, https:// (nghttpx's X-Forwarded-Proto) and the front's host and port.

`make_pki(directory)` writes a test root (`ca_file`, and `ca_path` for CURLOPT_CAPATH) and the server
certificates `good`, `expired`, `not_yet_valid`, `wrong_host` (only `wrong.example`), `self_signed` and
`untrusted` (signed by a second root that is in neither), each a `Pair` with `.cert` and `.key`. `good`,
`expired`, `not_yet_valid` and `wrong_host` share one key (one `pin()`); `self_signed` and `untrusted`
share another. Their keys are EC P-256; `good_rsa` is `good` with an RSA 2048 key (for a TLS 1.0/1.1
front that a client at OpenSSL's default security level accepts: see Front).

`Front(backend_url, pair, directory, alpn=..., tls_min=..., tls_max=..., ipv6=...)` runs nghttpx (TLS on
127.0.0.1 and optionally [::1]) in front of a plain-HTTP backend; `requests()` reads its access log.
nghttpx ends when the thread that started it does, even if the test process is killed (PR_SET_PDEATHSIG):
start a Front from the main thread (pytest fixtures run there). `assert_protocol("h2" | "http/1.1")` checks
that the requests it forwarded used that protocol. The servers that break TLS or HTTP/2 on purpose
(`HandshakeDropper`, `GarbageServer`, `StallServer`, `SilentServer`, `GoawayServer`, `ResetStreamServer`)
are in tlsservers.py, re-exported here. `LatencyProxy(port, delay_ms)` adds latency in user space.

tests: test_tls_front.py (runs without the library: `pytest --noconftest`, see there); the SDK meets the
broken HTTP/2 servers in test_tls_h2_faults.py.
"""
import ctypes
import os
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path
from typing import NamedTuple

from tlspki import Pair, Pki, make_pki, pin  # noqa: F401 (re-exported: tests use tlsfront.make_pki, .pin)
from tlsservers import (  # noqa: F401 (re-exported: tests use tlsfront.HandshakeDropper, …)
    ACK, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, INTERNAL_ERROR, NO_ERROR, PING, PREFACE, REFUSED_STREAM,
    RST_STREAM, SETTINGS, GarbageServer, GoawayServer, HandshakeDropper, ResetStreamServer, SilentServer,
    StallServer, _BrokenServer, _Endpoint, _H2Server, _listen, h2_frame, hpack_literal, read_exactly)

NGHTTPX = shutil.which("nghttpx") or "/usr/sbin/nghttpx"  # Debian: nghttp2-proxy, outside a user's PATH
LEGACY_CIPHERS = "DEFAULT:@SECLEVEL=0"  # OpenSSL 3 refuses TLS 1.0/1.1 at the default security level 1
STATIC_RSA_CIPHERS = "AES128-SHA:AES256-SHA:@SECLEVEL=0"  # TLS 1.0/1.1 without a handshake signature


def _die_with_parent():
    """Runs in the child before exec (no setpriv): SIGKILL when the thread that started it ends."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def spawn_orphan_proof(args, **popen):
    """Popen that the kernel kills (SIGKILL) when the calling thread ends: util-linux's setpriv, else prctl."""
    setpriv = shutil.which("setpriv")
    if setpriv:
        return subprocess.Popen([setpriv, "--pdeathsig", "KILL", *map(str, args)], **popen)
    return subprocess.Popen([str(a) for a in args], preexec_fn=_die_with_parent, **popen)


class Request(NamedTuple):
    """One line of a Front's access log."""
    time: str
    client: str  # "address port": one per TCP (so TLS) connection
    alpn: str  # "h2" or "http/1.1" (nghttpx writes http/1.1 for any HTTP/1)
    http: str  # "HTTP/2", "HTTP/1.1"
    tls: str  # "TLSv1.3", …
    cipher: str
    resumed: bool  # TLS session resumption
    sni: str | None
    status: int
    seconds: float
    method: str
    path: str


# Tab-separated, the path last; one line per request, written when its answer is finished. nghttpx has no
# connection or stream id variable: the client's address and port tell the connections apart.
ACCESS_LOG_FORMAT = "\t".join([
    "$time_iso8601", "$remote_addr $remote_port", "$alpn", "$protocol_version", "$tls_protocol", "$tls_cipher",
    "$tls_session_reused", "$tls_sni", "$status", "$request_time", "$method", "$path"])


def _tls_version(version):
    """"1.2", "TLSv1.2", "tlsv1.2" → "TLSv1.2" (nghttpx's names); None stays None."""
    if version is None:
        return None
    number = str(version).lower().removeprefix("tlsv")
    if number not in ("1.0", "1.1", "1.2", "1.3"):
        raise ValueError(f"TLS version {version!r}: one of 1.0, 1.1, 1.2, 1.3")
    return f"TLSv{number}"


class Front(_Endpoint):
    """nghttpx terminating TLS on 127.0.0.1 (and [::1] with `ipv6=True`), forwarding to a plain-HTTP backend.

    `pair`: a Pair (the certificate it serves, leaf only, and its key). `alpn`: what ALPN offers,
    "h2,http/1.1" (default), "http/1.1" or "h2" (then a client that does not get h2 through ALPN sees
    the handshake succeed and the connection close unanswered). `tls_min`/`tls_max`: "1.0" … "1.3"
    (nghttpx's default: 1.2 … 1.3; a tls_max below 1.2 alone is also the minimum). A tls_min below 1.2
    makes the ciphers default to DEFAULT:@SECLEVEL=0 (nghttpx's own list has no cipher before TLS 1.2,
    and at OpenSSL 3's level 1 the server cannot sign a TLS 1.0/1.1 handshake: SHA-1); a tls_max below
    1.2 makes ALPN default to http/1.1 (h2 needs TLS 1.2). A client at level 1 (libcurl's default)
    refuses such a signed handshake too ("legacy sigalg disallowed or unsupported"): a TLS 1.0/1.1
    front it completes is pki.good_rsa with ciphers=STATIC_RSA_CIPHERS (RSA key exchange, no signature).
    Its files, in `directory`: front-<port>.log (nghttpx's stderr), .access (access log), .pid.

    The listening sockets are bound here on free ports and handed to nghttpx (NGHTTPX_ACCEPT_<n>), so
    no other process can take the port between choosing and listening."""

    def __init__(self, backend, pair, directory, alpn="h2,http/1.1", tls_min=None, tls_max=None, ciphers=None,
                 ipv6=False, extra_args=()):
        parts = urllib.parse.urlsplit(backend if "//" in backend else f"http://{backend}")
        self.backend = (parts.hostname, parts.port or 80)
        self.pair = pair
        self.directory = Path(directory)
        self.tls_min, self.tls_max = _tls_version(tls_min), _tls_version(tls_max)
        legacy = ("TLSv1.0", "TLSv1.1")
        if self.tls_min is None and self.tls_max in legacy:
            self.tls_min = self.tls_max  # else nghttpx's minimum, 1.2, is above the maximum
        self.alpn = "http/1.1" if alpn == "h2,http/1.1" and self.tls_max in legacy else alpn
        self.ciphers = ciphers or (LEGACY_CIPHERS if self.tls_min in legacy else None)
        self.ipv6 = ipv6
        self.extra_args = list(extra_args)
        self.process = self.port = self.args = None

    def __enter__(self):
        self.start()
        return self

    @property
    def url_v6(self):
        return f"https://[::1]:{self.port}" if self.ipv6 else None

    def _sockets(self):
        """Listening sockets on one free port: 127.0.0.1, and ::1 when asked (retried until both are free)."""
        for _ in range(20):
            v4 = _listen("127.0.0.1")
            if not self.ipv6:
                return [v4]
            try:
                return [v4, _listen("::1", v4.getsockname()[1])]
            except OSError:
                v4.close()
        raise RuntimeError("no port free on both 127.0.0.1 and ::1")

    def command(self, sockets):
        port = sockets[0].getsockname()[1]
        base = self.directory / f"front-{port}"
        (self.directory / "nghttpx-empty.conf").write_text("")
        args = [
            NGHTTPX, f"--conf={self.directory / 'nghttpx-empty.conf'}",  # not /etc/nghttpx/nghttpx.conf
            *(f"--frontend={s.getsockname()[0]},{port}" for s in sockets),
            f"--backend={self.backend[0]},{self.backend[1]};;proto=http/1.1",
            "--single-process", "--workers=1",  # one process: the one PR_SET_PDEATHSIG kills
            # No OCSP stapling (nothing to fetch it from), the backend's answers as they are (no Via, its own
            # Server). nghttpx adds no X-Forwarded-For unless asked (the emulator keys throttling on it) and
            # sends X-Forwarded-Proto: https, from which the emulator's URLs say https://<Host>.
            "--no-ocsp", "--no-via", "--no-server-rewrite",
            f"--npn-list={self.alpn}",
            f"--accesslog-file={base}.access", f"--accesslog-format={ACCESS_LOG_FORMAT}",
            f"--errorlog-file={base}.log", f"--pid-file={base}.pid",
        ]
        if self.tls_min:
            args.append(f"--tls-min-proto-version={self.tls_min}")
        if self.tls_max:
            args.append(f"--tls-max-proto-version={self.tls_max}")
        if self.ciphers:
            args.append(f"--ciphers={self.ciphers}")
        return args + self.extra_args + [self.pair.key, self.pair.cert]

    def start(self, timeout=10):
        """Starts nghttpx and waits until it answers a TLS handshake; RuntimeError with its log if not."""
        self.directory.mkdir(parents=True, exist_ok=True)
        sockets = self._sockets()
        try:
            self.port = sockets[0].getsockname()[1]
            env = dict(os.environ, **{f"NGHTTPX_ACCEPT_{n}": f"tcp,{s.fileno()}" for n, s in enumerate(sockets, 1)})
            self.args = self.command(sockets)
            with self.log_file.open("ab") as log:
                self.process = spawn_orphan_proof(self.args, env=env, pass_fds=[s.fileno() for s in sockets],
                                                  stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        finally:
            for sock in sockets:
                sock.close()
        self._wait_ready(timeout)
        return self

    @property
    def log_file(self):
        return self.directory / f"front-{self.port}.log"

    @property
    def access_log(self):
        return self.directory / f"front-{self.port}.access"

    def _wait_ready(self, timeout):
        """The port accepts from the start (bound here); ready once nghttpx answers a ClientHello, even
        with an alert (a TLS 1.1-only front refuses this TLS 1.2 client)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"nghttpx exited ({self.process.returncode}): {self._failure()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as raw, \
                        context.wrap_socket(raw, server_hostname="localhost"):
                    return
            except ssl.SSLError as error:
                if not isinstance(error, ssl.SSLEOFError):  # an alert: nghttpx answered
                    return
            except OSError:  # reset or timed out: nghttpx is starting, or gone
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nghttpx did not answer TLS in {timeout} s: {self._failure()}")
            time.sleep(0.05)

    def _failure(self):
        return f"{' '.join(map(str, self.args))}\n{self.log_file.read_text()}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def requests(self):
        """The access log's requests (those answered so far), oldest first."""
        if not self.access_log.exists():
            return []
        entries = []
        for line in self.access_log.read_text().splitlines():
            f = line.split("\t", 11)
            entries.append(Request(f[0], f[1], f[2], f[3], f[4], f[5], f[6] == "r", None if f[7] == "-" else f[7],
                                   int(f[8]), float(f[9]), f[10], f[11]))
        return entries

    def assert_protocol(self, protocol, since=0):
        """Checks that the requests of the access log from position `since` on were made over `protocol`
        ("h2": ALPN h2, HTTP/2; "http/1.1": ALPN http/1.1, HTTP/1.1); returns them. AssertionError names
        the first that was not."""
        expected = {"h2": ("h2", "HTTP/2"), "http/1.1": ("http/1.1", "HTTP/1.1")}[protocol]
        requests = self.requests()[since:]
        for request in requests:
            assert (request.alpn, request.http) == expected, \
                f"{request.method} {request.path} went over {request.alpn} ({request.http}), not {protocol}"
        return requests

    def connections(self):
        """The clients ("address port") of the access log's requests, each once, in order of first request."""
        return list(dict.fromkeys(r.client for r in self.requests()))


class LatencyProxy(_Endpoint):
    """A TCP proxy on 127.0.0.1 that delays every chunk by `delay_ms` in each direction (so a round trip
    costs 2 × delay_ms: the kernel here has no netem) and counts the connections it accepted, the bytes
    it carried each way and the TLS handshakes it saw (a connection whose first bytes are a TLS
    ClientHello), full or resumed (`handshakes_full`, `handshakes_resumed`: the server's TLS 1.3
    ServerHello carries a pre_shared_key extension when it resumes). Put it before a Front:
    `https://localhost:<proxy port>` then reaches the front with that latency. `counters()` reads them
    all at once.

    `tcp_handshake` (the default): a new connection's TCP handshake costs one round trip, as on a wire.
    The kernel completes it at once on loopback, so the proxy holds what the client sends first until
    its SYN, SYN-ACK and ACK would have crossed: the first chunk reaches the server 3 × delay_ms after the
    connection was accepted (1 RTT of handshake, then the chunk's own way), everything after it in order.

    Both sockets of a proxied connection (`pairs`: (downstream, upstream) each) have TCP_NODELAY: a delayed
    chunk goes out when it is due, not held back by Nagle's algorithm until the peer acknowledges the
    previous one (which a delayed ACK puts off by up to 40 ms on Linux)."""

    def __init__(self, target_port, delay_ms, tcp_handshake=True):
        self.target_port, self.delay = target_port, delay_ms / 1000
        self.tcp_handshake = tcp_handshake
        self.listener = _listen("127.0.0.1")
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.handshakes = 0
        self.handshakes_full = self.handshakes_resumed = 0
        self.bytes_up = self.bytes_down = 0  # client → server, server → client
        self.pairs = []
        self.counting = threading.Lock()
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            accepted = time.monotonic()
            with self.counting:
                self.connections += 1
            threading.Thread(target=self._connect, args=(downstream, accepted), daemon=True).start()

    def _upstream(self, downstream):
        """The connection to forward `downstream` to."""
        return socket.create_connection(("127.0.0.1", self.target_port))

    def _connect(self, downstream, accepted):
        try:
            upstream = self._upstream(downstream)
        except OSError:
            downstream.close()
            return
        for sock in (downstream, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.counting:
            self.pairs.append((downstream, upstream))
        # The client's first bytes leave once its TCP handshake would be done (one RTT after the accept).
        earliest = accepted + 2 * self.delay if self.tcp_handshake else 0.0
        hello = _ServerHello()
        for a, b, up in ((downstream, upstream, True), (upstream, downstream, False)):
            threading.Thread(target=self._pump, args=(a, b, up, earliest if up else 0.0, hello), daemon=True).start()

    def counters(self):
        """{"connections", "handshakes", "handshakes_full", "handshakes_resumed", "bytes_up", "bytes_down"}
        so far."""
        with self.counting:
            return {"connections": self.connections, "handshakes": self.handshakes,
                    "handshakes_full": self.handshakes_full, "handshakes_resumed": self.handshakes_resumed,
                    "bytes_up": self.bytes_up, "bytes_down": self.bytes_down}

    def _count(self, data, up, first, hello):
        with self.counting:
            if up:
                self.bytes_up += len(data)
                # A TLS record of type handshake (22) whose first message is a ClientHello (1).
                if first and len(data) > 5 and data[0] == 22 and data[5] == 1:
                    self.handshakes += 1
            else:
                self.bytes_down += len(data)
                resumed = hello.feed(data)
                if resumed is not None:
                    if resumed:
                        self.handshakes_resumed += 1
                    else:
                        self.handshakes_full += 1

    def _pump(self, source, sink, up=True, earliest=0.0, hello=None):
        """Reads `source`; each chunk goes to `sink` `delay` after it arrived, not before `earliest` (in order)."""
        chunks = []
        ready = threading.Condition()

        def deliver():
            while True:
                with ready:
                    while not chunks:
                        ready.wait()
                    due, data = chunks.pop(0)
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    if data:
                        sink.sendall(data)
                    else:
                        sink.shutdown(socket.SHUT_WR)
                        return
                except OSError:
                    return

        threading.Thread(target=deliver, daemon=True).start()
        first = True
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            self._count(data, up, first, hello)
            first = False
            with ready:
                chunks.append((max(time.monotonic() + self.delay, earliest + self.delay), data))
                ready.notify()
            if not data:
                return

    def stop(self):
        self.stopped.set()
        self.listener.close()



class _ServerHello:
    """Reads the server → client bytes of one connection until its TLS ServerHello: `feed` returns True
    (the server resumed a session: a TLS 1.3 pre_shared_key extension, 41), False (a full handshake), or
    None (not known yet, or already told, or not TLS). A HelloRetryRequest (a ServerHello whose random is
    RFC 8446's constant) is skipped: the real ServerHello follows it. TLS 1.3's rule: a TLS 1.2 server
    resumes by echoing the session id, which this does not look at (it counts as full).""" 

    RETRY = bytes.fromhex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C")

    def __init__(self):
        self.buffer, self.done = b"", False

    def feed(self, data):
        if self.done:
            return None
        self.buffer += data
        while len(self.buffer) >= 5:
            kind, length = self.buffer[0], int.from_bytes(self.buffer[3:5], "big")
            if kind != 22 or length > 16384 + 256:
                self.done = True  # not a handshake record first: not TLS (or TLS broken): nothing to tell
                return None
            if len(self.buffer) < 5 + length:
                return None
            record, self.buffer = self.buffer[5:5 + length], self.buffer[5 + length:]
            if record[:1] != b"\x02":
                continue  # another handshake message first (none is expected before ServerHello)
            body = record[4:]
            if body[2:34] == self.RETRY:
                continue
            self.done = True
            return 41 in _extensions(body)
        return None


def _extensions(server_hello):
    """The extension types of a ServerHello body (legacy_version, random, session id, cipher, compression,
    extensions)."""
    at = 2 + 32
    at += 1 + server_hello[at]  # legacy_session_id_echo
    at += 2 + 1  # cipher suite, compression method
    if at + 2 > len(server_hello):
        return []
    end = min(len(server_hello), at + 2 + int.from_bytes(server_hello[at:at + 2], "big"))
    at += 2
    types = []
    while at + 4 <= end:
        types.append(int.from_bytes(server_hello[at:at + 2], "big"))
        at += 4 + int.from_bytes(server_hello[at + 2:at + 4], "big")
    return types


class ConnectProxy(LatencyProxy):
    """An HTTP proxy that serves CONNECT only (what libcurl sends for https through an http:// proxy), to
    127.0.0.1 whatever host was asked; `requests` lists the "host:port" of each CONNECT."""

    def __init__(self):
        super().__init__(target_port=0, delay_ms=0, tcp_handshake=False)
        self.requests = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def _upstream(self, downstream):
        head = b""
        while b"\r\n\r\n" not in head:
            data = downstream.recv(4096)
            if not data:
                raise OSError("closed before the request")
            head += data
        method, target = head.split(b"\r\n", 1)[0].split(b" ")[:2]
        if method != b"CONNECT":
            downstream.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            raise OSError("not CONNECT")
        self.requests.append(target.decode())
        upstream = socket.create_connection(("127.0.0.1", int(target.rsplit(b":", 1)[1])))
        downstream.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        return upstream


def main(argv=None):
    """`python3 tlsfront.py BACKEND_URL DIRECTORY [h2|http/1.1]`: a test PKI in DIRECTORY and a Front before
    BACKEND_URL; prints `AE_TLS_FRONT <url> <ca_file>` and serves until it is terminated (the front ends
    with it: PR_SET_PDEATHSIG). scripts/with-emulator.sh --https runs it."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 3) or (len(args) == 3 and args[2] not in ("h2", "http/1.1")):
        print("usage: tlsfront.py BACKEND_URL DIRECTORY [h2|http/1.1]", file=sys.stderr)
        return 2
    pki = make_pki(Path(args[1]) / "pki")
    alpn = "http/1.1" if len(args) == 3 and args[2] == "http/1.1" else "h2,http/1.1"
    with Front(args[0], pki.good, args[1], alpn=alpn) as front:
        print(f"AE_TLS_FRONT {front.url} {pki.ca_file}", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            signal.pause()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
