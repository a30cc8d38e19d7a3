#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python example player: the second-screen flow of a set-top box on libaccessenabler
(the same flow as Examples/CPlayer), with the `accessenabler` ctypes package.

    setRequestor → checkAuthentication → getAuthentication → pick a TV provider → show the code,
    the activation URL and a countdown → the viewer logs in on another device →
    getAuthorization → short media token → logout

Callbacks run on the SDK's callback thread; the delegate below puts them in a queue that the
main thread works through in order (the C player shows the other mode: an event loop).

    player.py --base-url URL [--requestor ID] [--mvpd ID] [--resource ID] [--storage PATH]
              [--poll-ms N] [--timeout SECONDS] [--interactive]

Unattended (the default) it picks --mvpd (or the first TV provider) and waits for someone to log
in at the printed URL: against the emulator started with --auto-login-ms, its simulated viewer
does. --interactive asks which provider to use (Ctrl-C stops).

It uses the installed package (python3 -m pip install ./Python), else the repository's Python/
directory; the library is $AE_LIBRARY, else the package's own lookup (see accessenabler).
Exit status: 0 when the flow reached the media token and the logout; 1 otherwise; 2 bad usage.
"""
import argparse
import base64
import queue
import re
import sys
import time
from pathlib import Path

try:
    import accessenabler as ae
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Python"))
    import accessenabler as ae

# A software statement from the TVE Dashboard; the emulator accepts any JWT-shaped one.
DEMO_SOFTWARE_STATEMENT = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6InB5dGhvbi1wbGF5ZXIifQ.c2lnbmF0dXJl"


class QueueDelegate:
    """Puts every callback the player uses in a queue, as (name, arguments)."""

    def __init__(self, events):
        self.events = events

    def set_requestor_complete(self, status):
        self.events.put(("set_requestor_complete", status))

    def set_authentication_status(self, status, error_code):
        self.events.put(("set_authentication_status", status, error_code))

    def display_provider_dialog(self, mvpds):
        self.events.put(("display_provider_dialog", mvpds))

    def status(self, status):
        self.events.put(("status", status))

    def set_token(self, token, resource):
        self.events.put(("set_token", token, resource))

    def token_request_failed(self, resource, error_code, description):
        self.events.put(("token_request_failed", resource, error_code, description))


class Player:
    def __init__(self, client, options):
        self.client = client
        self.options = options
        self.events = None
        self.deadline = time.monotonic() + options.timeout if options.timeout else None
        self.code = None  # the REGCODE status on screen

    def next(self, *names):
        """The next callback among `names` (statuses are shown as they come); ticks the countdown."""
        while True:
            if self.deadline and time.monotonic() > self.deadline:
                raise TimeoutError(f"gave up after {self.options.timeout} s (--timeout)")
            try:
                event = self.events.get(timeout=1)
            except queue.Empty:
                self.tick()
                continue
            if event[0] == "status":
                self.show_status(event[1])
            if event[0] in names:
                return event

    def show_status(self, status):
        if status["errorId"] == "REGCODE":
            self.code = status
            print(f"\n  On your phone or computer, open\n    {status['url']}\n"
                  f"  and enter the activation code  {status['code']}\n")
            print("waiting for you to log in" if self.options.interactive
                  else "waiting for the viewer to log in on another device")
            self.last_tick = 0
        elif status["errorId"] == "LOGOUT":
            print(f"logout: the TV provider's logout page is {status['url']}")
        else:
            print(f"  [status {status['errorId']} {status['level']}] {status['message']}")

    def tick(self):
        """The code's countdown: a line every 10 s (every second on a terminal)."""
        if not self.code:
            return
        left = max(0, int(self.code["notAfter"] / 1000 - time.time()))
        if sys.stdout.isatty():
            print(f"\r  code {self.code['code']} expires in {left // 60:02d}:{left % 60:02d} ", end="", flush=True)
        elif time.monotonic() - self.last_tick >= 10:
            self.last_tick = time.monotonic()
            print(f"  code {self.code['code']} expires in {left // 60:02d}:{left % 60:02d}")

    def choose(self, mvpds):
        print("TV providers:")
        for index, mvpd in enumerate(mvpds, 1):
            print(f"  {index}. {mvpd['displayName']} ({mvpd['ID']})")
        if not mvpds:
            return None
        if not self.options.interactive:
            return self.options.mvpd or mvpds[0]["ID"]
        while True:
            try:
                line = input(f"Choose 1-{len(mvpds)} (empty cancels): ").strip()
            except EOFError:
                return None
            if not line:
                return None
            if line.isdigit() and 1 <= int(line) <= len(mvpds):
                return mvpds[int(line) - 1]["ID"]
            print(f"'{line}' is not a number from 1 to {len(mvpds)}.")

    def run(self, events):
        self.events = events
        self.client.set_requestor(self.options.requestor)
        if self.next("set_requestor_complete")[1] != ae.ACCESS_ENABLER_STATUS_SUCCESS:
            print("setRequestor failed")
            return 1
        print("setRequestor: done")
        self.client.check_authentication()
        authenticated = self.next("set_authentication_status")[1] == 1
        print("checkAuthentication:", "authenticated (no login needed)" if authenticated else "not authenticated")
        if not authenticated and not self.log_in():
            return 1

        self.client.get_authorization(self.options.resource)
        outcome = self.next("set_token", "token_request_failed")
        if outcome[0] == "set_token":
            token, resource = outcome[1], outcome[2]
            # A media token is a credential for a few minutes: show enough to recognise it, not all of it.
            print(f"getAuthorization({resource}): short media token ({len(token)} characters): {token[:16]}...")
            issued_for = re.search(r"<resourceID>(.*?)</resourceID>", base64.b64decode(token).decode(errors="replace"))
            if issued_for:
                print(f"  (Adobe's signed token for resource {issued_for.group(1)})")
        else:
            print(f"getAuthorization({outcome[1]}) failed: {outcome[2]} {outcome[3]}".rstrip())

        self.client.logout()
        status = self.next("set_authentication_status")[1]
        print(f"logout: done (authenticated = {status})")
        return 0 if outcome[0] == "set_token" else 1

    def log_in(self):
        self.client.get_authentication()
        while True:
            event = self.next("display_provider_dialog", "set_authentication_status")
            if event[0] == "display_provider_dialog":
                choice = self.choose(event[1])
                print(f"selected: {choice or 'none (cancelled)'}")
                self.client.set_selected_provider(choice)
                continue
            if self.code and sys.stdout.isatty():
                print()
            self.code = None
            if event[1] != 1:
                print(f"getAuthentication failed: {event[2]}")
                return False
            print("getAuthentication: authenticated")
            return True


def parse_options(argv):
    parser = argparse.ArgumentParser(description="AccessEnabler for Linux: the Python example player")
    parser.add_argument("--base-url", required=True, help="Adobe Pass (or the emulator's AE_EMULATOR_LISTENING URL)")
    parser.add_argument("--requestor", default="REF30")
    parser.add_argument("--mvpd", help="the TV provider to pick when unattended (default: the first)")
    parser.add_argument("--resource", default="LIVE")
    parser.add_argument("--storage", help="SQLite file for tokens (default: in memory)")
    parser.add_argument("--ca-file", help="a PEM bundle of CA certificates to trust beside the system's")
    parser.add_argument("--poll-ms", type=int, default=3000, help="second-screen polling interval (>= 1000)")
    parser.add_argument("--timeout", type=int, help="give up after this many seconds (default: 120 unattended, none interactive)")
    parser.add_argument("--interactive", action="store_true", help="ask which TV provider to use")
    parser.add_argument("--software-statement", default=DEMO_SOFTWARE_STATEMENT)
    parser.add_argument("--api", choices=["v2", "v1"], default="v2",
                        help="the Adobe Pass REST API: v2 (default) or the legacy v1 (same calls and callbacks)")
    options = parser.parse_args(argv)
    if options.poll_ms < 1000:
        parser.error("--poll-ms must be at least 1000")
    if options.timeout is None:
        options.timeout = 0 if options.interactive else 120
    return options


def main(argv=None):
    options = parse_options(argv)
    events = queue.Queue()
    try:
        client = ae.Client(options.software_statement, QueueDelegate(events), base_url=options.base_url,
                           storage_path=options.storage, poll_interval_ms=options.poll_ms, ca_file=options.ca_file,
                           api_generation=ae.AE_API_V1 if options.api == "v1" else ae.AE_API_V2)
    except ae.AEError as error:
        print(f"player: cannot create the client: {error}", file=sys.stderr)
        return 1
    print(f"AccessEnabler for Linux {ae.version()} (Python, callback thread) - requestor {options.requestor} "
          f"at {options.base_url}, REST API {options.api.upper()}")
    try:
        with client:
            return Player(client, options).run(events)
    except ae.AEError as error:  # a call refused at once
        print(f"player: call refused: {error}", file=sys.stderr)
    except TimeoutError as error:
        print(f"\nplayer: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        print("\nplayer: interrupted")
    return 1


if __name__ == "__main__":
    sys.exit(main())
