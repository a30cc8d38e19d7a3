# SPDX-License-Identifier: Apache-2.0
"""Hostile numbers and strings (issue 16's review): each case crashed, hung or leaked before its
fix, so the ones that could take the process down run in a child process (a trap fails the test
instead of ending the run). Numbers from Adobe at their limits, lengths from the host at theirs,
control characters and dot segments in what ends up on the wire, a log sink that calls back in.
"""
import ctypes
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness import SOFTWARE_STATEMENT, ae

HERE = Path(__file__).resolve().parent
TOKEN_OP = "generateAccessTokenUsingPOST"
HUGE_NUMBERS = [9.3e15, 9.3e18, 1e300, -1e300, 2**63 - 1, -(2**63), 2**64, "99999999999999999999", -1, 0]


def run_child(body, timeout=60, **values):
    """Runs `body` (Python, with `ae`, `Recorder`, `SOFTWARE_STATEMENT` and `values` in scope) in a
    child process; returns its output. The child must print DONE at the end."""
    code = "import sys, json, time, ctypes, threading\n" + f"sys.path.insert(0, {str(HERE)!r})\n" + \
        "from harness import ae, Recorder, SOFTWARE_STATEMENT\n" + f"values = {values!r}\n" + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "SWIFT_BACKTRACE": "enable=no"})
    assert done.returncode == 0 and "DONE" in done.stdout, \
        f"child exited {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    return done.stdout


# --- 8. numbers from the network at their limits -------------------------------------------------

@pytest.mark.parametrize("expires_in", HUGE_NUMBERS)
def test_a_token_answer_with_any_expires_in_does_not_take_the_host_down(emulator, expires_in):
    """A DCR token answer with expires_in 9.3e15 used to trap (arithmetic overflow) in the host."""
    answer = {"access_token": "hostile-token", "token_type": "bearer", "expires_in": expires_in, "created_at": 0}
    emulator.faults({"operation": TOKEN_OP, "requests": [1], "kind": "status", "status": 201, "body": answer})
    out = run_child("""
        recorder = Recorder()
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=values["url"], max_requests_per_second=-1)
        client.set_requestor("REF30")
        print("complete", recorder.wait("set_requestor_complete")[0])
        print("statuses", [(s["errorId"], s.get("enhancedError", {}).get("code")) for s in recorder.statuses()])
        client.close()
        print("DONE")
    """, url=emulator.url)
    if isinstance(expires_in, str) or not -2**63 <= expires_in < 2**63:
        # Not a number of seconds that fits: the answer is refused by name (R401, unreadable answer).
        assert "complete 0" in out and "('R401', 'server_response_format_unknown')" in out
    else:
        # Clamped (at most 30 days; negative: already expired). Adobe refuses the hostile token
        # (401): the SDK renews it once and goes on.
        assert "complete 1" in out


@pytest.mark.parametrize("field,value", [
    ("notAfter", 9.3e18), ("notAfter", "99999999999999999999"), ("notAfter", -(2**63)), ("notAfter", 1e300),
    ("notBefore", 2**63 - 1),
])
def test_profiles_with_numbers_at_their_limits_are_read_or_refused_by_name(emulator, field, value):
    profile = {"notBefore": 0, "notAfter": 4102444800000, "issuer": "Cablevision", "type": "regular",
               "attributes": {"userID": {"value": "u", "state": "plain"}}}
    profile[field] = value
    emulator.faults({"operation": "getProfilesUsingGET_1", "kind": "status", "status": 200,
                     "body": {"profiles": {"Cablevision": profile}}})
    out = run_child("""
        recorder = Recorder()
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=values["url"], max_requests_per_second=-1)
        client.set_requestor("REF30")
        print("complete", recorder.wait("set_requestor_complete")[0])
        client.check_authentication()
        print("authenticated", recorder.wait("set_authentication_status")[0])
        client.get_metadata({"opCode": 0})
        print("expiry", recorder.wait("set_metadata_status")[0])
        client.close()
        print("DONE")
    """, url=emulator.url)
    assert "complete 1" in out


@pytest.mark.parametrize("not_after", [9.3e18, -1, 2**63 - 1, "18446744073709551616"])
def test_a_session_with_any_expiry_ends_its_polling(emulator, not_after):
    session = {"actionName": "authenticate", "actionType": "interactive", "reasonType": "none",
               "url": "/api/v2/authenticate/REF30/ABC1234", "code": "ABC1234", "notBefore": "0", "notAfter": not_after}
    emulator.faults({"operation": "createSessionUsingPOST", "kind": "status", "status": 201, "body": session})
    out = run_child("""
        recorder = Recorder()
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=values["url"], max_requests_per_second=-1,
                           poll_interval_ms=1000)
        client.set_requestor("REF30")
        recorder.wait("set_requestor_complete")
        client.get_authentication()
        recorder.wait("display_provider_dialog")
        client.set_selected_provider("Cablevision")
        print("next", recorder.wait_any(["status", "set_authentication_status"]))
        client.set_selected_provider(None)
        recorder.wait("set_authentication_status")
        client.close()
        print("DONE")
    """, url=emulator.url)
    assert "next" in out


@pytest.mark.parametrize("retry_after", [2**63 - 1, 2**64, 10**30])
def test_any_retry_after_is_read_without_trapping(emulator, retry_after):
    """Retry-After is capped (60 s) and read without overflow; the exact waits are unit-tested
    (RequestExecutorTests): here the answer only has to be survived, so the token call's 429 is
    followed by the client being closed while it waits."""
    emulator.faults({"operation": TOKEN_OP, "requests": [1], "kind": "throttle", "retry_after": retry_after})
    out = run_child("""
        recorder = Recorder()
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=values["url"], max_requests_per_second=-1)
        client.set_requestor("REF30")
        time.sleep(1.5)
        client.close()
        print("DONE")
    """, url=emulator.url)
    assert "DONE" in out


# --- 9. ae_http_request_reply lengths ≥ 2^63 ----------------------------------------------------------

@pytest.mark.parametrize("length", [2**64 - 1, 2**63, 2**63 + 5, (4 << 20) + 1])
def test_ae_http_reply_refuses_a_length_it_cannot_hold(length):
    out = run_child("""
        from accessenabler.transport import Transport
        class Lying(Transport):
            def send(self, request, reply):
                body = (ctypes.c_uint8 * 4)(*b"{}{}")
                lines = (ctypes.c_char_p * 2)(b"Content-Type: application/json", None)
                status = ae.lib.ae_http_request_reply(reply.request, 200, lines, body, ctypes.c_size_t(values["length"]))
                print("reply", status, flush=True)
        recorder = Recorder()
        transport = Lying()
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url="https://sp.auth.adobe.com", transport=transport,
                           max_requests_per_second=-1)
        client.set_requestor("REF30")
        print("complete", recorder.wait("set_requestor_complete")[0])
        print("status", recorder.statuses()[0]["errorId"], recorder.statuses()[0]["enhancedError"]["code"])
        client.close()
        print("DONE")
    """, length=length)
    assert "reply 0" in out and "complete 0" in out
    assert "network_error" in out  # the exchange ended as too large; nothing was read


# --- 10. control characters in what reaches headers ----------------------------------------------

@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\nb", "tab\there", "nul\x00", "del\x7f", "c1\u0085x"])
def test_options_with_control_characters_are_refused(ready_client, emulator, value):
    for key in ("visitorID", "ap_vi", "applicationProfile"):
        with pytest.raises(ae.AEError) as refused:
            ready_client.set_options({key: value})
        assert refused.value.status == ae.AE_E_INVALID_ARG, key
    with pytest.raises(ae.AEError):
        ready_client.set_options({"device_info": "eyJhIjoxfQ==\r\nX-Injected: 1"})
    ready_client.set_options({"visitorID": "visitor-1"})
    ready_client.check_authentication()  # still usable; nothing was applied from the refused calls
    for entry in emulator.log():
        assert all("\r" not in v and "\n" not in v for v in entry["headers"].values())


@pytest.mark.parametrize("field", ["redirect_url", "domain_name", "device_id", "activation_url"])
def test_config_strings_with_control_characters_are_refused(emulator, field):
    with pytest.raises(ae.AEError) as refused:
        ae.Client(SOFTWARE_STATEMENT, object(), base_url=emulator.url, **{field: "x\r\nInjected: 1"})
    assert refused.value.status == ae.AE_E_INVALID_ARG
    assert field in ae.last_error_message() or "control character" in str(refused.value)


# --- 11. path segments that URL normalisation would squash ---------------------------------------

@pytest.mark.parametrize("segment", [".", ".."])
def test_dot_segments_are_refused_as_ids(ready_client, segment):
    with pytest.raises(ae.AEError) as refused:
        ready_client.set_requestor(segment)
    assert refused.value.status == ae.AE_E_INVALID_ARG
    with pytest.raises(ae.AEError) as refused:
        ready_client.set_selected_provider(segment)
    assert refused.value.status == ae.AE_E_INVALID_ARG


def test_a_partner_named_dot_dot_is_refused(emulator):
    from accessenabler.partner import PartnerSimulator
    with pytest.raises(ae.AEError) as refused:
        ae.Client(SOFTWARE_STATEMENT, object(), base_url=emulator.url, partner=PartnerSimulator(name=".."))
    assert refused.value.status == ae.AE_E_INVALID_ARG


@pytest.mark.parametrize("code, segment", [("..", "%2E%2E"), (".", "%2E")])
def test_a_dot_segment_code_from_adobe_stays_one_path_segment(make_client, recorder, emulator, code, segment):
    """An id from Adobe's answers that is a dot segment (here a session code) is written %2E%2E / %2E and
    reaches Adobe as written, never squashed into another endpoint. libcurl 8 removes dot segments, even
    percent-encoded ones, unless told not to (CURLOPT_PATH_AS_IS); 7.88 kept them: scripts/libcurl8-check.sh
    runs this test on Debian 13's libcurl 8. The paths are those the emulator received, answered or not."""
    session = {"actionName": "authenticate", "actionType": "interactive", "reasonType": "none",
               "url": f"/api/v2/authenticate/REF30/{code}", "code": code}
    emulator.faults({"operation": "createSessionUsingPOST", "kind": "status", "status": 201, "body": session})
    client = make_client()
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete")
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")

    def profile_requests_after_the_session():
        entries = emulator.control("GET", "log")["requests"]  # emulator.log() leaves out what no route took
        start = max(i for i, e in enumerate(entries) if e["operation"] == "createSessionUsingPOST")
        return [e["path"] for e in entries[start + 1:] if "/profiles" in e["path"]]

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not profile_requests_after_the_session():
        time.sleep(0.1)
    client.set_selected_provider(None)
    polls = profile_requests_after_the_session()
    assert polls and all(p == f"/api/v2/REF30/profiles/code/{segment}" for p in polls), polls


# --- 12. a log sink that calls back into the SDK --------------------------------------------------

def test_a_log_sink_may_call_the_sdk_from_several_threads(emulator):
    out = run_child("""
        recorder = Recorder()
        holder = {}
        calls = []
        def sink(level, message):
            client = holder.get("client")
            if client is not None and len(calls) < 200:
                calls.append(level)
                # ignoring an unknown key logs at once, on this very thread: re-entrant logging
                client.set_options({"key_the_sdk_ignores_and_logs": len(calls)})
                ae.lib.ae_get_selected_provider(client.handle)
                ae.lib.ae_check_authentication(client.handle)
        client = ae.Client(SOFTWARE_STATEMENT, recorder, base_url=values["url"], max_requests_per_second=-1,
                           log=sink, log_level=ae.AE_LOG_DEBUG)
        holder["client"] = client
        client.set_requestor("REF30")
        recorder.wait("set_requestor_complete")
        def hammer():
            for _ in range(20):
                client.set_options({"unknown_key_that_logs": 1})
                client.check_authentication()
        threads = [threading.Thread(target=hammer) for _ in range(6)]
        for t in threads: t.start()
        for t in threads: t.join(30)
        assert not any(t.is_alive() for t in threads), "deadlocked"
        recorder.wait("set_authentication_status", count=100, timeout=30)
        holder.clear()
        client.close()
        print("sink calls", len(calls))
        print("DONE")
    """, timeout=90, url=emulator.url)
    assert int(out.split("sink calls ")[1].split()[0]) > 0


# --- 17. getMetadata's opCode is a number ------------------------------------------------------

@pytest.mark.parametrize("key", [{"opCode": "0"}, {"opCode": "1", "resource_id": "LIVE"}, {"opCode": True},
                                 {"opCode": 2**40}, {"opCode": -1}, {"opCode": 1.5}])
def test_get_metadata_takes_numeric_opcodes_only(ready_client, key):
    with pytest.raises(ae.AEError) as refused:
        ready_client.get_metadata(key)
    assert refused.value.status == ae.AE_E_INVALID_ARG


# --- 19. the empty preauthorization lists --------------------------------------------------------

def test_an_empty_resource_list_checks_nothing_and_preauthorize_refuses_it(ready_client, recorder, emulator):
    emulator.clear_log()
    ready_client.check_preauthorized_resources([])
    assert recorder.wait("preauthorized_resources") == ([],)
    with pytest.raises(ae.AEError) as refused:
        ready_client.preauthorize({"resources": []}, lambda response: None)
    assert refused.value.status == ae.AE_E_INVALID_ARG
    assert emulator.operations() == []
