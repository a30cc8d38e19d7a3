"""Device headers: `AP-Device-Identifier` and `X-Device-Info`, and the session `device` object."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from . import jsontext

# Required X-Device-Info attributes (Adobe's X-Device-Info appendix, rest-api-v2.md §5.1).
REQUIRED_DEVICE_INFO = ("model", "version", "osName", "osVersion", "connectionType")

# Values allowed in the OpenAPI `Device.type` enum.
DEVICE_TYPES = frozenset({
    "Camera", "DataCollectionTerminal", "Desktop", "EmbeddedNetworkModule", "eReader",
    "GamesConsole", "GeolocationTracker", "Glasses", "MediaPlayer", "MobilePhone",
    "PaymentTerminal", "PluginModem", "SetTopBox", "TV", "Tablet", "WirelessHotspot",
    "Wristwatch", "VehicleMultimediaSystem", "Projector", "Unknown",
})

_DEVICE_ID = re.compile(r"^fingerprint ([A-Za-z0-9+/]+={0,2})$")


def _b64decode(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def valid_device_identifier(value: str | None) -> bool:
    """`fingerprint <standard Base64 of a non-empty id>`."""
    match = _DEVICE_ID.match(value or "")
    return bool(match) and bool(_b64decode(match.group(1)))


def device_info_problem(value: str | None, required: tuple[str, ...] = REQUIRED_DEVICE_INFO,
                        name: str = "X-Device-Info") -> str | None:
    """Why a device information value (X-Device-Info, or V1's device_info) is unusable, or None."""
    if not value:
        return f"{name} is missing"
    raw = _b64decode(value.strip())
    if raw is None:
        return f"{name} is not standard Base64"
    try:
        info = jsontext.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return f"{name} does not decode to JSON"
    if not isinstance(info, dict):
        return f"{name} does not decode to a JSON object"
    missing = [k for k in required if not isinstance(info.get(k), str) or not info[k]]
    if missing:
        return f"{name} lacks required string attributes: " + ", ".join(missing)
    return None


def decode_device_info(value: str) -> dict[str, Any]:
    """Decode an X-Device-Info value already accepted by `device_info_problem`."""
    return json.loads(base64.b64decode(value.strip()).decode("utf-8"))


def _version(text: Any) -> dict[str, Any]:
    """'17.2.1' -> {major: 17, minor: 2, patch: 1, profile: ''}; other text goes to `profile`."""
    text = "" if text is None else str(text)
    parts = text.split(".")
    if len(parts) <= 3 and all(p.isdigit() for p in parts):
        numbers = [int(p) for p in parts] + [0] * (3 - len(parts))
        return {"major": numbers[0], "minor": numbers[1], "patch": numbers[2], "profile": ""}
    return {"major": 0, "minor": 0, "patch": 0, "profile": text}


def _compact(obj: dict[str, Any]) -> dict[str, Any]:
    """Drop absent values: the OpenAPI schema has no nullable fields."""
    return {k: v for k, v in obj.items() if v is not None and v != {}}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _hardware(info: dict[str, Any]) -> dict[str, Any]:
    if not (info.get("vendor") or info.get("manufacturer")):
        return {}
    return _compact({
        "vendor": _text(info.get("vendor")),
        "manufacturer": _text(info.get("manufacturer")),
        "version": _version(None),
    })


def _browser(info: dict[str, Any], user_agent: str | None) -> dict[str, Any]:
    agent = _text(info.get("userAgent")) or user_agent
    if not (info.get("browserName") or agent):
        return {}
    return _compact({
        "name": _text(info.get("browserName")),
        "vendor": _text(info.get("browserVendor")),
        "version": _version(info.get("browserVersion")),
        "userAgent": agent,
        "originalUserAgent": agent,
    })


def device_object(info: dict[str, Any], user_agent: str | None) -> dict[str, Any]:
    """The OpenAPI `Device` object built from the session creator's X-Device-Info.

    Absent attributes are left out rather than sent as null. `connection.ipAddress` is
    left out too: the schema types it as an InetAddress object, Adobe's sample as a string.
    """
    hardware_type = info.get("primaryHardwareType") or info.get("type")
    secure = info.get("connectionSecure")
    return _compact({
        "type": hardware_type if hardware_type in DEVICE_TYPES else "Unknown",
        "model": info.get("model"),
        "version": _version(info.get("version")),
        "hardware": _hardware(info),
        "operatingSystem": _compact({
            "name": info.get("osName"),
            "family": _text(info.get("osFamily")),
            "vendor": _text(info.get("osVendor")),
            "version": _version(info.get("osVersion")),
        }),
        "browser": _browser(info, user_agent),
        "display": _compact({
            "width": _int(info.get("displayWidth")),
            "height": _int(info.get("displayHeight")),
            "ppi": _int(info.get("displayPpi")),
            "diagonalSize": _text(info.get("diagonalScreenSize")),
        }),
        "applicationId": _text(info.get("applicationId")),
        "connection": _compact({
            "port": _text(info.get("connectionPort")),
            "secure": secure if isinstance(secure, bool) else None,
            "type": info.get("connectionType"),
        }),
    })
