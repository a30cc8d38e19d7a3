# SPDX-License-Identifier: Apache-2.0
"""accessenabler-diag on bad input (issue 34): a missing, locked, corrupt, foreign-owned (a symbolic link,
another uid) or newer-schema store, a wrong or missing key, an unreachable or TLS-failing base URL: each
a clear message and its documented exit status (Tools/diag/help.txt, "EXIT STATUS"), and the store's files
byte for byte as they were. doctor against the emulator behind a real TLS front (tlsfront.py): a good
certificate passes; an expired one, an untrusted CA and a wrong host name stop at their step."""
import os
import socket
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
import tlsfront
from diag_tool import Tool, build, hashes, unlogged_emulator
from harness import Recorder
from test_tls import Fronts, pki  # noqa: F401 (pki: a fixture)

KEY = bytes(range(32))


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    return Tool(build(tmp_path_factory.mktemp("diag")))


@pytest.fixture
def fronts(tmp_path):
    """TLS fronts before an emulator that logs nowhere (diag_tool.unlogged_emulator says why)."""
    emulator = unlogged_emulator()
    started = Fronts(emulator, tmp_path)
    yield started
    started.stop_all()
    emulator.stop()


@pytest.fixture
def store(make_client, tmp_path):
    """A sealed store with a registered app, its client destroyed (no -wal, no -shm)."""
    path = tmp_path / "store.sqlite"
    recorder = Recorder()
    client = make_client(delegate=recorder, storage_path=str(path), store_key=KEY)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    client.close()
    (tmp_path / "key").write_bytes(KEY)
    return path


def refused(tool, store, status, *args, says, command="status", json=True):
    before = hashes(store)
    result = tool.run(command, "--store", store, *args)
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert says in result.stderr, result.stderr
    assert hashes(store) == before
    json_result = tool.run(command, "--store", store, *args, "--json")
    assert json_result.returncode == status and (not json or '"problem":"' in json_result.stdout)
    assert hashes(store) == before
    return result


def test_a_missing_store(tool, tmp_path):
    result = tool.run("status", "--store", tmp_path / "none.sqlite")
    assert result.returncode == 3 and "there is no store at" in result.stderr
    assert tool.run("logout", "--store", tmp_path / "none.sqlite", "--requestor", "REF30").returncode == 3
    assert tool.run("bundle", "--store", tmp_path / "none.sqlite").returncode == 3
    assert not list(tmp_path.iterdir())  # nothing created


def test_a_wrong_or_missing_key(tool, store, tmp_path):
    refused(tool, store, 8, "--key-hex", "00" * 32, says="not the key the records of app")
    refused(tool, store, 8, says="are encrypted: give the app's store key")
    refused(tool, store, 8, "--key-hex", "00" * 32, "--requestor", "REF30", says="not the key", command="logout")
    (tmp_path / "short").write_bytes(KEY[:31])
    refused(tool, store, 8, "--key-file", tmp_path / "short", says="a store key is 32 raw bytes or 64 hex digits",
            json=False)
    assert tool.run("status", "--store", store, "--key-file", tmp_path / "key").returncode == 0
    assert tool.run("status", "--store", store, "--key-hex", KEY.hex()).returncode == 0


def test_a_corrupt_store(tool, store):
    data = bytearray(store.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)
    store.write_bytes(bytes(data))
    refused(tool, store, 6, "--key-hex", KEY.hex(), says="damaged")
    refused(tool, store, 6, "--key-hex", KEY.hex(), "--requestor", "REF30", says="damaged", command="logout")
    store.write_bytes(b"not a database" * 100)
    refused(tool, store, 6, says="damaged")


def test_a_newer_schema(tool, store):
    with closing(sqlite3.connect(store)) as db:
        db.execute("PRAGMA user_version = 99")
        db.commit()
    refused(tool, store, 7, "--key-hex", KEY.hex(), says="has schema version 99, newer than this library's 3")
    refused(tool, store, 7, "--key-hex", KEY.hex(), "--requestor", "REF30", says="newer", command="logout")


def test_a_store_that_is_not_the_users(tool, store, tmp_path):
    link = tmp_path / "link.sqlite"
    link.symlink_to(store)
    refused(tool, link, 4, "--key-hex", KEY.hex(), says="is a symbolic link: refused")
    if os.geteuid() == 0:  # CI runs as root: the file of another uid
        os.chown(store, 65534, 65534)
        refused(tool, store, 4, "--key-hex", KEY.hex(), says="is owned by uid 65534")
        refused(tool, store, 4, "--key-hex", KEY.hex(), "--requestor", "REF30", says="owned by uid", command="logout")


def test_a_locked_store(tool, store):
    """Another process holds the write lock: reads never wait (status answers), logout gives up after 5 s.
    (The holder is a process of its own: this one reads the files for their hashes, and closing any
    descriptor of a file drops every POSIX lock the process holds on it, SQLite's among them.)"""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "db.execute('BEGIN IMMEDIATE'); print('locked', flush=True); sys.stdin.read()", str(store)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = hashes(store)
        assert tool.run("status", "--store", store, "--key-hex", KEY.hex()).returncode == 0
        assert {k: before[k] for k in ("db", "-wal")} == {k: hashes(store)[k] for k in ("db", "-wal")}
        result = tool.run("logout", "--store", store, "--key-hex", KEY.hex(), "--requestor", "REF30")
        assert result.returncode == 5 and "locked by another process" in result.stderr
        assert hashes(store)["db"] == before["db"]
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)


def test_usage_errors(tool, store):
    for args in ([], ["frobnicate"], ["status"], ["logout", "--store", store], ["doctor"],
                 ["status", "--store", store, "--errors"], ["bundle", "--store", store, "--errors", "99"],
                 ["status", "--store", store, "--key-file", "a", "--key-hex", "b", "--bogus"]):
        result = tool.run(*args)
        assert result.returncode == 2 and "Try 'accessenabler-diag --help'" in result.stderr, (args, result.stderr)


def unused_port():
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def doctor(tool, url, *args, status):
    result = tool.json("doctor", "--base-url", url, "--connect-timeout-ms", "3000", "--timeout-ms", "5000", *args,
                       "--json", status=status)
    return result, {step["name"]: step for step in result["steps"]}


def test_doctor_unreachable(tool):
    result, steps = doctor(tool, f"http://127.0.0.1:{unused_port()}", status=12)
    assert steps["tcp"]["state"] == "failed" and result["problem"] == "tcp" and "adobe" not in steps
    result, steps = doctor(tool, "https://no-such-host.invalid", status=11)
    assert steps["dns"]["state"] == "failed" and "tcp" not in steps
    result, steps = doctor(tool, "http://adobe.example", status=10)  # plain http off loopback
    assert steps["configuration"]["state"] == "failed"
    assert doctor(tool, "https://x.example", "--ca-file", "/nonexistent.pem", status=10)[0]["problem"] == "configuration"


def test_doctor_through_a_tls_front(tool, fronts, pki):  # noqa: F811 (pki: a fixture)
    good = fronts.start(pki.good)
    result, steps = doctor(tool, good.url, "--ca-file", pki.ca_file, status=0)
    assert [s["state"] for s in result["steps"]] == ["ok"] * 7, result
    assert "expires" in steps["certificate"]["detail"] and steps["tls"]["ms"] is not None
    pinned = doctor(tool, good.url, "--ca-file", pki.ca_file, "--pin", tlsfront.pin(pki.good.cert), "--tls13", status=0)
    assert pinned[0]["ok"] is True
    text = tool.run("doctor", "--base-url", good.url, "--ca-file", pki.ca_file)
    assert text.returncode == 0 and "Adobe Pass is reachable from this box." in text.stdout

    cases = [(pki.expired, 14, "certificate_expired"), (pki.untrusted, 13, "certificate_untrusted"),
             (pki.wrong_host, 13, "host_name_mismatch")]
    for pair, status, cause in cases:
        front = fronts.start(pair)
        result, steps = doctor(tool, front.url, "--ca-file", pki.ca_file, status=status)
        assert steps["tls"]["state"] == "failed" and cause in steps["tls"]["detail"], steps["tls"]
        assert "adobe" not in steps
    # Without the test root the good front is untrusted; a pin of another key refuses it.
    assert doctor(tool, good.url, status=13)[1]["tls"]["state"] == "failed"
    other_pin = tlsfront.pin(pki.self_signed.cert)
    assert "pinned_key_mismatch" in doctor(tool, good.url, "--ca-file", pki.ca_file, "--pin", other_pin,
                                           status=13)[1]["tls"]["detail"]
