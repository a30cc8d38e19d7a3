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
The emulator writes the URLs it hands out (logos, logout, the login redirect) as http://<Host>: behind a
Front they name the front's host and port, with http://.

`make_pki(directory)` writes a test root (`ca_file`, and `ca_path` for CURLOPT_CAPATH) and the server
certificates `good`, `expired`, `not_yet_valid`, `wrong_host` (only `wrong.example`), `self_signed` and
`untrusted` (signed by a second root that is in neither), each a `Pair` with `.cert` and `.key`. `good`,
`expired`, `not_yet_valid` and `wrong_host` share one key (one `pin()`); `self_signed` and `untrusted`
share another. Their keys are EC P-256; `good_rsa` is `good` with an RSA 2048 key (for a TLS 1.0/1.1
front that a client at OpenSSL's default security level accepts: see Front).

`Front(backend_url, pair, directory, alpn=..., tls_min=..., tls_max=..., ipv6=...)` runs nghttpx (TLS on
127.0.0.1 and optionally [::1]) in front of a plain-HTTP backend; `requests()` reads its access log.
nghttpx ends when the thread that started it does, even if the test process is killed (PR_SET_PDEATHSIG):
start a Front from the main thread (pytest fixtures run there). `HandshakeDropper`, `GarbageServer` and
`StallServer` are TCP servers (threads) that break TLS on purpose; `GoawayServer(pair, mode)` and
`ResetStreamServer(pair, error, mid_response)` complete the handshake (ALPN h2) and break the request's
HTTP/2 stream with a GOAWAY or a RST_STREAM (hand-made frames: no h2 package).

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


def _listen(host, port=0):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


class _Endpoint:
    """What a Front, a broken server and the latency proxy share: their URLs on `self.port`, and `with`
    (a Front starts in __enter__; the others are running once built)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self):
        return f"https://localhost:{self.port}"

    @property
    def url_ip(self):
        return f"https://127.0.0.1:{self.port}"


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
            # sends X-Forwarded-Proto: https, which the emulator ignores (its URLs say http://<Host>).
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

    def connections(self):
        """The clients ("address port") of the access log's requests, each once, in order of first request."""
        return list(dict.fromkeys(r.client for r in self.requests()))


class _BrokenServer(_Endpoint):
    """A TCP server on 127.0.0.1 (a free port, listening once constructed) that hands each connection to
    `handle` on a thread of its own. `connections`: how many it accepted; `received`: the first bytes of
    each (a TLS client's ClientHello: b"\\x16\\x03…")."""

    hello_timeout = 5  # seconds to wait for the first bytes; then the connection is closed
    peek = False  # True: `received` is peeked (MSG_PEEK), the bytes stay for `handle` (a TLS handshake)

    def __init__(self, port=0):
        self._listener = _listen("127.0.0.1", port)  # port: a stopped front's, to break "the same URL"
        self._listener.settimeout(0.05)  # the accept loop checks `_stopped` this often
        self.port = self._listener.getsockname()[1]
        self.connections = 0
        self.received = []
        self._open = set()
        self._condition = threading.Condition()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True, name=type(self).__name__)
        self._thread.start()

    def _accept(self):
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._condition:
                self.connections += 1
                self._open.add(conn)
                self._condition.notify_all()
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            conn.settimeout(self.hello_timeout)
            data = conn.recv(65536, socket.MSG_PEEK if self.peek else 0)
            with self._condition:
                self.received.append(data)
            self.handle(conn)
        except OSError:
            self._close(conn)

    def handle(self, conn):
        raise NotImplementedError

    def _close(self, conn, reset=False):
        with self._condition:
            self._open.discard(conn)
        if reset:  # SO_LINGER on, 0 s: close() sends a RST, not a FIN
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()

    def wait_connections(self, count, timeout=10):
        """Waits until `count` connections were accepted; AssertionError after `timeout` s."""
        with self._condition:
            if not self._condition.wait_for(lambda: self.connections >= count, timeout):
                raise AssertionError(f"{type(self).__name__}: {self.connections} connections, not {count}")

    def stop(self):
        self._stopped.set()
        self._thread.join()
        self._listener.close()
        with self._condition:
            held, self._open = list(self._open), set()
        for conn in held:
            try:
                conn.shutdown(socket.SHUT_RDWR)  # wakes a thread still waiting in recv()
            except OSError:
                pass
            conn.close()


class HandshakeDropper(_BrokenServer):
    """Reads the ClientHello, then resets the connection: a server that drops the handshake midway."""

    def handle(self, conn):
        self._close(conn, reset=True)


class GarbageServer(_BrokenServer):
    """Reads the ClientHello, answers `garbage` (default: a plain-HTTP error, as an http:// server on an
    https:// URL would) and closes the connection."""

    def __init__(self, garbage=b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                 port=0):
        self.garbage = garbage
        super().__init__(port)

    def handle(self, conn):
        conn.sendall(self.garbage)
        conn.shutdown(socket.SHUT_WR)
        self._close(conn)


class StallServer(_BrokenServer):
    """Accepts, reads the ClientHello and then says nothing, holding the connection open until stop()."""

    hello_timeout = None

    def handle(self, conn):
        pass


# --- HTTP/2 that breaks a request (standard library only: no h2 package) -----------------------------
# A frame (RFC 9113 4.1): payload length (3 bytes), type, flags, stream id (4 bytes, top bit reserved),
# then the payload. GOAWAY's payload: last stream id (4), error code (4), debug text; RST_STREAM's:
# error code (4); SETTINGS: none here (the defaults); PING: 8 opaque bytes, echoed with ACK.
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7
END_STREAM = ACK = 0x1  # END_STREAM on DATA and HEADERS; ACK on SETTINGS and PING
END_HEADERS = 0x4
NO_ERROR, INTERNAL_ERROR, REFUSED_STREAM = 0x0, 0x2, 0x7
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"  # the client's connection preface, before its SETTINGS


def h2_frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def hpack_literal(name, value):
    """One header field as HPACK's literal without indexing, new name (RFC 7541 6.2.2): 0x00, then the
    name and the value, each a length (an integer with a 7-bit prefix; the top bit, Huffman, 0) and
    its octets."""
    def string(text):
        data = text.encode()
        if len(data) < 127:
            return bytes([len(data)]) + data
        prefix, rest = [127], len(data) - 127  # 127, then 7 bits a byte, low first (RFC 7541 5.1)
        while rest >= 128:
            prefix.append(rest % 128 | 128)
            rest //= 128
        return bytes(prefix + [rest]) + data
    return b"\x00" + string(name) + string(value)


class _H2Server(_BrokenServer):
    """TLS with ALPN h2 (`pair`'s certificate), then enough HTTP/2 to reach a request: it reads the
    client's preface, sends its SETTINGS, ACKs the client's SETTINGS and PINGs, and hands the stream of
    each HEADERS frame to `answer(tls, stream)`; a False from it ends the connection (read until the
    client is quiet, close_notify, close). `streams`: the streams of the requests seen, over all
    connections. `port`: as _BrokenServer's."""

    peek = True
    idle_timeout = 30  # seconds without a frame before a connection is dropped

    def __init__(self, pair, port=0):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(pair.cert, pair.key)
        self.context.set_alpn_protocols(["h2"])
        self.streams = []
        super().__init__(port)

    def handle(self, conn):
        tls = self.context.wrap_socket(conn, server_side=True)  # conn is detached: stop() must see tls
        with self._condition:
            self._open.discard(conn)
            self._open.add(tls)
        try:
            if tls.selected_alpn_protocol() == "h2" and read_exactly(tls, len(PREFACE)) == PREFACE:
                tls.settimeout(self.idle_timeout)
                tls.sendall(h2_frame(SETTINGS, 0, 0))
                self._frames(tls)
        except (OSError, ValueError):
            pass
        finally:
            self._close(tls)

    def _frames(self, tls):
        while True:
            header = read_exactly(tls, 9)
            length, kind, flags = int.from_bytes(header[:3], "big"), header[3], header[4]
            stream = int.from_bytes(header[5:], "big") & 0x7FFFFFFF
            payload = read_exactly(tls, length)
            if kind == SETTINGS and not flags & ACK:
                tls.sendall(h2_frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                tls.sendall(h2_frame(PING, ACK, 0, payload))
            elif kind == HEADERS:
                with self._condition:
                    self.streams.append(stream)
                if not self.answer(tls, stream):
                    self._finish(tls)
                    return

    def _finish(self, tls):
        """Reads what the client still sends (until it is quiet for 0.3 s: a close then sends a FIN,
        not a RST that could drop the frames in flight), then a TLS close_notify."""
        tls.settimeout(0.3)
        try:
            while tls.recv(65536):
                pass
            tls.unwrap()
        except (OSError, ValueError):
            pass

    def answer(self, tls, stream):
        raise NotImplementedError

    @staticmethod
    def partial_response(stream):
        """HEADERS :status 200, JSON, content-length 64, and a DATA frame of 11 of those bytes (no
        END_STREAM): an answer broken mid-body."""
        fields = [(":status", "200"), ("content-type", "application/json"), ("content-length", "64")]
        block = b"".join(hpack_literal(name, value) for name, value in fields)
        return h2_frame(HEADERS, END_HEADERS, stream, block) + h2_frame(DATA, 0, stream, b'{"partial":')


def read_exactly(sock, count):
    """`count` bytes from `sock`; ConnectionResetError when it closes first."""
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionResetError("closed by the client")
        data += chunk
    return data


class GoawayServer(_H2Server):
    """Answers a request's HEADERS with a GOAWAY and ends the connection. `mode`:
    "unprocessed": GOAWAY last-stream-id 0, NO_ERROR (the request was not processed: a client may
    send it again on a new connection); "error": last-stream-id the request's stream, INTERNAL_ERROR
    (it may have been processed); "mid_body": a partial answer (partial_response), then that GOAWAY."""

    MODES = ("unprocessed", "error", "mid_body")

    def __init__(self, pair, mode="unprocessed", port=0):
        if mode not in self.MODES:
            raise ValueError(f"mode {mode!r}: one of {self.MODES}")
        self.mode = mode
        super().__init__(pair, port)

    def answer(self, tls, stream):
        last, code = (0, NO_ERROR) if self.mode == "unprocessed" else (stream, INTERNAL_ERROR)
        head = self.partial_response(stream) if self.mode == "mid_body" else b""
        tls.sendall(head + h2_frame(GOAWAY, 0, 0, last.to_bytes(4, "big") + code.to_bytes(4, "big") + b"h2 fault"))
        return False


class ResetStreamServer(_H2Server):
    """Answers each request's HEADERS with RST_STREAM `error` (INTERNAL_ERROR, REFUSED_STREAM, …) on its
    stream, after a partial answer (partial_response) with `mid_response`; the connection stays open."""

    def __init__(self, pair, error=INTERNAL_ERROR, mid_response=False, port=0):
        self.error, self.mid_response = error, mid_response
        super().__init__(pair, port)

    def answer(self, tls, stream):
        head = self.partial_response(stream) if self.mid_response else b""
        tls.sendall(head + h2_frame(RST_STREAM, 0, stream, self.error.to_bytes(4, "big")))
        return True



class LatencyProxy(_Endpoint):
    """A TCP proxy on 127.0.0.1 that delays every chunk by `delay_ms` in each direction (so a round trip
    costs 2 × delay_ms: the kernel here has no netem) and counts the connections it accepted, the bytes
    it carried each way and the TLS handshakes it saw (a connection whose first bytes are a TLS
    ClientHello: full or resumed alike). Put it before a Front: `https://localhost:<proxy port>` then
    reaches the front with that latency. `counters()` reads all three at once."""

    def __init__(self, target_port, delay_ms):
        self.target_port, self.delay = target_port, delay_ms / 1000
        self.listener = _listen("127.0.0.1")
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.handshakes = 0
        self.bytes_up = self.bytes_down = 0  # client → server, server → client
        self.counting = threading.Lock()
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            with self.counting:
                self.connections += 1
            threading.Thread(target=self._connect, args=(downstream,), daemon=True).start()

    def _upstream(self, downstream):
        """The connection to forward `downstream` to."""
        return socket.create_connection(("127.0.0.1", self.target_port))

    def _connect(self, downstream):
        try:
            upstream = self._upstream(downstream)
        except OSError:
            downstream.close()
            return
        for a, b, up in ((downstream, upstream, True), (upstream, downstream, False)):
            threading.Thread(target=self._pump, args=(a, b, up), daemon=True).start()

    def counters(self):
        """{"connections", "handshakes", "bytes_up", "bytes_down"} so far."""
        with self.counting:
            return {"connections": self.connections, "handshakes": self.handshakes,
                    "bytes_up": self.bytes_up, "bytes_down": self.bytes_down}

    def _count(self, data, up, first):
        with self.counting:
            if up:
                self.bytes_up += len(data)
                # A TLS record of type handshake (22) whose first message is a ClientHello (1).
                if first and len(data) > 5 and data[0] == 22 and data[5] == 1:
                    self.handshakes += 1
            else:
                self.bytes_down += len(data)

    def _pump(self, source, sink, up=True):
        """Reads `source`; each chunk goes to `sink` `delay` after it arrived (in order)."""
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
            self._count(data, up, first)
            first = False
            with ready:
                chunks.append((time.monotonic() + self.delay, data))
                ready.notify()
            if not data:
                return

    def stop(self):
        self.stopped.set()
        self.listener.close()



class ConnectProxy(LatencyProxy):
    """An HTTP proxy that serves CONNECT only (what libcurl sends for https through an http:// proxy), to
    127.0.0.1 whatever host was asked; `requests` lists the "host:port" of each CONNECT."""

    def __init__(self):
        super().__init__(target_port=0, delay_ms=0)
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
