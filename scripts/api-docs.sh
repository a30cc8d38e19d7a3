#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# api-docs.sh — the API reference from Include/accessenabler.h with doxygen (Debian package doxygen),
# grouped by topic (docs/api/mainpage.md): HTML, and man pages (section 3) for the public functions.
# Warnings are errors: every public symbol must be documented and every @param must name a parameter.
# Before doxygen runs, the header is checked for what doxygen cannot be asked for here (its
# WARN_NO_PARAMDOC would also flag the deprecated inline aliases): every AE_API function has a
# @param for each parameter, a @return unless it returns void, and @ownership, @thread and
# @callbacks paragraphs (docs/api/Doxyfile's ALIASES). Nothing of the output is committed; CMake
# installs it in the -dev package (CMakeLists.txt, AE_API_DOCS).
#
#   scripts/api-docs.sh [OUTPUT_DIR]     default .build/api-docs
#     OUTPUT_DIR/html/index.html          the reference (html/ is made anew)
#     OUTPUT_DIR/man/man3/                man pages (made anew): one page per topic, accessenabler-<topic>.3
#                                         (the groups of the header: accessenabler-calls.3, ...), one per
#                                         struct (ae_config.3, ...), accessenabler.h.3 (the rules; also
#                                         as accessenabler.3), and each ae_* function or type as a
#                                         symbolic link to the page that documents it (man ae_set_requestor)
#   DOXYGEN=/path/to/doxygen              another doxygen (CMake passes the one it found)
# The man pages' date is SOURCE_DATE_EPOCH, by default the date of packaging/debian/changelog's first
# entry, so that the output is the same for every build of a release.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
doxygen=${DOXYGEN:-doxygen}
command -v "$doxygen" >/dev/null || { echo "api-docs: doxygen not found (apt-get install doxygen)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "api-docs: python3 not found" >&2; exit 2; }
out=${1:-.build/api-docs}
mkdir -p "$out"
rm -rf "$out/html" "$out/man"

# Every AE_API function: @param per parameter, @return unless void, @ownership, @thread, @callbacks.
python3 - Include/accessenabler.h <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
problems = []
matches = 0
for match in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/)\s*AE_API\s+([^;{]*?)\b(ae_\w+)\s*\(([^)]*)\)(?:\s*AE_\w+_\([^)]*\))?\s*;",
                         text, re.S):  # (a renamed function ends with its attribute: `) AE_RENAMED_("new", "1.4");`)
    comment, result, name, parameters = match.groups()
    matches += 1
    line = text.count("\n", 0, match.start(3)) + 1
    names = [re.search(r"(\w+)\s*(\[\s*\])?$", p.strip()).group(1) for p in parameters.split(",")
             if p.strip() not in ("", "void")]
    for parameter in names:
        if not re.search(rf"@param(\[(in|out|in,out)\])?\s+{parameter}\b", comment):
            problems.append(f"{path}:{line}: {name}: no @param {parameter}")
    wanted = ["@ownership", "@thread", "@callbacks"] + ([] if result.split() == ["void"] else ["@return"])
    problems += [f"{path}:{line}: {name}: no {tag}" for tag in wanted if not re.search(rf"{tag}\b", comment)]
declared = len(re.findall(r"^AE_API\b", text, re.M))
documented = len(re.findall(r"\*/\s*AE_API\b", text))
if documented != declared:
    problems.append(f"{path}: {declared - documented} AE_API declaration(s) without a doc comment right above")
elif matches != declared:
    problems.append(f"{path}: {declared - matches} AE_API declaration(s) this check cannot read (a parameter list "
                    "with parentheses?)")
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(f"api-docs: {len(problems)} gap(s) in the functions' documentation")
EOF

version=$(awk '/^#define AE_VERSION_(MAJOR|MINOR|PATCH) / { printf "%s%s", sep, $3; sep = "." }' Include/accessenabler.h)
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    # The trailer line of the changelog's first entry: " -- Name <mail>  Thu, 01 Jan 2026 00:00:00 +0000".
    SOURCE_DATE_EPOCH=$(date -d "$(sed -n 's/^ -- .*>  //p' packaging/debian/changelog | head -n 1)" +%s)
fi
export SOURCE_DATE_EPOCH
log=$out/warnings.log
status=0
{ cat docs/api/Doxyfile; echo "PROJECT_NUMBER = $version"; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $log"; } |
    "$doxygen" - || status=$?
if [ -s "$log" ] || [ "$status" -ne 0 ]; then
    cat "$log" >&2 2>/dev/null || true
    echo "api-docs: $(grep -cE '(warning|error):' "$log" 2>/dev/null || true) doxygen warnings (exit $status): the reference must build with none" >&2
    exit 1
fi

# The man pages as doxygen writes them (MAN_LINKS: a `.so` page for every documented name) made fit for
# /usr/share/man/man3: the topic pages get the prefix accessenabler- (doxygen names them after the
# groups: calls.3, errors.3, ...), the links become symbolic links, and only those of ae_* names are
# kept (the others are struct fields, enum values and macros: status.3, version.3, log.3 would clash
# with other packages' pages); the anonymous enums' pages (@0.3, ...) go.
python3 - "$out/man/man3" Include/accessenabler.h <<'EOF'
import os, re, sys
from pathlib import Path
man, header = Path(sys.argv[1]), Path(sys.argv[2]).read_text()
topics = re.findall(r"@defgroup (\w+)", header) + ["deprecated"]
renamed = {f"{topic}.3": f"accessenabler-{topic}.3" for topic in topics}
renamed["accessenabler.h.3"] = "accessenabler.h.3"
# The reference's own pages (docs/api/*.md but the main page, `# Title {#anchor}`): accessenabler-<anchor>.3.
for page in sorted(Path("docs/api").glob("*.md")):
    anchor = re.search(r"^# .*\{#(\w+)\}", page.read_text(), re.M)
    if anchor and anchor.group(1) != "mainpage":
        renamed[f"{anchor.group(1)}.3"] = f"accessenabler-{anchor.group(1).replace('_', '-')}.3"
for page in sorted(man.iterdir()):
    text = page.read_text()
    link = re.fullmatch(r"\.so man3/(\S+)\n?", text)
    if link:
        page.unlink()
        if page.name.startswith("ae_"):
            os.symlink(renamed.get(link.group(1), link.group(1)), page)
    elif page.name.startswith("@"):
        page.unlink()
    elif page.name in renamed:
        # .TH "calls" 3 ... and the NAME line "calls \- AccessEnabler calls"; the file page's have its path
        # (Include/accessenabler.h).
        new = renamed[page.name][:-2]
        text = re.sub(r'^\.TH "[^"]*"', f'.TH "{new}"', text, count=1)
        text = re.sub(r"^(\.SH NAME\n)\S+ ", rf"\g<1>{new} ", text, count=1, flags=re.M)
        # A topic's brief follows its NAME line as " \- brief": a paragraph of its own, without the dash.
        text = re.sub(r"^(\.SH NAME\n[^\n]*\n\.PP\n) \\- ", r"\g<1>", text, count=1, flags=re.M)
        page.unlink()
        (man / renamed[page.name]).write_text(text)
os.symlink("accessenabler.h.3", man / "accessenabler.3")
kept = {p.name for p in man.iterdir() if not p.is_symlink()}
missing = [name for name in renamed.values() if name not in kept]
if missing:
    sys.exit(f"api-docs: doxygen wrote no man page {', '.join(missing)}")
for page in man.iterdir():
    if page.is_symlink() and not page.exists():
        sys.exit(f"api-docs: {page.name} links to {os.readlink(page)}, which is no page")
EOF
pages=$(find "$out/man/man3" -type f | wc -l)
links=$(find "$out/man/man3" -type l | wc -l)
echo "api-docs: $out/html/index.html ($(ls "$out/html" | wc -l) files), $out/man/man3 ($pages pages, $links links); 0 warnings"
