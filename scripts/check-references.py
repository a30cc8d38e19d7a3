#!/usr/bin/env python3
"""Checks that every file and code name the comments and docs mention exists ("one home per fact").

Where it looks: the comments of the tracked sources (Swift and C `//`, `///` and `/* */`, Python
`#` and docstrings, shell `#`, CMake `#`) and the Markdown files (all their text; fenced blocks are
read for paths only). History is not checked: it names what existed when it was written
(`packaging/debian/changelog`, and `Fuzz/FINDINGS.md`, whose entries are past findings and quote
the code of their day), nor is this script (its examples are made up).

What counts, and must exist:

1. **Paths.** A word with a `/` whose first part is a top-level entry of the repository
   (`Sources/...`, `scripts/x.sh`, `docs/X.md`), or whose first part is a folder name of the
   repository and which ends in a file extension (`Flows/LoginFlow.swift`, `aepass/routes.py`) or a
   `/` (`Adobe/V1/`); and a bare file name ending in `.swift`, `.py`, `.sh` or `.md`
   (`Engine+Setup.swift`, `harness.py`). A path resolves against the repository's root, the
   mentioning file's folder or `Sources/AccessEnabler/` (layer-relative, as the code writes
   them), or is the tail of a tracked path (`aepass/v1/spec.py` after `Emulator/` was named); it
   may name a template (`X.cmake` for `X.cmake.in`) or a program by its source (`Tests/c/stress`
   for `stress.c`). A bare name must be some tracked file's or folder's name. `*`, `<...>`, a
   version's `N` (`1.N.0`) and `{a,b}` are wildcards (`Engine/Engine+<flow>.swift`,
   `Tests/python/test_*.py`). Not paths: URLs, absolute paths and `<libdir>/...`, `<stdio.h>`-style
   includes, what git ignores (`.build/`, `Benchmarks/outage-results/`), other projects' paths and
   REST paths (`help/...`, `decisions/authorize/{mvpd}`, `HTTP/2`: the first part is no folder of
   ours, or no extension nor slash), data files a tool writes named bare (`figures.json`).
   `../shared/...`, and a path or `.md` name found nowhere in the repository, resolve against the
   shared folder next to the repository (`../shared/reference/`); without that folder they are
   not checked.
2. **Markdown links** `[text](target)` to a relative target: the file or folder must exist.
3. **Code names in backticks** (comments and docs), only of these shapes, so that Adobe's JSON
   fields, HTTP headers (`X-Forwarded-For`), shell commands (`-Osize`), quoted strings and
   lower-case library calls are not mistaken for ours:
   - `ae_*` / `AE_*` names: a C declaration, or a name the code uses (an environment variable);
     `AE_E_*`, `ae_delegate_v<N-1>` name a family: one name must match; `AE_1`, `AE_2` are the
     export map's version nodes;
   - `Type.member` (also `Type.member(...)`, `Type.Nested.member`) whose `Type` the repository
     declares (not a standard library type): each following part must be a declared name;
   - `Type+Aspect` (a Swift file named without `.swift`): the file must exist, and in
     `Type+Aspect.member` the member must be declared in that file;
   - `Type` alone, a CamelCase name (`[A-Z][a-z]` in it): a declared name or one the code or the
     repository's data uses (Adobe's OpenAPI schema names, `.swift-format`'s rule names, the
     emulator's MVPD names), unless the Swift or Python standard library has it (`SWIFT_STDLIB`,
     `PYTHON_STDLIB`: the few the comments use);
   - `lowerCamelCase` alone: a declared or used name (Adobe's JSON fields are in its OpenAPI
     files or in our decoders);
   - `name(...)` / `name()` / `name(label:)`: the base name must be declared, unless it is
     lower-case with no capital (a C or Python library function: `strdup()`, `dlopen()`,
     `uv_poll_init()`) and not followed by a Swift argument label, or called on a lower-case
     receiver (`ctypes.string_at(p)`, `os.fork()`), or an attribute (`@Suite(...)`).
   Not checked: spans that are command lines, pytest ids, Objective-C selectors or phrases of
   three words or more. `FOREIGN` holds the few names of other SDKs the docs compare with.
   A name is declared by Swift (`func var let case struct enum class actor protocol typealias
   associatedtype init`, enum case lists, argument labels), C (any identifier of the C sources
   and headers), Python (any name or string of the Python code: the package, the emulator,
   tests, scripts) or shell and CMake (any word of their code).
4. **Unbackticked `Type.member`** in a Swift comment, when `Type` is a type the library declares:
   the member must be declared, and so must the lowerCamelCase names listed after it with `/` or
   `,` (the comments name driver functions this way: `Engine.runLogin / continueSession`).

A code span broken over two lines is read whole. Exit status 1 with `file:line: name` per stale reference.
"""
import fnmatch
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
LAYER_ROOT = "Sources/AccessEnabler"
HISTORY = {"packaging/debian/changelog", "Fuzz/FINDINGS.md"}
SELF = "scripts/check-references.py"  # its docstring shows the shapes it checks with made-up names
EXTENSIONS = {"swift", "py", "sh", "md", "h", "c", "json", "toml", "map", "abi", "bb", "mk", "txt", "cmake", "jsonl",
              "modulemap", "sql", "csv", "png", "in", "ini"}
# Names of the Swift and Python standard libraries the comments use (not declared by us).
SWIFT_STDLIB = {"String", "Substring", "Character", "Int", "Int32", "Int64", "UInt8", "UInt32", "UInt64", "Double",
                "Bool", "Array", "Dictionary", "Set", "Optional", "Result", "Error", "Never", "Void", "Data",
                "Date", "URL", "Duration", "ContinuousClock", "SuspendingClock", "Task", "TaskGroup",
                "TaskExecutor", "SerialExecutor", "Sendable", "Codable", "Decodable", "Encodable", "Hashable",
                "Equatable", "Comparable", "CustomStringConvertible", "Mutex", "Atomic", "OpaquePointer",
                "Unmanaged", "UnsafeMutableRawPointer", "UnsafeRawPointer", "UnsafePointer",
                "UnsafeMutablePointer", "UnsafeRawBufferPointer", "UnsafeMutableRawBufferPointer",
                "UnsafeBufferPointer", "UnsafeMutableBufferPointer", "CheckedContinuation",
                "UnsafeContinuation", "AsyncStream", "AsyncThrowingStream", "CancellationError", "MainActor",
                "JSONDecoder", "JSONEncoder", "JSONSerialization", "DispatchQueue", "Thread", "ProcessInfo",
                "FileManager", "Calendar", "TimeZone", "Locale", "AnyObject", "Any", "Self", "XCTest", "Float",
                "StaticString", "ObjectIdentifier", "Sequence", "Collection", "Identifiable", "RawRepresentable",
                "CaseIterable", "KeyPath", "WritableKeyPath", "MemoryLayout", "UUID", "NSLock",
                "SystemRandomNumberGenerator", "_StringProcessing", "Foundation", "FoundationEssentials",
                "assumeIsolated"}
PYTHON_STDLIB = {"ThreadingHTTPServer", "BaseHTTPRequestHandler", "HTTPServer", "CFUNCTYPE", "Structure",
                 "TimeoutError", "ValueError", "RuntimeError", "KeyError", "OSError", "TypeError", "Exception",
                 "Thread", "Event", "Lock", "Queue", "Path", "SimpleNamespace", "Enum", "IntEnum", "None", "True",
                 "False", "NamedTuple", "ThreadPoolExecutor", "HTTPStatus", "JSONDecodeError", "SIGKILL", "SIGTERM"}
TOP = set()
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [line for line in out.splitlines() if (ROOT / line).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                and not any(part.startswith(".build") or part == ".git" for part in p.relative_to(ROOT).parts)]


def linked() -> set[str]:
    """The files under the tracked symbolic links to folders of the repository, by the links' paths
    (`Emulator/openapi/restApiV2.json` through `Emulator/openapi` -> `aepass/openapi`): a mention by the
    old path resolves, and the files themselves are read once, by their own paths."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return set()
    paths = set()
    for line in out.splitlines():
        link = ROOT / line
        if link.is_symlink() and link.is_dir() and link.resolve().is_relative_to(ROOT):
            paths |= {str(Path(line) / f.relative_to(link)) for f in link.rglob("*") if f.is_file()}
    return paths


# ---- comments ---------------------------------------------------------------------------------------

def c_like(text: str, swift: bool) -> tuple[list[tuple[int, str]], str]:
    """The comments of Swift or C source (line, text), and the code without them (strings kept)."""
    comments, code = [], []
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            comments.append((line, text[i + 2:end]))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k, part in enumerate(text[i + 2:end - 2].split("\n")):
                comments.append((line + k, part))
            line += text.count("\n", i, end)
            code.append("\n" * text.count("\n", i, end))
            i = end
        elif swift and text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            code.append(text[i:end])
            line += text.count("\n", i, end)
            i = end
        elif ch == '"' or (ch == "'" and not swift):
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            code.append(text[i:j + 1])
            i = j + 1
        else:
            if ch == "\n":
                line += 1
            code.append(ch)
            i += 1
    return comments, "".join(code)


def python(text: str) -> tuple[list[tuple[int, str]], str]:
    """Python `#` comments and docstrings (a string that is a statement of its own), and the code (names
    and the other strings)."""
    comments, names = [], []
    previous = tokenize.NEWLINE
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments.append((token.start[0], token.string[1:]))
            elif token.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                                 tokenize.NL):
                for k, part in enumerate(token.string.split("\n")):
                    comments.append((token.start[0] + k, part))
            elif token.type in (tokenize.NAME, tokenize.STRING):
                names.append(token.string)
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                previous = token.type
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return comments, "\n".join(names)


def shell(text: str) -> tuple[list[tuple[int, str]], str]:
    """Shell `#` comments (a `#` that starts a word, outside quotes and here-documents), and the code."""
    comments, code = [], []
    quote, heredoc = None, None
    for number, row in enumerate(text.split("\n"), 1):
        if heredoc:
            if row.strip() == heredoc:
                heredoc = None
            continue
        if number == 1 and row.startswith("#!"):
            continue
        kept = []
        i = 0
        while i < len(row):
            ch = row[i]
            if quote:
                if ch == "\\" and quote == '"':
                    kept.append(row[i:i + 2])
                    i += 2
                    continue
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                kept.append(row[i:i + 2])
                i += 2
                continue
            elif ch == "#" and (i == 0 or row[i - 1] in " \t;"):
                comments.append((number, row[i + 1:]))
                break
            kept.append(ch)
            i += 1
        line = "".join(kept)
        match = re.search(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?", line)
        if match and not quote:
            heredoc = match.group(1)
        code.append(line)
    return comments, "\n".join(code)


def markdown(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The prose of a Markdown file (line, text) and the lines of its fenced blocks."""
    prose, fenced, inside = [], [], False
    for number, row in enumerate(text.split("\n"), 1):
        if row.lstrip().startswith("```"):
            inside = not inside
            continue
        (fenced if inside else prose).append((number, row))
    return prose, fenced


# ---- what exists ------------------------------------------------------------------------------------

SWIFT_DECLARATION = re.compile(r"\b(?:func|var|let|case|struct|enum|class|actor|protocol|typealias|associatedtype|"
                               r"macro)\s+`?([A-Za-z_][A-Za-z0-9_]*)")
SWIFT_TYPE = re.compile(r"\b(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)")


def swift_declarations(code: str) -> set[str]:
    names = set(SWIFT_DECLARATION.findall(code)) | {"init", "deinit", "subscript"}
    for row in re.findall(r"^\s*(?:indirect\s+)?case\s+([^\n]*)", code, re.M):  # case a, b(Int), c = 1
        while True:
            stripped = re.sub(r"\([^()]*\)", "", row)
            if stripped == row:
                break
            row = stripped
        for part in row.split(","):
            match = re.match(r"\s*`?([A-Za-z_][A-Za-z0-9_]*)", part)
            if match:
                names.add(match.group(1))
    for params in re.findall(r"\bfunc\s+\w+\s*(?:<[^>]*>)?\(([^)]*)\)", code):  # argument labels: f(attempt:)
        names.update(re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", params))
    return names


class Repository:
    def known(self) -> set[str]:
        """Every name declared or used (made once: read for every backticked span)."""
        if getattr(self, "_known", None) is None:
            self._known = self.declared | self.used
        return self._known

    def c_names(self) -> list[str]:
        """The known `ae_`/`AE_` names (a family like `AE_E_*` must match one)."""
        if getattr(self, "_c_names", None) is None:
            self._c_names = [k for k in self.known() if k[:3] in ("ae_", "AE_")]
        return self._c_names

    def __init__(self) -> None:
        self.files = tracked()
        self.paths = set(self.files) | linked()
        self.folders = {str(Path(f).parents[k]) for f in self.paths for k in range(len(Path(f).parts) - 1)}
        self.basenames = {Path(f).name for f in self.files}
        self.folder_names = {Path(f).name for f in self.folders}
        gitignore = ROOT / ".gitignore"
        self.ignore = [row.strip() for row in gitignore.read_text().splitlines() if row.strip() and not row.startswith(
            "#")] if gitignore.is_file() else []
        TOP.update(Path(f).parts[0] for f in self.files)
        self.declared: set[str] = set()  # names declared by Swift, or used by C, Python and shell code
        self.types: set[str] = set()  # Swift types of the repository
        self.by_file: dict[str, set[str]] = {}  # Swift file name without .swift -> the names it declares
        self.used: set[str] = set()  # every identifier of the code, strings included
        self.comments: dict[str, list[tuple[int, str]]] = {}
        self.markdown: dict[str, tuple[list, list]] = {}
        for name in self.files:
            path = ROOT / name
            suffix = path.suffix
            if name.startswith(("Fuzz/Corpus/", "Fuzz/Regressions/")):
                continue
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            if suffix not in (".swift", ".c", ".h", ".py", ".sh", ".md", ".cmake") and name not in (
                    ".ci/run", "CMakeLists.txt") and not name.endswith("/CMakeLists.txt"):
                self.used |= set(WORD.findall(text))  # data: Adobe's OpenAPI files, .swift-format, templates
                continue
            if suffix == ".md":
                if name not in HISTORY:
                    self.markdown[name] = markdown(text)
                continue
            if suffix == ".swift":
                comments, code = c_like(text, swift=True)
                self.by_file[path.stem] = swift_declarations(code)
                self.declared |= self.by_file[path.stem]
                self.types |= set(SWIFT_TYPE.findall(code))
            elif suffix in (".c", ".h"):
                comments, code = c_like(text, swift=False)
                self.declared |= set(WORD.findall(code))
            elif suffix == ".py":
                comments, code = python(text)
                self.declared |= set(WORD.findall(code))
            else:  # shell, CMake
                comments, code = shell(text)
                self.declared |= set(WORD.findall(code))
            self.used |= set(WORD.findall(code))
            if name not in HISTORY and name != SELF:
                self.comments[name] = comments

    # -- paths --

    def path_exists(self, where: str, path: str) -> bool:
        if path.startswith(("../shared/", "/work/shared/")):
            rest = path.split("shared/", 1)[1]
            return not SHARED.is_dir() or self.glob_exists(SHARED, rest)
        path = path.rstrip("/")
        if not path or self.ignored(path):
            return True
        folder = str(Path(where).parent)
        candidates = [path, f"{LAYER_ROOT}/{path}"]
        if folder != ".":
            candidates.append(str(Path(folder) / path))
        wild = any(ch in path for ch in "*?[")
        known = self.paths | self.folders
        for candidate in candidates:
            if ".." in Path(candidate).parts:
                resolved = (ROOT / candidate).resolve()
                if not resolved.is_relative_to(ROOT):
                    continue
                candidate = str(resolved.relative_to(ROOT))
            candidate = str(Path(candidate))  # folds a/./b
            for form in (candidate, candidate + ".in", candidate + ".c", candidate + ".swift"):  # a template, a program
                if wild and any(fnmatch.fnmatchcase(f, form) for f in known) or form in known:
                    return True
        if "/" not in path:
            names = self.basenames | self.folder_names
            if any(fnmatch.fnmatchcase(b, path) for b in names) if wild else path in names:
                return True
            return path.endswith(".md") and (not SHARED.is_dir() or any(SHARED.rglob(path)))
        tail = "*/" + path
        if any(fnmatch.fnmatchcase(f, tail) if wild else f.endswith(tail[1:]) for f in known):
            return True
        return SHARED.is_dir() and (self.glob_exists(SHARED, path) or self.glob_exists(SHARED / "reference", path))

    def ignored(self, path: str) -> bool:
        """Whether git ignores `path` (a build output: `.build/`, `Benchmarks/outage-results/`)."""
        parts = Path(path).parts
        for pattern in self.ignore:
            anchored = "/" in pattern.strip("/")
            pattern = pattern.strip("/")
            for k in range(1, len(parts) + 1):
                if anchored and fnmatch.fnmatchcase("/".join(parts[:k]), pattern):
                    return True
                if not anchored and fnmatch.fnmatchcase(parts[k - 1], pattern):
                    return True
        return False

    @staticmethod
    def glob_exists(base: Path, rest: str) -> bool:
        rest = rest.rstrip("/")
        if any(ch in rest for ch in "*?["):
            try:
                return any(base.glob(re.sub(r"\*+", "*", rest)))
            except ValueError:
                return False
        return (base / rest).exists()


PATH_WORD = re.compile(r"(?<![\w./+\-<>{}*:@$~%=])((?:\.\./)*(?:[\w.+\-<>*]|\{[^{}\s]*\})+"
                       r"(?:/(?:[\w.+\-<>*]|\{[^{}\s]*\})+)*/?)")
BRACES = re.compile(r"\{([^{}]*)\}")
SOURCE_EXTENSIONS = {"swift", "py", "sh", "md"}  # what a bare file name must end with to be checked


def as_glob(word: str) -> list[str]:
    """`<flow>`, `*` and a version's `N` (`1.N.0`) become wildcards; `{a,b}` expands."""
    word = re.sub(r"<[^<>/]*>", "*", word)
    word = re.sub(r"(?<=[._])N(?=[._])", "*", word)
    match = BRACES.search(word)
    if match:
        head, tail = word[:match.start()], word[match.end():]
        return [g for part in match.group(1).split(",") for g in as_glob(head + part + tail)]
    return [word]


def path_words(text: str, folders: set[str]) -> list[str]:
    """The words of `text` that look like paths of the repository."""
    found = []
    text = re.sub(r"[a-z][a-z0-9+.\-]*://\S+", " ", text)  # URLs
    text = re.sub(r"#include\s*<[^>]*>|<[\w/]+\.h>", " ", text)  # system headers
    for match in PATH_WORD.finditer(text):
        word = match.group(1)
        while word.endswith((".", ",", ":", ";")):
            word = word[:-1]
        end = match.start(1) + len(word)
        if end < len(text) and text[end] == "(":  # a call: f(), Type.method()
            continue
        if not word or word.startswith(("<", "/", ".")) and not word.startswith("../"):
            continue
        if "//" in word or re.match(r"\d", word):
            continue
        if any(part.startswith(".build") for part in word.split("/")):
            continue
        parts = [p for p in word.split("/") if p and p != ".."]
        if not parts:
            continue
        last = parts[-1]
        extension = last.rsplit(".", 1)[-1] if "." in last else ""
        has_ext = extension in EXTENSIONS and re.fullmatch(r"[\w+\-<>{}*,.]+\.[a-z]+", last) is not None
        if len(parts) > 1 or word.endswith("/"):
            if not (parts[0] in TOP or parts[0] in folders or word.startswith("../shared/")):
                continue  # another project's path (Adobe's docs, Buildroot's tree) or a REST path
            if not has_ext and parts[0] not in TOP and not word.endswith("/"):
                continue  # HTTP/2, V1/V2; a folder of the repository is written with its slash: `Adobe/V1/`
        else:
            if extension not in SOURCE_EXTENSIONS or re.search(r"\.[A-Za-z]", last.rsplit(".", 1)[0]):
                continue  # a data file a tool writes (figures.json), a value (request.body.map)
        found.append(word)
    return found


# ---- names ------------------------------------------------------------------------------------------

CODE_SPAN = re.compile(r"`([^`\n]+)`")
CALL = re.compile(r"(?<![\w.@$-])((?:_?[A-Z]\w*\.)?)([A-Za-z_][A-Za-z0-9_]*)\((\w+:|_:)?")
DOTTED = re.compile(r"(?<![\w.$/+-])(_?[A-Z][A-Za-z0-9_]*(?:\+[A-Z][A-Za-z0-9_]*)?)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)"
                    r"(?![\w/-])")
AE_NAME = re.compile(r"(?<![\w.$/-])((?:ae|AE)_[A-Za-z0-9_*]*)(?![\w/])")
CAMEL = re.compile(r"(?<![\w.@$/<-])(_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(?![\w.(/>+-])")
LOWER_CAMEL = re.compile(r"(?<![\w.@$/<-])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w.(/>+-])")
MEMBER_LIST = re.compile(DOTTED.pattern + r"((?:\s*[/,]\s*[a-z]\w*[A-Z]\w*(?![\w.(/+-]))*)")
FOREIGN = {"IntegrityCheckType", "AccessEnablerCallback", "entitlementLoaded", "navigateToUrl", "swiftResourcesPath",
           "license.md"}  # other SDKs' names the docs compare with


def stale_names(repo: "Repository", span: str) -> list[str]:
    """The names of one backticked span that do not exist."""
    stale = []
    if re.search(r"(?:^|\s)(?:-{1,2}\w|\|)|^(?:python3|swift|bash|sudo|apt-get|git|cmake|export|pip)\b", span):
        return stale  # a command line
    if "::" in span or re.fullmatch(r"[\w\s,'’]+", span) and len(span.split()) > 2:
        return stale  # a pytest id or a C++ name; a phrase quoted from a document
    span = re.sub(r"(?<=\w)<[^<>]*>", "*", span)  # placeholders: `ae_delegate_v<N-1>` (a prefix)
    span = re.sub(r"<[^<>]*>", " ", span)  # `<Unix time>`
    span = re.sub(r"'[^']*'|\"[^\"]*\"", " ", span)  # strings: `bind('errorEvent', handler)`
    if re.fullmatch(r"(?:\w+:)+", span.strip()):
        return stale  # an Objective-C selector (`preauthorize:didCompleteWith:`)
    known = repo.known()
    for name in AE_NAME.findall(span):
        if re.fullmatch(r"AE_\d+", name) or name in FOREIGN:
            continue  # a version node of the export map (AE_1, AE_2)
        if "*" in name:  # a family: AE_E_*, ae_delegate_v<N-1>, AE_CONFIG_V<N>_FIELDS
            if not any(fnmatch.fnmatchcase(k, name) for k in repo.c_names()):
                stale.append(name)
        elif name not in known:
            stale.append(name)
    dotted = set()
    for head, rest in DOTTED.findall(span):
        dotted.add(head)
        if "+" in head:  # Engine+Partner.refreshPartnerStatus: declared in that file
            member = rest.split(".")[1]
            if head not in repo.by_file or member not in repo.by_file[head] and member not in EXTENSIONS:
                stale.append(f"{head}{rest}")
            continue
        if head.split("+")[0] not in repo.declared and head.split("+")[0] not in repo.types or head in SWIFT_STDLIB:
            continue  # not ours (or a stale type: checked below as a type)
        for member in rest.split(".")[1:]:
            dotted.add(member)
            if member not in repo.declared:
                stale.append(f"{head}{rest}")
                break
    for owner, name, labels in CALL.findall(span):
        if name in dotted or name in FOREIGN or name.startswith(("ae_", "AE_")) or name in repo.declared:
            continue
        if name in SWIFT_STDLIB or name in PYTHON_STDLIB:
            continue
        if re.fullmatch(r"[a-z0-9_]+", name) and not (labels and not owner and name not in repo.used):
            continue  # a C library or Python function (strdup, dlopen, uv_poll_init), unless Swift labels say ours
        stale.append(owner + name + "(")
    for name in re.findall(r"(?<![\w./])([A-Z]\w*\+[A-Z]\w*)(?![\w.+/])", span):  # Engine+Partner: a file
        if name not in repo.by_file:
            stale.append(name)
    for name in CAMEL.findall(span):
        if name in dotted or name in SWIFT_STDLIB or name in PYTHON_STDLIB or name in FOREIGN:
            continue
        if name not in known and name not in repo.types and re.search(r"[A-Z][a-z]", name):
            stale.append(name)
    for name in LOWER_CAMEL.findall(span):
        if name not in known and name not in dotted and name not in FOREIGN:
            stale.append(name)
    return stale


def unbackticked_members(repo: "Repository", text: str) -> list[str]:
    """`Type.member` outside backticks in a Swift comment, with `Type` a library type."""
    stale = []
    text = CODE_SPAN.sub(" ", text)
    for match in MEMBER_LIST.finditer(text):
        head, rest = match.group(1), match.group(2)
        if head.split("+")[0] not in repo.types:
            continue
        member = rest.split(".")[1]
        if member not in repo.declared and member not in EXTENSIONS:
            stale.append(f"{head}.{member}")
        for name in re.findall(r"[/,]\s*([a-z]\w*[A-Z]\w*)", match.group(3)):  # Engine.a / b / c
            if name not in repo.declared:
                stale.append(f"{head}.{name}")
    return stale


def spans_across_lines(rows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The rows with a code span cut by a line break made whole on its first line (the rest of it
    removed from the next), so that each row's backticks pair up."""
    out, carry, carry_line = [], None, 0
    for number, text in rows:
        if carry is not None:
            if not text.strip():
                carry = None
            else:
                head, tick, tail = text.partition("`")
                if tick:
                    out.append((carry_line, "`" + carry + " " + head.strip() + "`"))
                    text, carry = tail, None
                else:
                    carry += " " + text.strip()
                    continue
        if text.count("`") % 2:
            cut = text.rfind("`")
            carry, carry_line = text[cut + 1:].strip(), number
            text = text[:cut]
        out.append((number, text))
    return out


def check_text(repo: "Repository", name: str, line: int, text: str, names: bool, swift: bool) -> list[str]:
    problems = []
    for word in path_words(text, repo.folder_names):
        if word not in FOREIGN and not any(repo.path_exists(name, g) for g in as_glob(word)):
            problems.append(word)
    if names:
        for span in CODE_SPAN.findall(text):
            problems += stale_names(repo, span)
        if swift:
            problems += unbackticked_members(repo, text)
    return [f"{name}:{line}: {p}" for p in dict.fromkeys(problems)]


def main() -> int:
    repo = Repository()
    problems = []
    for name, comments in repo.comments.items():
        swift = name.endswith(".swift")
        for line, text in spans_across_lines(comments):
            problems += check_text(repo, name, line, text, names=True, swift=swift)
    for name, (prose, fenced) in repo.markdown.items():
        for line, text in spans_across_lines(prose):
            problems += check_text(repo, name, line, text, names=True, swift=False)
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                target = target.split("#", 1)[0]
                if target and not re.match(r"[a-z]+:", target) and not repo.path_exists(name, target):
                    problems.append(f"{name}:{line}: {target}")
        for line, text in fenced:
            problems += check_text(repo, name, line, text, names=False, swift=False)
    for problem in dict.fromkeys(problems):
        print(problem)
    if problems:
        print(f"{len(problems)} stale reference(s): a file or name the comments or docs mention does not exist "
              "(rules: scripts/check-references.py)")
        return 1
    print(f"references: ok ({sum(len(c) for c in repo.comments.values())} comment lines, "
          f"{len(repo.markdown)} Markdown files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
