"""Service providers (requestors) and their MVPD integrations: the emulator's static data.

The MVPD table is plain data: extra configuration fields (the platform-SSO fields
`platformMappingId`, `enablePlatformServices`, `boardingStatus`, `displayInPlatformPicker`, and
V1's `requiredMetadataFields`) go through `config_fields`, and new behaviour flags can be added
without touching the handlers' structure. A TempPass MVPD has a `temp_pass` rule (its default
lifetime, and for promotional TempPass its resource limit); it shows `isTempPass: true` and works
with V2's TempPass (temppass.py) and V1's freepreview (v1/temppass.py). A requestor's
`temp_passes` are V1-only TempPass pseudo-MVPDs without a rule (Adobe's sample `TempPass`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping


@dataclass(frozen=True)
class TempPassRule:
    """A TempPass MVPD: basic (per device) or promotional (per viewer identity, with a resource limit)."""

    ttl_s: float
    promotional: bool = False
    resources: int = 0  # promotional only: how many distinct resources may be authorized


@dataclass(frozen=True)
class Mvpd:
    id: str
    display_name: str
    has_logout_endpoint: bool = True
    auth_per_aggregator: bool = False
    # Extra MvpdType fields copied as-is into the configuration answer.
    config_fields: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    temp_pass: TempPassRule | None = None

    @property
    def platform_mapping_id(self) -> str | None:
        """The id the platform (Apple) knows this MVPD by, if it has platform services."""
        value = self.config_fields.get("platformMappingId")
        return value if isinstance(value, str) and value else None

    @property
    def partner_sso_onboarded(self) -> bool:
        """Platform services on and onboarded for SSO (`boardingStatus` SUPPORTED, not PICKER)."""
        return (self.config_fields.get("enablePlatformServices") is True
                and self.config_fields.get("boardingStatus") == "SUPPORTED")

    @property
    def required_metadata_fields(self) -> list[str]:
        return list(self.config_fields.get("requiredMetadataFields", []))

    def configuration(self, base_url: str) -> dict[str, Any]:
        answer = {
            "id": self.id,
            "displayName": self.display_name,
            "logoUrl": f"{base_url}/_emulator/logos/{self.id}.svg",
            "authPerAggregator": self.auth_per_aggregator,
            **self.config_fields,
        }
        if self.temp_pass:
            answer["isTempPass"] = True
        return answer


@dataclass(frozen=True)
class Requestor:
    id: str
    name: str
    domains: tuple[str, ...]
    mvpds: tuple[Mvpd, ...]
    # V1-only TempPass pseudo-MVPDs (no `temp_pass` rule): listed by V1's MVPD list and usable by
    # V1's freepreview, not offered by V2's configuration. V2's TempPass flow (temppass.py) uses the
    # MVPDs with a `temp_pass` rule, which V1 lists and accepts too.
    temp_passes: tuple[Mvpd, ...] = ()

    def mvpd(self, mvpd_id: str) -> Mvpd | None:
        return next((m for m in self.mvpds if m.id == mvpd_id), None)

    def login_mvpd(self, mvpd_id: str) -> Mvpd | None:
        """An MVPD a viewer logs in with (TempPass MVPDs need no login)."""
        found = self.mvpd(mvpd_id)
        return found if found and not found.temp_pass else None

    @property
    def login_mvpds(self) -> tuple[Mvpd, ...]:
        return tuple(m for m in self.mvpds if not m.temp_pass)

    def mvpd_for_platform_id(self, platform_id: str | None) -> Mvpd | None:
        """The MVPD whose `platformMappingId` is `platform_id` (a PFS provider id)."""
        if not platform_id:
            return None
        return next((m for m in self.mvpds if m.platform_mapping_id == platform_id), None)

    def temp_pass(self, mvpd_id: str) -> Mvpd | None:
        """A TempPass MVPD of this requestor: one with a `temp_pass` rule, or a V1 pseudo-MVPD."""
        found = self.mvpd(mvpd_id)
        if found is not None:
            return found if found.temp_pass else None
        return next((m for m in self.temp_passes if m.id == mvpd_id), None)

    def configuration(self, base_url: str, with_temp_passes: bool = False) -> dict[str, Any]:
        mvpds = self.mvpds + (self.temp_passes if with_temp_passes else ())
        return {
            "id": self.id,
            "name": self.name,
            "domains": [{"name": d, "mvpdInitiated": False} for d in self.domains],
            "mvpds": [m.configuration(base_url) for m in mvpds],
        }


SSO_METADATA_FIELDS = ("uid", "NameID", "uniqueId")


def platform_fields(mapping_id: str, boarding_status: str, in_picker: bool,
                    metadata_fields: tuple[str, ...] = SSO_METADATA_FIELDS) -> Mapping[str, Any]:
    """The configuration fields of an MVPD with platform (Apple) single sign-on services."""
    return MappingProxyType({
        "platformMappingId": mapping_id,
        "enablePlatformServices": True,
        "boardingStatus": boarding_status,
        "displayInPlatformPicker": in_picker,
        "requiredMetadataFields": list(metadata_fields),
    })


REQUESTORS: dict[str, Requestor] = {
    "REF30": Requestor(
        id="REF30",
        name="Reference site",
        domains=("adobe.com",),
        mvpds=(
            Mvpd("Cablevision", "Optimum",
                 config_fields=platform_fields("Cablevision", "SUPPORTED", True)),
            Mvpd("Comcast_SSO", "Xfinity",
                 config_fields=platform_fields("Comcast", "SUPPORTED", True,
                                               SSO_METADATA_FIELDS + ("zip",))),
            # In the platform's picker, but not onboarded for SSO: Adobe does the login.
            Mvpd("Spectrum", "Spectrum", config_fields=platform_fields("Spectrum", "PICKER", True)),
            Mvpd("DTV", "DIRECTV"),  # no platform services
            # Onboarded with the platform, but partner SSO is disabled on the Adobe side by
            # default (config `partner_sso_disabled`).
            Mvpd("Dish", "DISH", has_logout_endpoint=False,
                 config_fields=platform_fields("DishNetwork", "SUPPORTED", False)),
            # TempPass MVPDs (ids as in Adobe's samples), for V2 and V1: no login, no logout endpoint.
            Mvpd("TempPass_TEST40", "Adobe Temp Pass Test 3 min", has_logout_endpoint=False,
                 auth_per_aggregator=True, temp_pass=TempPassRule(ttl_s=180)),
            Mvpd("flexibleTempPass", "Promotional Temp Pass", has_logout_endpoint=False,
                 auth_per_aggregator=True, temp_pass=TempPassRule(ttl_s=600, promotional=True, resources=5)),
        ),
        temp_passes=(
            Mvpd("TempPass", "Temp-Pass", has_logout_endpoint=False, auth_per_aggregator=True,
                 config_fields=MappingProxyType({"isTempPass": True})),
        ),
    ),
    # A requestor none of whose MVPDs has platform single sign-on (no platform picker shows).
    "REF40": Requestor(
        id="REF40",
        name="Reference site without platform SSO",
        domains=("adobe.com",),
        mvpds=(Mvpd("Verizon", "Verizon Fios"), Mvpd("Cox", "Cox")),
    ),
}


def all_mvpds() -> dict[str, Mvpd]:
    return {m.id: m for r in REQUESTORS.values() for m in r.mvpds + r.temp_passes}
