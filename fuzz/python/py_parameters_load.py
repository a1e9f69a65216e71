"""Fuzz target: polyhe.Parameters.load on any bytes, under the 'none' and the default policy."""

import sys

import atheris

with atheris.instrument_imports(include=["polyhe"]):
    import polyhe

import common


def test_one_input(data: bytes) -> None:
    common.guarded(lambda d: polyhe.Parameters.load(d, minimum_security="none"), data)
    common.guarded(polyhe.Parameters.load, data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
