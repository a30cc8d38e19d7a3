#!/usr/bin/env python3
"""Adobe Pass REST API V2 + DCR emulator (Python 3.11, standard library only; verifying platform
identity and service token SSO tokens needs the `cryptography` package).

Prints `AE_EMULATOR_LISTENING http://<host>:<port>` once bound; runs until SIGTERM/SIGINT.
See README.md next to this file.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aepass.app import App  # noqa: E402
from aepass.config import ConfigError, default_config, merged  # noqa: E402
from aepass.requestlog import RequestLog  # noqa: E402
from aepass.server import EmulatorServer  # noqa: E402
from aepass.state import State  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Adobe Pass REST API V2 + DCR emulator")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 lets the OS pick a free port")
    parser.add_argument("--log-file", help="append one JSON line per handled request")
    parser.add_argument("--throttle", choices=("on", "off"), help="default: on")
    parser.add_argument("--auto-login-ms", type=int, help="log every session in after N ms")
    parser.add_argument("--latency-ms", type=int, help="delay added to every API request")
    parser.add_argument("--config", help="JSON file with the keys of POST /_emulator/config")
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
    return parser.parse_args(argv)


def watch_parent(stop: Any) -> None:
    """Calls stop() once this process is re-parented (the parent ended), checking twice a second."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        stop(signal.SIGTERM, None)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def build_config(args: argparse.Namespace) -> dict[str, Any]:
    """Defaults, then the --config file, then explicit flags."""
    config = default_config()
    if args.config:
        config = merged(config, json.loads(Path(args.config).read_text(encoding="utf-8")))
    flags: dict[str, Any] = {}
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
    if args.log_file:
        return args.log_file
    log_dir = os.environ.get("AE_EMULATOR_LOG_DIR")
    if not log_dir:
        return None
    os.makedirs(log_dir, exist_ok=True)
    return os.path.join(log_dir, f"emulator-{os.getpid()}.jsonl")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
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
    print(f"AE_EMULATOR_LISTENING http://{host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.05)  # SIGTERM is served within 50 ms
    finally:
        server.server_close()
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
