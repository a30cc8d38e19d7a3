"""Configuration API: GET /api/v2/{serviceProvider}/configuration."""

from __future__ import annotations

from . import checks
from .state import State
from .web import Request, Response, json_response


def get_configuration(state: State, req: Request) -> Response:
    """handleRequestUsingGET: the requestor and its MVPDs (nested in `requestor`, as Adobe's sample)."""
    caller = checks.v2_caller(state, req)
    checks.optional_device_headers(req)
    return json_response(200, {
        "device": "unknown",
        "clientType": "html5",
        "os": "Unknown",
        "requestor": caller.requestor.configuration(req.base_url),
    })
