"""HTTP/1.1 keep-alive server (ThreadingHTTPServer) that feeds requests into `App`."""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .app import App
from .web import Request, Response


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
            local_address="%s:%s" % self.server.server_address[:2],
        )
        self._send(self.server.app.handle(request))

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _handle

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
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib signature)
        if not self.server.quiet:
            sys.stderr.write(f"[emulator] {self.address_string()} {format % args}\n")
