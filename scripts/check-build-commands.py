#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every command that builds the shipped library (`swift build ... --product accessenabler`) in the
scripts, CMake, the benchmarks and the docs links it the same way: with SwiftPM's link-time optimisation
(`--experimental-lto-mode=full`; CMake's `_ae_lto_flags`, which leaves it out for a Swift older than 6.3),
whose size BENCHMARKS.md reports (the other size flags live in
Package.swift, for every release build). The sanitizers' builds are exempt: they test the code, not the
file that ships. A script that runs such a build with the static Swift runtime into the default
`.build` (not a message naming the command, not a `--scratch-path` build of its own) links that
runtime trimmed too (`scripts/trim-swift-runtime.py`): the library whose size the docs state, and one
flag set, so that the scripts run one after another (scripts/test.sh) do not rebuild `.build/release`
for each other. Prints each command that lacks either; exit status 1 if any does.

    python3 scripts/check-build-commands.py [--self-test]
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LTO = "--experimental-lto-mode=full"
PLACES = ["scripts/*.sh", "scripts/*.py", "Benchmarks/*.py", "Tests/c/*.sh", "Tests/c/abi/*.sh", "CMakeLists.txt",
          "README.md", "CONTRIBUTING.md", "docs/*.md", "Package.swift", ".ci/run"]
# BENCHMARKS.md and DECISIONS.md tell how past figures were measured; this file holds examples.
EXEMPT = {"scripts/check-build-commands.py", "docs/DECISIONS.md"}
# A command spans its continuation lines (a trailing backslash, CMake's or Python's open list).
WINDOW = 3


def commands(text):
    """(line number, command text) of each `swift build` that names the library's product."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines):
        if not re.search(r'swift"?\)?,? +"?build\b|SWIFT_EXECUTABLE}" build', line):
            continue
        command = " ".join(lines[number:number + WINDOW])
        if "accessenabler" not in command.split("--product", 1)[-1][:40] and '"accessenabler"' not in command:
            continue
        found.append((number + 1, command))
    return found


def problems(path, text):
    return [f"{path}:{number}: builds the library without {LTO}: {command.strip()[:140]}"
            for number, command in commands(text)
            if LTO not in command and "_ae_lto_flags" not in command and "--sanitize" not in command
            and "--show-bin-path" not in command]


TRIM = "trim-swift-runtime"
SCRIPTS = ("scripts/", "Benchmarks/")


def untrimmed(path, text):
    """Library builds a script runs (static runtime, default .build) while the script never trims it."""
    if not str(path).startswith(SCRIPTS) or TRIM in text:
        return []
    found = []
    lines = text.splitlines()
    for number, command in commands(text):
        first = lines[number - 1]
        if re.search(r'\becho\b|\bfail "|print\(', first) or "--sanitize" in command or "--scratch-path" in command:
            continue
        if "-static-stdlib" in command:
            found.append(f"{path}:{number}: builds the library without the trimmed runtime ({TRIM}.py): "
                         f"{command.strip()[:120]}")
    return found


def self_test():
    good = 'swift build -c release -Xswiftc -static-stdlib --experimental-lto-mode=full --product accessenabler\n'
    bad = 'swift build -c release -Xswiftc -static-stdlib --product accessenabler\n'
    split = 'swift build -c release -Xswiftc -static-stdlib \\\n    --product accessenabler\n'
    python = 'SWIFT_BUILD = ["swift", "build", "-c", "release",\n               "--product", "accessenabler"]\n'
    asan = 'swift build -c release --product accessenabler --sanitize=address\n'
    assert problems("g", good) == [] and problems("a", asan) == []
    assert len(problems("b", bad)) == 1 and len(problems("s", split)) == 1 and len(problems("p", python)) == 1
    assert problems("o", "swift build --product example-player\n") == []
    assert len(untrimmed("scripts/x.sh", good)) == 1
    assert untrimmed("scripts/x.sh", "python3 scripts/trim-swift-runtime.py OUT\n" + good) == []
    assert untrimmed("scripts/x.sh", 'echo "build it: ' + good) == []
    assert len(untrimmed("scripts/x.sh", good + 'echo "built"\n')) == 1
    assert untrimmed("docs/x.md", good) == [] and untrimmed("scripts/x.sh", good.replace("\n", " --scratch-path s\n")) == []
    print("check-build-commands: self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
    found = []
    checked = 0
    for pattern in PLACES:
        for path in sorted(ROOT.glob(pattern)):
            if str(path.relative_to(ROOT)) in EXEMPT:
                continue
            text = path.read_text(encoding="utf-8")
            checked += len(commands(text))
            found += problems(path.relative_to(ROOT), text) + untrimmed(path.relative_to(ROOT), text)
    for problem in found:
        print(problem)
    if found:
        return 1
    print(f"check-build-commands: {checked} commands that build the library, all with {LTO}, the scripts' "
          "with the trimmed runtime")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
