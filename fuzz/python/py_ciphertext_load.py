"""Fuzz target: the contexts' load_ciphertext and load_plaintext (CKKS, BGV, BFV over the same
parameters, each with its own keys) on any bytes; a ciphertext that loads must decrypt."""

import sys
import warnings

import atheris

with atheris.instrument_imports(include=["polyhe"]):
    import polyhe

import common


def test_one_input(data: bytes) -> None:
    warnings.simplefilter("ignore", polyhe.FormatWarning)
    for ctx in common.fixture():
        common.guarded(lambda d: ctx.decrypt(ctx.load_ciphertext(d)), data)
        common.guarded(ctx.load_plaintext, data)


if __name__ == "__main__":
    common.fixture()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
