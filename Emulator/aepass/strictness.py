"""Strictness: where Adobe's sources disagree on what a request must carry, one named setting each.

Every switch has two values: `adobe`, what Adobe's pages say its servers do (the default, with the
leniencies they document), and `strict`, the strictest reading among Adobe's sources (the OpenAPI
files' "required" flags included), so that a client's omission shows up in its own tests.

`POST /_emulator/config {"strictness": "strict"}` (or `serve --strict`) sets every switch to its
strict value, `{"strictness": "adobe"}` back to the defaults; a switch given in the same call wins.
The README's "Strictness" table lists these switches; `Tests/emulator/test_strictness.py` checks that
the table and this module agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODES = ("adobe", "strict")


@dataclass(frozen=True)
class Switch:
    key: str  # the configuration key (POST /_emulator/config)
    adobe: str  # the default: Adobe's documented server behaviour
    strict: str  # the strictest of Adobe's sources
    changes: str  # what the value changes, for the README table
    sources: str  # the sources that disagree

    @property
    def values(self) -> tuple[str, str]:
        return (self.adobe, self.strict)


SWITCHES: tuple[Switch, ...] = (
    Switch(
        "device_info_header", "optional", "required",
        "a request without `X-Device-Info` (DCR register, sessions, profiles, decisions, logout, partner "
        "SSO): `optional` serves it with the platform unknown (session `device.type` `Unknown`, the "
        "default platform's configuration); `required` refuses it (V2: 400 `invalid_header_device_info`; "
        "DCR: 400 `invalid_request`). A header that is sent but unreadable is refused in both modes",
        "EL \"Header - X-Device-Info\": a client may omit it (browser-like clients: the platform is taken "
        "from User-Agent, else unknown, with more restrictive rules); restApiV2.json and dcrApi.json mark it "
        "required",
    ),
    Switch(
        "configuration_device_headers", "optional", "required",
        "`GET configuration` without `AP-Device-Identifier` / `X-Device-Info`: `optional` checks them only "
        "when sent; `required` refuses (400 `invalid_header_device_identifier` / `invalid_header_device_info`)",
        "EL \"Adobe Pass Authentication 3.4.0 Release Notes\" (2025-09): optional, and restApiV2.json lists "
        "neither; EL \"Retrieve configuration\" and the Apple SSO cookbook (REST API V2) step C.1: required "
        "(erratum E13)",
    ),
    Switch(
        "pfs_expiration_date", "optional", "required",
        "an `AP-Partner-Framework-Status` with `granted` but no `frameworkProviderInfo.expirationDate`: "
        "`optional` passes (no expiry to check); `required` treats it as expired "
        "(`invalid_header_pfs_provider_info_expired`, `pfs_fallback` on sessions/sso)",
        "Apple SSO cookbook (REST API V2) B.2/C.4/C.11 and EL \"Partner flows\": the expiry \"if available\"; "
        "EL \"Header - AP-Partner-Framework-Status\": a required attribute",
    ),
    Switch(
        "register_redirect_uri", "optional", "required",
        "DCR register without `redirect_uri`: `optional` registers (`redirect_uris` `[]`); `required` "
        "answers 400 `invalid_redirect_uri`",
        "EL \"Dynamic Client Registration\" (the request's parameters): optional; dcrApi.json: required "
        "(erratum E11)",
    ),
)

BY_KEY = {switch.key: switch for switch in SWITCHES}


def defaults() -> dict[str, Any]:
    """The switches' default values (DEFAULTS in config.py), and the mode."""
    return {"strictness": "adobe", **{s.key: s.adobe for s in SWITCHES}}


def preset(mode: str) -> dict[str, str]:
    """Every switch at `mode`'s value ("adobe" or "strict")."""
    return {s.key: (s.strict if mode == "strict" else s.adobe) for s in SWITCHES}
