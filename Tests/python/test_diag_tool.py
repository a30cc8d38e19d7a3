# SPDX-License-Identifier: Apache-2.0
"""accessenabler-diag on a store signed in for real (issue 34): second-screen login, authorizations (one
refused: a recorded failure), TempPass and platform SSO, through the .so against the emulator; then every
command of the tool, its outputs checked, the store unchanged by all but logout, and no secret the emulator
issued (client secrets, access tokens, profile attributes, media tokens, SSO tokens, the store key) in
any output of the tool or in the bundle."""
import json
import sys

import pytest
from conftest import login
from diag_tool import Tool, build, hashes, unlogged_emulator
from harness import ROOT, SOFTWARE_STATEMENT, Recorder, ae

from accessenabler.partner import PartnerSimulator
from test_secrets import secrets_from
from test_temporary_access import select_temppass

sys.path.insert(0, str(ROOT / "Tests/tools"))
import sso_tokens  # noqa: E402 (test_platform_sso.py says why it is required)

KEY = bytes(range(7, 39))
# Three apps share the store (a software statement each: their own scope, sealed under the same key).
TEMPPASS_APP, SSO_APP, PARTNER_APP = SOFTWARE_STATEMENT + "B", SOFTWARE_STATEMENT + "C", SOFTWARE_STATEMENT + "D"


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    return Tool(build(tmp_path_factory.mktemp("diag")))


@pytest.fixture(scope="module")
def unlogged():
    emulator = unlogged_emulator()
    yield emulator
    emulator.stop()


def sign_in(make_client, emulator, tmp_path, store, secrets):
    """The store of four apps: REF30 logged in on the second screen and authorized (PREMIUM-DENIED refused);
    TempPass; a platform SSO profile (another app of the platform subject logged in first); the platform's
    TV-provider SSO (a partner framework: its SAML exchanged for a profile at setRequestor)."""
    recorder = Recorder()
    first = make_client(delegate=recorder, storage_path=str(store), store_key=KEY)
    first.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(first, recorder, emulator)
    first.get_authorization("LIVE")
    recorder.wait("set_token")
    for name in ("householdID", "userID"):
        first.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": name})
    recorder.wait("set_metadata_status", count=2)
    first.get_authorization("PREMIUM-DENIED")
    recorder.wait("token_request_failed")
    secrets |= secrets_from(emulator, recorder, "tv-device-1")

    temp = Recorder()
    second = make_client(delegate=temp, storage_path=str(store), store_key=KEY, software_statement=TEMPPASS_APP)
    second.set_requestor("REF30")
    assert temp.wait("set_requestor_complete") == (1,)
    select_temppass(second, temp, emulator)
    second.get_authorization("LIVE")
    temp.wait("set_token")
    secrets |= secrets_from(emulator, temp, "tv-device-1")

    issuer = sso_tokens.Issuer("platform.operator.example")
    emulator.config(platform_token_keys=issuer.config())
    token = issuer.platform_token("household-1")
    secrets.add(token)
    elsewhere = Recorder()
    other = make_client(delegate=elsewhere, storage_path=str(tmp_path / "elsewhere.sqlite"), device_id="box-other")
    other.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, token)
    other.set_requestor("REF30")
    elsewhere.wait("set_requestor_complete")
    login(other, elsewhere, emulator)
    sso = Recorder()
    third = make_client(delegate=sso, storage_path=str(store), store_key=KEY, software_statement=SSO_APP,
                        device_id="box-sso")
    third.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, token)
    third.set_requestor("REF30")
    sso.wait("set_requestor_complete")
    third.check_authentication()
    assert sso.wait("set_authentication_status") == (1, "")
    secrets |= secrets_from(emulator, sso, "box-sso") | secrets_from(emulator, elsewhere, "box-other")

    partner = Recorder()
    fourth = make_client(delegate=partner, storage_path=str(store), store_key=KEY, software_statement=PARTNER_APP,
                         device_id="box-partner", partner=PartnerSimulator(account="Comcast"))
    fourth.set_requestor("REF30")
    assert partner.wait("set_requestor_complete") == (1,)
    secrets |= secrets_from(emulator, partner, "box-partner")
    assert any(e["operation"] == "createPartnerProfileUsingPOST" for e in emulator.log())  # a SAML went to Adobe
    secrets.add(KEY.hex())
    return [first, second, third, other, fourth]


def test_every_command_on_a_signed_in_store_and_no_secret_anywhere(tool, make_client, emulator, unlogged, tmp_path):
    store = tmp_path / "store.sqlite"
    key_file = tmp_path / "store.key"
    key_file.write_bytes(KEY)
    secrets = set()
    clients = sign_in(make_client, emulator, tmp_path, store, secrets)
    keyed = ["--store", store, "--key-file", key_file]

    # While the apps have the store open (a -wal beside it): read from a copy, the store's files unchanged.
    before = hashes(store)
    busy = tool.json("status", *keyed, "--json")
    assert busy["store"]["in_use"] is True
    assert {k: v for k, v in hashes(store).items() if k != "-shm"} == {k: v for k, v in before.items() if k != "-shm"}
    for client in clients:
        client.close()

    before = hashes(store)
    assert before["-wal"] is None and before["-shm"] is None  # the library's destroy checkpointed and removed them
    status = tool.json("status", *keyed, "--json")
    assert status["ok"] is True and status["store"]["in_use"] is False
    assert status["store"]["schema_version"] == status["store"]["library_schema_version"] == 3
    assert status["store"]["encrypted"] is True and status["clock"]["adobe"] is not None
    apps = {app["app"]: app for app in status["apps"]}
    assert len(apps) == 4
    for app in apps.values():
        assert app["api"] == "v2" and app["registration_age_s"] >= 0 and app["client_id"]
        assert app["access_token_expires_at"]["valid"] is True
    requestors = [app["requestors"][0] for app in apps.values()]
    assert all(r["requestor"] == "REF30" for r in requestors)
    by_profile = {r["profiles"][0]["mvpd"]: r for r in requestors if r["profiles"]}
    assert set(by_profile) == {"Cablevision", "TempPass_TEST40"}
    login_profile = by_profile["Cablevision"]["profiles"][0]
    assert by_profile["Cablevision"]["selected_provider"] == "Cablevision"
    assert login_profile["expires"]["valid"] is True and login_profile["expires"]["left_adobe_s"] > 0
    assert {a["resource"] for a in by_profile["Cablevision"]["authorizations"]} == {"LIVE"}
    assert by_profile["TempPass_TEST40"]["profiles"][0]["type"] == "temporary"
    sso = sorted(r["sso_profiles"][0]["type"] for r in requestors if r["sso_profiles"])
    assert sso == ["appleSSO", "platformSSO"], sso

    text = tool.run("status", *keyed)
    assert text.returncode == 0, text.stderr
    for fragment in ("schema 3 (this library 3), encrypted, not in use", "requestor REF30: selected provider Cablevision",
                     "profile Cablevision (", "SSO profile", "profile TempPass_TEST40 (temporary", "authorization LIVE",
                     "registered 20", "Adobe clock (valid"):
        assert fragment in text.stdout, text.stdout

    bundle = tool.json("bundle", *keyed, "--base-url", emulator.url, "--proxy", "http://user:hunter22@proxy.example:3128")
    assert bundle["versions"]["library"] == ae.version() and bundle["versions"]["store_schema"] == 3
    assert bundle["config"]["store_key_given"] is True and bundle["config"]["proxy"] == "http://***@proxy.example:3128"
    assert len(bundle["store"]["apps"]) == 4
    failures = bundle["recent_failures"]
    assert failures and any("PREMIUM-DENIED" in f["message"] for f in failures), failures
    assert all(set(f) == {"at", "app", "api", "level", "error_id", "message"} for f in failures)
    # Each app's last metrics, written by its client's destroy (docs/METRICS.md): the calls it made.
    metrics = bundle["metrics"]
    assert len(metrics) == 4 and all(entry["updated_at"] for entry in metrics.values())
    calls = [{tuple(sorted(s["labels"].items())): s["count"]
              for m in entry["value"]["metrics"] if m["name"] == "ae.calls" for s in m["series"]}
             for entry in metrics.values()]
    assert all(c.get((("ae.call", "setRequestor"), ("ae.outcome", "success"))) == 1 for c in calls), calls
    assert any(c.get((("ae.call", "getAuthorization"), ("ae.outcome", "success"))) for c in calls), calls
    assert len(tool.json("bundle", *keyed, "--errors", "1")["recent_failures"]) == 1

    doctor = tool.json("doctor", "--base-url", unlogged.url, "--json")
    assert doctor["ok"] is True and [s["name"] for s in doctor["steps"]] == \
        ["configuration", "dns", "tcp", "tls", "clock", "adobe"]
    assert doctor["steps"][3]["state"] == "skipped" and doctor["steps"][-1]["state"] == "ok"
    assert "invalid_access_token_client_application" in doctor["steps"][-1]["detail"]
    assert tool.run("doctor", "--base-url", unlogged.url).returncode == 0
    assert tool.run("--help").stdout == (ROOT / "Tools/diag/help.txt").read_text()
    assert tool.run("status", "--store", store).returncode == 8  # no key for a sealed store
    assert hashes(store) == before  # status, bundle and doctor changed nothing

    assert tool.json("logout", *keyed, "--requestor", "REF40", "--json")["profiles_removed"] == 0
    assert hashes(store)["db"] == before["db"]
    out = tool.json("logout", *keyed, "--requestor", "REF30", "--json")
    assert out["ok"] is True and out["profiles_removed"] == 4 and out["authorizations_removed"] >= 1
    assert out["selected_provider_removed"] is True
    after = tool.json("status", *keyed, "--json")
    assert all(not r["profiles"] and not r["sso_profiles"] for app in after["apps"] for r in app["requestors"])
    # The library reads the logout as its own: the viewer is no longer signed in.
    recorder = Recorder()
    client = make_client(delegate=recorder, storage_path=str(store), store_key=KEY)
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    client.check_authentication()
    assert recorder.wait("set_authentication_status")[0] == 0
    client.close()

    everything = "\n".join(tool.outputs) + json.dumps(bundle)
    leaked = sorted(secret[:12] + "…" for secret in secrets if secret in everything)
    assert len(secrets) >= 8 and not leaked, f"secrets in the tool's outputs: {leaked}"
