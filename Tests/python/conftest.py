# SPDX-License-Identifier: Apache-2.0
import os

import pytest

import payload_views
from harness import SOFTWARE_STATEMENT, WIRE, Emulator, Recorder, ae, libcurl_loaded

EMULATOR_ARGS = ("--throttle", "off")


def pytest_report_header(config):
    curl_version, curl_path = libcurl_loaded()
    return [f"accessenabler {ae.version()}: module {ae.__file__}, library {ae.LIBRARY_PATH}",
            f"{curl_version} ({curl_path})"]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs for many seconds; such tests are started first, so that "
                                       "the pytest-xdist workers finish at about the same time")
    # pytest-xdist's load scheduling starts each worker on a block of consecutive tests (a quarter of
    # its share): the slow tests, first, would all land on the first worker, one after another.
    # Handed out one at a time (two queued per worker), they spread over the workers.
    if getattr(config.option, "maxschedchunk", "no xdist") is None:
        config.option.maxschedchunk = 1


@pytest.fixture(autouse=True)
def typed_views_match_the_json(monkeypatch):
    """Every callback of every test: its typed view (ae_callback_payload) read field by field, inside
    the callback, equals its JSON form (payload_views.py). The ae_preauthorize() completions too."""
    original = ae.Client.preauthorize

    def preauthorize(self, request, callback):
        def checked(response):
            payload_views.check("preauthorize", (response,))
            callback(response)
        return original(self, request, checked)

    monkeypatch.setattr(ae.Client, "preauthorize", preauthorize)
    payload_views.take_mismatches()
    yield
    mismatches = payload_views.take_mismatches()
    assert not mismatches, "typed views that differ from the JSON:\n" + "\n".join(mismatches[:20])


def pytest_collection_modifyitems(config, items):
    """The slow tests first (a stable sort: the same order on every xdist worker)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def shared_emulator():
    """One emulator process per pytest process (each xdist worker has its own)."""
    holder = {"emulator": Emulator(*EMULATOR_ARGS)}
    yield holder
    holder["emulator"].stop()
    if holder.get("front"):
        holder["front"].stop()


# AE_TEST_HTTPS=h2 or =http/1.1: make_client's clients reach the emulator through a TLS front
# (nghttpx, tlsfront.py; TLS 1.3, that ALPN) with the test root as their ca_file, instead of plain
# http on loopback. scripts/test.sh runs the core flow tests so, both ways.
HTTPS = os.environ.get("AE_TEST_HTTPS") or None
assert HTTPS in (None, "h2", "http/1.1"), f"AE_TEST_HTTPS={HTTPS}: h2 or http/1.1"


@pytest.fixture(scope="session")
def https_pki(tmp_path_factory):
    import tlsfront
    return tlsfront.make_pki(tmp_path_factory.mktemp("pki")) if HTTPS else None


def https_settings(shared_emulator, https_pki, tmp_path_factory):
    """base_url and ca_file of the worker's front (started, or restarted for a new emulator), or {}."""
    if not HTTPS:
        return {}
    import tlsfront
    emulator, front = shared_emulator["emulator"], shared_emulator.get("front")
    if front is None or front.backend_url != emulator.url:
        if front:
            front.stop()
        front = tlsfront.Front(emulator.url, https_pki.good, tmp_path_factory.mktemp("front"),
                               alpn="h2,http/1.1" if HTTPS == "h2" else "http/1.1")
        front.backend_url = emulator.url
        front.start()
        shared_emulator["front"] = front
    emulator.client_url = front.url
    return {"base_url": front.url, "ca_file": str(https_pki.ca_file)}


@pytest.fixture
def emulator(shared_emulator):
    """The shared emulator, reset: no client, token, profile, fault or log entry of an earlier test,
    its starting settings (`--throttle off`) and its clock at real time. Tests change it through
    its control API (config, faults, clock, …); the next test's reset undoes that."""
    emulator = shared_emulator["emulator"]
    if not emulator.alive():  # an earlier test took it down: a new one
        emulator = shared_emulator["emulator"] = Emulator(*EMULATOR_ARGS)
    emulator.reset()
    emulator.client_url = emulator.url  # where make_client's clients reach it (a TLS front with AE_TEST_HTTPS)
    return emulator


@pytest.fixture
def recorder():
    return Recorder()


# Runs a test against both REST API generations: `@both_apis` on a test whose fixtures use `api`
# (make_client, ready_client, … do). Without it a test runs on V2.
both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)


@pytest.fixture
def api(request):
    """The REST API generation of the clients make_client creates: "v2" (default) or "v1"."""
    return getattr(request, "param", "v2")


@pytest.fixture
def wire(api):
    """The emulator's operation names of `api` (harness.WIRE)."""
    return WIRE[api]


@pytest.fixture
def make_client(emulator, recorder, api, shared_emulator, https_pki, tmp_path_factory):
    """Creates clients on the emulator (fast polling, no client-side pacing); closes them after.
    With AE_TEST_HTTPS, through the worker's TLS front; after the test, every request the front
    forwarded during it must have used the protocol asked for (h2, or HTTP/1.1), from its access log."""
    clients = []
    front_log = {}  # the worker's front and the length of its access log before the test's first client

    def make(delegate=None, **options):
        settings = dict(software_statement=SOFTWARE_STATEMENT, base_url=emulator.url, device_id="tv-device-1",
                        poll_interval_ms=1000, max_requests_per_second=-1,
                        api_generation=ae.AE_API_V1 if api == "v1" else ae.AE_API_V2)
        settings.update(https_settings(shared_emulator, https_pki, tmp_path_factory))
        if HTTPS and "front" not in front_log:
            front = shared_emulator["front"]
            front_log.update(front=front, since=len(front.requests()))
        settings.update(options)
        client = ae.Client(delegate=delegate or recorder, **settings)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
    if front_log:
        front_log["front"].assert_protocol(HTTPS, since=front_log["since"])


@pytest.fixture
def ready_client(make_client, recorder):
    client = make_client()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    return client


def login(client, recorder, emulator, mvpd="Cablevision"):
    """getAuthentication → dialog → select → REGCODE → the viewer logs in on another device → 1."""
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider(mvpd)
    regcode = recorder.wait("status", lambda s: s["errorId"] == "REGCODE")[0]
    emulator.login(regcode["code"])
    assert recorder.wait("set_authentication_status", lambda status, code: status == 1) == (1, "")
    return regcode
