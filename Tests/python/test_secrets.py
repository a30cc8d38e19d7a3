# SPDX-License-Identifier: Apache-2.0
"""The most verbose log of whole flows never carries a secret: client secret, access token,
media token, SAML, device id (plain or as its fingerprint), profile attributes."""
import base64
import urllib.parse

from conftest import login
from harness import ae

from accessenabler.partner import PartnerSimulator


def secrets_from(emulator, recorder, device_id):
    found = {device_id, base64.b64encode(device_id.encode()).decode()}
    for entry in emulator.log():
        auth = entry["headers"].get("Authorization", "")
        if auth.startswith("Bearer "):
            found.add(auth[7:])
        body = entry["body"] or ""
        if entry["operation"] == "generateAccessTokenUsingPOST":
            found.add(urllib.parse.parse_qs(body)["client_secret"][0])
        if entry["operation"] == "createPartnerProfileUsingPOST":
            saml = urllib.parse.unquote(body.split("SAMLResponse=", 1)[1])
            found.update({saml, base64.b64decode(saml).decode()[:60]})
        pfs = entry["headers"].get("AP-Partner-Framework-Status")
        if pfs:
            found.add(pfs)
    found.update(token for token, _ in recorder.of("set_token"))
    found.update(value for value, _, _, _ in recorder.of("set_metadata_status") if isinstance(value, str))
    return {s for s in found if s and len(s) >= 6}


def test_no_secret_in_the_most_verbose_log(make_client, recorder, emulator, tmp_path):
    lines = []
    client = make_client(log=lambda level, message: lines.append(message), log_level=ae.AE_LOG_DEBUG,
                         storage_path=str(tmp_path / "store.sqlite"))
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    login(client, recorder, emulator)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "householdID"})
    client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "userID"})
    recorder.wait("set_metadata_status", count=2)
    emulator.control("POST", "expire-access-tokens")
    client.check_preauthorized_resources(["LIVE", "PREMIUM-DENIED"])
    recorder.wait("preauthorized_resources")
    client.get_authorization("PREMIUM-DENIED")  # a failure: logged at WARNING with its request (issue 28)
    recorder.wait("token_request_failed")
    client.logout()
    recorder.wait("set_authentication_status", count=2)
    client.close()

    partner_recorder = type(recorder)()
    partner = make_client(delegate=partner_recorder, partner=PartnerSimulator(account="Comcast"),
                          log=lambda level, message: lines.append(message), log_level=ae.AE_LOG_DEBUG,
                          device_id="tv-device-2")
    partner.set_requestor("REF30")
    partner_recorder.wait("set_requestor_complete")
    partner.close()

    secrets = secrets_from(emulator, recorder, "tv-device-1") | secrets_from(emulator, partner_recorder, "tv-device-2")
    assert len(lines) > 20 and len(secrets) > 8  # the test saw real traffic and real secrets
    leaks = [(secret[:12], line) for line in lines for secret in secrets if secret in line]
    assert leaks == []
