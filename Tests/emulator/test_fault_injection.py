"""Fault injection (`/_emulator/faults`, aepass/faults.py): the control API, request selection,
and every fault kind as a client sees it on the wire (http.client and raw sockets: faulted
answers break the API contract on purpose, so they are not sent through `Api.request`)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from typing import Any

import pytest

from emulator_testkit import ALL_SESSION_PARAMS, INVALID_MARK, Api, device_headers, start_emulator, stop_emulator
from response_contract import response_problems

CONFIGURATION = "handleRequestUsingGET"
PREAUTHORIZE = "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1"
AUTHORIZE = "retrieveAuthorizeDecisionsForMvpdUsingPOST"
EEC_FIELDS = {"action", "status", "code", "message", "helpUrl", "trace"}


def set_faults(api: Api, *faults: dict[str, Any]) -> list[dict[str, Any]]:
    return api.control("POST", "faults", {"faults": list(faults)})["faults"]


def raw(api: Api, method: str, path: str, token: str | None = None, device: str | None = None,
        body: Any = None, timeout: float = 10, invalid: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One request over http.client, whatever comes back (no contract check)."""
    headers = {"Accept": "application/json"}
    if invalid:
        headers[INVALID_MARK] = "1"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if device:
        headers.update(device_headers(device))
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(api.netloc, timeout=timeout)
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def configuration(api: Api, token: str) -> tuple[int, dict[str, str], bytes]:
    return raw(api, "GET", "/api/v2/REF30/configuration", token, device="tv-1")


def logged_in(api: Api) -> str:
    """An access token whose device tv-1 has a Cablevision profile."""
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    api.login(code)
    return token


def raw_exchange(api: Api, path: str, token: str, timeout: float = 5) -> socket.socket:
    """A GET sent on a raw socket, for the faults that break the HTTP framing."""
    host, port = api.netloc.split(":")
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    device = "".join(f"{name}: {value}\r\n" for name, value in device_headers("tv-1").items())
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {api.netloc}\r\nAccept: application/json\r\n"
                  f"Authorization: Bearer {token}\r\n{device}\r\n").encode())
    return sock


def recv_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before {marker!r}: {data!r}"
        data += chunk
    return data


def split_head(data: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    return lines[0], headers, body


# --- control API ----------------------------------------------------------------------------------

def test_faults_are_set_read_replaced_and_cleared(api: Api) -> None:
    assert api.control("GET", "faults") == {"faults": []}
    stored = set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 502, "requests": [1, 3]},
                        {"operation": "*", "kind": "latency", "ms": 5})
    assert stored == [
        {"operation": CONFIGURATION, "requests": [1, 3], "kind": "status", "status": 502, "matched": 0, "applied": 0},
        {"operation": "*", "kind": "latency", "ms": 5, "matched": 0, "applied": 0}]
    assert api.control("GET", "faults")["faults"] == stored
    replaced = set_faults(api, {"operation": "*", "kind": "throttle"})
    assert replaced == [{"operation": "*", "kind": "throttle", "retry_after": 1, "matched": 0, "applied": 0}]
    assert set_faults(api) == []
    set_faults(api, {"operation": "*", "kind": "html_error"})
    api.control("POST", "reset")  # reset clears the faults (and keeps the configuration)
    assert api.control("GET", "faults") == {"faults": []}


@pytest.mark.parametrize("payload", [
    None, {}, {"faults": {}}, {"faults": [1]}, {"faults": []} | {"extra": 1},
    {"faults": [{"operation": "*", "kind": "explode"}]},
    {"faults": [{"operation": "noSuchOperation", "kind": "html_error"}]},
    {"faults": [{"kind": "html_error"}]},
    {"faults": [{"operation": "page", "kind": "html_error"}]},
    {"faults": [{"operation": "*", "kind": "html_error", "requests": []}]},
    {"faults": [{"operation": "*", "kind": "html_error", "requests": [0]}]},
    {"faults": [{"operation": "*", "kind": "html_error", "requests": "1"}]},
    {"faults": [{"operation": "*", "kind": "html_error", "colour": "red"}]},
    {"faults": [{"operation": "*", "kind": "latency"}]},
    {"faults": [{"operation": "*", "kind": "latency", "ms": -1}]},
    {"faults": [{"operation": "*", "kind": "status", "status": 99}]},
    {"faults": [{"operation": "*", "kind": "status", "status": 500, "body": 5}]},
    {"faults": [{"operation": "*", "kind": "oversized", "bytes": 3}]},
    {"faults": [{"operation": "*", "kind": "enhanced_error"}]},
    {"faults": [{"operation": "*", "kind": "enhanced_error", "code": "made_up"}]},
    {"faults": [{"operation": CONFIGURATION, "kind": "item_error", "code": "network_connection_timeout"}]},
])
def test_bad_fault_lists_are_refused(api: Api, payload: Any) -> None:
    reply = api.request("POST", "/_emulator/faults", json_body=payload)
    assert reply.status == 400 and reply.json["error"]
    assert api.control("GET", "faults") == {"faults": []}  # nothing half-applied


def test_requests_select_the_nth_matching_request_and_the_log_names_the_fault(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 502, "requests": [2, 4]})
    statuses = [configuration(api, token)[0] for _ in range(5)]
    assert statuses == [200, 502, 200, 502, 200]
    assert api.control("GET", "faults")["faults"][0] == {
        "operation": CONFIGURATION, "requests": [2, 4], "kind": "status", "status": 502, "matched": 5, "applied": 2}
    entries = [e for e in api.log() if e["operation"] == CONFIGURATION]
    assert [e.get("fault") for e in entries] == [None, "status", None, "status", None]
    assert [e["status"] for e in entries] == statuses
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 502, "requests": [2]})
    assert [configuration(api, token)[0] for _ in range(2)] == [200, 502]  # counts restart


def test_a_status_fault_can_carry_retry_after(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 503, "retry_after": 30})
    status, headers, _ = configuration(api, token)
    assert status == 503 and {k.lower(): v for k, v in headers.items()}["retry-after"] == "30"
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 503})
    status, headers, _ = configuration(api, token)
    assert status == 503 and "retry-after" not in {k.lower() for k in headers}


def test_star_matches_api_requests_only_and_the_first_applicable_fault_wins(api: Api) -> None:
    set_faults(api, {"operation": "processSoftwareStatementUsingPOST", "kind": "status", "status": 500,
                     "requests": [2]},
               {"operation": "*", "kind": "status", "status": 503})
    assert api.request("GET", "/_emulator/logos/Dish.svg").status == 200  # pages: never faulted
    assert api.control("GET", "state")["clients"] == 0  # control calls: never faulted
    assert raw(api, "POST", "/o/client/register", body={}, invalid=True)[0] == 503  # the first fault does not apply
    assert raw(api, "POST", "/o/client/register", body={}, invalid=True)[0] == 500
    faults = api.control("GET", "faults")["faults"]
    assert [(f["matched"], f["applied"]) for f in faults] == [(2, 1), (2, 1)]


def test_throttled_requests_are_not_counted(api: Api) -> None:
    token = api.new_access_token()
    api.control("POST", "config", {"throttle": True})
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 500, "requests": [11]})
    statuses = [raw(api, "GET", "/api/v2/REF30/configuration", token, device="burst")[0] for _ in range(11)]
    assert statuses == [200] * 10 + [429]
    assert api.control("GET", "faults")["faults"][0]["matched"] == 10


# --- the kinds ----------------------------------------------------------------------------------------

def test_latency(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "latency", "ms": 300})
    started = time.perf_counter()
    status, headers, body = configuration(api, token)
    assert time.perf_counter() - started >= 0.3
    assert status == 200 and json.loads(body)["requestor"]["id"] == "REF30"
    assert not response_problems("GET", "/api/v2/REF30/configuration", status, headers, body)
    assert api.log()[-1]["fault"] == "latency"


def test_status_with_its_default_body_and_with_given_bodies(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "status", "status": 503, "requests": [1]},
               {"operation": CONFIGURATION, "kind": "status", "status": 400, "requests": [2]},
               {"operation": CONFIGURATION, "kind": "status", "status": 500, "body": "oops", "requests": [3]},
               {"operation": CONFIGURATION, "kind": "status", "status": 502, "body": {"x": 1}, "requests": [4]})
    status, headers, body = configuration(api, token)
    error = json.loads(body)
    assert status == 503 and headers["content-type"] == "application/json;charset=UTF-8"
    assert set(error) == EEC_FIELDS
    assert (error["code"], error["status"], error["action"]) == ("internal_server_error", 503, "retry")
    status, _, body = configuration(api, token)
    assert status == 400 and json.loads(body)["action"] == "none" and json.loads(body)["status"] == 400
    status, headers, body = configuration(api, token)
    assert (status, body) == (500, b"oops") and headers["content-type"].startswith("text/plain")
    status, headers, body = configuration(api, token)
    assert (status, json.loads(body)) == (502, {"x": 1}) and headers["content-type"].startswith("application/json")


def test_throttle(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "throttle", "retry_after": 3})
    status, headers, body = configuration(api, token)
    assert status == 429 and headers["retry-after"] == "3" and headers["content-type"].startswith("text/html")
    assert b"429 Too Many Requests" in body and b"openresty" in body


def test_malformed_json(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": "getProfilesUsingGET_1", "kind": "malformed_json"})
    status, headers, body = raw(api, "GET", "/api/v2/REF30/profiles", token, device="tv-1")
    assert status == 200 and headers["content-type"] == "application/json;charset=UTF-8"
    assert body == b'{"profiles": {'
    with pytest.raises(ValueError):
        json.loads(body)


def test_truncated_json(api: Api) -> None:
    token = api.new_access_token()
    whole = configuration(api, token)[2]
    set_faults(api, {"operation": CONFIGURATION, "kind": "truncated_json"})
    status, headers, body = configuration(api, token)
    assert status == 200 and headers["content-type"] == "application/json;charset=UTF-8"
    assert body == whole[: len(whole) // 2] and int(headers["content-length"]) == len(body)
    with pytest.raises(ValueError):
        json.loads(body)


def test_wrong_content_type(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "wrong_content_type"})
    status, headers, body = configuration(api, token)
    assert status == 200 and headers["content-type"] == "text/plain"
    assert json.loads(body)["requestor"]["id"] == "REF30"  # the correct answer, mislabelled


def test_html_error(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "html_error"})
    status, headers, body = configuration(api, token)
    assert status == 503 and headers["content-type"].startswith("text/html")
    assert body.startswith(b"<!DOCTYPE html>") and b"503 Service Temporarily Unavailable" in body


def test_oversized(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "oversized", "requests": [1]},
               {"operation": CONFIGURATION, "kind": "oversized", "bytes": 100, "requests": [2]})
    status, headers, body = configuration(api, token)
    assert status == 200 and int(headers["content-length"]) == len(body) == 8 << 20
    assert json.loads(body)["padding"] == "x" * ((8 << 20) - 14)
    assert len(configuration(api, token)[2]) == 100


def test_oversized_answer_abandoned_by_the_client_does_not_disturb_the_server(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "oversized", "bytes": 64 << 20, "requests": [1]})
    sock = raw_exchange(api, "/api/v2/REF30/configuration", token)
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    sock.close()  # hang up after the first bytes, as a client with a size cap does
    assert configuration(api, token)[0] == 200


def test_reset_mid_body(api: Api) -> None:
    token = api.new_access_token()
    whole = configuration(api, token)[2]
    set_faults(api, {"operation": CONFIGURATION, "kind": "reset_mid_body"})
    with pytest.raises((http.client.IncompleteRead, ConnectionResetError)):
        configuration(api, token)

    sock = raw_exchange(api, "/api/v2/REF30/configuration", token)
    received = b""
    with pytest.raises(ConnectionResetError):
        while True:
            chunk = sock.recv(65536)
            assert chunk, "the connection must be reset, not closed"
            received += chunk
    sock.close()
    status_line, headers, body = split_head(received)
    assert status_line == "HTTP/1.1 200 OK" and int(headers["content-length"]) == len(whole)
    assert len(body) <= len(whole) // 2 and whole.startswith(body)
    assert api.log()[-1]["fault"] == "reset_mid_body"


def test_never_ending_holds_the_connection_while_other_requests_are_served(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "never_ending", "requests": [1]},
               {"operation": CONFIGURATION, "kind": "never_ending", "hold_s": 0.5, "requests": [2]})
    stalled = raw_exchange(api, "/api/v2/REF30/configuration", token, timeout=1)
    status_line, headers, body = split_head(recv_until(stalled, b'\r\n\r\n{"'))
    assert status_line == "HTTP/1.1 200 OK" and int(headers["content-length"]) == 64 * 1024 and body == b'{"'
    with pytest.raises(socket.timeout):
        stalled.recv(65536)  # nothing more comes

    started = time.perf_counter()
    assert raw(api, "GET", "/api/v2/REF30/profiles", token, device="tv-1")[0] == 200
    assert time.perf_counter() - started < 0.5  # the stalled connection blocks no one

    # hold_s: the server gives up after a while and closes the connection
    started = time.perf_counter()
    with pytest.raises(http.client.IncompleteRead):
        configuration(api, token)
    assert 0.4 <= time.perf_counter() - started < 3
    stalled.close()


def test_never_ending_does_not_delay_shutdown() -> None:
    process, base_url = start_emulator("--throttle", "off")
    try:
        api = Api(base_url)
        token = api.new_access_token()
        set_faults(api, {"operation": CONFIGURATION, "kind": "never_ending"})
        stalled = [raw_exchange(api, "/api/v2/REF30/configuration", token) for _ in range(3)]
        for sock in stalled:
            assert recv_until(sock, b'\r\n\r\n{"').startswith(b"HTTP/1.1 200")
        results: list[Any] = []
        thread = threading.Thread(target=lambda: results.append(_read_all(stalled[0])))
        thread.start()
    finally:
        started = time.perf_counter()
        assert stop_emulator(process) == 0
    assert time.perf_counter() - started < 3
    thread.join(5)
    assert results == [b""]  # the held connection was closed when the server stopped
    for sock in stalled:
        sock.close()


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def test_expire_access_token(api: Api) -> None:
    token = api.new_access_token()
    set_faults(api, {"operation": CONFIGURATION, "kind": "expire_access_token", "requests": [1]})
    status, _, body = configuration(api, token)
    assert status == 401 and json.loads(body)["code"] == "invalid_access_token_client_application"
    assert configuration(api, token)[0] == 401  # the token stays expired
    assert configuration(api, api.new_access_token())[0] == 200  # a new one works
    assert api.log()[2]["fault"] == "expire_access_token"


def test_enhanced_error(api: Api) -> None:
    token = logged_in(api)
    set_faults(api, {"operation": AUTHORIZE, "kind": "enhanced_error", "code": "network_connection_timeout"},
               {"operation": PREAUTHORIZE, "kind": "enhanced_error", "code": "my_code", "status": 502,
                "action": "retry", "details": "upstream"})
    path = "/api/v2/REF30/decisions/authorize/Cablevision"
    status, headers, body = raw(api, "POST", path, token, device="tv-1", body={"resources": ["LIVE"]})
    error = json.loads(body)
    assert status == 403 and set(error) == EEC_FIELDS
    assert (error["code"], error["action"], error["status"]) == ("network_connection_timeout", "retry", 403)
    assert not response_problems("POST", path, status, headers, body)
    status, _, body = raw(api, "POST", "/api/v2/REF30/decisions/preauthorize/Cablevision", token,
                          device="tv-1", body={"resources": ["LIVE"]})
    error = json.loads(body)
    assert status == 502 and (error["code"], error["action"], error["details"]) == ("my_code", "retry", "upstream")


def test_item_error(api: Api) -> None:
    token = logged_in(api)
    set_faults(api, {"operation": AUTHORIZE, "kind": "item_error", "code": "network_connection_timeout"},
               {"operation": PREAUTHORIZE, "kind": "item_error", "code": "authorization_denied_by_parental_controls",
                "details": "TV-MA"})
    path = "/api/v2/REF30/decisions/authorize/Cablevision"
    status, headers, body = raw(api, "POST", path, token, device="tv-1", body={"resources": ["LIVE", "NEWS"]})
    assert status == 200 and not response_problems("POST", path, status, headers, body)
    decisions = json.loads(body)["decisions"]
    assert [d["resource"] for d in decisions] == ["LIVE", "NEWS"]
    for decision in decisions:
        assert decision["authorized"] is False and "token" not in decision
        assert (decision["error"]["code"], decision["error"]["action"], decision["error"]["status"]) == (
            "network_connection_timeout", "retry", 403)
    path = "/api/v2/REF30/decisions/preauthorize/Cablevision"
    status, headers, body = raw(api, "POST", path, token, device="tv-1", body={"resources": ["LIVE"]})
    assert not response_problems("POST", path, status, headers, body)
    error = json.loads(body)["decisions"][0]["error"]
    assert (error["code"], error["details"], error["action"]) == ("authorization_denied_by_parental_controls",
                                                                  "TV-MA", "none")
    assert api.log()[-1]["fault"] == "item_error"

    # an error answer of the handler passes unchanged (and is not logged as faulted)
    api.control("POST", "expire-access-tokens")
    status, _, _ = raw(api, "POST", path, token, device="tv-1", body={"resources": ["LIVE"]})
    assert status == 401 and "fault" not in api.log()[-1]


def test_logout_can_answer_5xx_or_time_out(api: Api) -> None:
    """GET /logout/{mvpd} (getLogoutForMvpdUsingGET) under the faults an SDK's logout must survive:
    a 5xx (Enhanced Error Code or a load balancer's HTML page) and no answer in time (a request that
    never ends, or one answered late — the handler still runs: the profile is gone afterwards)."""
    token = logged_in(api)
    logout = "getLogoutForMvpdUsingGET"
    path = "/api/v2/REF30/logout/Cablevision?redirectUrl=https%3A%2F%2Fadobe.com%2Fdone"
    set_faults(api, {"operation": logout, "requests": [1], "kind": "status", "status": 503},
               {"operation": logout, "requests": [2], "kind": "html_error", "status": 502},
               {"operation": logout, "requests": [3], "kind": "never_ending", "hold_s": 2},
               {"operation": logout, "requests": [4], "kind": "latency", "ms": 800})
    status, headers, body = raw(api, "GET", path, token, device="tv-1")
    assert status == 503 and json.loads(body)["action"] == "retry" and json.loads(body)["status"] == 503
    status, headers, body = raw(api, "GET", path, token, device="tv-1")
    assert status == 502 and headers["content-type"].startswith("text/html")
    with pytest.raises(socket.timeout):
        raw(api, "GET", path, token, device="tv-1", timeout=0.3)
    profiles = raw(api, "GET", "/api/v2/REF30/profiles", token, device="tv-1")[2]
    assert list(json.loads(profiles)["profiles"]) == ["Cablevision"]  # no fault above ran the handler
    with pytest.raises(socket.timeout):
        raw(api, "GET", path, token, device="tv-1", timeout=0.3)
    time.sleep(0.8)
    assert json.loads(raw(api, "GET", "/api/v2/REF30/profiles", token, device="tv-1")[2]) == {"profiles": {}}
    status, _, body = raw(api, "GET", path, token, device="tv-1")
    assert status == 200 and json.loads(body)["logouts"]["Cablevision"]["actionName"] == "invalid"
    assert [f["applied"] for f in api.control("GET", "faults")["faults"]] == [1, 1, 1, 1]
