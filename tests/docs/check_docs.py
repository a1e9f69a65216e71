#!/usr/bin/env python3
"""The documents hold together: every relative link in README.md and docs/ (markdown) names a
file or folder that exists, and no code comment points into the dated journal (docs/journal/) or
into a numbered section of the performance page ("perf.md §…"): code points to stable documents.
The documents a user starts from (README.md, docs/guide.md, docs/perf.md) speak of the project
only: no work log's "session" or "lent". docs/guide.md's C++ blocks are whole example programs,
byte for byte: each ```cpp block is preceded by `<!-- example: PATH -->` and equals the file PATH,
which CTest builds and runs (examples/CMakeLists.txt: example.*), so the guide cannot show code
that is not built and run (its Python blocks run in python/tests/test_guide.py). Prints each
offence and fails.

Usage: check_docs.py ROOT         check the tree at ROOT
       check_docs.py --self-test  a clean tree passes; one of each offence is found, each once
"""
import re
import sys
import tempfile
from pathlib import Path

LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE_DIRS = ("src", "include", "tools", "python/src", "python/polyhe", "bench", "scripts",
             "examples", "tests", "cmake")
CODE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".sh", ".cmake", ".txt", ".pyi"}
JOURNAL = re.compile(r"docs/journal/|perf-journal|perf\.md\s*§")
USER_DOCS = ("README.md", "docs/guide.md", "docs/perf.md")
WORK_LOG = re.compile(r"\b(sessions?|lent)\b", re.I)
GUIDE_BLOCK = re.compile(r"(?:<!-- example: (\S+) -->\n)?```cpp\n(.*?)```", re.S)


def broken_links(root: Path) -> list:
    found = []
    docs = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for doc in docs:
        if not doc.is_file():
            continue
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in LINK.finditer(line):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue
                if not (doc.parent / target).exists():
                    found.append(f"{doc.relative_to(root)}:{number}: broken link {m.group(1)}")
    return found


def journal_pointers(root: Path) -> list:
    found = []
    for d in CODE_DIRS:
        for path in sorted((root / d).rglob("*")):
            if not path.is_file() or (path.suffix not in CODE_SUFFIXES
                                      and path.name != "CMakeLists.txt"):
                continue
            if path.resolve() == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if JOURNAL.search(line):
                    found.append(f"{path.relative_to(root)}:{number}: points into the journal "
                                 f"or a section of perf.md: {line.strip()}")
    return found


def work_log_words(root: Path) -> list:
    found = []
    for name in USER_DOCS:
        doc = root / name
        if not doc.is_file():
            continue
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            m = WORK_LOG.search(line)
            if m:
                found.append(f"{name}:{number}: '{m.group(0)}' is the work log's word: "
                             f"{line.strip()}")
    return found


def guide_blocks(root: Path) -> list:
    guide = root / "docs/guide.md"
    if not guide.is_file():
        return ["docs/guide.md: missing"]
    text = guide.read_text(encoding="utf-8")
    blocks = list(GUIDE_BLOCK.finditer(text))
    found = [] if blocks else ["docs/guide.md: no C++ block"]
    for m in blocks:
        line = text.count("\n", 0, m.start()) + 1
        path, body = m.group(1), m.group(2)
        if path is None:
            found.append(f"docs/guide.md:{line}: a C++ block without <!-- example: PATH -->")
        elif not (root / path).is_file():
            found.append(f"docs/guide.md:{line}: {path} does not exist")
        elif (root / path).read_text(encoding="utf-8") != body:
            found.append(f"docs/guide.md:{line}: the block differs from {path}")
    return found


def offences(root: Path) -> list:
    return broken_links(root) + journal_pointers(root) + work_log_words(root) + guide_blocks(root)


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / "src").mkdir()
        (root / "README.md").write_text("[guide](docs/guide.md) [web](https://x.org) [top](#a)\n")
        (root / "examples").mkdir()
        (root / "examples/a.cpp").write_text("int main() { return 0; }\n")
        good = ("[readme](../README.md#a)\n<!-- example: examples/a.cpp -->\n```cpp\n"
                "int main() { return 0; }\n```\n")
        (root / "docs/guide.md").write_text(good)
        (root / "src/a.cpp").write_text("// measured 1.3x faster (docs/perf.md has the table)\n")
        if offences(root):
            print("self-test: a clean tree was flagged")
            return 1
        (root / "README.md").write_text("Measured when a GPU was lent.\n")
        if len(work_log_words(root)) != 1:
            print("self-test: 'lent' in README.md was not flagged")
            return 1
        (root / "README.md").write_text("[guide](docs/guide.md)\n")
        (root / "docs/guide.md").write_text(
            good.replace("return 0;", "return 1;") + "```cpp\nint f();\n```\n"
            "<!-- example: examples/gone.cpp -->\n```cpp\n```\n")
        want = ["docs/guide.md:2: the block differs from examples/a.cpp",
                "docs/guide.md:6: a C++ block without <!-- example: PATH -->",
                "docs/guide.md:9: examples/gone.cpp does not exist"]
        if guide_blocks(root) != want:
            print("self-test: expected", want, "got", guide_blocks(root))
            return 1
        (root / "docs/guide.md").write_text("ok\n\n[gone](bench/gone.md)\n")
        (root / "src/b.hpp").write_text("// see perf.md §13b\n// docs/journal/x.md\n")
        links, pointers = broken_links(root), journal_pointers(root)
        if links != ["docs/guide.md:3: broken link bench/gone.md"] or len(pointers) != 2:
            print("self-test: expected one broken link and two pointers, got", links, pointers)
            return 1
    print("self-test: passed")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = offences(Path(sys.argv[1]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} offence(s)")
        return 1
    print("documents: every link resolves; no code points into the journal; no work-log words; "
          "the guide's C++ blocks are the examples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
