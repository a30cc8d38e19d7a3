# SPDX-License-Identifier: Apache-2.0
"""The TCP endpoints of the TLS tests (standard library only): what a Front and the latency proxy share
(`_Endpoint`, `_listen`), and servers that break TLS or HTTP/2 on purpose, each on a free port of
127.0.0.1 (or a given one: a stopped front's, to break "the same URL") and running once built.

`HandshakeDropper`, `GarbageServer` and `StallServer` break the handshake (reset it, answer no TLS, say
nothing); `SilentServer(pair, alpn)` completes it (ALPN h2 or http/1.1) and then never answers a
request; `GoawayServer(pair, mode)` and `ResetStreamServer(pair, error, mid_response)` complete it (ALPN
h2) and break the request's HTTP/2 stream with a GOAWAY or a RST_STREAM (hand-made frames: no h2
package). tlsfront re-exports them all.
"""
import socket
import ssl
import threading


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


class SilentServer(_H2Server):
    """Completes the TLS handshake (`pair`'s certificate, ALPN `alpn`: "h2" or "http/1.1") and then never
    answers: over h2 it keeps the connection alive (its SETTINGS, ACKs to the client's SETTINGS and PINGs)
    but answers no request; over HTTP/1.1 it reads the request and says nothing. A front whose backend
    hangs. `streams`: the requests seen (h2: their stream ids; HTTP/1.1: 1 per request head);
    `request_lines`: over HTTP/1.1, each request's method and path ("POST /o/client/register")."""

    def __init__(self, pair, alpn="h2", port=0):
        if alpn not in ("h2", "http/1.1"):
            raise ValueError(f"alpn {alpn!r}: h2 or http/1.1")
        self.alpn = alpn
        self.request_lines = []
        super().__init__(pair, port)
        self.context.set_alpn_protocols([alpn])  # (no client knows the port before this returns)

    def handle(self, conn):
        if self.alpn == "h2":
            return super().handle(conn)
        tls = self.context.wrap_socket(conn, server_side=True)
        with self._condition:
            self._open.discard(conn)
            self._open.add(tls)
        try:
            tls.settimeout(self.idle_timeout)
            while data := tls.recv(65536):
                if b"\r\n\r\n" in data:
                    with self._condition:
                        self.streams.append(1)
                        self.request_lines.append(" ".join(data.split(b"\r\n", 1)[0].decode().split(" ")[:2]))
        except (OSError, ValueError):
            pass
        finally:
            self._close(tls)

    def answer(self, tls, stream):
        return True  # nothing: the stream stays open, unanswered
