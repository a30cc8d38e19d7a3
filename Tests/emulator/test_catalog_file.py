"""`serve --catalog PATH.json`: a user's requestors and MVPDs merged into the catalog (aepass/catalog_file.py),
its validation and error messages, and an emulator serving the README's example file."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from emulator_testkit import (
    EMULATOR, EMULATOR_DIR, SOFTWARE_STATEMENT, Client, device_headers, device_info, start_emulator, stop_emulator,
)

from aepass.catalog import REQUESTORS
from aepass.catalog_file import CatalogError, apply_catalog, load_catalog, merged_catalog
from aepass.testing import request_problems

EXAMPLE = EMULATOR_DIR / "catalog.example.json"
MVPD = {"id": "MyCable", "display_name": "My Cable Co."}


def requestor(**fields: Any) -> dict[str, Any]:
    return {"requestors": [{"id": "MYAPP", "name": "My app", "mvpds": [MVPD], **fields}]}


def test_the_example_file_adds_a_requestor_and_an_mvpd_of_ref30() -> None:
    catalog = load_catalog(EXAMPLE, REQUESTORS)
    mine = catalog["MYAPP"]
    assert (mine.name, mine.domains) == ("My streaming app", ("example.com",))
    assert [m.id for m in mine.mvpds] == ["Cablevision", "MyCable", "MyCableSSO", "MyTempPass"]
    assert mine.mvpds[0] is REQUESTORS["REF30"].mvpd("Cablevision")  # reused by its id
    assert mine.mvpd("MyCableSSO").partner_sso_onboarded and mine.mvpd("MyCableSSO").platform_mapping_id == "MyCableSSO"
    temp_pass = mine.mvpd("MyTempPass")
    assert temp_pass.temp_pass and temp_pass.temp_pass.ttl_s == 600 and not temp_pass.has_logout_endpoint
    ref30 = catalog["REF30"]
    assert ref30.name == "Reference site" and ref30.mvpds[:-1] == REQUESTORS["REF30"].mvpds  # kept, in order
    assert ref30.mvpds[-1].id == "Frontier" and not ref30.mvpds[-1].has_logout_endpoint
    assert "MYAPP" not in REQUESTORS  # load_catalog does not change its base


def test_an_mvpd_of_the_same_id_replaces_the_requestors_own() -> None:
    catalog = merged_catalog(REQUESTORS, {"requestors": [
        {"id": "REF40", "name": "Renamed", "mvpds": [{"id": "Cox", "display_name": "Cox Communications"}]}]})
    assert catalog["REF40"].name == "Renamed" and catalog["REF40"].domains == REQUESTORS["REF40"].domains
    assert [(m.id, m.display_name) for m in catalog["REF40"].mvpds] == [("Verizon", "Verizon Fios"),
                                                                         ("Cox", "Cox Communications")]


def test_apply_catalog_merges_in_place(tmp_path: Path) -> None:
    catalog = dict(REQUESTORS)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(requestor(domains=["example.com"])))
    assert apply_catalog(path, catalog) == ["MYAPP"]
    assert set(catalog) == {"REF30", "REF40", "MYAPP"} and catalog["MYAPP"].domains == ("example.com",)


@pytest.mark.parametrize("data, message", [
    ([], "the catalog: must be a JSON object"),
    ({"requestors": []}, "requestors: must be a non-empty list"),
    ({"requestors": [], "mvpds": []}, "the catalog: unknown key 'mvpds'"),
    ({"requestors": [{"id": "MYAPP", "mvpds": [MVPD]}]}, "requestors[0]: 'name' is required"),
    (requestor(color="red"), "requestors[0]: unknown key 'color' (allowed: id, name, mvpds, domains, temp_passes)"),
    ({"requestors": [{"id": "MY APP", "name": "x", "mvpds": [MVPD]}]}, "requestors[0].id: must be an id of 1 to 64"),
    (requestor(domains=[]), "requestors[0].domains: must be a non-empty list of domain names"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": []}]}, "requestors[0].mvpds: must be a non-empty list"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": ["NoSuchMvpd"]}]},
     "requestors[0].mvpds[0]: 'NoSuchMvpd' is no MVPD of the catalog"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{"id": "A"}]}]},
     "requestors[0].mvpds[0]: 'display_name' is required"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [MVPD, MVPD]}]},
     "requestors[0].mvpds: MVPD id 'MyCable' is listed twice"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{**MVPD, "config_fields": {"logoUrl": "x"}}]}]},
     "requestors[0].mvpds[0].config_fields: 'logoUrl' is written by the emulator itself"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{**MVPD, "has_logout_endpoint": "no"}]}]},
     "requestors[0].mvpds[0].has_logout_endpoint: must be true or false"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{**MVPD, "temp_pass": {"ttl_s": -1}}]}]},
     "requestors[0].mvpds[0].temp_pass.ttl_s: must be a number of seconds >= 0"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{**MVPD, "temp_pass": {"ttl_s": 60, "resources": 3}}]}]},
     "requestors[0].mvpds[0].temp_pass.resources: only a promotional TempPass has a resource limit"),
    ({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{"id": "Cablevision", "display_name": "Other"}]}]},
     "MVPD id 'Cablevision' has two different definitions (requestors REF30 and MYAPP)"),
])
def test_problems_are_reported_with_their_place(data: Any, message: str) -> None:
    before = copy.copy(REQUESTORS)
    with pytest.raises(CatalogError) as raised:
        merged_catalog(REQUESTORS, data)
    assert message in str(raised.value)
    assert REQUESTORS == before


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read .*missing.json"):
        load_catalog(tmp_path / "missing.json", REQUESTORS)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(CatalogError, match="bad.json is not JSON"):
        load_catalog(tmp_path / "bad.json", REQUESTORS)


def test_a_bad_catalog_stops_the_emulator_with_exit_status_2(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"requestors": [{"id": "MYAPP", "name": "x", "mvpds": [{**MVPD, "temp_pass": {}}]}]}))
    result = subprocess.run([sys.executable, str(EMULATOR), "--catalog", str(path)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.strip() == (f"emulator: bad catalog: {path}: requestors[0].mvpds[0].temp_pass: "
                                     "'ttl_s' is required")


def test_the_emulator_serves_the_example_catalog() -> None:
    process, base_url = start_emulator("--catalog", str(EXAMPLE), "--throttle", "off")
    try:
        client = Client(base_url)
        registered = client.request("POST", "/o/client/register", json_body={"software_statement": SOFTWARE_STATEMENT},
                                    headers={"X-Device-Info": device_info(), "Accept": "application/json"}).json
        token = client.request("POST", "/o/client/token", form={
            "client_id": registered["client_id"], "client_secret": registered["client_secret"],
            "grant_type": "client_credentials"}).json["access_token"]
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json", **device_headers()}
        configuration = client.request("GET", "/api/v2/MYAPP/configuration", headers=headers).json["requestor"]
        assert [m["id"] for m in configuration["mvpds"]] == ["Cablevision", "MyCable", "MyCableSSO", "MyTempPass"]
        assert configuration["mvpds"][1]["logoUrl"] == f"{base_url}/_emulator/logos/MyCable.svg"
        assert configuration["mvpds"][3]["isTempPass"] is True
        ref30 = client.request("GET", "/api/v2/REF30/configuration", headers=headers).json["requestor"]
        assert ref30["mvpds"][-1]["id"] == "Frontier"
        session = client.request("POST", "/api/v2/MYAPP/sessions", headers=headers, form={
            "mvpd": "MyCable", "domainName": "example.com", "redirectUrl": "https://example.com/done"})
        assert session.status == 200, session.json
        assert client.control("POST", "login", {"code": session.json["code"]})["mvpd"] == "MyCable"
        profile = client.request("GET", f"/api/v2/MYAPP/profiles/code/{session.json['code']}", headers=headers)
        assert list(profile.json["profiles"]) == ["MyCable"]
        assert client.request("GET", "/_emulator/logos/MyCable.svg").status == 200
        # Settings may name the catalog's new MVPDs.
        assert client.control("POST", "config", {"temppass_ttl_s": {"MyTempPass": 60}})["temppass_ttl_s"] == {
            "MyTempPass": 60}
        assert request_problems(client.control("GET", "log")["requests"]) == []
    finally:
        assert stop_emulator(process) == 0
