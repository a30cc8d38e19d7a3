#!/usr/bin/env python3
"""Checks that the library starts no task on Swift's cooperative pool (docs/THREADING.md, "The
engine thread": the SDK never waits for the pool, which a host may keep busy).

An unstructured task (`Task { }`, `Task(priority:)`, `Task.detached`) does not inherit its
creator's task executor, so in Sources/AccessEnabler and Sources/AccessEnablerCABI every one must
name its executor: `Task(executorPreference: ...)`. Child tasks (task groups, `async let`) inherit
the preference and are fine. Comments and string literals are ignored. Exit status 1 with one line
per task found.

Also no discarding task group (withDiscardingTaskGroup, withThrowingDiscardingTaskGroup): the
runtime of Swift 6.0 and 6.1, which the library supports (Debian 13's 6.0.3 builds it, docs/CROSS.md),
wrote past a buffer in the waiting task's allocator when such a group waited for its children
(swiftlang/swift#81814): a `TaskGroup<Void>` does the same job (AnswerOnce.wait).
"""
import re
import sys
from pathlib import Path

from swift_source import code_only

SOURCES = Path(__file__).resolve().parent.parent / "Sources"
TARGETS = ["AccessEnabler", "AccessEnablerCABI"]
UNSTRUCTURED = re.compile(r"(?<![A-Za-z0-9_.])Task\s*(?:\{|\.detached\b|\((?!\s*executorPreference\s*:))")
DISCARDING = re.compile(r"\bwith(?:Throwing)?DiscardingTaskGroup\b")


def main() -> int:
    found, discarding = [], []
    for target in TARGETS:
        for path in sorted((SOURCES / target).rglob("*.swift")):
            for number, line in enumerate(code_only(path.read_text()).split("\n"), 1):
                if UNSTRUCTURED.search(line):
                    found.append(f"{path.relative_to(SOURCES.parent)}:{number}: {line.strip()}")
                if DISCARDING.search(line):
                    discarding.append(f"{path.relative_to(SOURCES.parent)}:{number}: {line.strip()}")
    for line in found + discarding:
        print(line)
    if discarding:
        print(f"{len(discarding)} discarding task group(s): Swift 6.0's runtime corrupts the waiting task's memory "
              "with them (swiftlang/swift#81814); use withTaskGroup(of: Void.self) (scripts/check-tasks.py)")
    if found:
        print(f"{len(found)} unstructured task(s) without executorPreference: they would run on Swift's "
              "cooperative pool (scripts/check-tasks.py)")
    if found or discarding:
        return 1
    print("tasks: ok (every unstructured task of the library names its executor; no discarding task group)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
