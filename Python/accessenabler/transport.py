# SPDX-License-Identifier: Apache-2.0
"""A host HTTP stack for the SDK (ae_http_transport), on the Python side of the C ABI.

`Transport` bridges the C `send` / `cancel` callbacks to Python: `send(request, reply)` gets a
dict {"method", "url", "headers": [(name, value)], "body": bytes, "timeout_ms"} and answers later,
from any thread, with `reply.response(status, headers, body)` or `reply.error(code, message)`.
`HttpClientTransport` is a real one: http.client on a worker thread per request. At interpreter exit,
once the clients are closed (accessenabler's atexit handler), the requests still in flight are cut
short and their threads joined (2 s at most), so none is inside OpenSSL when the process ends.
"""
import ctypes
import http.client
import socket
import ssl
import threading
import time
import urllib.parse
import weakref

from . import (_EXIT_HOOKS, AE_HTTP_E_CANNOT_CONNECT, AE_HTTP_E_FAILED, AE_HTTP_E_TIMEOUT, AE_HTTP_E_TLS,
               AE_HTTP_TRANSPORT_VERSION, HTTP_CANCEL_FN, HTTP_SEND_FN, HttpTransport, lib)


class Reply:
    """Answers one request once (the library refuses a second answer with AE_E_INVALID_HANDLE)."""

    def __init__(self, request):
        self.request = request

    def response(self, status, headers=(), body=b""):
        lines = [f"{name}: {value}".encode() for name, value in headers]
        array = (ctypes.c_char_p * (len(lines) + 1))(*lines, None)
        data = (ctypes.c_uint8 * len(body)).from_buffer_copy(body) if body else None
        return lib.ae_http_request_reply(self.request, status, array, data, len(body))

    def error(self, code, message=None):
        return lib.ae_http_request_reply_error(self.request, code, message.encode() if message else None)


class Transport:
    """Subclass and implement send(request, reply); optionally cancel(reply)."""

    def __init__(self):
        self.cancelled = []
        self._framework = None

    def send(self, request, reply):
        raise NotImplementedError

    def cancel(self, reply):
        self.cancelled.append(reply.request)

    def framework(self):
        def on_send(method, url, headers, body, length, timeout_ms, request, _):
            names = []
            index = 0
            while headers[index] is not None:
                name, _, value = headers[index].decode().partition(":")
                names.append((name, value.strip()))
                index += 1
            self.send({"method": method.decode(), "url": url.decode(), "headers": names,
                       "body": ctypes.string_at(body, length) if length else b"", "timeout_ms": timeout_ms},
                      Reply(request))

        def on_cancel(request, _):
            self.cancel(Reply(request))

        self._thunks = (HTTP_SEND_FN(on_send), HTTP_CANCEL_FN(on_cancel))
        framework = HttpTransport()
        lib.ae_http_transport_init(ctypes.byref(framework), AE_HTTP_TRANSPORT_VERSION)
        framework.send, framework.cancel = self._thunks
        self._framework = framework
        return framework


class HttpClientTransport(Transport):
    """Sends with http.client on a thread per request (certificates verified for https)."""

    def __init__(self):
        super().__init__()
        self.sent = []
        self.lock = threading.Lock()
        self._exchanges = {}  # thread -> its connection (None until made), while it runs
        _TRANSPORTS.add(self)

    def send(self, request, reply):
        thread = threading.Thread(target=self._exchange, args=(request, reply), daemon=True)
        with self.lock:
            self.sent.append(request)
            self._exchanges[thread] = None
        thread.start()

    def _exchange(self, request, reply):
        url = urllib.parse.urlsplit(request["url"])
        timeout = request["timeout_ms"] / 1000
        try:
            if url.scheme == "https":
                connection = http.client.HTTPSConnection(url.netloc, timeout=timeout,
                                                         context=ssl.create_default_context())
            else:
                connection = http.client.HTTPConnection(url.netloc, timeout=timeout)
            with self.lock:
                self._exchanges[threading.current_thread()] = connection
            target = url.path + ("?" + url.query if url.query else "")
            connection.request(request["method"], target, body=request["body"] or None,
                               headers=dict(request["headers"]))
            answer = connection.getresponse()
            body = answer.read()
            reply.response(answer.status, answer.getheaders(), body)
            connection.close()
        except ssl.SSLError as error:
            reply.error(AE_HTTP_E_TLS, str(error))
        except (ConnectionRefusedError, socket.gaierror) as error:
            reply.error(AE_HTTP_E_CANNOT_CONNECT, str(error))
        except (socket.timeout, TimeoutError) as error:
            reply.error(AE_HTTP_E_TIMEOUT, str(error))
        except OSError as error:
            reply.error(AE_HTTP_E_FAILED, str(error))
        finally:
            with self.lock:
                self._exchanges.pop(threading.current_thread(), None)

    def stop(self, deadline):
        """Cuts the requests in flight short (their sockets shut down: a handshake or a read fails at once)
        and joins their threads until `deadline` (time.monotonic())."""
        with self.lock:
            exchanges = list(self._exchanges.items())
        for _, connection in exchanges:
            sock = getattr(connection, "sock", None)
            if sock is not None:
                try:  # the descriptor itself (an SSLSocket's own shutdown would drop its TLS state under the thread)
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)
                except OSError:
                    pass
        for thread, _ in exchanges:
            if thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))


_TRANSPORTS = weakref.WeakSet()


def _stop_at_exit():
    deadline = time.monotonic() + 2
    for transport in list(_TRANSPORTS):
        transport.stop(deadline)


_EXIT_HOOKS.append(_stop_at_exit)
