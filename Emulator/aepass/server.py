"""HTTP/1.1 keep-alive server (ThreadingHTTPServer) that feeds requests into `App`."""

from __future__ import annotations

import re
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .app import App
from .clock import CLOCK
from .web import Request, Response

_AST_IN_LINE = re.compile(r"([?&])ast=[^&\s]*")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class _Refused(Exception):
    """A request whose framing cannot be read (Content-Length, chunked body, request target):
    answered by the HTTP layer with `status` and the connection closed; the app never sees it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class EmulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 drops the SYNs of a client's parallel connections
    # (the kernel retries them after a second).
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: App, quiet: bool) -> None:
        super().__init__(address, EmulatorRequestHandler)
        self.app = app
        self.quiet = quiet
        # Set when the server stops: connections held open by a `never_ending` fault end at once.
        self.closing = threading.Event()

    def shutdown(self) -> None:
        self.closing.set()
        super().shutdown()

    def server_close(self) -> None:
        self.closing.set()
        super().server_close()


class EmulatorRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A request line without a version (HTTP/0.9 style) or with a bad one is answered with a status
    # line and headers all the same (the stdlib default, HTTP/0.9, answers with a bare body).
    default_request_version = "HTTP/1.0"
    # Once a request line has come, the rest of the request (headers, body) must follow without a
    # pause longer than this: a Content-Length or chunk that is never sent ends in 408 (body) or a
    # closed connection (headers) instead of a thread waiting forever. An idle keep-alive connection
    # (no request line yet) is not limited.
    read_timeout_s = 5.0
    # Bodies above this are refused (413) without being read; a chunk-size or trailer line above
    # max_line_bytes, or more than max_trailers trailer lines, is a 400.
    max_body_bytes = 64 * 1024 * 1024
    max_line_bytes = 4096
    max_trailers = 100
    # Headers and body go out as two writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK add ~40 ms to every keep-alive exchange.
    disable_nagle_algorithm = True
    server: EmulatorServer

    def handle(self) -> None:
        try:
            super().handle()
        except ConnectionError:
            # The client went away mid-request or mid-answer: nothing more to say to it (not a
            # traceback on stderr, which is for the emulator's own bugs).
            self.close_connection = True

    def parse_request(self) -> bool:
        self.connection.settimeout(self.read_timeout_s)  # the request line came: the rest must follow
        return super().parse_request()

    def _handle(self) -> None:
        try:
            url = urlsplit(self.path)
        except ValueError:  # e.g. "Invalid IPv6 URL" for an absolute-form target `http://[::1/...`
            self._refuse(400, "bad request target")
            return
        try:
            body = self._read_body()
        except _Refused as refused:
            self._refuse(refused.status, refused.message)
            return
        except TimeoutError:
            self._refuse(408, "request body not received in time")
            return
        self.connection.settimeout(None)  # back to an idle keep-alive connection
        request = Request(
            method=self.command,
            path=url.path,
            query=url.query,
            headers=list(self.headers.items()),
            body=body,
            client_ip=self.client_address[0],
            local_address=self._local_address(),
        )
        self._send(self.server.app.handle(request))

    def _refuse(self, status: int, message: str) -> None:
        """The HTTP layer's own answer (an HTML error page, as a front end sends), then close."""
        self.close_connection = True
        try:
            self.send_error(status, message)
        except (ConnectionError, TimeoutError):
            pass

    # HEAD is routed like any method (no API operation takes it: 404, or 405 with Allow on an API
    # path) and answered without the body, the connection kept: the SDK's warm-up of an HTTP/1.1
    # connection is a `HEAD /` (docs/DECISIONS.md "Warm connections").
    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = _handle

    def _local_address(self) -> str:
        """"host:port" of this connection's local end (the address the client reached, not the
        0.0.0.0 or :: the server may be bound to); an IPv6 address in brackets."""
        try:
            host, port = self.connection.getsockname()[:2]
        except OSError:
            host, port = self.server.server_address[:2]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The `Date` header: the emulator's clock (moved by `POST /_emulator/clock`)."""
        return super().date_time_string(CLOCK.now_ms() / 1000 if timestamp is None else timestamp)

    def _read_body(self) -> bytes:
        """The body as framed by Transfer-Encoding: chunked or Content-Length (RFC 9112 §6):
        a Content-Length that is not digits (or a list of differing values), a transfer coding
        other than chunked, a malformed chunked body or a body that ends early is refused (400,
        501), one above max_body_bytes too (413)."""
        te_values = self.headers.get_all("Transfer-Encoding") or []
        codings = [c.strip().lower() for c in ",".join(te_values).split(",") if c.strip()]
        if codings:
            if codings != ["chunked"]:
                raise _Refused(501, "unsupported transfer coding")
            if self.headers.get("Content-Length") is not None:
                self.close_connection = True  # RFC 9112 §6.3: chunked wins, then close
            return self._read_chunked()
        cl_values = self.headers.get_all("Content-Length") or []
        values = [v.strip() for value in cl_values for v in value.split(",")]
        if not values:
            return b""
        if any(not (v.isascii() and v.isdigit()) for v in values) or len(set(values)) != 1:
            raise _Refused(400, "invalid Content-Length")
        length = int(values[0])
        if length > self.max_body_bytes:
            raise _Refused(413, "request body too large")
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise _Refused(400, "request body shorter than its Content-Length")
        return body

    def _read_chunked(self) -> bytes:
        chunks, total = [], 0
        while True:
            size_text = self._chunk_line().split(b";", 1)[0].strip()
            if not size_text or len(size_text) > 16 or not set(size_text) <= _HEX:
                raise _Refused(400, "invalid chunk size")
            size = int(size_text, 16)
            if size == 0:
                for _ in range(self.max_trailers + 1):
                    if self._chunk_line() in (b"\r\n", b"\n"):
                        return b"".join(chunks)
                raise _Refused(400, "too many trailer fields")
            total += size
            if total > self.max_body_bytes:
                raise _Refused(413, "request body too large")
            chunk = self.rfile.read(size)
            if len(chunk) < size or self.rfile.read(2) != b"\r\n":
                raise _Refused(400, "malformed chunked body")
            chunks.append(chunk)

    def _chunk_line(self) -> bytes:
        line = self.rfile.readline(self.max_line_bytes + 1)
        if not line.endswith(b"\n"):
            raise _Refused(400, "chunk line too long" if len(line) > self.max_line_bytes
                           else "chunked body ends early")
        return line

    def _send(self, response: Response) -> None:
        try:
            if response.transport == "reset_mid_body":
                self._send_and_reset(response)
            elif response.transport == "never_ending":
                self._send_and_stall(response)
            else:
                self._send_head(response, len(response.body))
                if self.command != "HEAD":
                    self.wfile.write(response.body)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (e.g. on an `oversized` answer): nothing more to say to it.
            self.close_connection = True

    def _send_head(self, response: Response, content_length: int) -> None:
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(content_length))
        self.end_headers()

    def _send_and_reset(self, response: Response) -> None:
        """Fault `reset_mid_body`: the full Content-Length, half the body, then a TCP reset."""
        self.close_connection = True
        self._send_head(response, len(response.body))
        self.wfile.write(response.body[: len(response.body) // 2])
        self.wfile.flush()
        time.sleep(0.05)  # let the half body reach the client before the reset
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # the socket is only really closed once its file objects are
        self.connection.close()

    def _send_and_stall(self, response: Response) -> None:
        """Fault `never_ending`: announce `declared_length` bytes, send a few, then nothing more
        until the client hangs up, `hold_s` has passed or the server shuts down."""
        self.close_connection = True
        self._send_head(response, response.declared_length or len(response.body) + 1)
        self.wfile.write(response.body)
        self.wfile.flush()
        deadline = time.monotonic() + response.hold_s
        while not self.server.closing.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], min(0.2, remaining))
            if readable and not self.connection.recv(65536):
                return  # the client closed the connection

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib signature)
        if not self.server.quiet:  # the request line's query may hold V1's `ast` (an SSO token)
            line = _AST_IN_LINE.sub(r"\1ast=redacted", format % args)
            sys.stderr.write(f"[emulator] {self.address_string()} {line}\n")
