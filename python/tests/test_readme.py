"""The README's Python example runs as written and gives what its comments say."""

import pathlib
import pickle
import re

import numpy as np

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example(capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no python block"
    scope = {}
    exec(compile(blocks[0], "README.md", "exec"), scope)  # noqa: S102 (our own README)
    ctx, y, z = scope["ctx"], scope["y"], scope["z"]
    want = np.array([1.5, 2.0, -3.25]) ** 2 + 1.0
    assert np.max(np.abs(ctx.decrypt(y) - want)) < 1e-6
    assert np.max(np.abs(ctx.decrypt(pickle.loads(scope["blob"]))[:2] - want[1:])) < 1e-6
    printed = np.array(capsys.readouterr().out.strip().strip("[]").split(), dtype=float)
    assert np.max(np.abs(printed - want)) < 1e-6  # what print(ctx.decrypt(y)) showed
    # A rotation moves values beyond the three encrypted: z decrypts to every slot, the first
    # value wrapped to the end (Ciphertext.length).
    rotated = ctx.decrypt(z)
    assert rotated.shape == (ctx.slots,) and abs(rotated[-1] - want[0]) < 1e-6
