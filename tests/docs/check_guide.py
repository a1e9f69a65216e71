#!/usr/bin/env python3
"""docs/guide.md's C++ blocks are whole example programs, byte for byte: each ```cpp block is
preceded by `<!-- example: PATH -->` and equals the file PATH, which CTest builds and runs
(examples/CMakeLists.txt: example.*). A C++ block without the marker, a missing file or a block
that differs from it fails, so the guide cannot show code that is not built and run.

Usage: check_guide.py ROOT         check ROOT/docs/guide.md
       check_guide.py --self-test  a marked copy passes; a drifted, unmarked or missing one fails
"""
import re
import sys
import tempfile
from pathlib import Path

BLOCK = re.compile(r"(?:<!-- example: (\S+) -->\n)?```cpp\n(.*?)```", re.S)


def offences(root: Path) -> list:
    guide = root / "docs/guide.md"
    text = guide.read_text(encoding="utf-8")
    found = []
    blocks = list(BLOCK.finditer(text))
    if not blocks:
        found.append("docs/guide.md: no C++ block")
    for m in blocks:
        line = text.count("\n", 0, m.start()) + 1
        path, body = m.group(1), m.group(2)
        if path is None:
            found.append(f"docs/guide.md:{line}: a C++ block without <!-- example: PATH -->")
            continue
        source = root / path
        if not source.is_file():
            found.append(f"docs/guide.md:{line}: {path} does not exist")
        elif source.read_text(encoding="utf-8") != body:
            found.append(f"docs/guide.md:{line}: the block differs from {path}")
    return found


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / "examples").mkdir()
        (root / "examples/a.cpp").write_text("int main() { return 0; }\n")
        good = "x\n<!-- example: examples/a.cpp -->\n```cpp\nint main() { return 0; }\n```\n"
        (root / "docs/guide.md").write_text(good)
        if offences(root):
            print("self-test: a faithful copy was flagged:", offences(root))
            return 1
        (root / "docs/guide.md").write_text(
            good.replace("return 0;", "return 1;") + "```cpp\nint f();\n```\n"
            "<!-- example: examples/gone.cpp -->\n```cpp\n```\n")
        got = offences(root)
        want = ["docs/guide.md:2: the block differs from examples/a.cpp",
                "docs/guide.md:6: a C++ block without <!-- example: PATH -->",
                "docs/guide.md:9: examples/gone.cpp does not exist"]
        if got != want:
            print("self-test: expected", want, "got", got)
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
        return 1
    print("docs/guide.md: every C++ block is a whole example that CTest builds and runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
