# SPDX-License-Identifier: Apache-2.0
"""Hostile numbers in the store (issue 16): a file another process, a bad disk or an attacker with
the user's rights wrote. Each numeric column of a real store (Sources/AccessEnabler/Store/StoreSchema.swift),
and the numbers inside the stored profile's JSON, is set to an extreme (0, -1, 2^53, 2^63-1, -2^63,
1e300 as REAL, forty 9s as text); then another process of the app (store_child.py) runs setRequestor,
checkAuthentication, getAuthorization and getMetadata on it: it must not crash, and every call must
end with its documented callback (a named outcome)."""
import json
import sqlite3
import time

import pytest

from conftest import both_apis, login
from test_store import child

EXTREMES = {"0": 0, "-1": -1, "2^53": 2 ** 53, "2^63-1": 2 ** 63 - 1, "-2^63": -2 ** 63, "1e300": 1e300,
            "9x40": "9" * 40}

# Limits.epochMillis: the end of year 9999. Times read from the store are clamped as Adobe's are.
MAX_MILLIS = 253_402_300_799_999
NOW_MS = int(time.time() * 1000)


def clamped(value):
    """The time the SDK reads for a stored value: an integer clamped to 0...MAX_MILLIS; else none."""
    return min(max(value, 0), MAX_MILLIS) if isinstance(value, int) else None


# (table, column) of every number the SDK reads back from the store.
COLUMNS = [("access_tokens", "expires_at"), ("configurations", "fetched_at"), ("profiles", "not_after"),
           ("profile_syncs", "synced_at"), ("authorizations", "not_after"), ("server_clock", "server_ms"),
           ("server_clock", "boot_ms"), ("server_clock", "latest_server_ms")]
# Numbers inside the stored profile (its JSON body, unsealed: the store has no key here).
PROFILE_FIELDS = ["notAfter", "notBefore"]


@pytest.fixture
def stored_session(make_client, recorder, emulator, tmp_path, api):
    """A store with every table filled: registered, configuration, profile, authorization, Adobe's clock."""
    store = tmp_path / "golden.sqlite"
    client = make_client(storage_path=str(store))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.get_authorization("LIVE")
    recorder.wait("set_token")
    client.close()
    with sqlite3.connect(store) as database:
        for table, _ in COLUMNS:
            assert database.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] >= 1, table
    return store


def copy_with(golden, path, change):
    """A copy of the store `golden` at `path` with `change(database)` applied."""
    with sqlite3.connect(golden) as source, sqlite3.connect(path) as target:
        source.backup(target)
        change(target)
    return path


def run_app(emulator, store, api):
    """Another process of the app on `store`: every call ends with its callback, with a named outcome."""
    # getMetadata before getAuthorization: the stored values, before a new authorization replaces them.
    result = child(emulator, store, ["requestor", "check", "metadata", "authorize:LIVE"], api=api)
    assert result.get("create") is None, result  # the store opens (a damaged one is set aside, not refused)
    assert result["requestor"] in (0, 1), result
    status, code = result["authenticated"]
    assert (status, code) in ((1, ""), (0, "User Not Authenticated Error")), result
    assert len(result["authorized"]) == 1, result
    expiry, authorized_until, device, source = result["metadata"]
    assert device == "tv-device-1", result
    for value in (expiry, authorized_until):
        assert value is None or (isinstance(value, int) and -2 ** 63 <= value < 2 ** 63), result
    assert source is None or isinstance(source, str), result
    assert all(isinstance(error_id, str) and error_id for error_id in result["statuses"]), result
    return result


# Every column on V2; on V1 (its own profile sync) the columns of the session and its sync.
CASES = [("v2", table, column) for table, column in COLUMNS] + [
    ("v1", "access_tokens", "expires_at"), ("v1", "profiles", "not_after"), ("v1", "profile_syncs", "synced_at")]


@pytest.mark.slow
@pytest.mark.parametrize("api,table,column", CASES, indirect=["api"], ids=[f"{a}-{t}.{c}" for a, t, c in CASES])
def test_extreme_numbers_in_a_store_column_are_named_outcomes(stored_session, emulator, tmp_path, api, table, column):
    for label, value in EXTREMES.items():
        store = copy_with(stored_session, tmp_path / f"{column}-{label}.sqlite",
                          lambda database: database.execute(f"UPDATE {table} SET {column} = ?", (value,)))
        result = run_app(emulator, store, api)
        if (table, column) == ("authorizations", "not_after"):  # getMetadata(1) answers the stored expiry
            expected = clamped(value) if (clamped(value) or 0) > NOW_MS else None
            assert result["metadata"][1] == expected, (label, result)


def body_with(field, value):
    def change(database):
        for key, body in database.execute("SELECT mvpd, body FROM profiles").fetchall():
            profile = json.loads(body)
            profile[field] = value
            # 1e300 and the forty 9s go in as JSON numbers (the text a writer would leave).
            text = json.dumps(profile).replace(json.dumps(str(value)), str(value)) if isinstance(value, str) else \
                json.dumps(profile)
            database.execute("UPDATE profiles SET body = ? WHERE mvpd = ?", (text, key))
    return change


@both_apis
@pytest.mark.slow
@pytest.mark.parametrize("field", PROFILE_FIELDS)
def test_extreme_numbers_in_the_stored_profile_are_named_outcomes(stored_session, emulator, tmp_path, api, field):
    for label, value in EXTREMES.items():
        store = copy_with(stored_session, tmp_path / f"body-{field}-{label}.sqlite", body_with(field, value))
        result = run_app(emulator, store, api)
        if field == "notAfter":  # a valid profile's expiry, clamped; else not authenticated
            expected = clamped(value) if (clamped(value) or 0) > NOW_MS else None
            assert result["metadata"][0] == expected, (label, result)
            assert result["authenticated"][0] == (1 if expected else 0), (label, result)
