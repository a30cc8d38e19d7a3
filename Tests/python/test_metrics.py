# SPDX-License-Identifier: Apache-2.0
"""Metrics (docs/METRICS.md) through the real .so: ae_client_metrics, ae_client_metrics_text and
ae_client_set_metrics_push, checked against what the emulator saw (its request log), against an
independent Prometheus parser (prometheus_client's), and against docs/METRICS.md's table."""
import collections
import json
import re
import threading
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import login
from harness import ae

DOCS = Path(__file__).resolve().parents[2] / "docs" / "METRICS.md"


def series(client, name, **labels):
    return [s for s in client.metrics() if s["name"] == name and all(s["labels"].get(k) == v for k, v in labels.items())]


def total(client, name, **labels):
    return sum(s["count"] if s["type"] != "gauge" else s["value"] for s in series(client, name, **labels))


def api_requests(emulator):
    return [e for e in emulator.log() if not (e["method"] == "HEAD" and e["path"] == "/")]


def test_a_whole_flow_is_counted_as_the_emulator_saw_it(ready_client, recorder, emulator):
    client = ready_client
    login(client, recorder, emulator)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.check_preauthorized_resources(["LIVE", "PREMIUM-DENIED"])
    recorder.wait("preauthorized_resources")
    recorder.settle()

    seen = api_requests(emulator)
    # Every request the emulator answered, and only those: by operation's answer status.
    assert total(client, "ae.http.requests") == len(seen)
    statuses = collections.Counter(str(e["status"]) for e in seen)
    durations = series(client, "http.client.request.duration")
    assert collections.Counter({s["labels"]["http.response.status_code"]: 0 for s in durations}) + \
        collections.Counter({code: sum(s["count"] for s in durations if s["labels"]["http.response.status_code"] == code)
                             for code in statuses}) == statuses
    for item in durations:
        assert item["unit"] == "s" and item["labels"]["server.address"] == "127.0.0.1"
        assert item["labels"]["http.request.method"] in ("GET", "POST")
        assert item["buckets"][-1][0] == 30 and item["buckets"][-1][1] == item["count"]  # cumulative, to 30 s
        assert 0 < item["value"] < 30 * item["count"]
    assert total(client, "ae.http.requests", **{"ae.operation": "register"}) == 1
    assert total(client, "ae.http.requests", **{"ae.operation": "decisions/authorize"}) == 1
    assert total(client, "ae.http.responses", **{"ae.status_class": "2xx"}) == \
        sum(1 for e in seen if 200 <= e["status"] < 300)
    assert total(client, "ae.http.response.body.size", **{"ae.operation": "configuration"}) > 100
    assert total(client, "ae.http.request.body.size", **{"ae.operation": "register"}) > 0

    calls = {(s["labels"]["ae.call"], s["labels"]["ae.outcome"]): s["count"] for s in series(client, "ae.calls")}
    assert calls == {("setRequestor", "success"): 1, ("getAuthentication", "success"): 1,
                     ("getAuthorization", "success"): 1, ("checkPreauthorizedResources", "success"): 1}

    login_duration = series(client, "ae.login.duration")[0]
    assert login_duration["count"] == 1 and 0 < login_duration["value"] < 15
    assert total(client, "ae.store.write.duration") >= 4  # credentials, token, configuration, profile, ...
    assert total(client, "ae.http.connections", **{"ae.connection": "opened"}) >= 1
    assert total(client, "ae.tls.handshakes") == 0  # plain http to the loopback emulator
    skew = series(client, "ae.clock.skew")
    assert len(skew) == 1 and abs(skew[0]["value"]) < 5  # the emulator's Date header: this machine's clock
    assert series(client, "ae.outage.state")[0]["value"] == 0


def test_failures_and_retries_are_counted(ready_client, recorder, emulator):
    client = ready_client
    login(client, recorder, emulator)
    emulator.faults({"operation": "retrieveAuthorizeDecisionsForMvpdUsingPOST", "requests": [1], "kind": "throttle",
                     "retry_after": 1},
                    {"operation": "retrieveAuthorizeDecisionsForMvpdUsingPOST", "requests": [3], "kind": "enhanced_error",
                     "code": "authorization_denied_by_mvpd"})
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.get_authorization("SPORTS")
    recorder.wait("token_request_failed")
    recorder.settle()
    authorize = {"ae.operation": "decisions/authorize"}
    assert total(client, "ae.http.retries", **authorize, **{"ae.retry.reason": "429"}) == 1
    assert total(client, "ae.http.requests", **authorize) == 3
    assert total(client, "ae.http.responses", **authorize, **{"ae.status_class": "4xx"}) == 2
    throttled = series(client, "http.client.request.duration", **authorize, **{"http.response.status_code": "429"})
    assert throttled[0]["labels"]["error.type"] == "429" and throttled[0]["count"] == 1
    failed = [s for s in series(client, "ae.calls", **{"ae.call": "getAuthorization"})
              if s["labels"]["ae.outcome"] != "success"]
    assert len(failed) == 1 and failed[0]["count"] == 1
    assert re.fullmatch(r"[A-Z]+[0-9]+", failed[0]["labels"]["ae.outcome"]), failed  # an advanced status's id


def test_a_call_refused_at_once_is_counted(make_client):
    client = make_client()
    with pytest.raises(ae.AEError):
        client.check_authentication()  # no setRequestor yet
    assert total(client, "ae.calls", **{"ae.call": "checkAuthentication", "ae.outcome": "no_requestor"}) == 1


def test_a_connection_failure_is_counted_as_such(make_client, recorder):
    client = make_client(base_url="http://127.0.0.1:9")  # discard: nothing listens
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (0,)
    register = {"ae.operation": "register"}
    assert total(client, "ae.http.retries", **register, **{"ae.retry.reason": "connect"}) == 1
    failed = series(client, "http.client.request.duration", **register)
    assert [(s["labels"]["error.type"], s["count"]) for s in failed] == [("cannot_connect", 2)]
    assert total(client, "ae.http.responses", **register, **{"ae.status_class": "error"}) == 2


def test_the_prometheus_text_parses_and_agrees_with_the_series(ready_client, recorder, emulator):
    client = ready_client
    login(client, recorder, emulator)
    text = client.metrics_text("prometheus")
    families = {family.name: family for family in text_string_to_metric_families(text)}
    # Every metric of the catalog is there with its HELP and TYPE, in Prometheus's naming.
    assert {"http_client_request_duration_seconds", "ae_http_requests", "ae_calls", "ae_login_duration_seconds",
            "ae_store_write_duration_seconds", "ae_clock_skew_seconds", "ae_outage_state"} <= set(families)
    assert families["ae_http_requests"].type == "counter" and families["ae_login_duration_seconds"].type == "histogram"
    requests = sum(s.value for s in families["ae_http_requests"].samples if s.name == "ae_http_requests_total")
    assert requests == total(client, "ae.http.requests") == len(api_requests(emulator))
    login_count = [s for s in families["ae_login_duration_seconds"].samples if s.name.endswith("_count")]
    assert [s.value for s in login_count] == [1]
    calls = {s.labels["ae_call"]: s.value for s in families["ae_calls"].samples}
    assert calls == {"setRequestor": 1, "getAuthentication": 1}

    as_json = json.loads(client.metrics_text("json"))
    by_name = {m["name"]: m for m in as_json["metrics"]}
    assert [m["name"] for m in as_json["metrics"]] == catalog_names()
    assert sum(s["count"] for s in by_name["ae.http.requests"]["series"]) == requests
    with pytest.raises(ValueError):
        client.metrics_text("xml")


def test_pushes_come_on_the_timer_and_stop(make_client, recorder):
    client = make_client()
    pushed = []
    arrived = threading.Event()

    def push(c):
        pushed.append((time.monotonic(), threading.current_thread().name, len(c.metrics())))
        if len(pushed) >= 2:
            arrived.set()

    with pytest.raises(ae.AEError) as refused:
        client.set_metrics_push(999, push)
    assert refused.value.status == ae.AE_E_INVALID_ARG
    started = time.monotonic()
    client.set_metrics_push(1000, push)
    assert arrived.wait(10)
    assert pushed[0][0] - started >= 0.9 and pushed[1][0] - pushed[0][0] >= 0.9
    assert pushed[0][1] != threading.main_thread().name and pushed[0][2] > 0  # the callback thread, a snapshot
    client.set_metrics_push(0, None)
    count = len(pushed)
    time.sleep(1.5)
    assert len(pushed) == count
    client.set_metrics_push(1000, push)
    client.close()  # stops it: nothing after destroy
    count = len(pushed)
    time.sleep(1.5)
    assert len(pushed) == count
    with pytest.raises(ae.AEError) as closed:
        client.metrics()
    assert closed.value.status == ae.AE_E_INVALID_HANDLE


def catalog_names():
    """The metric names in the order docs/METRICS.md's table lists them."""
    return [row[0] for row in docs_rows()]


def docs_rows():
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("<!-- metrics -->", 1)[1].split("<!-- /metrics -->", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| `([^`]+)` \| ([^|]*) \| ([a-z_]+) \|", table, re.MULTILINE)
    return [(name, kind, unit, [label.strip(" `") for label in labels.split(",") if label.strip() not in ("", "—")], prom)
            for name, kind, unit, labels, prom in rows]


def test_the_docs_table_is_the_library_s_catalog(make_client):
    """docs/METRICS.md lists every metric the library reports, with its type, unit, labels and Prometheus name."""
    client = make_client()
    as_json = json.loads(client.metrics_text("json"))
    library = [(m["name"], m["type"], m["unit"], m["labels"]) for m in as_json["metrics"]]
    assert [(name, kind, unit, labels) for name, kind, unit, labels, _ in docs_rows()] == library
    families = {family.name: family.type for family in text_string_to_metric_families(client.metrics_text())}
    for name, kind, _, labels, prometheus in docs_rows():
        family = prometheus.removesuffix("_total") if kind == "counter" else prometheus
        assert families.get(family) == kind, (name, prometheus)
