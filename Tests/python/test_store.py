# SPDX-License-Identifier: Apache-2.0
"""The durable token store through the C API: encryption at rest, damaged files and the
integrity-check options, the upgrade from the first schema, several processes of one app (and
several apps) on one file, and Adobe's clock against a wrong local clock (libfaketime)."""
import fcntl
import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import login
from harness import CLOCK_SLACK_S, ROOT, SOFTWARE_STATEMENT, Recorder, ae

CHILD = Path(__file__).with_name("store_child.py")
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
OTHER_APP = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImFub3RoZXItYXBwIn0.c2lnbmF0dXJl"


def child(emulator, store, actions, key=None, statement=SOFTWARE_STATEMENT, faketime=None, wait=True, api=None):
    """Runs store_child.py (another process of the app; `api` "v1" for REST API V1); returns its JSON
    result (or the Popen)."""
    env = dict(os.environ)
    if faketime is not None:
        # The wall clock moves; the monotonic and boot clocks stay true, as on a real box.
        env.update(LD_PRELOAD=FAKETIME, FAKETIME=faketime, FAKETIME_DONT_FAKE_MONOTONIC="1",
                   FAKETIME_NO_CACHE="1")
    spec = json.dumps({"url": emulator.url, "store": str(store), "key": key.hex() if key else None,
                       "statement": statement, "actions": actions, "api": api})
    process = subprocess.Popen([sys.executable, str(CHILD), spec], cwd=CHILD.parent, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return process
    output, errors = process.communicate(timeout=90)
    assert process.returncode == 0, errors[-2000:]
    return json.loads(output.strip().splitlines()[-1])


def logged_in(make_client, recorder, emulator, store, **options):
    client = make_client(storage_path=str(store), **options)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    return client


def file_bytes(store):
    return b"".join(Path(str(store) + suffix).read_bytes() for suffix in ("", "-wal") if Path(str(store) + suffix).exists())


# --- encryption at rest -------------------------------------------------------------------------

def test_a_keyed_store_seals_every_secret(make_client, recorder, emulator, tmp_path):
    store, key = tmp_path / "store.sqlite", os.urandom(32)
    client = logged_in(make_client, recorder, emulator, store, store_key=key)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.close()
    with sqlite3.connect(store) as database:
        for table, column in [("clients", "client_secret"), ("access_tokens", "token"), ("profiles", "body")]:
            values = [row[0] for row in database.execute(f"SELECT {column} FROM {table}")]
            assert values and all(value.startswith("ae-gcm1:") for value in values), (table, values)
        secret = database.execute("SELECT client_id FROM clients").fetchone()[0]
    raw = file_bytes(store)
    assert b'"attributes"' not in raw and b"10001" not in raw  # the profile and its zip codes
    assert secret.encode() in raw  # ids stay readable (they key the records); secrets do not

    # Same key: the viewer is still authenticated, with no request.
    emulator.clear_log()
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [1, ""]
    assert emulator.operations() == []


def test_a_wrong_or_missing_key_is_a_named_error_and_changes_nothing(make_client, recorder, emulator, tmp_path):
    store, key = tmp_path / "store.sqlite", os.urandom(32)
    logged_in(make_client, recorder, emulator, store, store_key=key).close()
    before = hashlib.sha256(file_bytes(store)).hexdigest()
    for wrong in (bytes(32), None):
        with pytest.raises(ae.AEError) as refused:
            ae.Client(SOFTWARE_STATEMENT, Recorder(), base_url=emulator.url, storage_path=str(store), store_key=wrong)
        assert refused.value.status == ae.AE_E_STORE_KEY
        assert "key" in ae.last_error_message()
    assert hashlib.sha256(file_bytes(store)).hexdigest() == before
    with pytest.raises(ae.AEError) as refused:
        ae.Client(SOFTWARE_STATEMENT, Recorder(), base_url=emulator.url, storage_path=str(store), store_key=key[:31])
    assert refused.value.status == ae.AE_E_INVALID_ARG
    # The right key still works afterwards: no silent logout.
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [1, ""]


def test_the_first_key_seals_an_unencrypted_store_and_keeps_the_login(make_client, recorder, emulator, tmp_path):
    store, key = tmp_path / "store.sqlite", os.urandom(32)
    logged_in(make_client, recorder, emulator, store).close()
    assert b'"attributes"' in file_bytes(store)
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [1, ""]
    with sqlite3.connect(store) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        body = database.execute("SELECT body FROM profiles").fetchone()[0]
    assert body.startswith("ae-gcm1:")


def test_an_unencrypted_store_is_private_and_says_so_once(make_client, tmp_path):
    store, lines = tmp_path / "store.sqlite", []
    clients = [make_client(storage_path=str(store), log=lambda level, message: lines.append((level, message)),
                           log_level=ae.AE_LOG_WARNING) for _ in range(2)]
    assert [level for level, message in lines if "not encrypted" in message] == [ae.AE_LOG_WARNING]
    for suffix in ("", "-wal", "-shm"):  # while open (a clean close removes -wal and -shm)
        assert stat.S_IMODE(os.stat(str(store) + suffix).st_mode) == 0o600


def forged_profile(make_client, recorder, emulator, tmp_path, user_id):
    """A profile row exactly as a build without a key writes it (logged in on a store of its own),
    its userID changed: what an attacker with write access to the file would insert."""
    plain = tmp_path / "plain.sqlite"
    logged_in(make_client, recorder, emulator, plain).close()
    with sqlite3.connect(plain) as database:
        row = list(database.execute(
            "SELECT app, api, requestor, mvpd, device_id, body, not_after FROM profiles").fetchone())
    body = json.loads(row[5])
    body["attributes"]["userID"]["value"] = user_id
    row[5] = json.dumps(body)
    return row


def test_a_forged_plaintext_profile_in_a_keyed_store_is_refused_and_logged(make_client, recorder, emulator, tmp_path):
    store, key, lines = tmp_path / "store.sqlite", os.urandom(32), []
    keyed = make_client(storage_path=str(store), store_key=key)
    keyed.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    keyed.close()  # registered, profiles synced (none): the viewer is not logged in
    row = forged_profile(make_client, recorder, emulator, tmp_path, "forged-user")
    with sqlite3.connect(store) as database:
        database.execute("INSERT INTO profiles (app, api, requestor, mvpd, device_id, body, not_after) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    emulator.clear_log()
    delegate = Recorder()
    client = make_client(delegate=delegate, storage_path=str(store), store_key=key, log_level=ae.AE_LOG_ERROR,
                         log=lambda level, message: lines.append((level, message)))
    client.set_requestor("REF30")
    assert delegate.wait("set_requestor_complete") == (1,)
    for count in (1, 2):
        client.check_authentication()
        assert delegate.wait("set_authentication_status", count=count) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    assert emulator.operations() == []  # judged from the store, which holds the forged row only
    tampering = [message for level, message in lines if "tamper" in message]
    assert len(tampering) == 1 and [level for level, message in lines if "tamper" in message] == [ae.AE_LOG_ERROR]
    assert "profiles" in tampering[0]
    assert not any("forged-user" in message or "attributes" in message for level, message in lines)


def test_after_the_first_key_plaintext_is_never_accepted_again(make_client, recorder, emulator, tmp_path):
    store, key = tmp_path / "store.sqlite", os.urandom(32)
    logged_in(make_client, recorder, emulator, store).close()
    with sqlite3.connect(store) as database:
        plaintext = database.execute("SELECT body FROM profiles").fetchone()[0]
    assert not plaintext.startswith("ae-gcm1:")
    # The legitimate migration: the first create with a key seals the store and keeps the login.
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [1, ""]
    with sqlite3.connect(store) as database:
        assert database.execute("SELECT body FROM profiles").fetchone()[0].startswith("ae-gcm1:")
        # The very plaintext the store held before: after the migration, no longer accepted.
        database.execute("UPDATE profiles SET body = ?", (plaintext,))
    emulator.clear_log()
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [0, ae.USER_NOT_AUTHENTICATED_ERROR]
    assert emulator.operations() == []
    # Nor when the app's key check is deleted as well (the store still holds sealed values).
    with sqlite3.connect(store) as database:
        database.execute("DELETE FROM app_keys")
    assert child(emulator, store, ["requestor", "check"], key=key)["authenticated"] == [0, ae.USER_NOT_AUTHENTICATED_ERROR]


# --- the file's owner and mode ------------------------------------------------------------------

def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_too_open_store_is_repaired_to_0600_with_a_named_status(make_client, recorder, emulator, tmp_path):
    store, lines = tmp_path / "store.sqlite", []
    first = logged_in(make_client, recorder, emulator, store)  # stays open: -wal and -shm exist
    for suffix, too_open in (("", 0o644), ("-wal", 0o660), ("-shm", 0o606)):
        os.chmod(str(store) + suffix, too_open)
    delegate = Recorder()
    client = make_client(delegate=delegate, storage_path=str(store), log_level=ae.AE_LOG_WARNING,
                         log=lambda level, message: lines.append((level, message)))
    assert client.store_status() == ae.AE_STORE_MODE_REPAIRED
    for suffix in ("", "-wal", "-shm"):
        assert mode(str(store) + suffix) == 0o600, suffix
    assert [level for level, message in lines if "group or others" in message] == [ae.AE_LOG_WARNING]
    # The records were kept, and the first client's connection still works.
    client.set_requestor("REF30")
    assert delegate.wait("set_requestor_complete") == (1,)
    client.check_authentication()
    assert delegate.wait("set_authentication_status") == (1, "")
    first.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (1, "")
    client.close()
    first.close()
    # Once repaired, the next create opens it as it is.
    assert make_client(storage_path=str(store)).store_status() == ae.AE_STORE_OPENED


def store_fingerprint(path):
    info = os.lstat(path)
    return (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode), info.st_size, info.st_mtime_ns,
            hashlib.sha256(Path(path).read_bytes()).hexdigest())


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs the tests as root)")
def test_a_store_owned_by_another_user_is_refused_and_left_untouched(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    os.chown(store, 12345, 12345)
    before, files = store_fingerprint(store), sorted(path.name for path in tmp_path.iterdir())
    assert "store.sqlite-wal" not in files  # closed cleanly
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(store))
    assert refused.value.status == ae.AE_E_STORAGE
    assert "owned by uid 12345" in ae.last_error_message()
    assert store_fingerprint(store) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == files  # no -wal, -shm or aside made


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs the tests as root)")
def test_a_registration_lock_owned_by_another_user_is_refused_at_create(make_client, recorder, emulator, tmp_path):
    """Issue 28 item 8: `<store>.lock` is checked as the store, -wal and -shm are. On 1.2.0 another user
    who made it in the store's directory held it, and every cold setRequestor waited 45 s."""
    store = tmp_path / "store.sqlite"
    lock = tmp_path / "store.sqlite.lock"
    lock.touch(mode=0o644)
    os.chown(lock, 12345, 12345)
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(store))
    assert refused.value.status == ae.AE_E_STORAGE
    message = ae.last_error_message()
    assert ".lock" in message and "owned by uid 12345" in message
    assert os.stat(lock).st_uid == 12345  # untouched


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs the tests as root)")
def test_a_registration_lock_made_by_another_user_after_create_is_not_waited_for(make_client, recorder, emulator,
                                                                               tmp_path):
    """The lock file appears, another user's and held, after create checked the directory: setRequestor
    registers without waiting for it (45 s on 1.2.0), and the store works."""
    directory = tmp_path / "shared"
    directory.mkdir(mode=0o1777)
    directory.chmod(0o1777)  # sticky, as /tmp: others may create names, not replace ours
    store = directory / "store.sqlite"
    client = make_client(storage_path=str(store))
    lock = directory / "store.sqlite.lock"
    lock.touch(mode=0o644)
    os.chown(lock, 12345, 12345)
    holder = open(lock, "rb")
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        client.set_requestor("REF30")
        assert recorder.wait("set_requestor_complete", timeout=20) == (1,)  # 1.2.0: 45 s for the lock first
    finally:
        holder.close()


def test_a_store_in_a_directory_anyone_may_write_without_the_sticky_bit_is_refused(make_client, tmp_path):
    directory = tmp_path / "open"
    directory.mkdir()
    directory.chmod(0o777)
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(directory / "store.sqlite"))
    assert refused.value.status == ae.AE_E_STORAGE
    message = ae.last_error_message()
    assert "0777" in message and "any user may replace" in message
    assert list(directory.iterdir()) == []  # nothing made there


def test_a_sticky_world_writable_directory_is_used_with_a_warning(make_client, tmp_path):
    directory = tmp_path / "tmp-like"
    directory.mkdir()
    directory.chmod(0o1777)
    lines = []
    client = make_client(storage_path=str(directory / "store.sqlite"), log_level=ae.AE_LOG_WARNING,
                         log=lambda level, message: lines.append((level, message)))
    assert client.store_status() == ae.AE_STORE_CREATED
    assert any(level == ae.AE_LOG_WARNING and "writable by every user" in message for level, message in lines)


def test_a_missing_store_directory_is_named_with_the_systems_text(make_client, tmp_path):
    """Issue 28 item 14: the README's snippet, run as written, failed on /var/lib/myapp with a bare
    "errno 2" nobody saw; the message now says what is wrong and what to do."""
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(tmp_path / "missing" / "store.sqlite"))
    assert refused.value.status == ae.AE_E_STORAGE
    message = ae.last_error_message()
    assert "does not exist" in message and "No such file or directory (errno 2)" in message


@pytest.mark.parametrize("target", ["a store", "nothing"])
def test_a_symlink_in_place_of_the_store_is_refused(make_client, recorder, emulator, tmp_path, target):
    store, real = tmp_path / "store.sqlite", tmp_path / "elsewhere.sqlite"
    if target == "a store":
        logged_in(make_client, recorder, emulator, real).close()
        before = store_fingerprint(real)
    store.symlink_to(real)
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(store))
    assert refused.value.status == ae.AE_E_STORAGE
    assert "symbolic link" in ae.last_error_message()
    assert store.is_symlink()
    if target == "a store":
        assert store_fingerprint(real) == before
    else:
        assert not real.exists()  # not created through the link


# --- damaged files, integrity-check options -----------------------------------------------------

@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_store_is_moved_aside_with_a_named_status(make_client, recorder, emulator, tmp_path, damage):
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    with sqlite3.connect(store) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = store.read_bytes()
    damaged = os.urandom(len(data)) if damage == "garbage" else data[: len(data) // 2]
    store.write_bytes(damaged)
    result = child(emulator, store, ["requestor", "check"])
    assert result["store_status"] == ae.AE_STORE_RECOVERED
    assert result["requestor"] == 1
    assert result["authenticated"] == [0, ae.USER_NOT_AUTHENTICATED_ERROR]  # logged out, nothing crashed
    aside = [path for path in tmp_path.iterdir()
             if path.name.startswith("store.sqlite.corrupt-") and path.name.split("-")[-1].isdigit()]
    assert len(aside) == 1 and aside[0].read_bytes() == damaged  # kept for a post-mortem
    # The new store works: a second process opens it as it is.
    assert child(emulator, store, [])["store_status"] == ae.AE_STORE_OPENED


def test_store_check_options(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    client = make_client(storage_path=str(store), store_check=ae.AE_STORE_CHECK_ALL)
    assert client.store_status() == ae.AE_STORE_OPENED
    client.close()
    client = make_client(storage_path=str(store), store_check=ae.AE_STORE_CHECK_CLEAR)
    assert client.store_status() == ae.AE_STORE_CLEARED
    client.set_requestor("REF30")
    recorder.wait("set_requestor_complete", count=2)
    client.check_authentication()
    assert recorder.wait("set_authentication_status", count=2) == (0, ae.USER_NOT_AUTHENTICATED_ERROR)
    client.close()
    store.write_bytes(b"not a database" * 100)
    client = make_client(storage_path=str(store), store_check=ae.AE_STORE_CHECK_NONE)
    assert client.store_status() == ae.AE_STORE_RECOVERED
    with pytest.raises(ae.AEError) as refused:
        make_client(storage_path=str(store), store_check=9)
    assert refused.value.status == ae.AE_E_INVALID_ARG
    assert make_client().store_status() == ae.AE_STORE_IN_MEMORY


# --- upgrade from the walking skeleton's schema ------------------------------------------------

def test_a_store_of_the_first_schema_opens_with_the_user_still_authenticated(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    # Turn the file into what the walking skeleton wrote: its tables only, user_version 1.
    with sqlite3.connect(store) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database.executescript("DROP TABLE app_keys; DROP TABLE server_clock; DROP TABLE recent_failures; "
                               "DROP TABLE diagnostics; ALTER TABLE clients DROP COLUMN registered_at; "
                               "PRAGMA user_version = 1;")
        schema = sorted(row[0] for row in database.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    reference = sqlite3.connect(":memory:")
    reference.executescript((ROOT / "Tests/fixtures/store-v1.sql").read_text())
    assert schema == sorted(row[0] for row in reference.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    emulator.clear_log()
    result = child(emulator, store, ["requestor", "check", "authorize:LIVE"])
    assert result["store_status"] == ae.AE_STORE_UPGRADED
    assert result["authenticated"] == [1, ""] and result["authorized"] == [True]
    assert "processSoftwareStatementUsingPOST" not in emulator.operations()  # the registration was kept too


# --- several processes, several apps ------------------------------------------------------------

def test_processes_starting_together_register_the_app_once(emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    processes = [child(emulator, store, ["requestor"], wait=False) for _ in range(4)]
    results = [json.loads(p.communicate(timeout=90)[0].strip().splitlines()[-1]) for p in processes]
    assert [r["requestor"] for r in results] == [1, 1, 1, 1]
    assert emulator.operations().count("processSoftwareStatementUsingPOST") == 1


def test_a_profile_stored_by_one_process_is_seen_by_the_others(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    assert child(emulator, store, ["requestor", "check"])["authenticated"][0] == 0
    client = logged_in(make_client, recorder, emulator, store)
    assert child(emulator, store, ["requestor", "check"])["authenticated"] == [1, ""]
    client.logout()
    recorder.wait("set_authentication_status", lambda status, code: status == 0, count=1)
    assert child(emulator, store, ["requestor", "check"])["authenticated"][0] == 0


def test_concurrent_writers_in_several_processes_lose_nothing(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    resources = [[f"R{p}-{i}" for i in range(5)] for p in range(4)]
    processes = [child(emulator, store, ["requestor"] + [f"authorize:{r}" for r in mine], wait=False)
                 for mine in resources]
    results = [json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1]) for p in processes]
    assert all(len(r["authorized"]) == 5 for r in results)
    permitted = {r for mine, result in zip(resources, results) for r, ok in zip(mine, result["authorized"]) if ok}
    with sqlite3.connect(store) as database:
        stored = {row[0] for row in database.execute("SELECT resource FROM authorizations")}
    assert permitted and permitted <= stored


def test_apps_share_the_file_not_their_records_and_logout_is_per_app(make_client, recorder, emulator, tmp_path):
    store = tmp_path / "store.sqlite"
    first = logged_in(make_client, recorder, emulator, store)
    other = Recorder()
    second = make_client(delegate=other, storage_path=str(store), software_statement=OTHER_APP)
    second.set_requestor("REF30")
    other.wait("set_requestor_complete")
    second.check_authentication()
    assert other.wait("set_authentication_status") == (0, ae.USER_NOT_AUTHENTICATED_ERROR)  # no cross-app SSO here
    login(second, other, emulator)
    first.logout()
    recorder.wait("set_authentication_status", lambda status, code: status == 0)
    assert child(emulator, store, ["requestor", "check"], statement=OTHER_APP)["authenticated"] == [1, ""]
    assert child(emulator, store, ["requestor", "check"])["authenticated"][0] == 0


# --- Adobe's clock against a wrong local clock ---------------------------------------------------

needs_faketime = pytest.mark.skipif(not os.path.exists(FAKETIME), reason="libfaketime (Debian: faketime) is missing")


@needs_faketime
def test_faketime_moves_the_child_clock_only(emulator, tmp_path):
    output = subprocess.run([sys.executable, "-c", "import time; print(time.time())"], capture_output=True, text=True,
                            env=dict(os.environ, LD_PRELOAD=FAKETIME, FAKETIME="@1970-01-02 00:00:00")).stdout
    assert float(output) < 200_000


@needs_faketime
@pytest.mark.parametrize("clock", ["@1970-01-02 00:00:00", "-1d", "+1d"])
def test_a_wrong_local_clock_neither_expires_valid_tokens(make_client, recorder, emulator, tmp_path, clock):
    emulator.config(profile_ttl_s=3600)
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    emulator.clear_log()
    result = child(emulator, store, ["requestor", "check", "authorize:LIVE"], faketime=clock)
    assert result["authenticated"] == [1, ""] and result["authorized"] == [True]
    # This boot's clock anchor is in the store: no request was needed to know Adobe's time.
    assert emulator.operations() == ["retrieveAuthorizeDecisionsForMvpdUsingPOST"]


@pytest.mark.slow
@needs_faketime
def test_a_clock_behind_does_not_use_an_expired_profile(make_client, recorder, emulator, tmp_path):
    emulator.config(profile_ttl_s=3)
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    time.sleep(3 + CLOCK_SLACK_S)
    emulator.clear_log()
    # One day behind, the profile would look valid for another day; Adobe's clock says it ended.
    result = child(emulator, store, ["requestor", "check"], faketime="-1d")
    assert result["authenticated"] == [0, ae.USER_NOT_AUTHENTICATED_ERROR]
    assert emulator.operations() == []  # judged from the store, on the anchored clock


@needs_faketime
def test_a_clock_ahead_learns_adobes_time_from_the_first_answer(make_client, recorder, emulator, tmp_path):
    emulator.config(profile_ttl_s=3600)
    store = tmp_path / "store.sqlite"
    logged_in(make_client, recorder, emulator, store).close()
    with sqlite3.connect(store) as database:  # as after a reboot: no anchor for this boot
        database.execute("DELETE FROM server_clock")
    result = child(emulator, store, ["requestor", "check", "authorize:LIVE"], faketime="+2d")
    assert result["authenticated"] == [1, ""] and result["authorized"] == [True]
