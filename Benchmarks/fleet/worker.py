# SPDX-License-Identifier: Apache-2.0
"""One client process of the outage simulation: `count` real SDK clients (accessenabler over ctypes),
each with its own store file and device id, behaving as a set-top player.

    python3 Benchmarks/fleet/worker.py SETTINGS.json     (started by Benchmarks/outage.py)

Setup: every client calls setRequestor, then logs in on the second screen (getAuthentication →
provider dialog → setSelectedProvider → REGCODE → the viewer logs in through the emulator's
control API, POST /_emulator/login → the SDK's poll sees it), all clients at once. Then it prints
`READY {...}` and waits for one line on stdin, `{"t0": <Unix time>, "end": <Unix time>}`.

The player: getAuthorization(resource) every `period` seconds, from a random phase in
[t0, t0 + period); after a failure, again `host_retry` seconds after the failure was reported.
Every call is recorded: start, end, outcome (token / failed), and the last advanced status the SDK
reported for it (errorId, message, the HTTP status and code of its enhanced error). A call with no
answer after `call_timeout` seconds is recorded as `no_answer` and the player calls again.
No call starts after `end`; calls still open `drain` seconds later are recorded as `open`.
At the end it writes the calls and the per-second connect() counts of the preloaded counter to
`result` and prints `DONE`. Diagnostics go to stderr; stdout carries the protocol lines only.
"""
from __future__ import annotations

import heapq
import json
import random
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2] / "Tests" / "python"))
sys.path.insert(0, str(HERE.parents[1]))
from harness import SOFTWARE_STATEMENT, Recorder, ae  # noqa: E402

from fleet import shim  # noqa: E402

REQUESTOR, MVPD = "REF30", "Cablevision"
SETUP_TIMEOUT_S = 180


class Player(Recorder):
    """A client's delegate. Before the measurement it records callbacks as the test harness's
    Recorder does (the setup waits on them); during it, it accounts for getAuthorization calls."""

    def __init__(self, index: int, device: str, scheduler: "Scheduler"):
        super().__init__()
        self.index, self.device, self.scheduler = index, device, scheduler
        self.client: ae.Client | None = None
        self.measuring = False
        self.calls: list[dict] = []
        self.current: dict | None = None
        self.stray_statuses = 0  # statuses that arrived with no call open
        self.lock = threading.Lock()

    # --- callbacks (on the SDK's callback thread) ---------------------------------------------
    def status(self, status):
        if not self.measuring:
            return Recorder.__getattr__(self, "status")(status)
        with self.lock:
            if self.current is None:
                self.stray_statuses += 1
            else:
                self.current["statuses"].append(status)

    def set_token(self, token, resource):
        if not self.measuring:
            return Recorder.__getattr__(self, "set_token")(token, resource)
        self.finish("token")

    def token_request_failed(self, resource, code, description):
        if not self.measuring:
            return Recorder.__getattr__(self, "token_request_failed")(resource, code, description)
        self.finish("failed", code, description)

    # --- the player's calls --------------------------------------------------------------------
    def call(self, due: float, resource: str) -> None:
        with self.lock:
            self.current = {"start": time.time(), "due": due, "statuses": []}
        try:
            self.client.get_authorization(resource)
        except ae.AEError as error:  # refused at once: no callback follows
            self.finish("refused", str(error.status), error.message or "")

    def finish(self, outcome: str, code: str | None = None, description: str | None = None) -> None:
        with self.lock:
            call, self.current = self.current, None
        if call is None:
            print(f"worker: client {self.index}: {outcome} with no call open", file=sys.stderr)
            return
        end = time.time()
        statuses = call.pop("statuses")
        last = statuses[-1] if statuses else {}
        enhanced = last.get("enhancedError") or {}
        self.calls.append({**call, "end": end, "outcome": outcome, "code": code, "description": description,
                           "error_id": last.get("errorId"), "message": last.get("message"),
                           "http_status": enhanced.get("status"), "error_code": enhanced.get("code"),
                           "statuses": len(statuses)})
        if outcome != "no_answer":
            self.scheduler.after_call(self, call["start"], end, outcome == "token")

    def expire(self, now: float, timeout: float) -> bool:
        """Records the open call as `no_answer` if it has been open longer than `timeout`."""
        with self.lock:
            stale = self.current is not None and now - self.current["start"] > timeout
        if stale:
            self.finish("no_answer")
            self.scheduler.schedule(self, now)
        return stale


class Scheduler:
    """Starts each player's calls when they are due (one thread; calls return at once, answers come
    on the SDK's threads)."""

    def __init__(self, period: float, host_retry: float, call_timeout: float, resource: str):
        self.period, self.host_retry, self.call_timeout, self.resource = period, host_retry, call_timeout, resource
        self.end = float("inf")
        self.players: list[Player] = []
        self._due: list[tuple[float, int, Player]] = []
        self._condition = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)

    def schedule(self, player: Player, when: float) -> None:
        with self._condition:
            heapq.heappush(self._due, (when, player.index, player))
            self._condition.notify()

    def after_call(self, player: Player, start: float, end: float, succeeded: bool) -> None:
        """The player's next call: a period after the last successful one started, or host_retry after a failure."""
        self.schedule(player, max(end, start + self.period) if succeeded else end + self.host_retry)

    def start(self, t0: float, end: float, rng: random.Random) -> None:
        self.end = end
        for player in self.players:
            player.measuring = True
            self.schedule(player, t0 + rng.uniform(0, self.period))
        self._thread.start()

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            self._condition.notify()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        next_watch = 0.0
        while True:
            with self._condition:
                while not self._stopped:
                    now = time.time()
                    if self._due and self._due[0][0] <= now:
                        break
                    wait = min(self._due[0][0] - now if self._due else 1.0, 1.0)
                    self._condition.wait(max(wait, 0.001))
                if self._stopped:
                    return
                due, _, player = heapq.heappop(self._due)
            if due < self.end:
                player.call(due, self.resource)
            if time.time() >= next_watch:  # the watchdog, once a second
                next_watch = time.time() + 1
                for each in self.players:
                    each.expire(time.time(), self.call_timeout)


def control_login(emulator_url: str, code: str) -> None:
    """The viewer logs in on the second screen (the emulator's control API, as the test harness does)."""
    request = urllib.request.Request(f"{emulator_url}/_emulator/login", data=json.dumps({"code": code}).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def log_in(player: Player, emulator_url: str) -> None:
    player.client.get_authentication()
    player.wait("display_provider_dialog", timeout=SETUP_TIMEOUT_S)
    player.client.set_selected_provider(MVPD)
    code = player.wait("status", lambda s: s["errorId"] == "REGCODE", timeout=SETUP_TIMEOUT_S)[0]["code"]
    control_login(emulator_url, code)
    player.wait("set_authentication_status", lambda status, _: status == 1, timeout=SETUP_TIMEOUT_S)


def setup(settings: dict, scheduler: Scheduler) -> dict:
    """Creates, registers and logs in the clients; returns the setup's durations."""
    began = time.monotonic()
    store = Path(settings["store_dir"])
    for index in range(settings["first"], settings["first"] + settings["count"]):
        device = f"fleet-{index:04d}"
        player = Player(index, device, scheduler)
        player.client = ae.Client(SOFTWARE_STATEMENT, player, base_url=settings["proxy_url"],
                                  storage_path=str(store / f"client-{index:04d}.sqlite"), device_id=device,
                                  poll_interval_ms=1000)
        scheduler.players.append(player)
    for player in scheduler.players:
        player.client.set_requestor(REQUESTOR)
    for player in scheduler.players:
        if player.wait("set_requestor_complete", timeout=SETUP_TIMEOUT_S) != (1,):
            raise RuntimeError(f"client {player.index}: setRequestor failed: {player.statuses()}")
    registered = time.monotonic()
    with ThreadPoolExecutor(max_workers=min(64, len(scheduler.players))) as pool:
        list(pool.map(lambda player: log_in(player, settings["emulator_url"]), scheduler.players))
    return {"requestor_s": registered - began, "login_s": time.monotonic() - registered}


def main(path: str) -> int:
    settings = json.loads(Path(path).read_text())
    counter = shim.Counter()
    scheduler = Scheduler(settings["period"], settings["host_retry"], settings["call_timeout"], settings["resource"])
    try:
        durations = setup(settings, scheduler)
    except Exception as error:  # noqa: BLE001 - reported to the parent, which stops the run
        print(f"ERROR {type(error).__name__}: {error}", flush=True)
        return 1
    print("READY " + json.dumps(durations), flush=True)
    start = json.loads(sys.stdin.readline())
    t0, end = start["t0"], start["end"]
    scheduler.start(t0, end, random.Random(settings["seed"]))
    time.sleep(max(0.0, end - time.time()))
    deadline = time.time() + settings["drain"]
    while time.time() < deadline and any(p.current is not None for p in scheduler.players):
        time.sleep(0.1)
    scheduler.stop()
    for player in scheduler.players:
        player.measuring = False
        with player.lock:
            if player.current is not None:
                call = player.current
                player.calls.append({"start": call["start"], "due": call["due"], "end": None, "outcome": "open",
                                     "statuses": len(call["statuses"])})
    result = {"clients": [{"index": p.index, "device": p.device, "calls": p.calls, "stray_statuses": p.stray_statuses}
                          for p in scheduler.players],
              "connects": counter.per_second(int(t0) - 1, int(time.time()) + 1),
              "connects_total": counter.total(), "setup": durations}
    Path(settings["result"]).write_text(json.dumps(result))
    for player in scheduler.players:
        player.client.close()
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
