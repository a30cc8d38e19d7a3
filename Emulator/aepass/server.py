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
    # Headers and body go out as two writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK add ~40 ms to every keep-alive exchange.
    disable_nagle_algorithm = True
    server: EmulatorServer

    def _handle(self) -> None:
        url = urlsplit(self.path)
        request = Request(
            method=self.command,
            path=url.path,
            query=url.query,
            headers=list(self.headers.items()),
            body=self._read_body(),
            client_ip=self.client_address[0],
            local_address=self._local_address(),
        )
        self._send(self.server.app.handle(request))

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
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self) -> bytes:
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

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
