#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the embedded build recipes under packaging/ as far as this machine can (no bitbake, no Buildroot):

  Yocto      packaging/yocto/accessenabler_<version>.bb: bitbake's line syntax (assignments with their
             operators and quoting, continuations, inherit, task flags), the version of its name, the
             inherits and DEPENDS the project needs, LIC_FILES_CHKSUM's md5 against the file it names;
  Buildroot  packaging/buildroot/accessenabler/Config.in through kconfiglib (Debian's python3-kconfiglib):
             it parses, and the option selects libcurl, sqlite, openssl and jansson; accessenabler.mk through
             GNU make with stubs of Buildroot's functions (make -n -f), for both Swift runtime choices: the
             version, the dependencies and the CMake options it gives;
  layout     with the two .debs as arguments (scripts/package.sh's): every file of libaccessenabler1 falls in
             the recipe's FILES:${PN}, every file of libaccessenabler-dev in FILES:${PN}-dev (the docs in
             ${PN}-doc), and every FILES pattern matches a file (Debian's own copyright, changelog and lintian
             files aside; Debian's multiarch libdir is ${libdir}).

Usage: scripts/check-recipes.py [RUNTIME.deb DEV.deb]      exit status 1 with one line per problem.
"""
import fnmatch
import hashlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
problems: list[str] = []


def problem(text: str) -> None:
    problems.append(text)


def project_version() -> str:
    match = re.search(r"^project\(AccessEnabler VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text(), re.M)
    return match.group(1) if match else "?"


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
        problem(f"{recipe.name}: the project is {version} (rename it accessenabler_{version}.bb)")
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
    # file://NAME;beginline=A;endline=B;md5=SUM: bitbake's md5 of those lines, newlines included.
    for entry in variables.get("LIC_FILES_CHKSUM", "").split():
        fields = dict(part.split("=", 1) for part in entry.split(";")[1:])
        source = ROOT / entry.split(";")[0].removeprefix("file://")
        if not source.is_file():
            problem(f"{recipe.name}: LIC_FILES_CHKSUM names {source.name}, which does not exist")
            continue
        text = source.read_bytes().split(b"\n")
        begin, end = int(fields.get("beginline", 1)), int(fields.get("endline", len(text)))
        digest = hashlib.md5(b"".join(line + b"\n" for line in text[begin - 1:end])).hexdigest()
        if digest != fields.get("md5"):
            problem(f"{recipe.name}: LIC_FILES_CHKSUM md5 of {source.name} is {digest}, not {fields.get('md5')}")
    print(f"yocto: {recipe.name} parses ({len(variables)} variables); inherits {variables.get('inherit')}; "
          f"DEPENDS {variables.get('DEPENDS')}")
    return variables


# ------------------------------------------------------------------------------------------------
# Buildroot
# ------------------------------------------------------------------------------------------------
KCONFIG_STUB = """
mainmenu "stub of Buildroot's configuration"
config BR2_aarch64
\tbool
\tdefault y
config BR2_arm
\tbool
config BR2_x86_64
\tbool
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
    echo LICENSE=$$(ACCESSENABLER_LICENSE); echo CONF_OPTS=$$(ACCESSENABLER_CONF_OPTS))
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
            option.set_value(2)
            for name in ("BR2_PACKAGE_LIBCURL", "BR2_PACKAGE_SQLITE", "BR2_PACKAGE_OPENSSL", "BR2_PACKAGE_JANSSON"):
                if kconfig.syms[name].str_value != "y":
                    problem(f"Config.in: BR2_PACKAGE_ACCESSENABLER=y does not select {name}")
            static = kconfig.syms["BR2_PACKAGE_ACCESSENABLER_STATIC_SWIFT_RUNTIME"]
            print(f"buildroot: Config.in parses; BR2_PACKAGE_ACCESSENABLER selects libcurl, sqlite, openssl, jansson; "
                  f"{len([s for s in kconfig.unique_defined_syms if s.name.startswith('BR2_PACKAGE_ACCESSENABLER')])} "
                  f"options (static Swift runtime by default: {static.str_value})")
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
            problem(f"accessenabler.mk: ACCESSENABLER_VERSION is {values.get('VERSION')}, the project {version}")
        for package in ("libcurl", "sqlite", "openssl", "jansson"):
            if package not in values.get("DEPENDENCIES", "").split():
                problem(f"accessenabler.mk: ACCESSENABLER_DEPENDENCIES lacks {package}")
        if values.get("INSTALL_STAGING") != "YES":
            problem("accessenabler.mk: ACCESSENABLER_INSTALL_STAGING is not YES (the -dev files)")
        want = "-DAE_STATIC_SWIFT_RUNTIME=" + ("ON" if static else "OFF")
        options = values.get("CONF_OPTS", "")
        for option in (want, "-DAE_SWIFTPM_ARGS=--swift-sdk;aarch64-unknown-linux-gnu_debian_bookworm"):
            if option not in options:
                problem(f"accessenabler.mk (static runtime {static or 'n'}): CONF_OPTS lacks {option}: {options}")
        print(f"buildroot: accessenabler.mk (static runtime {static or 'n'}): CONF_OPTS {' '.join(options.split())}")


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

    debian_only = re.compile(r"^/usr/share/(doc/[^/]+/(copyright|changelog\.Debian\.gz)|lintian/.*)$")
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
    version = project_version()
    variables = check_yocto(version)
    check_buildroot(version)
    if len(sys.argv) == 3 and variables:
        check_layout(variables, Path(sys.argv[1]), Path(sys.argv[2]))
    elif len(sys.argv) != 1:
        print("usage: scripts/check-recipes.py [RUNTIME.deb DEV.deb]", file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
