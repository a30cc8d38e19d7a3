# SPDX-License-Identifier: Apache-2.0
"""What a failing integration hears in its log (issue 28 items 12 and 13): every failure that reaches a
callback is also logged at ERROR or WARNING, with the request (method, host and path; never a token or
secret) and the cause; a certificate problem is not something a retry fixes (SEC420's action), and its
message names the fix."""
from urllib.parse import urlparse

import pytest
from harness import Recorder, ae
from test_tls import client_for, fronts, pki, sec420  # noqa: F401 (fronts, pki: fixtures)


def failures(lines):
    return [(level, message) for level, message in lines if level <= ae.AE_LOG_WARNING]


def test_a_wrong_requestor_id_is_logged_with_its_request_and_adobes_code(make_client, recorder, emulator):
    lines = []
    client = make_client(log_level=ae.AE_LOG_WARNING, log=lambda level, message: lines.append((level, message)))
    client.set_requestor("NO_SUCH_REQUESTOR")
    assert recorder.wait("set_requestor_complete") == (0,)
    status = recorder.statuses()[-1]
    logged = failures(lines)
    host = urlparse(emulator.url).netloc
    request = [message for level, message in logged
               if f"GET {host}/api/v2/NO_SUCH_REQUESTOR/configuration" in message and "-> HTTP 400" in message]
    assert request, logged  # the request, its status and Adobe's code
    assert status["enhancedError"]["code"] in request[0]
    named = [(level, message) for level, message in logged if message.startswith(status["errorId"] + ":")]
    assert named and named[0][0] == ae.AE_LOG_ERROR, logged  # the status the host got, at ERROR
    assert (ae.AE_LOG_ERROR, "setRequestor failed (the status before names why)") in logged


def test_a_tls_failure_is_logged_with_its_request_and_its_fix(fronts, pki, make_client, emulator):
    recorder, lines = Recorder(), []
    front = fronts.start(pki.untrusted)
    client = client_for(make_client, pki, front.url, delegate=recorder, log_level=ae.AE_LOG_WARNING,
                        log=lambda level, message: lines.append((level, message)))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    status = sec420(recorder)
    assert status["cause"] == "certificate_untrusted"
    # Item 13: no retry fixes a certificate: the action says configuration, the message names the fix.
    assert status["enhancedError"]["action"] == "configuration"
    assert "Fix: " in status["message"] and "ca_file" in status["message"]
    logged = failures(lines)
    host = urlparse(front.url).netloc
    assert any(f"POST {host}/o/client/register (register) failed: TLS failure" in message
               and "certificate_untrusted" in message for level, message in logged), logged
    assert any(level == ae.AE_LOG_ERROR and message.startswith("SEC420:") and "action configuration" in message
               for level, message in logged), logged


@pytest.mark.parametrize("case,cause,fix", [
    ("expired", "certificate_expired", "clock"),
    ("wrong_host", "host_name_mismatch", "base_url"),
    ("self_signed", "certificate_self_signed", "ca_file"),
])
def test_sec420_names_the_fix_and_asks_for_configuration(fronts, pki, make_client, case, cause, fix):
    recorder = Recorder()
    front = fronts.start(getattr(pki, case))
    client = client_for(make_client, pki, front.url, delegate=recorder)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    status = sec420(recorder)
    assert status["cause"] == cause
    assert status["enhancedError"]["action"] == "configuration"
    assert fix in status["message"].split("Fix: ", 1)[1]
