# SPDX-License-Identifier: Apache-2.0
"""Faults injected by the emulator (`/_emulator/faults`) through the real .so (ctypes): every call
must end in its documented callback with a named error (docs/ERRORS.md), within a bound, and
leave the stored state intact."""
import json
import re
import sqlite3
import time
import urllib.parse

import pytest

from harness import WIRE, Recorder, ae, authorize_once_adobe_is_back

TIMEOUT_MS = 1000  # request_timeout_ms of the clients that meet a never-ending answer
# The tests marked @both_apis run on REST API V2 and V1 (`wire` names the emulator's operations of
# each); the others exercise V2-only answers (item-level errors of the decisions API).
both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)

AUTHORIZE = WIRE["v2"].decision  # the V2-only tests' operation
REGISTER, TOKEN = WIRE["v2"].register, WIRE["v2"].token  # DCR: the same for both generations

# --- helpers -----------------------------------------------------------------------------------------

def login(client, recorder, emulator, mvpd="Cablevision"):
    """getAuthentication → dialog → select → REGCODE → the viewer logs in on another device → 1.
    (conftest.login, repeated here: `from conftest import` is ambiguous when this file runs in one
    pytest session with Tests/emulator, whose conftest is also imported as `conftest`.)"""
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider(mvpd)
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status", lambda status, code: status == 1) == (1, "")
    return regcode
# How the SDK names a body it stopped reading: "answer larger than 4194304 bytes".
SIZE_MENTION = re.compile(r"4194304|4 ?MiB")


def wait_any(recorder, names, timeout=15):
    """The first recorded event among `names` (name, args)."""
    deadline = time.monotonic() + timeout
    with recorder.condition:
        while True:
            for name, args in recorder.events:
                if name in names:
                    return name, args
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for one of {names}; events: {recorder.summary()}")
            recorder.condition.wait(remaining)


def last_status(recorder):
    statuses = recorder.statuses()
    assert statuses, f"no status callback; events: {recorder.summary()}"
    return statuses[-1]


def entries(emulator, operation):
    return [e for e in emulator.log() if e["operation"] == operation]


def preauthorized_in(entry):
    """The resources a preauthorization request asked for (V2: JSON body; V1: `resource` query)."""
    if entry["body"]:
        return json.loads(entry["body"])["resources"]
    query = urllib.parse.parse_qs(entry["query"])
    return query["resource"][0].split(",")


def age_store(path):
    """Makes the stored configuration and profile sync look older than the SDK's cache age, so the
    next setRequestor asks Adobe again (the store's own tables; the SDK has no knob for this)."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE configurations SET fetched_at = 0")
        db.execute("UPDATE profile_syncs SET synced_at = 0")
    db.close()


@pytest.fixture
def store(make_client, emulator, tmp_path):
    """A file store holding a configuration (aged), a client registration, a token and a profile."""
    path = str(tmp_path / "store.sqlite")
    recorder = Recorder()
    client = make_client(delegate=recorder, storage_path=path)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.close()
    age_store(path)
    emulator.clear_log()
    return path


@pytest.fixture
def signed_in(make_client, recorder, emulator, tmp_path):
    """A ready, signed-in client on a file store; its callbacks go to `recorder`."""
    def make(**options):
        client = make_client(storage_path=str(tmp_path / "signed-in.sqlite"), **options)
        client.set_requestor("REF30")
        assert recorder.wait("set_requestor_complete") == (1,)
        login(client, recorder, emulator)
        emulator.clear_log()
        return client
    return make


def assert_still_signed_in(client, recorder):
    """The stored profile survived: checkAuthentication answers 1 (no request needed)."""
    before = len(recorder.of("set_authentication_status"))
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=before + 1) == (1, "")


# --- setRequestor ----------------------------------------------------------------------------------

def set_requestor_fails(make_client, recorder, **options):
    client = make_client(**options)
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=20) == (0,)
    elapsed = time.monotonic() - started
    assert recorder.names()[-2:] == ["status", "set_requestor_complete"]  # the cause comes first
    status = last_status(recorder)
    assert status["level"] == "error"
    return client, status, elapsed


@pytest.mark.parametrize("fault", [
    {"kind": "reset_mid_body"},
    {"kind": "oversized"},
], ids=lambda f: f["kind"])
@both_apis
def test_set_requestor_network_failure_is_cfg404(make_client, recorder, emulator, fault, wire):
    emulator.faults({"operation": wire.configuration, **fault})
    _, status, _ = set_requestor_fails(make_client, recorder)
    assert status["errorId"] == "CFG404"
    assert status["enhancedError"]["code"] == "network_error"
    if fault["kind"] == "oversized":  # the client stops reading at 4 MiB and says so
        assert SIZE_MENTION.search(status["message"] + " " + status["enhancedError"]["message"]), status


@both_apis
def test_set_requestor_never_ending_answer_is_bounded_by_the_request_timeout(make_client, recorder, emulator, wire):
    emulator.faults({"operation": wire.configuration, "kind": "never_ending"})
    _, status, elapsed = set_requestor_fails(make_client, recorder, request_timeout_ms=TIMEOUT_MS)
    assert status["errorId"] == "CFG404" and status["enhancedError"]["code"] == "network_error"
    assert elapsed < TIMEOUT_MS / 1000 + 3


@pytest.mark.parametrize("fault, error_id", [
    ({"kind": "status", "status": 502}, "CFG502"),
    ({"kind": "status", "status": 503}, "CFG503"),
    ({"kind": "html_error"}, "CFG503"),
], ids=["502", "503", "html_503"])
@both_apis
def test_set_requestor_server_error_is_cfg5xx(make_client, recorder, emulator, fault, error_id, wire):
    emulator.faults({"operation": wire.configuration, **fault})
    _, status, _ = set_requestor_fails(make_client, recorder)
    assert status["errorId"] == error_id
    assert len(entries(emulator, wire.configuration)) <= 3


@pytest.mark.parametrize("kind", ["malformed_json", "truncated_json", "wrong_content_type"])
@both_apis
def test_set_requestor_unreadable_answer_is_cfg500(make_client, recorder, emulator, kind, wire):
    emulator.faults({"operation": wire.configuration, "kind": kind})
    _, status, _ = set_requestor_fails(make_client, recorder)
    assert status["errorId"] == "CFG500"
    assert status["enhancedError"]["code"] == "server_response_format_unknown"


@pytest.mark.parametrize("operation, error_id", [(REGISTER, "R400"), (TOKEN, "R401")], ids=["register", "token"])
@both_apis
def test_set_requestor_registration_failures(make_client, recorder, emulator, operation, error_id, wire):
    emulator.faults({"operation": operation, "kind": "status", "status": 503})
    _, status, _ = set_requestor_fails(make_client, recorder)
    assert status["errorId"] == error_id


@pytest.mark.parametrize("fault", [{"kind": "html_error", "status": 503}, {"kind": "status", "status": 500},
                                   {"kind": "reset_mid_body"}, {"kind": "never_ending", "hold_s": 30}],
                         ids=["html-503", "eec-500", "reset", "stalled"])
def test_a_transient_token_endpoint_failure_is_retried(make_client, recorder, emulator, fault):
    """The client-credentials grant is idempotent: one 5xx, reset or timeout on /o/client/token does
    not fail a cold setRequestor (issue 16; bounded, jittered, Retry-After honoured)."""
    emulator.faults({"operation": TOKEN, "requests": [1], **fault})
    client = make_client(request_timeout_ms=1500)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", timeout=20) == (1,)
    tokens = entries(emulator, TOKEN)
    assert len(tokens) == 2 and tokens[-1]["status"] == 201


def test_a_token_endpoint_that_keeps_failing_is_named_retry_not_registration(make_client, recorder, emulator):
    emulator.faults({"operation": TOKEN, "kind": "html_error", "status": 503})
    _, status, _ = set_requestor_fails(make_client, recorder)
    assert status["errorId"] == "R401"
    assert status["enhancedError"]["action"] == "retry"
    assert status["enhancedError"]["message"] == "HTTP 503 without a JSON error body."
    assert len(entries(emulator, TOKEN)) == 3  # at most three attempts


@both_apis
def test_set_requestor_honours_retry_after(make_client, recorder, emulator, wire):
    emulator.faults({"operation": wire.configuration, "kind": "throttle", "retry_after": 2, "requests": [1]})
    client = make_client()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    first, second = entries(emulator, wire.configuration)[:2]
    assert (first["status"], first["fault"], second["status"]) == (429, "throttle", 200)
    assert second["t_ms"] - first["t_ms"] >= 2000 - 5


@both_apis
def test_set_requestor_renews_an_expired_access_token(make_client, recorder, emulator, wire):
    emulator.faults({"operation": wire.configuration, "kind": "expire_access_token", "requests": [1]})
    client = make_client()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    configuration = [(e["operation"], e["status"]) for e in emulator.log() if e["operation"] in (wire.configuration, wire.token)]
    assert configuration[-3:] == [(wire.configuration, 401), (wire.token, 201), (wire.configuration, 200)]


@pytest.mark.parametrize("fault, error_id", [
    ({"kind": "status", "status": 503}, "CFG503"),
    ({"kind": "html_error"}, "CFG503"),
    ({"kind": "reset_mid_body"}, "CFG404"),
], ids=["503", "html_503", "reset"])
@both_apis
def test_transient_failure_with_a_stored_configuration_completes_with_a_warning(
        make_client, recorder, emulator, store, fault, error_id, wire):
    emulator.faults({"operation": "*", **fault})  # configuration and the profile sync both fail
    client = make_client(storage_path=store)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert entries(emulator, wire.configuration)[0]["fault"] == fault["kind"]  # Adobe was asked
    warning = recorder.find_status(error_id)
    assert warning is not None and warning["level"] == "warning", recorder.statuses()
    assert_still_signed_in(client, recorder)
    emulator.faults()
    assert authorize_once_adobe_is_back(client, recorder)[0][1] == "LIVE"


@both_apis
def test_unreadable_configuration_with_a_stored_one_fails_and_leaves_the_store_intact(
        make_client, recorder, emulator, store, wire):
    emulator.faults({"operation": wire.configuration, "kind": "malformed_json"})
    client = make_client(storage_path=store)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)  # not transient: no fallback
    assert last_status(recorder)["errorId"] == "CFG500"
    emulator.faults()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)
    assert_still_signed_in(client, recorder)


# --- getAuthorization ----------------------------------------------------------------------------------

def authorization_fails(client, recorder, resource="LIVE"):
    started = time.monotonic()
    client.get_authorization(resource)
    failed = recorder.wait("token_request_failed", timeout=20)
    elapsed = time.monotonic() - started
    assert recorder.names()[-2:] == ["status", "token_request_failed"]  # the cause comes first
    assert "set_token" not in recorder.names()
    return failed, last_status(recorder), elapsed


@both_apis
def test_get_authorization_connection_reset_is_z120(signed_in, recorder, emulator, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, "kind": "reset_mid_body"})
    (resource, code, description), status, _ = authorization_fails(client, recorder)
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR) and description
    assert status["errorId"] == "Z120" and status["enhancedError"]["code"] == "network_error"
    assert_still_signed_in(client, recorder)


@both_apis
def test_get_authorization_never_ending_answer_is_bounded(signed_in, recorder, emulator, wire):
    client = signed_in(request_timeout_ms=TIMEOUT_MS)
    emulator.faults({"operation": wire.decision, "kind": "never_ending"})
    (resource, code, _), status, elapsed = authorization_fails(client, recorder)
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)
    assert status["errorId"] == "Z120" and status["enhancedError"]["code"] == "network_error"
    assert elapsed < TIMEOUT_MS / 1000 + 3
    assert_still_signed_in(client, recorder)


@both_apis
def test_get_authorization_slow_answer_within_the_request_timeout_arrives(signed_in, recorder, emulator, wire):
    client = signed_in(request_timeout_ms=5000)
    emulator.faults({"operation": wire.decision, "kind": "latency", "ms": 800})
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    assert [e.get("fault") for e in entries(emulator, wire.decision)] == ["latency"]  # one request: no retry


@both_apis
def test_get_authorization_slower_than_the_request_timeout_is_z120(signed_in, recorder, emulator, wire):
    client = signed_in(request_timeout_ms=TIMEOUT_MS)
    emulator.faults({"operation": wire.decision, "kind": "latency", "ms": 2500})
    (resource, code, _), status, elapsed = authorization_fails(client, recorder)
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)
    assert status["errorId"] == "Z120" and status["enhancedError"]["code"] == "network_error"
    assert "timed out" in status["message"]
    assert elapsed < TIMEOUT_MS / 1000 + 3
    assert_still_signed_in(client, recorder)


@both_apis
def test_get_authorization_oversized_answer_is_capped(signed_in, recorder, emulator, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, "kind": "oversized"})
    (resource, code, description), status, _ = authorization_fails(client, recorder)
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)
    assert status["errorId"] == "Z120" and status["enhancedError"]["code"] == "network_error"
    assert SIZE_MENTION.search(description), description
    assert_still_signed_in(client, recorder)


@pytest.mark.parametrize("fault", [
    {"kind": "status", "status": 503},
    {"kind": "html_error"},
    {"kind": "malformed_json"},
    {"kind": "truncated_json"},
    {"kind": "wrong_content_type"},
], ids=["503", "html_503", "malformed_json", "truncated_json", "wrong_content_type"])
@both_apis
def test_get_authorization_server_error_or_unreadable_answer_is_z500(signed_in, recorder, emulator, fault, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, **fault})
    (resource, code, description), status, _ = authorization_fails(client, recorder)
    assert (resource, code) == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR) and description
    assert status["errorId"] == "Z500"
    assert len(entries(emulator, wire.decision)) <= 3
    assert_still_signed_in(client, recorder)


@both_apis
def test_plain_application_json_answer_is_accepted(signed_in, recorder, emulator, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, "kind": "wrong_content_type", "content_type": "application/json"})
    client.get_authorization("LIVE")
    name, args = wait_any(recorder, ("set_token", "token_request_failed"))
    assert (name, args[1]) == ("set_token", "LIVE"), last_status(recorder)


@both_apis
def test_get_authorization_honours_retry_after(signed_in, recorder, emulator, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, "kind": "throttle", "retry_after": 2, "requests": [1]})
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    first, second = entries(emulator, wire.decision)
    assert (first["status"], second["status"]) == (429, 200)
    assert second["t_ms"] - first["t_ms"] >= 2000 - 5


@both_apis
def test_expired_access_token_mid_flow_is_renewed_once(signed_in, recorder, emulator, wire):
    client = signed_in()
    emulator.faults({"operation": wire.decision, "kind": "expire_access_token", "requests": [1]})
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    first, *rest = wire.authorize()
    assert [(e["operation"], e["status"]) for e in emulator.log()] == [
        (first, 401), (wire.token, 201), (first, 200)] + [(operation, 200) for operation in rest]


def test_item_level_denial_is_user_not_authorized(signed_in, recorder, emulator):
    client = signed_in()
    emulator.faults({"operation": AUTHORIZE, "kind": "item_error",
                     "code": "authorization_denied_by_parental_controls", "details": "Rated TV-MA"})
    (resource, code, description), status, _ = authorization_fails(client, recorder)
    assert (resource, code, description) == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR, "Rated TV-MA")
    assert status["errorId"] == "Z100"
    assert status["enhancedError"]["code"] == "authorization_denied_by_parental_controls"
    assert len(entries(emulator, AUTHORIZE)) == 1  # action none: no retry
    assert_still_signed_in(client, recorder)


def test_item_level_error_with_action_retry_is_retried_at_most_twice(signed_in, recorder, emulator):
    client = signed_in()
    emulator.faults({"operation": AUTHORIZE, "kind": "item_error", "code": "network_connection_timeout",
                     "details": "The MVPD did not answer in time"})
    (resource, code, description), status, elapsed = authorization_fails(client, recorder)
    assert (resource, code, description) == ("LIVE", ae.USER_NOT_AUTHORIZED_ERROR, "The MVPD did not answer in time")
    assert status["errorId"] == "Z120"
    assert 1 <= len(entries(emulator, AUTHORIZE)) <= 3 and elapsed < 10
    assert_still_signed_in(client, recorder)


@pytest.mark.parametrize("requests", [[1], None], ids=["first_attempt", "every_attempt"])
@both_apis
def test_enhanced_error_with_action_retry_is_bounded(signed_in, recorder, emulator, requests, wire):
    client = signed_in()
    fault = {"operation": wire.decision, "kind": "enhanced_error", "code": "network_connection_timeout"}
    emulator.faults(fault if requests is None else {**fault, "requests": requests})
    started = time.monotonic()
    client.get_authorization("LIVE")
    name, args = wait_any(recorder, ("set_token", "token_request_failed"))
    assert time.monotonic() - started < 10
    attempts = entries(emulator, wire.decision)
    assert 1 <= len(attempts) <= 3
    if name == "token_request_failed":
        assert args[:2] == ("LIVE", ae.GENERIC_AUTHORIZATION_ERROR)
        status = last_status(recorder)
        assert status["errorId"] == "Z120"
        assert status["enhancedError"]["code"] == "network_connection_timeout"
        assert status["enhancedError"]["action"] == "retry"
    else:
        assert requests is not None, "every attempt failed: the call cannot succeed"
        assert attempts[-1]["status"] == 200
    assert_still_signed_in(client, recorder)


# --- checkPreauthorizedResources -------------------------------------------------------------------

@pytest.mark.parametrize("fault", [
    pytest.param({"kind": "status", "status": 503}, id="503"),
    pytest.param({"kind": "reset_mid_body"}, id="reset"),
    pytest.param({"kind": "malformed_json"}, id="malformed_json"),
])
@both_apis
def test_failed_preauthorization_request_is_p100_and_leaves_its_resources_out(signed_in, recorder, emulator, fault, wire):
    client = signed_in(preauthorize_limit=2)
    # Two chunks go out together: whichever arrives first passes; the other one fails, and so do
    # its retries (a failed request whose error says `retry` may be repeated: at most 3 attempts).
    emulator.faults({"operation": wire.preauthorize, "requests": list(range(2, 30)), **fault})
    client.check_preauthorized_resources(["A", "B", "C", "D"])
    (resources,) = recorder.wait("preauthorized_resources", timeout=20)
    sent = entries(emulator, wire.preauthorize)
    passed = preauthorized_in(sent[0])
    assert resources == passed  # the chunk whose request failed is left out
    assert all(preauthorized_in(e) != passed for e in sent[1:])
    assert 2 <= len(sent) <= 1 + 3, [e["status"] for e in sent]
    p100 = recorder.find_status("P100")
    assert p100 is not None and p100["level"] == "error"
    order = [name if name != "status" else args[0]["errorId"] for name, args in recorder.events]
    assert order.index("P100") < order.index("preauthorized_resources")  # the cause comes first
    assert_still_signed_in(client, recorder)


@both_apis
def test_preauthorization_never_ending_answer_is_bounded_by_the_request_timeout(signed_in, recorder, emulator, wire):
    client = signed_in(request_timeout_ms=TIMEOUT_MS)
    emulator.faults({"operation": wire.preauthorize, "kind": "never_ending"})
    started = time.monotonic()
    client.check_preauthorized_resources(["A", "B"])
    assert recorder.wait("preauthorized_resources", timeout=20) == ([],)
    elapsed = time.monotonic() - started
    assert recorder.find_status("P100") is not None
    assert len(entries(emulator, wire.preauthorize)) == 1
    assert elapsed < TIMEOUT_MS / 1000 + 3


# --- second-screen polling ---------------------------------------------------------------------------

@pytest.mark.slow
@both_apis
def test_polling_keeps_going_through_faults_until_the_login_completes(make_client, recorder, emulator, wire):
    client = make_client(request_timeout_ms=TIMEOUT_MS)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    emulator.clear_log()  # V1's setRequestor reads tokens/authn too: count the polls only
    kinds = [{"kind": "reset_mid_body"}, {"kind": "status", "status": 503}, {"kind": "throttle"},
             {"kind": "malformed_json"}, {"kind": "never_ending"}]
    emulator.faults(*({"operation": wire.poll, "requests": [n], **kind} for n, kind in enumerate(kinds, 1)))
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])  # the viewer is done at once; the client learns it after the faults
    assert recorder.wait("set_authentication_status", timeout=30) == (1, "")
    polls = entries(emulator, wire.poll)
    assert [p.get("fault") for p in polls[:len(kinds)]] == [k["kind"] for k in kinds]
    assert polls[-1]["status"] == 200 and "fault" not in polls[-1]
    assert not [s for s in recorder.statuses() if s["errorId"] in ("N130", "N500", "REG500")]
