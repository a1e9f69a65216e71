"""Fuzz target: ckks.Context.load and bgv.Context.load (under the 'none' policy, so that tiny sets
load and the key sections are reached, and under the default 128-bit policy) on any bytes."""

import sys

import atheris

with atheris.instrument_imports(include=["polyhe"]):
    from polyhe import bgv, ckks

import common


def test_one_input(data: bytes) -> None:
    common.guarded(lambda d: ckks.Context.load(d, minimum_security="none"), data)
    common.guarded(lambda d: bgv.Context.load(d, minimum_security="none"), data)
    common.guarded(ckks.Context.load, data)


if __name__ == "__main__":
    common.fixture()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
