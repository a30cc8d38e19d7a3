# SPDX-License-Identifier: Apache-2.0
"""The switch proxy: a TCP proxy (asyncio, on a thread of its own) between the clients and the emulator.

Forwarding, it relays bytes both ways, one emulator connection per client connection. `refuse()`
closes its listening socket, so that the kernel refuses new connections (the clients get a real
ECONNREFUSED), and drops every connection it has open; `listen()` binds the same port again
(SO_REUSEADDR) and forwards once more. It only counts the connections it accepts, per Unix second:
the requests themselves are counted from the emulator's log.
"""
from __future__ import annotations

import asyncio
import collections
import threading
import time


class SwitchProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1", host: str = "127.0.0.1"):
        self.target = (target_host, target_port)
        self.host = host
        self.port = 0  # chosen by the kernel at the first listen(), kept afterwards
        self.accepted: collections.Counter[int] = collections.Counter()  # Unix second → connections accepted
        self._server: asyncio.base_events.Server | None = None
        self._open: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter | None]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="switch-proxy", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def listening(self) -> bool:
        return self._server is not None

    def listen(self) -> None:
        """Accepts connections (again) on the proxy's port."""
        self._run(self._listen())

    def refuse(self) -> int:
        """Stops listening and drops the open connections; returns how many were dropped."""
        return self._run(self._refuse())

    def stop(self) -> None:
        if self._loop.is_running():
            self._run(self._refuse())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=30)

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._relay, self.host, self.port, reuse_address=True,
                                                      backlog=4096)
            self.port = self._server.sockets[0].getsockname()[1]

    async def _refuse(self) -> int:
        if self._server is not None:
            self._server.close()  # the listening socket is closed at once: connect() is refused from now on
            self._server = None
        dropped = len(self._open)
        for client, upstream in list(self._open):
            client.transport.abort()
            if upstream is not None:
                upstream.transport.abort()
        self._open.clear()
        return dropped

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.accepted[int(time.time())] += 1
        pair = (client_writer, None)
        self._open.add(pair)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            self._open.discard(pair)
            return
        if pair not in self._open:  # refused while the emulator connection was being opened
            upstream_writer.transport.abort()
            return
        self._open.discard(pair)
        pair = (client_writer, upstream_writer)
        self._open.add(pair)
        try:
            await asyncio.gather(_pump(client_reader, upstream_writer), _pump(upstream_reader, client_writer))
        finally:
            self._open.discard(pair)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copies until end of file or an error, then closes the other side (HTTP needs no half-close)."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
