"""What the Python fuzz targets share: a fixed, tiny fixture (contexts with keys at N = 16, one
ciphertext and plaintext of each scheme), the rule every target checks — a loader returns or raises
one of polyhe's documented errors, nothing else — and the seed corpus they start from.

Run by scripts/fuzz-python.sh (atheris, coverage-guided over the package's Python code; the
native loaders under it are the C++ ones that fuzz/*.cpp fuzz under the sanitizers)."""

import functools
import os

import polyhe
from polyhe import bgv, ckks

# The documented errors of a loader: polyhe.Error and its subclasses (CorruptData,
# MismatchedContext, InsecureParameters, InvalidParameter, …); FormatWarning is a warning.
ALLOWED = (polyhe.Error,)

TINY = dict(log_n=4, q_bits=[40, 30], p_bits=[45], security="none")


@functools.lru_cache(maxsize=None)
def fixture():
    c = ckks.Context(**TINY).generate_keys(rotations=[1], seed=b"\1" * 32)
    g = bgv.Context(**TINY, t=97).generate_keys(rotations=[1], seed=b"\2" * 32)
    f = bgv.Context(**TINY, t=97, scheme="bfv").generate_keys(seed=b"\3" * 32)
    return c, g, f


def guarded(call, data) -> None:
    """call(data); any exception but polyhe's documented errors propagates (a finding)."""
    try:
        call(data)
    except ALLOWED:
        pass


def seeds() -> dict:
    """The seed corpus of each target: the fixture's serialised objects."""
    c, g, f = fixture()
    cct, gct, fct = c.encrypt([0.5, -1.0]), g.encrypt([1, 2, 3]), f.encrypt([4])
    return {
        "py_context_load": [
            c.serialize(), c.public().serialize(), c.serialize(include_secret_key=True),
            g.serialize(), g.public().serialize(), f.public().serialize(),
        ],
        "py_ciphertext_load": [
            cct.serialize(), (cct * cct).serialize(), gct.serialize(), fct.serialize(),
            g.encode([5, 6]).serialize(), c.encode([0.25]).serialize(),
        ],
        "py_parameters_load": [c.params.serialize(), g.params.serialize()],
    }


def write_seeds(root: str) -> None:
    for target, items in seeds().items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for i, data in enumerate(items):
            with open(os.path.join(d, f"seed{i}"), "wb") as out:
                out.write(data)
