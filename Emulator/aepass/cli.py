"""The `aepass-emulator` command (also `python3 -m aepass`): serve, validate, report.

    aepass-emulator serve [--port 8080] [--strict] [--catalog PATH.json] ...   run the emulator
    aepass-emulator validate LOG.jsonl ...                                     check logged requests
    aepass-emulator report LOG.jsonl ...                                       conformance report
    aepass-emulator --port 8080 ...   (options first, or nothing at all: serve)

`validate` and `report` need `jsonschema` (`pip install 'aepass-emulator[validate]'`).
"""

from __future__ import annotations

import sys
from typing import Callable

from . import __version__

PROG = "aepass-emulator"
USAGE = f"""usage: {PROG} [serve] [SERVE OPTIONS]   run the emulator (the default command)
       {PROG} validate LOG.jsonl [LOG2.jsonl ...] [--spec-dir DIR]
       {PROG} report LOG.jsonl [LOG2.jsonl ...] [--require STEPS] [--json]
       {PROG} --version

Adobe Pass REST API V2 + V1 + DCR emulator ({PROG} {__version__}).

commands:
  serve      run the emulator; prints "AE_EMULATOR_LISTENING http://host:port" once bound, serves
             until SIGTERM/SIGINT ("{PROG} serve --help" lists its options)
  validate   check the requests of emulator logs against Adobe's OpenAPI files (exit 0 valid,
             1 some request invalid, 2 no API request)
  report     conformance report of emulator logs: operations, violations, flow coverage
"""


def _serve(argv: list[str]) -> int:
    from .serve import main  # noqa: PLC0415 - each command imports what it needs
    return main(argv, prog=f"{PROG} serve")


def _validate(argv: list[str]) -> int:
    from .validate import main  # noqa: PLC0415
    return main(argv, prog=f"{PROG} validate")


def _report(argv: list[str]) -> int:
    from .report import main  # noqa: PLC0415 - lazily: the report is the only user of its module
    return main(argv)


COMMANDS: dict[str, Callable[[list[str]], int]] = {"serve": _serve, "validate": _validate, "report": _report}


def main(argv: list[str] | None = None) -> int:
    """Runs a command; returns its exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] in (["-h"], ["--help"], ["help"]):
        print(USAGE, end="")
        return 0
    if args[:1] == ["--version"]:
        print(f"{PROG} {__version__}")
        return 0
    if not args or args[0].startswith("-"):
        return _serve(args)  # options first (or none): serve
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"{PROG}: unknown command {args[0]!r} (commands: {', '.join(COMMANDS)}; "
              f"{PROG} --help)", file=sys.stderr)
        return 2
    try:
        return command(args[1:])
    except ImportError as error:  # e.g. jsonschema, for validate and report
        print(f"{PROG} {args[0]}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
