"""`aepass-emulator serve`: run the emulator until SIGTERM/SIGINT (`python3 Emulator/emulator.py` too).

Prints `AE_EMULATOR_LISTENING http://<host>:<port>` once bound (port 0 lets the OS choose), then
serves; exit status 0 after a clean stop, 2 for a bad configuration, catalog, flag or key (with a
message on stderr). Settings: defaults, then `--config`, then the flags (`--strict` among them).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from . import STARTED_BY
from .app import App
from .catalog import REQUESTORS
from .catalog_file import CatalogError, apply_catalog
from .config import ConfigError, default_config, merged
from .requestlog import RequestLog
from .server import EmulatorServer
from .state import State

LISTENING = "AE_EMULATOR_LISTENING"  # the first line on stdout: "AE_EMULATOR_LISTENING http://host:port"
LOG_DIR_VARIABLE = "AE_EMULATOR_LOG_DIR"  # without --log-file: log to $AE_EMULATOR_LOG_DIR/emulator-<pid>.jsonl


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The emulator's command line (the arguments of `serve`)."""
    parser = argparse.ArgumentParser(prog=prog, description="Adobe Pass REST API V2 + V1 + DCR emulator")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="0 lets the OS pick a free port")
    parser.add_argument("--log-file", help="append one JSON line per handled request")
    parser.add_argument("--throttle", choices=("on", "off"), help="default: on")
    parser.add_argument("--auto-login-ms", type=int, help="log every session in after N ms")
    parser.add_argument("--latency-ms", type=int, help="delay added to every API request")
    parser.add_argument("--config", help="JSON file with the keys of POST /_emulator/config")
    parser.add_argument("--strict", action="store_true",
                        help='every strictness switch at its strict value (config {"strictness": "strict"}, '
                             "applied after --config)")
    parser.add_argument("--catalog", metavar="PATH.json",
                        help="JSON file of requestors and MVPDs merged into the built-in catalog (README: "
                             "\"Your own requestors and MVPDs\")")
    parser.add_argument("--service-token-key", action="append", default=[], metavar="ISSUER=PEMFILE",
                        help="a public key (PEM file) that verifies AD-Service-Token values of issuer ISSUER; "
                             "repeatable; added to service_token_keys")
    parser.add_argument("--platform-token-key", action="append", default=[], metavar="ISSUER=PEMFILE",
                        help="a public key (PEM file) that verifies Adobe-Subject-Token / "
                             "X-Roku-Reserved-Roku-Connect-Token values of issuer ISSUER; repeatable; "
                             "added to platform_token_keys")
    parser.add_argument("--quiet", action="store_true", help="no per-request lines on stderr")
    parser.add_argument("--exit-with-parent", action="store_true",
                        help="stop when the process that started the emulator ends (test harnesses: a test "
                             "process that crashes leaves no emulator behind holding its output pipes)")
    return parser


def parse_args(argv: list[str], prog: str | None = None) -> argparse.Namespace:
    return build_parser(prog).parse_args(argv)


def watch_parent(stop: Callable[[int, Any], None]) -> None:
    """Calls stop() once this process is re-parented (the parent ended), checking twice a second. The
    parent is the one that started the process (`aepass.STARTED_BY`, read first thing): if it ended
    during start-up, stop comes at once; so it does when the process was an orphan (of init, pid 1)
    already then."""
    parent = STARTED_BY

    def watch() -> None:
        while os.getppid() == parent and parent != 1:
            time.sleep(0.5)
        stop(signal.SIGTERM, None)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def build_config(args: argparse.Namespace) -> dict[str, Any]:
    """Defaults, then the --config file, then explicit flags."""
    config = default_config()
    if args.config:
        config = merged(config, json.loads(Path(args.config).read_text(encoding="utf-8")))
    flags: dict[str, Any] = {}
    if getattr(args, "strict", False):
        flags["strictness"] = "strict"
    if args.throttle is not None:
        flags["throttle"] = args.throttle == "on"
    if args.auto_login_ms is not None:
        flags["auto_login_ms"] = args.auto_login_ms
    if args.latency_ms is not None:
        flags["latency_ms"] = args.latency_ms
    for key, values in (("service_token_keys", args.service_token_key),
                        ("platform_token_keys", args.platform_token_key)):
        if values:
            flags[key] = {**config[key], **dict(_issuer_key(value) for value in values)}
    return merged(config, flags)


def _issuer_key(value: str) -> tuple[str, str]:
    """ISSUER=PEMFILE -> (issuer, path); the issuer may not contain '='."""
    issuer, sep, path = value.partition("=")
    if not sep or not issuer or not path:
        raise ValueError(f"expected ISSUER=PEMFILE, not {value!r}")
    return issuer, path


def log_path(args: argparse.Namespace) -> str | None:
    """--log-file, else $AE_EMULATOR_LOG_DIR/emulator-<pid>.jsonl, else no log file."""
    if args.log_file:
        return str(args.log_file)
    log_dir = os.environ.get(LOG_DIR_VARIABLE)
    if not log_dir:
        return None
    os.makedirs(log_dir, exist_ok=True)
    return os.path.join(log_dir, f"emulator-{os.getpid()}.jsonl")


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Serve until SIGTERM/SIGINT; the exit status (0, or 2 for a bad configuration)."""
    args = parse_args(sys.argv[1:] if argv is None else argv, prog)
    if args.catalog:
        try:
            apply_catalog(args.catalog, REQUESTORS)  # before the config: it names MVPDs of the catalog
        except CatalogError as error:
            print(f"emulator: bad catalog: {error}", file=sys.stderr)
            return 2
    try:
        config = build_config(args)
    except (ConfigError, OSError, ValueError) as error:
        print(f"emulator: bad configuration: {error}", file=sys.stderr)
        return 2
    log = RequestLog(log_path(args))
    server = EmulatorServer((args.host, args.port), App(State(config), log), quiet=args.quiet)

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent may start us with these blocked (the mask survives exec): unblock them, or
    # SIGTERM would never stop the emulator.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    if args.exit_with_parent:
        watch_parent(stop)
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # an AF_INET / AF_INET6 address
    print(f"{LISTENING} http://{host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.05)  # SIGTERM is served within 50 ms
    finally:
        server.server_close()
        log.close()
    return 0
