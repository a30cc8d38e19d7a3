#!/usr/bin/env python3
"""Checks that no folder of Sources/AccessEnabler uses a layer above it ("folders are the layers").

The layers, lowest first, are read from docs/ENGINE.md ("The layers": the table between its
`<!-- layers` and `<!-- /layers -->` markers), their one home: each folder may use the types of
its own layer and of those below.
On top of them sit the targets built on the library (TOPS: the C thunks, the testing helpers):
each may use any layer, no layer may use them, and they do not use each other (SwiftPM already
keeps the library from importing them; this also catches a type moved to the wrong side).
A use is a type name declared in a higher folder appearing in code (comments and string literals
are ignored). Exit status 1 with one line per violation.
"""
import re
import sys
from pathlib import Path

from swift_source import code_only

LAYERS: list[str] = []  # read from docs/ENGINE.md by main()

SOURCES = Path(__file__).resolve().parent.parent / "Sources"
ENGINE_DOC = SOURCES.parent / "docs" / "ENGINE.md"  # the one list of the layers ("The layers")
ROOT = SOURCES / "AccessEnabler"
TOPS = ["AccessEnablerCABI", "AccessEnablerTesting"]  # targets of Sources/, above every layer
DECLARATION = re.compile(r"^(?:(?:public|package|private|fileprivate|internal|final|indirect|nonisolated)\s+)*"
                         r"(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)

NESTED = re.compile(r"^\s*(?:(?:public|package|private|fileprivate|internal|final|indirect|nonisolated)\s+)*"
                    r"(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)


def read_layers(doc: Path) -> list[str]:
    """The layers, lowest first: the first column of the table between `<!-- layers` and
    `<!-- /layers -->` in docs/ENGINE.md (rows like | `Support/` | ... |). Raises ValueError."""
    text = doc.read_text() if doc.is_file() else ""
    block = re.search(r"^<!-- layers\b[^\n]*-->\n(.*?)^<!-- /layers -->", text, re.M | re.S)
    if not block:
        raise ValueError(f"no '<!-- layers ... -->' ... '<!-- /layers -->' block in {doc}")
    layers = []
    for row in block.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if not cells[0] or cells[0] == "layer" or set(cells[0]) <= set("-: "):
            continue  # the header and its rule
        name = re.fullmatch(r"`([A-Za-z][A-Za-z0-9]*)/`", cells[0])
        if not name:
            raise ValueError(f"{doc}: a layer row must start with a folder as `Name/`: {row.strip()}")
        layers.append(name.group(1))
    if not layers:
        raise ValueError(f"{doc}: the layers block lists no layer")
    return layers


def folder(layer: str) -> Path:
    return SOURCES / layer if layer in TOPS else ROOT / layer


def may_use(user: str, owner: str) -> bool:
    """Whether code of `user` (a layer or a top) may use a type of `owner`."""
    if owner in TOPS:
        return user == owner
    return user in TOPS or LAYERS.index(owner) <= LAYERS.index(user)


def main() -> int:
    global LAYERS
    try:
        LAYERS = read_layers(ENGINE_DOC)
    except ValueError as error:
        print(f"check-layers.py: cannot read the layer list: {error}")
        return 1
    declared: dict[str, str] = {}  # type name -> layer (the lowest that declares it)
    files: dict[Path, str] = {}
    for layer in LAYERS + TOPS:
        for path in sorted(folder(layer).rglob("*.swift")):
            text = code_only(path.read_text())
            files[path] = layer
            for name in DECLARATION.findall(text):
                declared.setdefault(name, layer)
    unknown = sorted({p.relative_to(ROOT).parts[0] for p in ROOT.rglob("*.swift")} - set(LAYERS))
    if unknown:
        print(f"folders not in the layer list: {', '.join(unknown)} (docs/ENGINE.md, \"The layers\")")
        return 1
    violations = []
    for path, layer in files.items():
        text = code_only(path.read_text())
        own = set(NESTED.findall(text))  # the file's own types, nested ones too (LoginFlow.Settings)
        for name in sorted(set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", text)) - own):
            owner = declared.get(name)
            if owner and not may_use(layer, owner):
                violations.append(f"{path.relative_to(SOURCES.parent)}: {layer} uses {name} of {owner}")
    order = f"{' < '.join(LAYERS)} < {{{', '.join(TOPS)}}}"
    for line in violations:
        print(line)
    if violations:
        print(f"{len(violations)} use(s) of a layer above; the layers, lowest first: {order}")
        return 1
    print(f"layers: ok ({order})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
