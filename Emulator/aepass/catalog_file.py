"""A user's catalog file (`serve --catalog PATH.json`): requestors and MVPDs merged into catalog.py's.

    {"requestors": [
        {"id": "MYAPP", "name": "My app", "domains": ["example.com"],
         "mvpds": ["Cablevision",
                   {"id": "MyCable", "display_name": "My Cable"},
                   {"id": "MyTempPass", "display_name": "Try it", "temp_pass": {"ttl_s": 300}}]},
        {"id": "REF30", "mvpds": [{"id": "Frontier", "display_name": "Frontier"}]}
    ]}

* A requestor whose `id` is new is added (`name` and `mvpds` required, `domains` default
  `["adobe.com"]`); one whose `id` is already in the catalog keeps what the file does not give, and
  its `mvpds` are merged by id (an MVPD of the same id is replaced, a new one appended).
* An MVPD is an object (`id`, `display_name` required; `has_logout_endpoint` true,
  `auth_per_aggregator` false, `config_fields` {} — extra fields of the configuration answer, e.g. the
  platform SSO ones `platformMappingId`, `enablePlatformServices`, `boardingStatus`,
  `displayInPlatformPicker`, `requiredMetadataFields` — and `temp_pass` {"ttl_s", "promotional"?,
  "resources"?} for a TempPass MVPD), or a string: the id of an MVPD already in the catalog, reused.
* `temp_passes`: V1-only TempPass pseudo-MVPDs of the requestor (`{"id", "display_name"}`), as
  REF30's `TempPass`.
* One MVPD id means one MVPD: two different definitions of the same id are refused.

Every problem is reported with its place in the file (`requestors[0].mvpds[1].temp_pass.ttl_s`), and
nothing is merged unless the whole file is valid.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .catalog import Mvpd, Requestor, TempPassRule

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Fields the configuration answer writes itself: config_fields may not set them.
RESERVED_FIELDS = ("id", "displayName", "logoUrl", "authPerAggregator", "isTempPass")
DEFAULT_DOMAINS = ("adobe.com",)


class CatalogError(ValueError):
    """The catalog file is unreadable or does not describe requestors and MVPDs as documented."""


def load_catalog(path: str | Path, base: Mapping[str, Requestor]) -> dict[str, Requestor]:
    """The catalog `base` with the file's requestors and MVPDs merged in (`base` is not changed)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise CatalogError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise CatalogError(f"{path} is not JSON: {error}") from None
    try:
        return merged_catalog(base, data)
    except CatalogError as error:
        raise CatalogError(f"{path}: {error}") from None


def merged_catalog(base: Mapping[str, Requestor], data: Any) -> dict[str, Requestor]:
    """`base` with the requestors of `data` (the file's JSON) merged in; raises CatalogError."""
    _keys(data, "the catalog", required=("requestors",), optional=())
    requestors = data["requestors"]
    if not isinstance(requestors, list) or not requestors:
        raise CatalogError("requestors: must be a non-empty list")
    result = dict(base)
    known = {m.id: m for r in base.values() for m in r.mvpds + r.temp_passes}
    for index, entry in enumerate(requestors):
        where = f"requestors[{index}]"
        requestor = _requestor(entry, where, result, known)
        result[requestor.id] = requestor
        for mvpd in requestor.mvpds + requestor.temp_passes:
            known.setdefault(mvpd.id, mvpd)
    _check_one_definition_per_id(result)
    return result


def apply_catalog(path: str | Path, catalog: dict[str, Requestor]) -> list[str]:
    """Merges the file into `catalog` in place (catalog.REQUESTORS: every module reads that dict);
    returns the ids of the requestors the file named."""
    merged = load_catalog(path, catalog)
    named = [rid for rid in merged if merged[rid] is not catalog.get(rid)]
    catalog.clear()
    catalog.update(merged)
    return named


def _requestor(entry: Any, where: str, catalog: Mapping[str, Requestor], known: dict[str, Mvpd]) -> Requestor:
    given_id = entry.get("id") if isinstance(entry, dict) else None
    existing = catalog.get(given_id) if isinstance(given_id, str) else None
    required = ("id",) if existing else ("id", "name", "mvpds")
    _keys(entry, where, required=required, optional=("name", "domains", "mvpds", "temp_passes"))
    requestor_id = _id(entry["id"], f"{where}.id")
    name = _text(entry["name"], f"{where}.name") if "name" in entry else existing.name  # type: ignore[union-attr]
    domains = (_domains(entry["domains"], f"{where}.domains") if "domains" in entry
               else existing.domains if existing else DEFAULT_DOMAINS)
    mvpds = existing.mvpds if existing else ()
    if "mvpds" in entry:
        mvpds = _merge_by_id(mvpds, _mvpds(entry["mvpds"], f"{where}.mvpds", known))
    temp_passes = existing.temp_passes if existing else ()
    if "temp_passes" in entry:
        temp_passes = _merge_by_id(temp_passes, _pseudo_mvpds(entry["temp_passes"], f"{where}.temp_passes"))
    if not mvpds:
        raise CatalogError(f"{where}.mvpds: a requestor needs at least one MVPD")
    return Requestor(id=requestor_id, name=name, domains=domains, mvpds=mvpds, temp_passes=temp_passes)


def _mvpds(value: Any, where: str, known: Mapping[str, Mvpd]) -> tuple[Mvpd, ...]:
    if not isinstance(value, list) or not value:
        raise CatalogError(f"{where}: must be a non-empty list of MVPDs (objects, or ids of catalog MVPDs)")
    mvpds: list[Mvpd] = []
    for index, item in enumerate(value):
        place = f"{where}[{index}]"
        if isinstance(item, str):
            if item not in known:
                raise CatalogError(f"{place}: {item!r} is no MVPD of the catalog (give an object to define one)")
            mvpds.append(known[item])
        else:
            mvpds.append(_mvpd(item, place))
    ids = [m.id for m in mvpds]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CatalogError(f"{where}: MVPD id {duplicates[0]!r} is listed twice")
    return tuple(mvpds)


def _mvpd(item: Any, where: str) -> Mvpd:
    _keys(item, where, required=("id", "display_name"),
          optional=("has_logout_endpoint", "auth_per_aggregator", "config_fields", "temp_pass"))
    temp_pass = _temp_pass(item["temp_pass"], f"{where}.temp_pass") if "temp_pass" in item else None
    return Mvpd(
        id=_id(item["id"], f"{where}.id"),
        display_name=_text(item["display_name"], f"{where}.display_name"),
        has_logout_endpoint=_flag(item.get("has_logout_endpoint", temp_pass is None), f"{where}.has_logout_endpoint"),
        auth_per_aggregator=_flag(item.get("auth_per_aggregator", temp_pass is not None),
                                  f"{where}.auth_per_aggregator"),
        config_fields=_config_fields(item.get("config_fields", {}), f"{where}.config_fields"),
        temp_pass=temp_pass,
    )


def _pseudo_mvpds(value: Any, where: str) -> tuple[Mvpd, ...]:
    """V1's TempPass pseudo-MVPDs: `{"id", "display_name"}` each."""
    if not isinstance(value, list):
        raise CatalogError(f"{where}: must be a list of {{\"id\", \"display_name\"}} objects")
    passes = []
    for index, item in enumerate(value):
        place = f"{where}[{index}]"
        _keys(item, place, required=("id", "display_name"), optional=())
        passes.append(Mvpd(_id(item["id"], f"{place}.id"), _text(item["display_name"], f"{place}.display_name"),
                           has_logout_endpoint=False, auth_per_aggregator=True,
                           config_fields=MappingProxyType({"isTempPass": True})))
    return tuple(passes)


def _temp_pass(value: Any, where: str) -> TempPassRule:
    _keys(value, where, required=("ttl_s",), optional=("promotional", "resources"))
    ttl_s = value["ttl_s"]
    if not _is_number(ttl_s):
        raise CatalogError(f"{where}.ttl_s: must be a number of seconds >= 0")
    promotional = _flag(value.get("promotional", False), f"{where}.promotional")
    resources = value.get("resources", 5 if promotional else 0)
    if not isinstance(resources, int) or isinstance(resources, bool) or resources < 0:
        raise CatalogError(f"{where}.resources: must be an integer >= 0")
    if resources and not promotional:
        raise CatalogError(f"{where}.resources: only a promotional TempPass has a resource limit")
    return TempPassRule(ttl_s=ttl_s, promotional=promotional, resources=resources)


def _config_fields(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CatalogError(f"{where}: must be an object of configuration field -> JSON value")
    reserved = [name for name in value if name in RESERVED_FIELDS]
    if reserved:
        raise CatalogError(f"{where}: {reserved[0]!r} is written by the emulator itself; "
                           f"config_fields may not set {', '.join(RESERVED_FIELDS)}")
    return MappingProxyType(dict(value))


def _merge_by_id(current: tuple[Mvpd, ...], given: tuple[Mvpd, ...]) -> tuple[Mvpd, ...]:
    """`current` with the MVPDs of `given` replacing the ones of the same id, new ones appended."""
    by_id = {m.id: m for m in given}
    kept = tuple(by_id.pop(m.id, m) for m in current)
    return kept + tuple(m for m in given if m.id in by_id)


def _check_one_definition_per_id(catalog: Mapping[str, Requestor]) -> None:
    seen: dict[str, tuple[str, Mvpd]] = {}
    for requestor in catalog.values():
        for mvpd in requestor.mvpds + requestor.temp_passes:
            first = seen.setdefault(mvpd.id, (requestor.id, mvpd))
            if first[1] != mvpd:
                raise CatalogError(
                    f"MVPD id {mvpd.id!r} has two different definitions (requestors {first[0]} and "
                    f"{requestor.id}): define it once, and name it by its id alone where it is reused")


def _keys(value: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    if not isinstance(value, dict):
        raise CatalogError(f"{where}: must be a JSON object")
    missing = [key for key in required if key not in value]
    if missing:
        raise CatalogError(f"{where}: {missing[0]!r} is required")
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        allowed = ", ".join(dict.fromkeys(required + optional))
        raise CatalogError(f"{where}: unknown key {unknown[0]!r} (allowed: {allowed})")


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise CatalogError(f"{where}: must be an id of 1 to 64 letters, digits, '_' or '-' (it goes in URL paths)")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogError(f"{where}: must be a non-empty string")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise CatalogError(f"{where}: must be true or false")
    return value


def _domains(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(d, str) and d for d in value):
        raise CatalogError(f"{where}: must be a non-empty list of domain names")
    return tuple(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
