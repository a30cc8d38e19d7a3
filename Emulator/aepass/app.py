"""The request pipeline: route -> throttle -> fault -> latency -> handler (under the state lock) -> log.

Every step is a small method of `App`. The fault step (`faults.py`, configured through
`/_emulator/faults`) picks the fault, if any, that applies to this API request by
`route.operation`; `faults.apply` then answers instead of, or around, the handler.
"""

from __future__ import annotations

import copy
import sys
import time
import traceback
from typing import Any

from . import faults, sso
from .errors import ApiError, HttpError
from .login import run_due_auto_logins
from .clock import CLOCK
from .requestlog import RequestLog
from .routes import Match, Route, build_routes, resolve
from .state import State, now_ms
from .throttle import TOO_MANY_REQUESTS_HTML, device_key
from .web import Request, Response, html_response

# The answer to a request that was in progress when the emulator was reset (its client belongs to
# what the reset forgot): it is not run, and it stays out of the in-memory log (the file has it).
RESET_WHILE_IN_PROGRESS_HTML = (
    "<html><head><title>503 Service Unavailable</title></head><body>"
    "The emulator was reset while this request was in progress.</body></html>"
)


class App:
    def __init__(self, state: State, log: RequestLog) -> None:
        self.state = state
        self.log = log
        self.routes = build_routes(log)

    def handle(self, req: Request) -> Response:
        started_ms, started = now_ms(), time.perf_counter()
        with self.state.lock:
            generation, log_epoch = self.state.generation, self.log.epoch
        match, req.path_params = resolve(self.routes, req.method, req.path)
        response = self._answer(req, match, generation)
        if not self._is_control(req, match):
            self.log.append(self._log_entry(req, match.route, response, started_ms, started), log_epoch)
        return response

    def _answer(self, req: Request, match: Match, generation: int) -> Response:
        route = match.route
        if route is None:
            return self._unrouted(req, match)
        if route.is_control:
            return self._run(route, req)
        if route.is_api:
            throttled = self._throttle(req, generation)
            if throttled:
                return throttled
            fault = self._fault(route, generation)
            self._delay()
            if fault is not None:
                return self._apply(fault, route, req, generation)
        return self._run(route, req, generation)

    def _stale(self, generation: int | None) -> bool:
        """The emulator was reset since this request arrived (call with the state lock held)."""
        return generation is not None and generation != self.state.generation

    def _unrouted(self, req: Request, match: Match) -> Response:
        if match.allowed:
            error = ApiError("method_not_allowed", f"use {', '.join(match.allowed)}",
                             headers=[("Allow", ", ".join(match.allowed))])
        else:
            error = ApiError("not_found", f"no endpoint {req.method} {req.path}")
        return error.response()

    def _throttle(self, req: Request, generation: int) -> Response | None:
        with self.state.lock:
            if self._stale(generation):
                return html_response(503, RESET_WHILE_IN_PROGRESS_HTML)
            if not self.state.config["throttle"]:
                return None
            allowed = self.state.buckets.take(device_key(req), CLOCK.monotonic_s())
        return None if allowed else html_response(429, TOO_MANY_REQUESTS_HTML, [("Retry-After", "1")])

    def _fault(self, route: Route, generation: int) -> faults.Fault | None:
        with self.state.lock:
            if self._stale(generation):
                return None  # not counted against the fault list set after the reset
            return self.state.faults.select(route.operation)

    def _apply(self, fault: faults.Fault, route: Route, req: Request, generation: int) -> Response:
        response = faults.apply(copy.deepcopy(fault.spec), self.state,
                                lambda: self._run(route, req, generation), time.sleep)
        if response.fault:
            with self.state.lock:
                fault.applied += 1
        return response

    def _delay(self) -> None:
        with self.state.lock:
            latency_ms = self.state.config["latency_ms"]
        if latency_ms:
            time.sleep(latency_ms / 1000)

    def _run(self, route: Route, req: Request, generation: int | None = None) -> Response:
        with self.state.lock:
            if self._stale(generation):
                return html_response(503, RESET_WHILE_IN_PROGRESS_HTML)
            run_due_auto_logins(self.state, now_ms())
            try:
                return route.handler(self.state, req)
            except HttpError as error:
                return error.response()
            except Exception:  # a bug in the emulator: answer like Adobe's 500, keep serving
                traceback.print_exc(file=sys.stderr)
                return ApiError("internal_server_error").response()

    @staticmethod
    def _is_control(req: Request, match: Match) -> bool:
        if match.route is not None:
            return match.route.is_control
        return req.path.startswith("/_emulator/")

    @staticmethod
    def _log_entry(req: Request, route: Route | None, response: Response,
                   started_ms: int, started: float) -> dict[str, Any]:
        is_api = route.is_api if route else req.path.startswith(("/api/", "/o/", "/reggie/"))
        entry = {
            "t_ms": started_ms,
            "method": req.method,
            "path": req.path,
            "query": sso.redacted_form(req.query),
            "headers": sso.redacted_headers(req.headers_for_log()),
            "body": _logged_body(req),
            "status": response.status,
            "operation": route.operation if route else None,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
            "device": device_key(req) if is_api else None,
            "client_id": req.client_id,
        }
        entry.update(sso.log_fields(req))
        if response.fault:
            entry["fault"] = response.fault
        return entry


def _logged_body(req: Request) -> str | None:
    """The body as text; V1's `ast` form parameter (an SSO token) redacted."""
    if not req.body:
        return None
    text = req.text()
    return sso.redacted_form(text) if req.media_type() == "application/x-www-form-urlencoded" else text
