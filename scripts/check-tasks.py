#!/usr/bin/env python3
"""Checks that the library starts no task on Swift's cooperative pool (docs/THREADING.md, "The
engine thread": the SDK never waits for the pool, which a host may keep busy).

An unstructured task (`Task { }`, `Task(priority:)`, `Task.detached`) does not inherit its
creator's task executor, so in Sources/AccessEnabler and Sources/AccessEnablerCABI every one must
name its executor: `Task(executorPreference: ...)`. Child tasks (task groups, `async let`) inherit
the preference and are fine. Comments and string literals are ignored. Exit status 1 with one line
per task found.
"""
import re
import sys
from pathlib import Path

from swift_source import code_only

SOURCES = Path(__file__).resolve().parent.parent / "Sources"
TARGETS = ["AccessEnabler", "AccessEnablerCABI"]
UNSTRUCTURED = re.compile(r"(?<![A-Za-z0-9_.])Task\s*(?:\{|\.detached\b|\((?!\s*executorPreference\s*:))")


def main() -> int:
    found = []
    for target in TARGETS:
        for path in sorted((SOURCES / target).rglob("*.swift")):
            for number, line in enumerate(code_only(path.read_text()).split("\n"), 1):
                if UNSTRUCTURED.search(line):
                    found.append(f"{path.relative_to(SOURCES.parent)}:{number}: {line.strip()}")
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} unstructured task(s) without executorPreference: they would run on Swift's "
              "cooperative pool (scripts/check-tasks.py)")
        return 1
    print("tasks: ok (every unstructured task of the library names its executor)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
