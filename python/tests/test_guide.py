"""docs/guide.md's Python blocks run as written, in order, in one namespace (each checks its own
result with assert)."""

import pathlib
import re

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def test_guide_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/guide.md has no python block"
    scope = {}
    for i, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/guide.md, python block {i}", "exec"), scope)  # noqa: S102
