"""The Python API audit's defects, each pinned: 0-d arrays as scalars, decrypt's default length
after operations that move values, key-generation arguments, Galois elements over Φ_m, CKKS
encrypt's level/scale with a Plaintext, CKKS scale and flooding bounds, loaded key sections
checked against each other, and messages that name the value, the rule and the Python fix."""

import numpy as np
import pytest

import polyhe
from polyhe import arith, bgv, ckks

SMALL = dict(log_n=10, q_bits=[50, 40, 40], p_bits=[50], security="none")
N = 1 << 10


def close(got, want, tol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    err = np.max(np.abs(got - want)) if got.size else 0.0
    assert err < tol, f"max error {err}"


@pytest.fixture(scope="module")
def cctx():
    return ckks.Context(**SMALL).generate_keys(rotations=[1, -1], conjugation=True)


@pytest.fixture(scope="module")
def gctx():
    return bgv.Context(**SMALL).generate_keys(rotations=[1, -1], conjugation=True)


# --- 1. a 0-d array is its scalar (CKKS, as BGV) ---------------------------------------------------
def test_ckks_0d_arrays_act_as_scalars(cctx):
    x = np.array([1.0, 1.5, 2.0])
    c = cctx.encrypt(x)
    close(cctx.decrypt(np.array(2.0) * c), 2 * x)
    close(cctx.decrypt(c * np.array(2)), 2 * x)  # numpy integer: the exact product
    close(cctx.decrypt(c.multiply(np.array(0.5))), 0.5 * x)
    close(cctx.decrypt(c + np.array(1.0)), x + 1)
    close(cctx.decrypt(c - np.array(1.0)), x - 1)
    close(cctx.decrypt(np.array(1.0) - c), 1 - x)
    close(cctx.decrypt(c + np.array(1j)).imag, np.ones(3))
    # As values to encode, a 0-d array is refused (it used to become one value silently).
    with pytest.raises(polyhe.InvalidParameter, match=r"shape \(\); .*pass \[x\]"):
        cctx.encrypt(np.array(2.0))


def test_ckks_bool_and_huge_constants_are_refused_clearly(cctx):
    c = cctx.encrypt([1.0])
    for op in (lambda: c + np.bool_(True), lambda: c * np.bool_(True), lambda: c + True,
               lambda: np.bool_(False) - c, lambda: c + np.array(True)):
        with pytest.raises(TypeError, match="a bool constant .*CKKS operates on real or complex"):
            op()
    with pytest.raises(polyhe.InvalidParameter, match=r"add: the constant 1000.*0000 \(401 characters\) does not fit in a double"):
        c + 10**400
    with pytest.raises(polyhe.InvalidParameter, match=r"multiply: the integer 1000.*does not fit in 64 bits"):
        c * 10**400
