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


# --- 2. decrypt's default length never hides a value ---------------------------------------------
def test_coefficient_products_decrypt_every_coefficient(gctx):
    a, b = [1, 2, 3], [1, 1, 1]
    A = gctx.encrypt(gctx.encode_coefficients(a))
    B = gctx.encrypt(gctx.encode_coefficients(b))
    want = np.convolve(a, b)  # [1 3 6 5 3]
    np.testing.assert_array_equal(gctx.decrypt(A * B), want)
    np.testing.assert_array_equal(gctx.decrypt(A * gctx.encode_coefficients(b)), want)
    np.testing.assert_array_equal(gctx.decrypt(A * np.array(b)), want)
    assert (A * B).length == 5 and (A * 3).length == 3 and (A + 7).length == 3
    # A product that wraps past x^N: all N coefficients.
    full = gctx.encrypt(gctx.encode_coefficients(np.ones(N, dtype=np.int64)))
    assert (full * A).length == N
    # A constant adds to x^0: an empty vector plus 5 is the polynomial 5.
    E = gctx.encrypt(gctx.encode_coefficients([]))
    np.testing.assert_array_equal(gctx.decrypt(E + 5), [5])


def test_rotations_decrypt_every_slot(gctx, cctx):
    x = gctx.encrypt([1, 2, 3])
    right = gctx.decrypt(x.rotate_rows(-1))
    assert right.shape == (N,)
    np.testing.assert_array_equal(right[:4], [0, 1, 2, 3])  # the 3 used to be cut off
    left = gctx.decrypt(x.rotate_rows(1))
    np.testing.assert_array_equal(left[:3], [2, 3, 0])
    assert left[N // 2 - 1] == 1  # the 1 wrapped to the end of the row
    for r in x.rotate_rows_many([1, -1]) + [x.rotate_columns()]:
        assert r.length is None
    swapped = gctx.decrypt(x.rotate_columns())
    np.testing.assert_array_equal(swapped[N // 2:N // 2 + 3], [1, 2, 3])
    assert x.mod_switch().length == 3 and (x * x).length == 3  # slot-wise: kept
    c = cctx.encrypt([1.0, 1.5, 2.0])
    got = cctx.decrypt(c.rotate(-1))
    assert got.shape == (cctx.slots,)
    close(got[:4], [0, 1.0, 1.5, 2.0])
    close(cctx.decrypt(c.rotate(1))[-1], 1.0)
    assert all(r.length is None for r in c.rotate_many([1, -1]))
    assert c.conjugate().length == 3  # slot by slot: kept
