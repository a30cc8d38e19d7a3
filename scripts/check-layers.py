#!/usr/bin/env python3
"""Checks that no folder of Sources/AccessEnabler uses a layer above it ("folders are the layers").

The layers, lowest first: each folder may use the types of its own layer and of those below.
A use is a type name declared in a higher folder appearing in code (comments and string literals
are ignored). Exit status 1 with one line per violation.
"""
import re
import sys
from pathlib import Path

LAYERS = ["Support", "Model", "HTTP", "Store", "Adobe", "Partner", "Flows", "Engine", "Facade"]
ROOT = Path(__file__).resolve().parent.parent / "Sources" / "AccessEnabler"
DECLARATION = re.compile(r"^(?:(?:public|package|private|fileprivate|internal|final|indirect|nonisolated)\s+)*"
                         r"(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)

NESTED = re.compile(r"^\s*(?:(?:public|package|private|fileprivate|internal|final|indirect|nonisolated)\s+)*"
                    r"(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)


def code_only(text: str) -> str:
    """The source without comments and string literals (a name in prose is not a use)."""
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    return re.sub(r"//[^\n]*", "", text)


def main() -> int:
    declared: dict[str, str] = {}  # type name -> layer
    files: dict[Path, str] = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.swift")):
            text = code_only(path.read_text())
            files[path] = layer
            for name in DECLARATION.findall(text):
                declared.setdefault(name, layer)
    unknown = sorted({p.relative_to(ROOT).parts[0] for p in ROOT.rglob("*.swift")} - set(LAYERS))
    if unknown:
        print(f"folders not in the layer list: {', '.join(unknown)} (scripts/check-layers.py)")
        return 1
    violations = []
    for path, layer in files.items():
        rank = LAYERS.index(layer)
        text = code_only(path.read_text())
        own = set(NESTED.findall(text))  # the file's own types, nested ones too (LoginFlow.Settings)
        for name in sorted(set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", text)) - own):
            above = declared.get(name)
            if above and LAYERS.index(above) > rank:
                violations.append(f"{path.relative_to(ROOT.parent.parent)}: {layer} uses {name} of {above}")
    for line in violations:
        print(line)
    if violations:
        print(f"{len(violations)} use(s) of a layer above; the layers, lowest first: {' < '.join(LAYERS)}")
        return 1
    print(f"layers: ok ({' < '.join(LAYERS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
