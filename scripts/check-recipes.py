#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the embedded build recipes under packaging/ as far as this machine can (no bitbake, no Buildroot),
and that the copies of the version that cannot read the header's AE_VERSION_* (its one home) are the header's:

  Yocto      packaging/yocto/accessenabler_<version>.bb: bitbake's line syntax (assignments with their
             operators and quoting, continuations, inherit, task flags), the version of its name (the
             header's: Include/accessenabler.h AE_VERSION_MAJOR.MINOR.PATCH), the inherits and DEPENDS the
             project needs, LIC_FILES_CHKSUM's md5 against the file it names (LICENSE); a tagged release
             (SRC_URI tag=v${PV}, no AUTOREV anywhere in the file); ACCESSENABLER_MIN_SWIFT against
             Package.swift's `// swift-tools-version:X.Y` (the one home of the minimum), and the recipe's
             own Swift check run (outside bitbake) on fake swift drivers older and newer than it;
             COMPATIBLE_HOST and the anonymous ARM check on sample targets (aarch64, x86_64 and armv7
             hard-float built; armv5/armv6, soft-float, big-endian, musl refused);
  Buildroot  packaging/buildroot/accessenabler/Config.in through kconfiglib (Debian's python3-kconfiglib):
             it parses, the option selects libcurl, sqlite, openssl and jansson, states the minimum Swift,
             and is offered on aarch64, x86_64, armv7-a EABIhf, not on armv5/armv6 or soft-float ARM;
             accessenabler.mk through GNU make with stubs of Buildroot's functions, for both Swift runtime
             choices: the version (the header's), the tag it downloads, the license, the dependencies, the
             CMake options it gives, its minimum Swift (Package.swift's), and its pre-configure Swift
             check run on fake swift drivers; accessenabler.hash: the sha256 of LICENSE, and a tarball line,
             once there, for this version (the version its comments name too);
  Debian     packaging/debian/changelog: its first entry is the header's version (`accessenabler (X.Y.Z-R)`);
  layout     with the two .debs as arguments (scripts/package.sh's): every file of libaccessenabler1 falls in
             the recipe's FILES:${PN}, every file of libaccessenabler-dev in FILES:${PN}-dev (the docs in
             ${PN}-doc), and every FILES pattern matches a file (Debian's own copyright, changelog and lintian
             files aside, and the API reference, html/ and man3, which the recipes do not build: both pass
             -DAE_API_DOCS=OFF, checked; Debian's multiarch libdir is ${libdir}).

Usage: scripts/check-recipes.py [RUNTIME.deb DEV.deb]      exit status 1 with one line per problem;
"check-recipes: ok (...)" when there is none.
"""
from __future__ import annotations

import fnmatch
import hashlib
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
problems: list[str] = []


def problem(text: str) -> None:
    problems.append(text)


def header_version() -> str:
    """The version: Include/accessenabler.h's AE_VERSION_MAJOR.MINOR.PATCH, its one home (CMakeLists.txt, the
    Python package and the Swift `Version` read it; the recipes and the Debian changelog are checked here)."""
    header = (ROOT / "Include" / "accessenabler.h").read_text()
    parts = [re.search(rf"^#define AE_VERSION_{part} (\d+)\b", header, re.M) for part in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        problem("Include/accessenabler.h: no `#define AE_VERSION_MAJOR/MINOR/PATCH <number>`")
        return "?"
    return ".".join(part.group(1) for part in parts)


def check_debian_changelog(version: str) -> None:
    """packaging/debian/changelog: the first entry is this version (the packages' changelog.Debian.gz)."""
    first = (PACKAGING / "debian" / "changelog").read_text().split("\n", 1)[0]
    match = re.match(r"accessenabler \(([0-9.]+)-([^)]+)\) ", first)
    if not match:
        problem(f"packaging/debian/changelog: the first line is not `accessenabler (X.Y.Z-R) ...`: {first}")
    elif match.group(1) != version:
        problem(f"packaging/debian/changelog: the first entry is {match.group(1)}, the header {version} "
                f"(add an entry `accessenabler ({version}-1)` at the top)")
    else:
        print(f"debian: changelog's first entry {match.group(1)}-{match.group(2)}")


def minimum_swift() -> str:
    """The minimum Swift: the first line of Package.swift, `// swift-tools-version:X.Y`."""
    first = (ROOT / "Package.swift").read_text().split("\n", 1)[0]
    match = re.fullmatch(r"//\s*swift-tools-version:\s*([0-9]+\.[0-9]+)(?:\.[0-9]+)?\s*", first)
    if not match:
        problem(f"Package.swift: the first line is not `// swift-tools-version:X.Y`: {first}")
        return "?"
    return match.group(1)


def older_swift(minimum: str) -> str:
    """A Swift version just below the minimum (6.0 -> 5.10, 6.2 -> 6.1)."""
    major, minor = (int(part) for part in minimum.split("."))
    return f"{major}.{minor - 1}" if minor else f"{major - 1}.10"


def fake_swift(folder: Path, version: str) -> Path:
    """A stand-in for a toolchain's swift driver: prints what `swift --version` prints."""
    driver = folder / f"swift-{version}"
    driver.write_text(f"#!/bin/sh\necho 'Swift version {version} (swift-{version}-RELEASE)'\n"
                      f"echo 'Target: x86_64-unknown-linux-gnu'\n")
    driver.chmod(0o755)
    return driver


def function_body(text: str, header: str) -> str | None:
    """The body of a bitbake python function (`header` is its first line up to the brace), dedented."""
    match = re.search(rf"^{re.escape(header)}\s*\{{\s*\n(.*?)^\}}\s*$", text, re.M | re.S)
    return textwrap.dedent(match.group(1)) if match else None


# ------------------------------------------------------------------------------------------------
# Yocto
# ------------------------------------------------------------------------------------------------
ASSIGNMENT = re.compile(r'^(export\s+)?([A-Za-z0-9_${}.+-]+)(:[A-Za-z0-9_${}:.-]+)?(\[[A-Za-z0-9_-]+\])?\s*'
                        r'(\?\?=|\?=|:=|\+=|=\+|\.=|=\.|=)\s*(["\'])(.*)$')
DIRECTIVE = re.compile(r"^(inherit|require|include|addtask|deltask|EXPORT_FUNCTIONS)\s+\S")
FUNCTION = re.compile(r"^(python\s+)?[A-Za-z0-9_${}:-]*\s*\(\)\s*\{\s*$")


def parse_bitbake(path: Path) -> dict[str, str]:
    """Variables (name with its override, and +=/:append joined) of a recipe; syntax problems reported."""
    variables: dict[str, str] = {}
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 1
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if DIRECTIVE.match(line):
            if line.startswith("inherit"):
                variables["inherit"] = (variables.get("inherit", "") + " " + line.split(None, 1)[1]).strip()
            continue
        if FUNCTION.match(line):
            while i < len(lines) and lines[i] != "}":
                i += 1
            if i == len(lines):
                problem(f"{path.name}:{number}: function not closed by a '}}' line")
            i += 1
            continue
        match = ASSIGNMENT.match(line)
        if not match:
            problem(f"{path.name}:{number}: not bitbake syntax: {line}")
            continue
        name = match.group(2) + (match.group(3) or "") + (match.group(4) or "")
        operator, quote, rest = match.group(5), match.group(6), match.group(7)
        value = rest
        # A value runs to its closing quote; a line ending in a backslash continues it.
        while not re.search(rf"(?<!\\){quote}\s*$", value.rstrip("\\").rstrip() if value.endswith("\\") else value) \
                or value.endswith("\\"):
            if not value.endswith("\\"):
                problem(f"{path.name}:{number}: value of {name} does not end with {quote}")
                break
            if i == len(lines):
                problem(f"{path.name}:{number}: continuation of {name} runs past the end")
                break
            value = value[:-1] + " " + lines[i].strip()
            i += 1
        value = value.rstrip()
        if value.endswith(quote):
            value = value[:-1]
        if value.count(quote) and quote == '"':
            problem(f"{path.name}:{number}: stray {quote} inside the value of {name}")
        value = " ".join(value.split())
        if operator in ("+=", "=+", ".=", "=.") and name in variables:
            variables[name] = (variables[name] + " " + value).strip()
        else:
            variables.setdefault(name, value) if operator in ("?=", "??=") else variables.__setitem__(name, value)
    return variables


def check_yocto(version: str) -> dict[str, str]:
    recipes = sorted((PACKAGING / "yocto").glob("accessenabler_*.bb"))
    if len(recipes) != 1:
        problem(f"packaging/yocto: want one accessenabler_<version>.bb, found {[r.name for r in recipes]}")
        return {}
    recipe = recipes[0]
    if recipe.name != f"accessenabler_{version}.bb":
        problem(f"{recipe.name}: the header is {version} (rename it accessenabler_{version}.bb)")
    variables = parse_bitbake(recipe)
    for name in ("SUMMARY", "LICENSE", "LIC_FILES_CHKSUM", "SRC_URI", "DEPENDS", "FILES:${PN}", "FILES:${PN}-dev"):
        if name not in variables:
            problem(f"{recipe.name}: no {name}")
    for word in ("cmake", "pkgconfig", "swift"):
        if word not in variables.get("inherit", "").split():
            problem(f"{recipe.name}: does not inherit {word}")
    for package in ("curl", "sqlite3", "openssl", "jansson"):
        if package not in variables.get("DEPENDS", "").split():
            problem(f"{recipe.name}: DEPENDS lacks {package}")
    if variables.get("LICENSE") != "Apache-2.0":
        problem(f"{recipe.name}: LICENSE is not Apache-2.0")
    # file://NAME[;beginline=A;endline=B];md5=SUM: bitbake's md5 of the whole file, or of those lines
    # (newlines included).
    license_files = []
    for entry in variables.get("LIC_FILES_CHKSUM", "").split():
        fields = dict(part.split("=", 1) for part in entry.split(";")[1:])
        source = ROOT / entry.split(";")[0].removeprefix("file://")
        license_files.append(source.name)
        if not source.is_file():
            problem(f"{recipe.name}: LIC_FILES_CHKSUM names {source.name}, which does not exist")
            continue
        if "beginline" in fields or "endline" in fields:
            lines = source.read_bytes().splitlines(keepends=True)
            begin, end = int(fields.get("beginline", 1)), int(fields.get("endline", len(lines)))
            digest = hashlib.md5(b"".join(lines[begin - 1:end])).hexdigest()
        else:
            digest = hashlib.md5(source.read_bytes()).hexdigest()
        if digest != fields.get("md5"):
            problem(f"{recipe.name}: LIC_FILES_CHKSUM md5 of {source.name} is {digest}, not {fields.get('md5')}")
    if "LICENSE" not in license_files:
        problem(f"{recipe.name}: LIC_FILES_CHKSUM does not name LICENSE (the license text)")
    # A tagged release: the tag of the version, and never a moving revision.
    text = recipe.read_text()
    if "AUTOREV" in text:
        problem(f"{recipe.name}: AUTOREV (a moving revision; build the tag v${{PV}})")
    if "tag=v${PV}" not in variables.get("SRC_URI", "").split(";"):
        problem(f"{recipe.name}: SRC_URI does not fetch the tag (tag=v${{PV}}): {variables.get('SRC_URI')}")
    if re.search(r"(^|;)branch=", variables.get("SRC_URI", "") + ";" + variables.get("ACCESSENABLER_GIT_URI", "")):
        problem(f"{recipe.name}: SRC_URI names a branch; fetch the tag")
    if "-DAE_API_DOCS=OFF" not in variables.get("EXTRA_OECMAKE", "").split():
        problem(f"{recipe.name}: EXTRA_OECMAKE lacks -DAE_API_DOCS=OFF (the API reference needs doxygen)")
    check_yocto_swift(recipe.name, text, variables)
    check_yocto_targets(recipe.name, text, variables)
    print(f"yocto: {recipe.name} parses ({len(variables)} variables); inherits {variables.get('inherit')}; "
          f"DEPENDS {variables.get('DEPENDS')}; LIC_FILES_CHKSUM {' '.join(license_files)}; "
          f"SRC_URI {variables.get('SRC_URI')}")
    return variables


class BitbakeFatal(Exception):
    pass


class SkipRecipe(Exception):
    pass


class FakeData:
    """The little of bitbake's datastore `d` the recipe's python functions use."""

    def __init__(self, values: dict[str, str]):
        self.values = values

    def getVar(self, name: str, expand: bool = True) -> str | None:  # noqa: N802 (bitbake's name)
        return self.values.get(name)


class FakeBB:
    """The little of bitbake's `bb` module the recipe's python functions use."""

    class parse:  # noqa: N801
        SkipRecipe = SkipRecipe

    @staticmethod
    def fatal(*message: str) -> None:
        raise BitbakeFatal(" ".join(message))

    @staticmethod
    def note(*message: str) -> None:
        pass


def run_bitbake_python(body: str, values: dict[str, str]) -> Exception | None:
    try:
        exec(compile(body, "recipe", "exec"), {"d": FakeData(values), "bb": FakeBB})
    except (BitbakeFatal, SkipRecipe) as error:
        return error
    return None


def check_yocto_swift(name: str, text: str, variables: dict[str, str]) -> None:
    """ACCESSENABLER_MIN_SWIFT is Package.swift's, and the configure-time check enforces it."""
    minimum = minimum_swift()
    stated = variables.get("ACCESSENABLER_MIN_SWIFT")
    if stated != minimum:
        problem(f"{name}: ACCESSENABLER_MIN_SWIFT is {stated}, Package.swift's swift-tools-version {minimum}")
    if "accessenabler_check_swift" not in variables.get("do_configure[prefuncs]", "").split():
        problem(f"{name}: do_configure[prefuncs] does not run accessenabler_check_swift")
    body = function_body(text, "python accessenabler_check_swift()")
    if body is None:
        problem(f"{name}: no python accessenabler_check_swift() function")
        return
    if minimum == "?" or stated is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for version, passes in ((older_swift(minimum), False), (minimum, True), ("6.3.1", True)):
            error = run_bitbake_python(body, {"ACCESSENABLER_SWIFT": str(fake_swift(Path(tmp), version)),
                                              "ACCESSENABLER_MIN_SWIFT": stated})
            if passes and error is not None:
                problem(f"{name}: accessenabler_check_swift refuses Swift {version}: {error}")
            if not passes and (error is None or f"Swift {minimum} or newer" not in str(error)):
                problem(f"{name}: accessenabler_check_swift does not refuse Swift {version} naming {minimum}: {error}")
    print(f"yocto: minimum Swift {stated} (Package.swift {minimum}); the configure-time check refuses "
          f"{older_swift(minimum)}, takes {minimum} and 6.3.1")


# TARGET_SYS, TARGET_ARCH, TUNE_FEATURES, TARGET_FPU of sample MACHINEs, and whether the recipe may build.
YOCTO_TARGETS = [
    ("aarch64-poky-linux", "aarch64", "aarch64 armv8a crc", "", True),
    ("x86_64-poky-linux", "x86_64", "m64 core2", "", True),
    ("arm-poky-linux-gnueabi", "arm", "arm armv7ve vfp thumb neon callconvention-hard cortexa7", "hard", True),
    ("arm-poky-linux-gnueabi", "arm", "arm armv7a vfp vfpv3d16 callconvention-hard", "hard", True),
    ("arm-poky-linux-gnueabi", "arm", "arm armv7a vfp neon", "softfp", False),
    ("arm-poky-linux-gnueabi", "arm", "arm armv6 vfp callconvention-hard arm1176jzfs", "hard", False),
    ("arm-poky-linux-gnueabi", "arm", "arm armv5 thumb dsp", "soft", False),
    ("armeb-poky-linux-gnueabi", "armeb", "arm armv7a bigendian callconvention-hard", "hard", False),
    ("aarch64-poky-linux-musl", "aarch64", "aarch64 armv8a", "", False),
    ("i686-poky-linux", "i686", "m32 core2", "", False),
    ("x86_64-poky-linux-gnux32", "x86_64", "mx32 core2", "", False),
]


def check_yocto_targets(name: str, text: str, variables: dict[str, str]) -> None:
    """COMPATIBLE_HOST (re.match on TARGET_SYS, as base.bbclass does) and the anonymous function's ARM check."""
    host = variables.get("COMPATIBLE_HOST")
    if not host:
        problem(f"{name}: no COMPATIBLE_HOST")
        return
    body = function_body(text, "python ()")
    if body is None:
        problem(f"{name}: no anonymous python function (the 32-bit ARM check)")
        return
    built = []
    for target_sys, arch, tune, fpu, wanted in YOCTO_TARGETS:
        buildable = bool(re.match(host, target_sys)) and run_bitbake_python(
            body, {"TARGET_ARCH": arch, "TUNE_FEATURES": tune, "TARGET_FPU": fpu}) is None
        if buildable != wanted:
            problem(f"{name}: {'refuses' if wanted else 'builds for'} {target_sys} with TUNE_FEATURES {tune}")
        if buildable:
            built.append(f"{arch} ({tune.split()[1]})")
    print(f"yocto: builds for {', '.join(built)}; refuses the {len(YOCTO_TARGETS) - len(built)} other sample targets "
          f"(armv5, armv6, soft-float, big-endian, musl, i686, x32)")


# ------------------------------------------------------------------------------------------------
# Buildroot
# ------------------------------------------------------------------------------------------------
ARCH_SYMBOLS = ["BR2_aarch64", "BR2_arm", "BR2_x86_64", "BR2_ARM_CPU_ARMV5", "BR2_ARM_CPU_ARMV6",
                "BR2_ARM_CPU_ARMV7A", "BR2_ARM_CPU_ARMV8A", "BR2_ARM_EABI", "BR2_ARM_EABIHF"]
# Buildroot's architecture symbols in the stub, and whether the package is offered with them.
BUILDROOT_TARGETS = [
    (("BR2_aarch64",), True),
    (("BR2_x86_64",), True),
    (("BR2_arm", "BR2_ARM_CPU_ARMV7A", "BR2_ARM_EABIHF"), True),
    (("BR2_arm", "BR2_ARM_CPU_ARMV8A", "BR2_ARM_EABIHF"), True),
    (("BR2_arm", "BR2_ARM_CPU_ARMV7A", "BR2_ARM_EABI"), False),
    (("BR2_arm", "BR2_ARM_CPU_ARMV6", "BR2_ARM_EABIHF"), False),
    (("BR2_arm", "BR2_ARM_CPU_ARMV5", "BR2_ARM_EABI"), False),
]

KCONFIG_STUB = """
mainmenu "stub of Buildroot's configuration"
""" + "".join(f'config {name}\n\tbool "{name}"\n' for name in ARCH_SYMBOLS) + """
config BR2_TOOLCHAIN_USES_GLIBC
\tbool
\tdefault y
config BR2_INSTALL_LIBSTDCPP
\tbool
\tdefault y
config BR2_TOOLCHAIN_HAS_THREADS
\tbool
\tdefault y
config BR2_PACKAGE_LIBCURL
\tbool "libcurl"
config BR2_PACKAGE_SQLITE
\tbool "sqlite"
config BR2_PACKAGE_OPENSSL
\tbool "openssl"
config BR2_PACKAGE_JANSSON
\tbool "jansson"
source "{config_in}"
"""

MAKE_STUB = """
qstrip = $(strip $(subst ",,$(1)))
cmake-package = $(eval print-vars: ; @echo VERSION=$$(ACCESSENABLER_VERSION); \\
    echo DEPENDENCIES=$$(ACCESSENABLER_DEPENDENCIES); echo INSTALL_STAGING=$$(ACCESSENABLER_INSTALL_STAGING); \\
    echo LICENSE=$$(ACCESSENABLER_LICENSE); echo CONF_OPTS=$$(ACCESSENABLER_CONF_OPTS); \\
    echo LICENSE_FILES=$$(ACCESSENABLER_LICENSE_FILES); echo SITE=$$(ACCESSENABLER_SITE); \\
    echo SITE_METHOD=$$(ACCESSENABLER_SITE_METHOD); echo SOURCE=$$(ACCESSENABLER_SOURCE); \\
    echo MIN_SWIFT=$$(ACCESSENABLER_MIN_SWIFT); echo PRE_CONFIGURE_HOOKS=$$(ACCESSENABLER_PRE_CONFIGURE_HOOKS))
# Runs the pre-configure hooks as Buildroot does (one recipe line per hook line).
run-hooks: ; $(foreach hook,$(ACCESSENABLER_PRE_CONFIGURE_HOOKS),$(call $(hook))$(sep))
define sep


endef
include {mk}
"""


def import_kconfiglib():
    try:
        import kconfiglib
    except ImportError:  # Debian's python3-kconfiglib, for another python3 than Debian's
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import kconfiglib
        except ImportError:
            return None
    return kconfiglib


def check_buildroot(version: str) -> None:
    folder = PACKAGING / "buildroot" / "accessenabler"
    kconfiglib = import_kconfiglib()
    if kconfiglib is None:
        problem("Config.in: kconfiglib is not installed (apt-get install python3-kconfiglib)")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            stub = Path(tmp) / "Kconfig"
            stub.write_text(KCONFIG_STUB.replace("{config_in}", str(folder / "Config.in")))
            try:
                kconfig = kconfiglib.Kconfig(str(stub), warn_to_stderr=False)
            except kconfiglib.KconfigError as error:
                problem(f"Config.in: {error}")
                kconfig = None
        if kconfig is not None:
            for warning in kconfig.warnings:
                problem(f"Config.in: {warning}")
            option = kconfig.syms["BR2_PACKAGE_ACCESSENABLER"]
            offered = []
            for symbols, wanted in BUILDROOT_TARGETS:
                for name in ARCH_SYMBOLS:
                    kconfig.syms[name].set_value(2 if name in symbols else 0)
                if (option.visibility > 0) != wanted:
                    problem(f"Config.in: BR2_PACKAGE_ACCESSENABLER is {'not ' if wanted else ''}offered with "
                            f"{' '.join(symbols)}")
                if option.visibility > 0:
                    offered.append(" ".join(s.removeprefix("BR2_") for s in symbols))
            print(f"buildroot: Config.in offers the package on {', '.join(offered)}; not on armv5, armv6, "
                  f"soft-float ARM")
            for name in ARCH_SYMBOLS:
                kconfig.syms[name].set_value(2 if name == "BR2_aarch64" else 0)
            option.set_value(2)
            for name in ("BR2_PACKAGE_LIBCURL", "BR2_PACKAGE_SQLITE", "BR2_PACKAGE_OPENSSL", "BR2_PACKAGE_JANSSON"):
                if kconfig.syms[name].str_value != "y":
                    problem(f"Config.in: BR2_PACKAGE_ACCESSENABLER=y does not select {name}")
            static = kconfig.syms["BR2_PACKAGE_ACCESSENABLER_STATIC_SWIFT_RUNTIME"]
            print(f"buildroot: Config.in parses; BR2_PACKAGE_ACCESSENABLER selects libcurl, sqlite, openssl, jansson; "
                  f"{len([s for s in kconfig.unique_defined_syms if s.name.startswith('BR2_PACKAGE_ACCESSENABLER')])} "
                  f"options (static Swift runtime by default: {static.str_value})")
    minimum = minimum_swift()
    if f"Swift {minimum} or newer" not in (folder / "Config.in").read_text():
        problem(f"Config.in: the help does not state the minimum Swift (\"Swift {minimum} or newer\")")
    for static in ("y", ""):
        with tempfile.TemporaryDirectory() as tmp:
            stub = Path(tmp) / "stub.mk"
            stub.write_text(MAKE_STUB.replace("{mk}", str(folder / "accessenabler.mk")))
            result = subprocess.run(
                ["make", "-s", "-f", str(stub), "print-vars", f"BR2_PACKAGE_ACCESSENABLER_STATIC_SWIFT_RUNTIME={static}",
                 'BR2_PACKAGE_ACCESSENABLER_SWIFT="/opt/swift/usr/bin/swift"',
                 'BR2_PACKAGE_ACCESSENABLER_SWIFT_SDK="aarch64-unknown-linux-gnu_debian_bookworm"',
                 'BR2_PACKAGE_ACCESSENABLER_SWIFT_RUNTIME_DIR="/usr/lib/swift/linux"'],
                capture_output=True, text=True)
        if result.returncode != 0:
            problem(f"accessenabler.mk: make failed: {result.stderr.strip()}")
            continue
        values = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
        if values.get("VERSION") != version:
            problem(f"accessenabler.mk: ACCESSENABLER_VERSION is {values.get('VERSION')}, the header {version}")
        for package in ("libcurl", "sqlite", "openssl", "jansson"):
            if package not in values.get("DEPENDENCIES", "").split():
                problem(f"accessenabler.mk: ACCESSENABLER_DEPENDENCIES lacks {package}")
        if values.get("INSTALL_STAGING") != "YES":
            problem("accessenabler.mk: ACCESSENABLER_INSTALL_STAGING is not YES (the -dev files)")
        if values.get("LICENSE") != "Apache-2.0" or values.get("LICENSE_FILES") != "LICENSE":
            problem(f"accessenabler.mk: ACCESSENABLER_LICENSE(_FILES) are {values.get('LICENSE')} "
                    f"{values.get('LICENSE_FILES')}, want Apache-2.0 LICENSE")
        site = values.get("SITE", "")
        if f"v{version}" not in site or values.get("SITE_METHOD") or values.get("SOURCE"):
            problem(f"accessenabler.mk: want the tarball of the tag v{version} (ACCESSENABLER_SITE .../v$(VERSION), "
                    f"Buildroot's default SITE_METHOD and SOURCE), have SITE {site}, SITE_METHOD "
                    f"{values.get('SITE_METHOD')}, SOURCE {values.get('SOURCE')}")
        if values.get("MIN_SWIFT") != minimum:
            problem(f"accessenabler.mk: ACCESSENABLER_MIN_SWIFT is {values.get('MIN_SWIFT')}, Package.swift's "
                    f"swift-tools-version {minimum}")
        if "ACCESSENABLER_CHECK_SWIFT" not in values.get("PRE_CONFIGURE_HOOKS", "").split():
            problem("accessenabler.mk: ACCESSENABLER_PRE_CONFIGURE_HOOKS lacks ACCESSENABLER_CHECK_SWIFT")
        want = "-DAE_STATIC_SWIFT_RUNTIME=" + ("ON" if static else "OFF")
        options = values.get("CONF_OPTS", "")
        for option in (want, "-DAE_SWIFTPM_ARGS=--swift-sdk;aarch64-unknown-linux-gnu_debian_bookworm", "-DAE_API_DOCS=OFF"):
            if option not in options:
                problem(f"accessenabler.mk (static runtime {static or 'n'}): CONF_OPTS lacks {option}: {options}")
        print(f"buildroot: accessenabler.mk (static runtime {static or 'n'}): CONF_OPTS {' '.join(options.split())}")
    print(f"buildroot: accessenabler.mk downloads {values.get('SITE')}/accessenabler-{version}.tar.gz, "
          f"minimum Swift {values.get('MIN_SWIFT')} (Package.swift {minimum})")
    check_buildroot_swift(folder, minimum)
    check_buildroot_hash(folder, version)


def check_buildroot_swift(folder: Path, minimum: str) -> None:
    """The pre-configure hook, run by make on fake swift drivers: it refuses the one below the minimum."""
    if minimum == "?":
        return
    with tempfile.TemporaryDirectory() as tmp:
        stub = Path(tmp) / "stub.mk"
        stub.write_text(MAKE_STUB.replace("{mk}", str(folder / "accessenabler.mk")))
        for version, passes in ((older_swift(minimum), False), (minimum, True), ("6.3.1", True)):
            result = subprocess.run(["make", "-s", "-f", str(stub), "run-hooks",
                                     f'BR2_PACKAGE_ACCESSENABLER_SWIFT="{fake_swift(Path(tmp), version)}"'],
                                    capture_output=True, text=True)
            if passes and result.returncode != 0:
                problem(f"accessenabler.mk: the Swift check refuses Swift {version}: {result.stderr.strip()}")
            if not passes and (result.returncode == 0 or f"Swift {minimum} or newer" not in result.stderr):
                problem(f"accessenabler.mk: the Swift check does not refuse Swift {version} naming {minimum}: "
                        f"{result.stderr.strip()}")
    print(f"buildroot: the pre-configure Swift check refuses {older_swift(minimum)}, takes {minimum} and 6.3.1")


def check_buildroot_hash(folder: Path, version: str) -> None:
    """accessenabler.hash: Buildroot's `TYPE  HEX  FILE` lines; LICENSE's sha256; a tarball of this version (and
    the version its comments name)."""
    path = folder / "accessenabler.hash"
    if not path.is_file():
        problem("accessenabler.hash: missing")
        return
    lengths = {"md5": 32, "sha1": 40, "sha224": 56, "sha256": 64, "sha384": 96, "sha512": 128}
    hashes: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if (len(fields) != 3 or fields[0] not in lengths or len(fields[1]) != lengths[fields[0]]
                or not re.fullmatch(r"[0-9a-f]+", fields[1])):
            problem(f"accessenabler.hash:{number}: not `TYPE  HEX  FILE`: {line}")
            continue
        hashes[fields[2]] = (fields[0], fields[1])
    # Its comments name the tarball and the tag to publish: this version's too.
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for named in re.findall(r"accessenabler-([0-9.]*[0-9])\.tar\.gz|\bv([0-9]+\.[0-9]+\.[0-9]+)\b", line):
            if (named[0] or named[1]) != version:
                problem(f"accessenabler.hash:{number}: names {named[0] or named[1]}, the header is {version}: {line}")
    licence = hashlib.sha256((ROOT / "LICENSE").read_bytes()).hexdigest()
    if hashes.get("LICENSE") != ("sha256", licence):
        problem(f"accessenabler.hash: the sha256 of LICENSE is {licence}, the file says {hashes.get('LICENSE')}")
    tarballs = [name for name in hashes if name != "LICENSE"]
    for name in tarballs:
        if name != f"accessenabler-{version}.tar.gz":
            problem(f"accessenabler.hash: {name} is not the tarball of {version} (accessenabler-{version}.tar.gz)")
    print(f"buildroot: accessenabler.hash: LICENSE sha256 {licence[:12]}...; release tarball: "
          f"{', '.join(tarballs) if tarballs else 'no line yet (the tag is not published)'}")


# ------------------------------------------------------------------------------------------------
# Layout: the recipe's FILES against the .debs
# ------------------------------------------------------------------------------------------------
def deb_files(deb: Path) -> list[str]:
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    files = []
    for line in listing.splitlines():
        fields = line.split()
        if fields[0].startswith("d"):
            continue
        files.append("/" + fields[5].removeprefix("./"))
    return files


def check_layout(variables: dict[str, str], runtime_deb: Path, dev_deb: Path) -> None:
    runtime, dev = deb_files(runtime_deb), deb_files(dev_deb)
    library = next((f for f in runtime if re.search(r"/libaccessenabler\.so\.\d+\.\d+\.\d+$", f)), None)
    if library is None:
        problem(f"{runtime_deb.name}: no libaccessenabler.so.X.Y.Z")
        return
    libdir = library.rsplit("/", 1)[0]  # Debian's /usr/lib/<multiarch>: bitbake's ${libdir}
    expand = {"${libdir}": libdir, "${includedir}": "/usr/include", "${docdir}": "/usr/share/doc",
              "${datadir}": "/usr/share", "${bindir}": "/usr/bin", "${PN}": "accessenabler"}

    def patterns(name: str) -> list[str]:
        words = variables.get(name, "").split()
        for key, value in expand.items():
            words = [w.replace(key, value) for w in words]
        return words

    def matches(pattern: str, path: str) -> bool:
        return fnmatch.fnmatchcase(path, pattern) or path.startswith(pattern.rstrip("/") + "/")

    debian_only = re.compile(r"^/usr/share/(doc/[^/]+/(copyright|changelog\.Debian\.gz)|lintian/.*"
                             r"|doc/libaccessenabler-dev/html/.*|man/man3/.*)$")  # the API reference: no recipe's
    split = {"FILES:${PN}": patterns("FILES:${PN}"), "FILES:${PN}-dev": patterns("FILES:${PN}-dev"),
             "FILES:${PN}-doc": patterns("FILES:${PN}-doc")}
    used = {p for ps in split.values() for p in ps}
    matched: set[str] = set()
    for deb, files, wanted in ((runtime_deb, runtime, ("FILES:${PN}",)),
                               (dev_deb, dev, ("FILES:${PN}-dev", "FILES:${PN}-doc"))):
        for path in files:
            if debian_only.match(path):
                continue
            homes = [name for name, ps in split.items() if any(matches(p, path) for p in ps)]
            matched.update(p for ps in split.values() for p in ps if matches(p, path))
            if not homes or homes[0] not in wanted:
                problem(f"layout: {path} of {deb.name} is in {homes or 'no package'} of the recipe, want {' or '.join(wanted)}")
    for pattern in sorted(used - matched):
        problem(f"layout: the recipe's FILES pattern {pattern} matches no file of the .debs")
    print(f"layout: the {len(runtime)} + {len(dev)} files of {runtime_deb.name}, {dev_deb.name} fall in the recipe's "
          f"FILES:${{PN}} / FILES:${{PN}}-dev (-doc); ${{libdir}} = {libdir}")


def main() -> int:
    version = header_version()
    variables = check_yocto(version)
    check_buildroot(version)
    check_debian_changelog(version)
    if len(sys.argv) == 3 and variables:
        check_layout(variables, Path(sys.argv[1]), Path(sys.argv[2]))
    elif len(sys.argv) != 1:
        print("usage: scripts/check-recipes.py [RUNTIME.deb DEV.deb]", file=sys.stderr)
        return 2
    unique = list(dict.fromkeys(problems))  # the .mk is read once per Swift runtime choice
    for line in unique:
        print(line)
    if unique:
        print(f"check-recipes: {len(unique)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-recipes: ok (version {version}: the header's, the recipes', the Debian changelog's; minimum Swift "
          f"{minimum_swift()}, tagged release, LICENSE checksums, targets aarch64/x86_64/armv7 hard-float)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
