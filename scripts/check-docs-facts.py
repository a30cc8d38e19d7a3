#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the facts the docs state about the build against the built library and the tree ("docs that cannot
drift"). scripts/test.sh runs it right after the release library is built, on that library.

  version   every `libaccessenabler.so.X.Y.Z`, `accessenabler_X.Y.Z.bb`, `libaccessenabler1_X.Y.Z-R_...deb`,
            `(= X.Y.Z-R)`, `accessenabler-X.Y.Z.tar.gz`, tag `vX.Y.Z` is Include/accessenabler.h's
            AE_VERSION_MAJOR.MINOR.PATCH (the version's one home), and every SONAME `libaccessenabler.so.N` its
            major; the library's own DT_SONAME too, when it has one (SwiftPM's build has none: CMake sets it);
  needed    each list between `<!-- needed ... -->` and `<!-- /needed -->` (README.md, docs/CROSS.md: both must
            have one) names exactly the library's DT_NEEDED (`readelf -d`; the dynamic loader may be named for
            other CPUs too), and no other line of the docs names three of those libraries outside such a list;
  depends   the Debian Depends between `<!-- depends ... -->` and `<!-- /depends -->` (docs/PACKAGING.md) is
            what dpkg-shlibdeps computes for the library (CPack uses it for libaccessenabler1);
  recipes   the Yocto recipe's DEPENDS, the Buildroot package's select lines and ACCESSENABLER_DEPENDENCIES are
            the packages of the library's DT_NEEDED (RECIPE_PACKAGES), no more, no less;
  sizes     every size in SIZES is within 5 % of what it names: the built file (`file`), a copy stripped with
            `strip --strip-unneeded` (`stripped`, the Debian package's) or `--strip-all` (`stripped-all`,
            BENCHMARKS.md's), that in KiB or twice it (the .deb's Installed-Size), or a figure this build cannot
            measure (the shared Swift runtime's library) against BENCHMARKS.md, its one home; MB = 10^6 bytes,
            KiB = 1024. Every other size on or next to a line about the library (stripped, as built, runtime,
            .so, ...) fails as unknown unless NOT_BUILD_SIZES says why it is not a fact about this build;
  layout    README.md's "Layout" table and Emulator/README.md's file table (under "In this repository")
            name paths that exist, and name every top-level folder, every folder of Sources/, Examples/ and
            Tests/, every file of scripts/ and every docs/*.md (README.md), every file and folder of
            Emulator/ and every module of Emulator/aepass/ and aepass/v1/ (Emulator/README.md). A bare name after a path in a first cell is in that path's folder
            (`aepass/state.py`, `config.py`); one in a row's second cell is in its first cell's folder.

It prints each comparison; a problem is `file:line: what, expected value`, and the exit status is 1.
`--self-test` then runs the check on altered copies of the docs (a wrong size, a missing dependency, a stale
version, a source folder not listed, ...) and fails unless each alteration is caught with its file and line.

Usage: scripts/check-docs-facts.py [--library PATH] [--self-test]
       (default: $AE_LIBRARY, else .build/release/libaccessenabler.so; Python 3 standard library, readelf,
       strip, dpkg-shlibdeps)
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 0.05
MB, KIB = 1_000_000, 1024

# The documents the facts may be in: the README, the contributors' page, docs/, the packaging, the emulator's docs
# (fnmatch patterns of tracked paths: `*` also matches `/`).
DOCS = ["README.md", "CONTRIBUTING.md", "docs/*.md", "packaging/*", "Emulator/*.md"]
NOT_DOCS = ["packaging/debian/changelog"]  # history: every release's entry (check-recipes.py checks the first)

# Libraries the toolchain brings (glibc, GCC's runtime): no package of the recipes'.
TOOLCHAIN = re.compile(r"(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so\.\d+|ld-linux[\w.-]*\.so\.\d+")
LOADER = re.compile(r"ld-linux[\w.-]*\.so\.\d+")
# The package of each other library of DT_NEEDED: (Yocto recipe, Buildroot package, its BR2_PACKAGE_ option).
RECIPE_PACKAGES = {
    "libcurl.so.4": ("curl", "libcurl", "LIBCURL"),
    "libsqlite3.so.0": ("sqlite3", "sqlite", "SQLITE"),
    "libcrypto.so.3": ("openssl", "openssl", "OPENSSL"),
    "libjansson.so.4": ("jansson", "jansson", "JANSSON"),
}


@dataclass
class Size:
    """A documented size: in `path`, the one match of `pattern` (its group `n` the number, `unit` the unit)."""
    path: str
    pattern: str
    measure: str  # file, stripped, stripped-all, stripped-kib, twice-stripped-kib, shared-stripped
    what: str


# Every size the docs state about the build. A new one goes here (or, if it is not about this build, in
# NOT_BUILD_SIZES); the check fails on a size near words about the library that neither list has.
N = r"(?P<n>[0-9][0-9,]*(?:\.[0-9]+)?) (?P<unit>MB|KiB)"
SIZES = [
    Size("README.md", rf"about {N} stripped instead of", "shared-stripped",
         "the library alone with the shared Swift runtime, stripped"),
    Size("README.md", rf"stripped instead of about {N}, plus", "stripped", "the library, stripped"),
    Size("packaging/yocto/accessenabler_{version}.bb", rf"self-contained: about {N}\s+stripped", "stripped",
         "the library, stripped"),
    Size("packaging/buildroot/accessenabler/Config.in", rf"one self-contained library, about {N}\s+stripped",
         "stripped", "the library, stripped"),
    Size("packaging/buildroot/accessenabler/Config.in", rf"RPATH\) and is about {N}", "shared-stripped",
         "the library alone with the shared Swift runtime, stripped"),
    Size("docs/PACKAGING.md", rf"counts the library twice[^.]*?, about {N} instead", "twice-stripped-kib",
         "the runtime package's Installed-Size (the stripped library counted twice)"),
    Size("docs/PACKAGING.md", rf"instead of about {N} for the static build", "stripped-kib",
         "the stripped library"),
    Size("BENCHMARKS.md", rf"`libaccessenabler.so` as built \(symbols, no debug info\) \| {N}", "file",
         "the library as built"),
    Size("BENCHMARKS.md", rf"stripped \(`strip --strip-all`\), self-contained \| \*\*{N}\*\*", "stripped-all",
         "the library, stripped"),
    Size("BENCHMARKS.md", rf"static runtime \(`ON`, the default\): self-contained \| {N} \|", "file",
         "the library as built"),
    Size("BENCHMARKS.md", rf"static runtime \(`ON`, the default\): self-contained \| [^|]+ \| \*\*{N}\*\*",
         "stripped-all", "the library, stripped"),
    Size("BENCHMARKS.md", rf"the library then adds [0-9.]+ MB instead of {N};", "stripped-all",
         "the library, stripped"),
    Size("BENCHMARKS.md", rf"against {N} for the static build", "stripped-all", "the library, stripped"),
]
# The home of what this build cannot measure: BENCHMARKS.md's row of the shared-runtime library (stripped).
SHARED_HOME = ("BENCHMARKS.md", r"shared runtime \(`OFF`\): the library alone \| [^|]+ \| \*\*(?P<n>[0-9.]+) MB\*\*")

# Sizes near words about the library that are not facts about this build: (file, pattern on the line, why).
NOT_BUILD_SIZES = [
    ("docs/DECISIONS.md", r".", "a decision's record: the sizes measured when it was taken"),
    ("docs/CROSS.md", r"[0-9.]+ GB", "the disk space of the Debian 13 trees, not of the library"),
]
SIZE_WORD = re.compile(r"stripped|as built|self-contained|librar|\.so\b|Installed-Size|runtime|static build",
                       re.I)
ANY_SIZE = re.compile(r"\b[0-9][0-9,]*(?:\.[0-9]+)? ?(?:MB|MiB|KiB|KB|kB|GB|GiB)\b")

# SONAME mentions that are not this major: (file, pattern on the line, why).
NOT_THIS_MAJOR = [
    ("docs/ABI.md", r"What needs a new major", "the next major, hypothetical"),
]


MEASURED: dict[tuple[str, str], object] = {}  # (library, what) -> value: measured once per run


def measured(what):
    """Caches a measure of the library (readelf, strip, dpkg-shlibdeps) for the self-test's many runs."""
    def wrapper(self):
        key = (str(self.library), what.__name__)
        if key not in MEASURED:
            MEASURED[key] = what(self)
        return MEASURED[key]
    return wrapper


@dataclass
class Check:
    root: Path
    library: Path
    overrides: dict[str, str] = field(default_factory=dict)  # path -> text (the self-test's altered copies)
    problems: list[str] = field(default_factory=list)
    quiet: bool = False

    # -- reading ---------------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        if not self.quiet:
            print(text)

    def problem(self, where: str, text: str) -> None:
        self.problems.append(f"{where}: {text}")

    def text(self, path: str) -> str:
        if path in self.overrides:
            return self.overrides[path]
        return (self.root / path).read_text(encoding="utf-8", errors="replace")

    def tracked(self) -> list[str]:
        if not hasattr(self, "_tracked"):
            out = subprocess.run(["git", "ls-files"], cwd=self.root, capture_output=True, text=True, check=True).stdout
            self._tracked = [line for line in out.splitlines() if (self.root / line).exists()]
        return self._tracked

    def docs(self) -> list[str]:
        return [p for p in self.tracked() if any(fnmatch.fnmatch(p, g) for g in DOCS) and p not in NOT_DOCS
                and (self.root / p).is_file()]

    def exists(self, path: str) -> bool:
        path = path.rstrip("/")
        return any(t == path or t.startswith(path + "/") for t in self.tracked())

    # -- measures --------------------------------------------------------------------------------------------
    def version(self) -> str:
        header = self.text("Include/accessenabler.h")
        parts = [re.search(rf"^#define AE_VERSION_{p} (\d+)\b", header, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
        if not all(parts):
            self.problem("Include/accessenabler.h", "no #define AE_VERSION_MAJOR/MINOR/PATCH")
            return "0.0.0"
        return ".".join(p.group(1) for p in parts)

    @measured
    def dynamic(self) -> tuple[list[str], str | None]:
        out = subprocess.run(["readelf", "-d", str(self.library)], capture_output=True, text=True, check=True).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
        soname = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
        return needed, soname.group(1) if soname else None

    @measured
    def measures(self) -> dict[str, float]:
        with tempfile.TemporaryDirectory(prefix="check-docs-facts-") as tmp:
            sizes = {"file": self.library.stat().st_size}
            for name, flag in (("stripped", "--strip-unneeded"), ("stripped-all", "--strip-all")):
                copy = Path(tmp) / name
                subprocess.run(["strip", flag, "-o", str(copy), str(self.library)], check=True)
                sizes[name] = copy.stat().st_size
        sizes["stripped-kib"] = sizes["stripped"]
        sizes["twice-stripped-kib"] = 2 * sizes["stripped"]
        return sizes

    @measured
    def shlibdeps(self) -> str | None:
        tool = shutil.which("dpkg-shlibdeps")
        if tool is None:
            self.problem("docs/PACKAGING.md", "dpkg-shlibdeps not found (Debian: dpkg-dev, as scripts/deps.sh test "
                         "installs): the documented Depends cannot be checked")
            return None
        with tempfile.TemporaryDirectory(prefix="check-docs-facts-") as tmp:
            (Path(tmp) / "debian").mkdir()
            (Path(tmp) / "debian" / "control").write_text("Source: x\n\nPackage: x\nArchitecture: any\n")
            shutil.copy(self.library, Path(tmp) / "libaccessenabler.so")
            done = subprocess.run([tool, "-O", "libaccessenabler.so"], cwd=tmp, capture_output=True, text=True)
        match = re.search(r"^shlibs:Depends=(.*)$", done.stdout, re.M)
        if done.returncode != 0 or not match:
            self.problem("docs/PACKAGING.md", f"dpkg-shlibdeps failed ({done.returncode}): {done.stderr.strip()[-300:]}")
            return None
        return match.group(1).strip()

    # -- the checks ------------------------------------------------------------------------------------------
    def run(self) -> list[str]:
        version = self.version()
        needed, soname = self.dynamic()
        sizes = self.measures()
        self.say(f"library: {self.library}")
        self.say(f"  version (Include/accessenabler.h): {version}")
        self.say(f"  SONAME: {soname or 'none (a SwiftPM build: CMake sets it, Tests/c/check-cmake-package.sh checks it)'}")
        self.say(f"  DT_NEEDED (readelf -d): {' '.join(needed)}")
        self.say(f"  size: {sizes['file'] / MB:.2f} MB as built ({sizes['file']} bytes), "
                 f"{sizes['stripped'] / MB:.2f} MB stripped with --strip-unneeded ({sizes['stripped']}), "
                 f"{sizes['stripped-all'] / MB:.2f} MB with --strip-all ({sizes['stripped-all']})")
        self.check_version(version, soname)
        self.check_needed(needed)
        self.check_depends()
        self.check_recipes(needed, version)
        self.check_sizes(sizes, version)
        self.check_layout()
        return self.problems

    def lines(self, path: str):
        return enumerate(self.text(path).split("\n"), 1)

    def check_version(self, version: str, soname: str | None) -> None:
        major = version.split(".")[0]
        if soname is not None and soname != f"libaccessenabler.so.{major}":
            self.problem(str(self.library), f"DT_SONAME is {soname}, expected libaccessenabler.so.{major}")
        patterns = [
            (r"libaccessenabler\.so\.(\d+\.\d+\.\d+)", "the library's file name"),
            (r"accessenabler_(\d+\.\d+\.\d+)\.bb", "the Yocto recipe's name"),
            (r"libaccessenabler(?:1|-dev)_(\d+\.\d+\.\d+)-\d+_", "a .deb's name"),
            (r"libaccessenabler1 \(= (\d+\.\d+\.\d+)-\d+\)", "the -dev package's dependency"),
            (r"version `(\d+\.\d+\.\d+)-\d+`", "the packages' version"),
            (r"accessenabler-(\d+\.\d+\.\d+)\.tar", "the release tarball"),
            (r"ACCESSENABLER_VERSION = (\d+\.\d+\.\d+)", "Buildroot's version"),
            (r"(?:tag|# )\s*v(\d+\.\d+\.\d+)\b", "the release tag"),
        ]
        count = majors = 0
        for path in self.docs():
            for number, line in self.lines(path):
                for pattern, what in patterns:
                    for match in re.finditer(pattern, line):
                        count += 1
                        if match.group(1) != version:
                            self.problem(f"{path}:{number}", f"{what} says {match.group(1)} in "
                                         f"`{match.group(0)}`, expected {version} (Include/accessenabler.h)")
                for match in re.finditer(r"libaccessenabler\.so\.(\d+)(?!\.?\w)", line):
                    if match.group(1) == major:
                        majors += 1
                    elif not any(path == f and re.search(p, line) for f, p, _ in NOT_THIS_MAJOR):
                        self.problem(f"{path}:{number}", f"SONAME `{match.group(0)}`, expected "
                                     f"libaccessenabler.so.{major} (the header's AE_VERSION_MAJOR)")
        self.say(f"version: {count} spellings of {version} and {majors} of the SONAME libaccessenabler.so.{major}")

    def blocks(self, path: str, name: str) -> list[tuple[int, str, int]]:
        """(first line, text, last line) of each `<!-- name ... -->` ... `<!-- /name -->` block of a file (a marker in a code span,
        as in CONTRIBUTING.md, is a mention, not a block)."""
        text = self.text(path)
        found = []
        for match in re.finditer(rf"(?<!`)<!-- {name}\b.*?-->(.*?)<!-- /{name} -->", text, re.S):
            found.append((text.count("\n", 0, match.start()) + 1, match.group(1), text.count("\n", 0, match.end()) + 1))
        return found

    def check_needed(self, needed: list[str]) -> None:
        wanted = set(needed)
        loaders = {n for n in wanted if LOADER.fullmatch(n)}
        for path in ("README.md", "docs/CROSS.md"):
            if not self.blocks(path, "needed"):
                self.problem(path, "no `<!-- needed -->` ... `<!-- /needed -->` list of the library's runtime "
                             f"dependencies; expected one naming {' '.join(needed)}")
        covered: dict[str, set[int]] = {}
        for path in self.docs():
            for line, block, last in self.blocks(path, "needed"):
                covered.setdefault(path, set()).update(range(line, last + 1))
                named = set(re.findall(r"[\w+.-]+\.so\.\d+", block))
                missing = sorted(wanted - named)
                extra = sorted(n for n in named - wanted if not LOADER.fullmatch(n) or not loaders)
                if missing:
                    self.problem(f"{path}:{line}", f"the list of runtime dependencies lacks {', '.join(missing)} "
                                 f"(the library's DT_NEEDED: {' '.join(needed)})")
                if extra:
                    self.problem(f"{path}:{line}", f"the list of runtime dependencies names {', '.join(extra)}, "
                                 f"which the library does not need (DT_NEEDED: {' '.join(needed)})")
                self.say(f"needed: {path}:{line}: {len(named & wanted)} of {len(wanted)} DT_NEEDED named"
                         + ("" if missing or extra else ", no other"))
        # A list outside a block would drift unseen: a line naming three of the libraries, outside a list.
        for path in self.docs():
            for number, line in self.lines(path):
                names = {n for n in re.findall(r"[\w+.-]+\.so\.\d+", line) if n in wanted}
                if len(names) >= 3 and number not in covered.get(path, set()):
                    self.problem(f"{path}:{number}", f"names {', '.join(sorted(names))} outside a "
                                 "`<!-- needed -->` list: put the list of runtime dependencies in one (checked)")

    def check_depends(self) -> None:
        blocks = self.blocks("docs/PACKAGING.md", "depends")
        if not blocks:
            self.problem("docs/PACKAGING.md", "no `<!-- depends -->` ... `<!-- /depends -->` block with the runtime "
                         "package's Depends")
            return
        computed = self.shlibdeps()
        if computed is None:
            return
        for line, block, _ in blocks:
            documented = " ".join(block.split()).strip("`").strip()
            if documented != computed:
                self.problem(f"docs/PACKAGING.md:{line}", f"Depends `{documented}`, expected `{computed}` "
                             "(dpkg-shlibdeps on the library)")
            else:
                self.say(f"depends: docs/PACKAGING.md:{line}: {computed} (dpkg-shlibdeps)")

    def check_recipes(self, needed: list[str], version: str) -> None:
        others = [n for n in needed if not TOOLCHAIN.fullmatch(n)]
        unknown = [n for n in others if n not in RECIPE_PACKAGES]
        for name in unknown:
            self.problem("scripts/check-docs-facts.py", f"the library needs {name}: add its Yocto recipe and "
                         "Buildroot package to RECIPE_PACKAGES, and them to the recipes")
        yocto_want = {RECIPE_PACKAGES[n][0] for n in others if n in RECIPE_PACKAGES}
        buildroot_want = {RECIPE_PACKAGES[n][1] for n in others if n in RECIPE_PACKAGES}
        select_want = {RECIPE_PACKAGES[n][2] for n in others if n in RECIPE_PACKAGES}
        recipes = [(f"packaging/yocto/accessenabler_{version}.bb", r'^DEPENDS = "([^"]*)"', yocto_want),
                   ("packaging/buildroot/accessenabler/accessenabler.mk", r"^ACCESSENABLER_DEPENDENCIES = (.*)$",
                    buildroot_want)]
        for path, pattern, want in recipes:
            if path not in self.docs():
                self.problem(path, "no such file (the header's version names the Yocto recipe)")
                continue
            lines = [(number, match.group(1).split()) for number, line in self.lines(path)
                     for match in [re.match(pattern, line)] if match]
            if len(lines) != 1:
                self.problem(path, f"expected one dependency line, found {len(lines)}")
                continue
            number, words = lines[0]
            have = {w for w in words if not w.startswith("host-")}
            if have != want:
                self.problem(f"{path}:{number}", f"the dependencies are {' '.join(sorted(have))}, expected "
                             f"{' '.join(sorted(want))} (the packages of DT_NEEDED {' '.join(others)})")
            else:
                self.say(f"recipes: {path}:{number}: {' '.join(sorted(have))}")
        config = "packaging/buildroot/accessenabler/Config.in"
        selects = {m.group(1): number for number, line in self.lines(config)
                   for m in [re.match(r"\s*select BR2_PACKAGE_(\w+)", line)] if m}
        if set(selects) != select_want:
            first = min(selects.values(), default=1)
            self.problem(f"{config}:{first}", f"selects {' '.join(sorted(selects))}, expected "
                         f"{' '.join(sorted(select_want))} (the packages of DT_NEEDED {' '.join(others)})")
        else:
            self.say(f"recipes: {config}: select {' '.join(sorted(selects))}")

    def check_sizes(self, sizes: dict[str, float], version: str) -> None:
        home_path, home_pattern = SHARED_HOME
        home = re.search(home_pattern, self.text(home_path))
        if home is None:
            self.problem(home_path, "no row `shared runtime (`OFF`): the library alone | ... | **N MB**` (the home "
                         "of the shared-runtime library's size)")
        claimed: dict[str, list[tuple[int, int]]] = {}
        for size in SIZES:
            path = size.path.format(version=version)
            text = self.text(path)
            matches = list(re.finditer(size.pattern, text))
            if len(matches) != 1:
                self.problem(path, f"{size.what}: {len(matches)} matches of the check's pattern /{size.pattern}/, "
                             "expected 1 (reworded? keep the sentence or update SIZES in scripts/check-docs-facts.py)")
                continue
            match = matches[0]
            number = text.count("\n", 0, match.start("n")) + 1
            claimed.setdefault(path, []).append((match.start("n"), match.end("unit")))
            value = float(match.group("n").replace(",", "")) * (MB if match.group("unit") == "MB" else KIB)
            if size.measure == "shared-stripped":
                if home is None:
                    continue
                expected, source = float(home.group("n")) * MB, f"{home_path}'s shared-runtime row"
            else:
                expected, source = sizes[size.measure], {
                    "file": "the file's size", "stripped": "strip --strip-unneeded",
                    "stripped-all": "strip --strip-all", "stripped-kib": "strip --strip-unneeded",
                    "twice-stripped-kib": "twice strip --strip-unneeded"}[size.measure]
            unit = match.group("unit")
            shown = f"{expected / MB:.2f} MB" if unit == "MB" else f"{expected / KIB:,.0f} KiB"
            off = (value - expected) / expected
            if abs(off) > TOLERANCE:
                self.problem(f"{path}:{number}", f"{size.what}: {match.group('n')} {unit}, measured {shown} "
                             f"({source}; {off:+.1%}, more than {TOLERANCE:.0%} off): write about {shown}")
            else:
                self.say(f"size: {path}:{number}: {size.what} {match.group('n')} {unit} ~ {shown} ({source}, {off:+.1%})")
        for path in self.docs():
            text = self.text(path)
            lines = text.split("\n")
            for match in ANY_SIZE.finditer(text):
                if any(start <= match.start() < end for start, end in claimed.get(path, [])):
                    continue
                number = text.count("\n", 0, match.start()) + 1
                context = " ".join(lines[max(0, number - 2):number + 1])
                if not SIZE_WORD.search(context):
                    continue
                if any(path == f and re.search(p, lines[number - 1]) for f, p, _ in NOT_BUILD_SIZES):
                    continue
                self.problem(f"{path}:{number}", f"`{match.group(0)}` near words about the library is a size the check "
                             "does not know: add it to SIZES in scripts/check-docs-facts.py (what it measures), or to "
                             "NOT_BUILD_SIZES with the reason it is not a fact about this build")

    def table(self, path: str, heading: str) -> list[tuple[int, list[str]]]:
        """(line, cells) of the rows of the first table after `heading` (a header line, or None: the first)."""
        rows, inside = [], heading is None
        for number, line in self.lines(path):
            if not inside:
                inside = line.strip() == heading
                continue
            if line.startswith("|"):
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
                if not set("".join(cells)) <= set("-: "):
                    rows.append((number, cells))
            elif rows:
                break
        return rows[1:]  # the header row

    def check_layout(self) -> None:
        self.layout("README.md", "## Layout", "", self.readme_required())
        self.layout("Emulator/README.md", "## In this repository", "Emulator/", self.emulator_required())

    def readme_required(self) -> list[tuple[str, bool]]:
        """(path, whole): what README.md's table must name; whole: the path itself, else it or a path under it."""
        tracked = self.tracked()
        top = sorted({t.split("/")[0] for t in tracked if "/" in t and not t.startswith(".")})
        required = [(f"{name}/", False) for name in top]
        for parent in ("Sources", "Examples", "Tests"):
            required += [(f"{name}/", False) for name in sorted({"/".join(t.split("/")[:2]) for t in tracked
                                                                  if t.startswith(parent + "/") and t.count("/") >= 2})]
        required += [(t, True) for t in tracked if re.fullmatch(r"scripts/[^/]+", t)]
        required += [(t, True) for t in tracked if re.fullmatch(r"docs/[^/]+\.md", t)]
        return required

    def emulator_required(self) -> list[tuple[str, bool]]:
        tracked = self.tracked()
        entries = sorted({"/".join(t.split("/")[:2]) + ("/" if t.count("/") >= 2 else "") for t in tracked
                          if t.startswith("Emulator/") and t != "Emulator/README.md"})
        modules = [t for t in tracked if re.fullmatch(r"Emulator/aepass/(v1/)?[^/]+\.py", t)
                   and not t.endswith("__init__.py")]
        return [(e, e.endswith("/") is False) for e in entries] + [(m, True) for m in modules]

    def layout(self, path: str, heading: str | None, base: str, required: list[tuple[str, bool]]) -> None:
        rows = self.table(path, heading)
        if not rows:
            self.problem(path, f"no table after {heading or 'the top'}: the layout cannot be checked")
            return
        first_line = rows[0][0]
        listed: set[str] = set()

        def resolve(name: str) -> str:
            return os.path.normpath(base + name) + ("/" if name.endswith("/") else "")

        for number, cells in rows:
            folder, folders = "", []
            for item in re.findall(r"`([^`]+)`", cells[0]):
                if " " in item:
                    continue
                if "/" in item.rstrip("/"):  # a path: the bare names after it are in its folder
                    folder = item.rstrip("/").rsplit("/", 1)[0] + "/"
                else:
                    item = folder + item
                full = resolve(item)
                if not self.exists(full):
                    self.problem(f"{path}:{number}", f"`{item}` is listed but {full} does not exist")
                    continue
                listed.add(full.rstrip("/"))
                if (self.root / full).is_dir():
                    folders.append(full.rstrip("/") + "/")
            for item in re.findall(r"`([^`]+)`", " ".join(cells[1:])):
                name = item.split(" ")[0].rstrip(":,")
                if self.exists(name):
                    listed.add(name.rstrip("/"))
                for parent in folders:
                    candidate = os.path.normpath(parent + name)
                    if name and self.exists(candidate):
                        listed.add(candidate)
        missing = []
        for want, whole in required:
            key = want.rstrip("/")
            if key in listed or (not whole and any(entry.startswith(key + "/") for entry in listed)):
                continue
            missing.append(want)
            self.problem(f"{path}:{first_line}", f"the layout table does not name `{want[len(base):]}`"
                         + (f" ({want})" if base else "") + ": add it to a row")
        self.say(f"layout: {path}:{first_line}: {len(rows)} rows name {len(listed)} paths; "
                 f"{len(required) - len(missing)} of the {len(required)} required are named")


# -- self-test ---------------------------------------------------------------------------------------------------
# Each alteration of one file must make the check fail with that file (and line) and the words given.
ALTERATIONS = [
    ("a wrong size (the newcomer's 15.85 MB)", "README.md", r"(stripped instead of about )[0-9.]+( MB)",
     r"\g<1>15.85\g<2>", ["README.md:", "15.85 MB, measured"]),
    ("a dependency left out", "README.md", r"`libjansson\.so\.4`,? ?(and )?", "", ["README.md:", "lacks libjansson.so.4"]),
    ("a dependency the library does not have", "docs/CROSS.md", r"`libcurl\.so\.4`", "`libcurl.so.4`, `libz.so.1`",
     ["docs/CROSS.md:", "names libz.so.1"]),
    ("an old library version", "docs/CROSS.md", r"libaccessenabler\.so\.\d+\.\d+\.\d+", "libaccessenabler.so.1.0.7",
     ["docs/CROSS.md:", "says 1.0.7", "expected"]),
    ("another SONAME major", "docs/api/mainpage.md", r"libaccessenabler\.so\.1", "libaccessenabler.so.7",
     ["docs/api/mainpage.md:", "expected libaccessenabler.so."]),
    ("a stale Depends", "docs/PACKAGING.md", r"libjansson4 \(>= [0-9.]+\), ", "",
     ["docs/PACKAGING.md:", "expected `"]),
    ("a Buildroot package too many", "packaging/buildroot/accessenabler/accessenabler.mk",
     r"(ACCESSENABLER_DEPENDENCIES = )", r"\g<1>zlib ", ["accessenabler.mk:", "expected"]),
    ("a source folder not in the layout (the newcomer's Sources/CJansson)", "README.md", r"`CJansson/`, ", "",
     ["README.md:", "does not name `Sources/CJansson/`"]),
    ("a layout row for a folder that does not exist", "README.md", r"`CJansson/`", "`CJansson/`, `CZstd/`",
     ["README.md:", "Sources/CZstd/ does not exist"]),
    ("a size the check does not know", "docs/THREADING.md", r"\n## Swift\n",
     "\nThe stripped library is 12 MB.\n\n## Swift\n", ["docs/THREADING.md:", "`12 MB`", "does not know"]),
    ("the Yocto comment's size drifted", "packaging/yocto/accessenabler_{version}.bb",
     r"(self-contained: about )[0-9.]+( MB)", r"\g<1>15\g<2>", [".bb:", "15 MB, measured"]),
]


def self_test(library: Path) -> int:
    base = Check(ROOT, library, quiet=True)
    if base.run():
        print("self-test: the check fails on the tree itself; fix that first", file=sys.stderr)
        return 1
    version = base.version()
    failures = 0
    for what, path, pattern, replacement, expected in ALTERATIONS:
        path = path.format(version=version)
        original = base.text(path)
        altered, count = re.subn(pattern, replacement, original, count=1)
        if count == 0:
            print(f"self-test: {what}: /{pattern}/ not found in {path} (update ALTERATIONS)", file=sys.stderr)
            failures += 1
            continue
        check = Check(ROOT, library, overrides={path: altered}, quiet=True)
        check._tracked = base._tracked
        problems = check.run()
        hit = [p for p in problems if all(word in p for word in expected)]
        if hit:
            print(f"self-test: {what} ({path}): caught: {hit[0]}")
        else:
            print(f"self-test: {what} ({path}): NOT caught (expected a problem with {expected}); the check said:\n  "
                  + "\n  ".join(problems or ["nothing"]), file=sys.stderr)
            failures += 1
    print(f"check-docs-facts --self-test: {len(ALTERATIONS) - failures} of {len(ALTERATIONS)} alterations caught")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=Path(os.environ.get("AE_LIBRARY") or
                                                             ROOT / ".build/release/libaccessenabler.so"))
    parser.add_argument("--self-test", action="store_true", help="also check that altered copies of the docs fail")
    args = parser.parse_args()
    if not args.library.is_file():
        print(f"check-docs-facts: no library at {args.library} (swift build -c release -Xswiftc -static-stdlib "
              "--experimental-lto-mode=full --product accessenabler, or --library PATH)", file=sys.stderr)
        return 1
    problems = Check(ROOT, args.library).run()
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-docs-facts: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("check-docs-facts: ok")
    return self_test(args.library) if args.self_test else 0


if __name__ == "__main__":
    sys.exit(main())
