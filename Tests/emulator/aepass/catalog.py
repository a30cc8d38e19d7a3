"""Service providers (requestors) and their MVPD integrations: the emulator's static data.

The MVPD table is plain data so that later work can add TempPass MVPDs (`isTempPass`),
platform-SSO fields (`platformMappingId`, `enablePlatformServices`, `boardingStatus`,
`displayInPlatformPicker`) through `config_fields`, and new behaviour flags, without
touching the handlers' structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping


@dataclass(frozen=True)
class Mvpd:
    id: str
    display_name: str
    has_logout_endpoint: bool = True
    auth_per_aggregator: bool = False
    # Extra MvpdType fields copied as-is into the configuration answer.
    config_fields: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def configuration(self, base_url: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "displayName": self.display_name,
            "logoUrl": f"{base_url}/_emulator/logos/{self.id}.svg",
            "authPerAggregator": self.auth_per_aggregator,
            **self.config_fields,
        }


@dataclass(frozen=True)
class Requestor:
    id: str
    name: str
    domains: tuple[str, ...]
    mvpds: tuple[Mvpd, ...]

    def mvpd(self, mvpd_id: str) -> Mvpd | None:
        return next((m for m in self.mvpds if m.id == mvpd_id), None)

    def configuration(self, base_url: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "domains": [{"name": d, "mvpdInitiated": False} for d in self.domains],
            "mvpds": [m.configuration(base_url) for m in self.mvpds],
        }


REQUESTORS: dict[str, Requestor] = {
    "REF30": Requestor(
        id="REF30",
        name="Reference site",
        domains=("adobe.com",),
        mvpds=(
            Mvpd("Cablevision", "Optimum"),
            Mvpd("Comcast_SSO", "Xfinity"),
            Mvpd("Spectrum", "Spectrum"),
            Mvpd("DTV", "DIRECTV"),
            Mvpd("Dish", "DISH", has_logout_endpoint=False),
        ),
    ),
}


def all_mvpds() -> dict[str, Mvpd]:
    return {m.id: m for r in REQUESTORS.values() for m in r.mvpds}
