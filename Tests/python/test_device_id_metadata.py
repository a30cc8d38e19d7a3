# SPDX-License-Identifier: Apache-2.0
"""getMetadata opcode 2, the device id (issue 28, item 11).

Adobe's SDK references (iOS/tvOS, Android/FireOS getMetadata): "Note that this feature is disabled by
default and Programmers should contact Adobe for information regarding enablement and fees." REST
API V2's configuration does not say whether Adobe enabled it for an integration, so the host says so
(setOptions {"deviceIdMetadata": true}); until then the answer is NULL, after a META403 status (an
SDK id: Adobe names none for it). docs/DECISIONS.md, "Partner single sign-on" and getMetadata.
"""
import pytest

from conftest import both_apis
from harness import ae


def metadata_after(recorder, count):
    return recorder.wait("set_metadata_status", count=count)


@both_apis
def test_the_device_id_is_not_given_until_the_host_enables_it(ready_client, recorder):
    ready_client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    assert metadata_after(recorder, 1) == (None, False, 2, {"opCode": 2})
    assert recorder.names()[-2:] == ["status", "set_metadata_status"]  # the status comes first
    meta403 = recorder.find_status("META403")
    assert meta403["level"] == "warning" and meta403["details"] == "device_id_metadata_disabled"
    assert "deviceIdMetadata" in meta403["message"]

    ready_client.set_options({"deviceIdMetadata": True})
    ready_client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    assert metadata_after(recorder, 2) == ("tv-device-1", False, 2, {"opCode": 2})
    assert recorder.names()[-1] == "set_metadata_status" and len(recorder.statuses()) == 1

    ready_client.set_options({"deviceIdMetadata": False})
    ready_client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    assert metadata_after(recorder, 3)[0] is None
    assert [s["errorId"] for s in recorder.statuses()] == ["META403", "META403"]


def test_the_other_opcodes_do_not_depend_on_it(ready_client, recorder):
    ready_client.get_metadata({"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"})
    ready_client.get_metadata({"opCode": ae.METADATA_AUTHENTICATION})
    recorder.wait("set_metadata_status", count=2)
    assert recorder.statuses() == []


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_the_option_must_be_a_boolean(ready_client, recorder, value):
    with pytest.raises(ae.AEError) as refused:
        ready_client.set_options({"deviceIdMetadata": value})
    assert refused.value.status == ae.AE_E_INVALID_ARG
    ready_client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    assert metadata_after(recorder, 1)[0] is None  # nothing of the refused call was applied
