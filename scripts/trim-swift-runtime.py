#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes a copy of the Swift toolchain's static resource directory in which the Swift runtime's
functions may be dropped by the linker when the library does not use them, and prints the swiftc
arguments that link against it (docs/DECISIONS.md "The size of the library").

The toolchain builds the Swift objects of `libswiftCore.a` and `libswift_Concurrency.a` with every
function section marked SHF_GNU_RETAIN (for a statically linked executable that exports the runtime
to plugins: `static-stdlib-args.lnk` passes -export-dynamic), so `--gc-sections` keeps all of them.
libaccessenabler.so exports only its `ae_` functions (Sources/AccessEnablerLink/exports.map): no
other image can call a runtime function the library does not reference, so what the library does
not reach through a relocation is dead. This clears the flag on the `.text.*` sections of those
objects, in copies of the two archives (sizes unchanged: only section-header flags change). Data,
metadata and the Swift sections (`swift5_*`: conformances, type metadata, field descriptors) stay
retained, and they keep every function they point to (witness tables, value witnesses, accessors).

    scripts/trim-swift-runtime.py OUT [--from STATIC_RESOURCE_DIR] [--swiftc SWIFTC] [--link-as DIR]
        Makes OUT (again only when the toolchain's archives changed) and prints, one per line:
        -Xswiftc, -resource-dir, -Xswiftc, OUT: what `swift build -Xswiftc -static-stdlib` adds.
        --link-as DIR: the links in OUT point into DIR instead of STATIC_RESOURCE_DIR (the same
        directory as another root sees it: scripts/cross.sh makes the aarch64 Swift SDK's copy on the
        host for a build inside the Debian 13 tree).
    scripts/trim-swift-runtime.py --self-test
        Compiles an object with retained functions and data (cc), archives it (ar), trims the copy
        and checks which flags changed (readelf).

STATIC_RESOURCE_DIR defaults to the toolchain's: `swiftc -print-target-info`'s runtimeResourcePath
with `_static` appended (/opt/swift/usr/lib/swift_static). With a static resource directory passed
as -resource-dir, the driver takes its `linux/static-stdlib-args.lnk`, `swiftrt.o` and archives there.
ELF64 little-endian objects only (x86-64, aarch64); anything else is copied unchanged.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ARCHIVES = ("libswiftCore.a", "libswift_Concurrency.a")
SHF_GNU_RETAIN = 0x200000
STAMP = ".trimmed-from"


def unretain_object(data: bytearray, start: int, size: int) -> int:
    """Clears SHF_GNU_RETAIN on the .text.* sections of the ELF object at data[start:start+size];
    returns how many it cleared (0 for anything that is not an ELF64 little-endian object)."""
    if size < 64 or data[start:start + 4] != b"\x7fELF" or data[start + 4] != 2 or data[start + 5] != 1:
        return 0
    shoff, = struct.unpack_from("<Q", data, start + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, start + 0x3A)
    if shoff == 0 or shentsize < 64 or shoff + shentsize > size:
        return 0
    if shnum == 0:  # more than 0xff00 sections: the count is in section 0's sh_size
        shnum, = struct.unpack_from("<Q", data, start + shoff + 0x20)
    if shstrndx == 0xFFFF:
        shstrndx, = struct.unpack_from("<I", data, start + shoff + 0x28)
    if shoff + shnum * shentsize > size or shstrndx >= shnum:
        return 0
    header = lambda index: start + shoff + index * shentsize  # noqa: E731
    names, = struct.unpack_from("<Q", data, header(shstrndx) + 0x18)
    cleared = 0
    for index in range(shnum):
        name_offset, = struct.unpack_from("<I", data, header(index))
        at = start + names + name_offset
        if bytes(data[at:at + 6]) != b".text.":
            continue
        flags, = struct.unpack_from("<Q", data, header(index) + 8)
        if flags & SHF_GNU_RETAIN:
            struct.pack_into("<Q", data, header(index) + 8, flags & ~SHF_GNU_RETAIN)
            cleared += 1
    return cleared


def unretain_archive(source: Path, target: Path) -> int:
    """Copies a System V / GNU ar archive, trimming each member in place; returns the sections cleared."""
    data = bytearray(source.read_bytes())
    if data[:8] != b"!<arch>\n":
        raise SystemExit(f"trim-swift-runtime: {source} is not an ar archive")
    offset, cleared = 8, 0
    while offset + 60 <= len(data):
        name = bytes(data[offset:offset + 16]).rstrip()
        size = int(bytes(data[offset + 48:offset + 58]).strip() or b"0")
        body = offset + 60
        if name.startswith(b"#1/"):  # BSD long name: the name leads the body
            skip = int(name[3:])
            cleared += unretain_object(data, body + skip, size - skip)
        elif name not in (b"/", b"//", b"/SYM64/"):
            cleared += unretain_object(data, body, size)
        offset = body + size + (size & 1)
    temporary = target.with_name(target.name + ".part")
    temporary.write_bytes(data)
    os.replace(temporary, target)
    return cleared


def toolchain_static_dir(swiftc: str) -> Path:
    info = json.loads(subprocess.run([swiftc, "-print-target-info"], check=True, capture_output=True, text=True).stdout)
    return Path(info["paths"]["runtimeResourcePath"] + "_static")


def make(out: Path, source: Path, link_as: Path | None = None) -> None:
    linux = source / "linux"
    if not (linux / "static-stdlib-args.lnk").is_file():
        raise SystemExit(f"trim-swift-runtime: {linux} has no static-stdlib-args.lnk (not a static resource directory)")
    target = lambda entry: (link_as / entry.relative_to(source)) if link_as else entry.resolve()  # noqa: E731
    fingerprint = json.dumps({"from": str(source.resolve()), "as": str(link_as), "archives": [
        [name, (linux / name).stat().st_size, (linux / name).stat().st_mtime_ns] for name in ARCHIVES]})
    if (out / STAMP).is_file() and (out / STAMP).read_text() == fingerprint:
        return
    if out.exists():
        shutil.rmtree(out)
    (out / "linux").mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name != "linux":
            (out / entry.name).symlink_to(target(entry))
    for entry in linux.iterdir():
        if entry.name not in ARCHIVES:
            (out / "linux" / entry.name).symlink_to(target(entry))
    for name in ARCHIVES:
        cleared = unretain_archive(linux / name, out / "linux" / name)
        print(f"trim-swift-runtime: {name}: {cleared} function sections no longer retained", file=sys.stderr)
    (out / STAMP).write_text(fingerprint)


def self_test() -> int:
    work = Path(tempfile.mkdtemp(prefix="trim-self-test-"))
    try:
        (work / "c.c").write_text(
            "__attribute__((used, retain)) int kept_function(void) { return 1; }\n"
            "__attribute__((used, retain)) int kept_data = 2;\n"
            "int plain_function(void) { return 3; }\n")
        subprocess.run(["cc", "-c", "-O1", "-ffunction-sections", "-fdata-sections", "-o", str(work / "c.o"),
                        str(work / "c.c")], check=True)
        subprocess.run(["ar", "rcs", str(work / "libx.a"), str(work / "c.o")], check=True)

        def flags(archive: Path) -> dict:
            text = subprocess.run(["readelf", "-SW", str(archive)], check=True, capture_output=True, text=True).stdout
            found = {}
            for line in text.splitlines():
                for name in (".text.kept_function", ".text.plain_function", ".data.kept_data"):
                    if f" {name} " in line:
                        found[name] = line.split()[-4] if "]" in line else ""
            return found

        before = flags(work / "libx.a")
        cleared = unretain_archive(work / "libx.a", work / "liby.a")
        after = flags(work / "liby.a")
        checks = [
            ("the compiler marked the function retained", "R" in before.get(".text.kept_function", "")),
            ("one section cleared", cleared == 1),
            ("the function is no longer retained", "R" not in after.get(".text.kept_function", "R")),
            ("the data stays retained", "R" in after.get(".data.kept_data", "")),
            ("the plain function is unchanged", before.get(".text.plain_function") == after.get(".text.plain_function")),
            ("the archive's size is unchanged", (work / "libx.a").stat().st_size == (work / "liby.a").stat().st_size),
        ]
        failed = [name for name, ok in checks if not ok]
        for name, ok in checks:
            print(f"  {'ok  ' if ok else 'FAIL'}  {name}")
        print(f"trim-swift-runtime self-test: {len(checks) - len(failed)} of {len(checks)} checks passed ({before} -> {after})")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv) -> int:
    if argv[:1] == ["--self-test"]:
        return self_test()
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out, source, swiftc, link_as = Path(argv[0]).absolute(), None, "swiftc", None
    rest = argv[1:]
    while rest:
        if rest[0] == "--from" and len(rest) > 1:
            source, rest = Path(rest[1]), rest[2:]
        elif rest[0] == "--link-as" and len(rest) > 1:
            link_as, rest = Path(rest[1]), rest[2:]
        elif rest[0] == "--swiftc" and len(rest) > 1:
            swiftc, rest = rest[1], rest[2:]
        else:
            print(f"trim-swift-runtime: unknown argument {rest[0]}", file=sys.stderr)
            return 2
    make(out, source or toolchain_static_dir(swiftc), link_as)
    print("\n".join(["-Xswiftc", "-resource-dir", "-Xswiftc", str(out)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
