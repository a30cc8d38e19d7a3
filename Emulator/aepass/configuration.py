"""Configuration API: GET /api/v2/{serviceProvider}/configuration.

The device headers are optional by default, checked only when sent (`configuration_device_headers`,
strictness.py: Adobe's release 3.4.0 and the OpenAPI file; "required", the strict value, follows
Adobe's API page and the Apple SSO cookbook, step C.1). The MVPDs' fields are those of the
caller's platform (`platforms.py`, config `configuration_platforms`); an MVPD whose integration
is disabled (config `integrations_disabled`) is left out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import checks, platforms
from .device import decode_device_info
from .state import State
from .web import Request, Response, json_response


def get_configuration(state: State, req: Request) -> Response:
    """handleRequestUsingGET: the requestor and its MVPDs (nested in `requestor`, as Adobe's sample)."""
    caller = checks.v2_caller(state, req)
    info: dict[str, Any] | None
    if state.config["configuration_device_headers"] == "required":
        info = checks.device_headers(state, req, info_required=True).info
    else:
        checks.optional_device_headers(req)
        sent = req.header("X-Device-Info")
        info = decode_device_info(sent) if sent else None
    requestor = platforms.requestor_view(caller.requestor, platforms.rule_for(state.config, info))
    # Adobe lists the MVPDs with an active integration (V2 cookbook C.1).
    disabled = state.config["integrations_disabled"]
    requestor = replace(requestor, mvpds=tuple(m for m in requestor.mvpds if m.id not in disabled))
    return json_response(200, {
        "device": "unknown",
        "clientType": "html5",
        "os": "Unknown",
        "requestor": requestor.configuration(req.base_url),
    })
