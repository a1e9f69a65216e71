"""ckks.Context.linear_transform: M·x on encrypted x against numpy's product — square and
rectangular matrices in both orientations, explicit diagonals, the keys it names, levels,
rescaling, and the refusals."""

import numpy as np
import pytest

import polyhe
from polyhe import ckks

SMALL = dict(log_n=7, q_bits=[50, 40, 40], p_bits=[50], security="none")
SLOTS = 64


@pytest.fixture(scope="module")
def ctx():
    return ckks.Context(**SMALL).generate_keys()


def rng():
    return np.random.default_rng(20261204)


def keyed(ctx, transform):
    ctx.add_galois_keys(transform.rotations)
    return ctx


def test_square_matrix_times_encrypted_vector(ctx):
    r = rng()
    m = r.uniform(-1, 1, (SLOTS, SLOTS)) + 1j * r.uniform(-1, 1, (SLOTS, SLOTS))
    x = r.uniform(-1, 1, SLOTS)
    t = ctx.linear_transform(m)
    assert t.level == ctx.max_level and t.diagonal_count == SLOTS
    assert len(t.rotations) < SLOTS // 2  # baby-step giant-step, not one rotation a diagonal
    keyed(ctx, t)
    ct = ctx.encrypt(x)
    y = t.apply(ct)
    assert y.level == ct.level - 1 and y.scale == ct.scale  # rescaled back exactly
    np.testing.assert_allclose(ctx.decrypt(y), m @ x, atol=1e-5)
    real = ctx.linear_transform(m.real)
    keyed(ctx, real)
    assert np.isrealobj(ctx.decrypt(real.apply(ct)))  # real matrix, real input: real result
    raw = t(ct, rescale=False)
    assert raw.level == ct.level and raw.scale == ct.scale * t.scale


@pytest.mark.parametrize("transpose", [False, True])
def test_rectangular_matrices_in_both_orientations(ctx, transpose):
    r = rng()
    m = r.uniform(-1, 1, (7, 20))
    t = ctx.linear_transform(m, transpose=transpose)
    keyed(ctx, t)
    x = r.uniform(-1, 1, 20 if not transpose else 7)
    got = ctx.decrypt(t.apply(ctx.encrypt(x)))
    want = m @ x if not transpose else x @ m
    np.testing.assert_allclose(got[: want.size], want, atol=1e-5)
    np.testing.assert_allclose(got[want.size :], 0, atol=1e-5)


def test_diagonals_levels_and_a_dropped_input(ctx):
    r = rng()
    d = {0: r.uniform(-1, 1, SLOTS), 1: r.uniform(-1, 1, SLOTS), SLOTS - 1: r.uniform(-1, 1, SLOTS)}
    t = ctx.linear_transform(diagonals=d, level=1, baby_steps=1)
    assert t.baby_steps == 1 and sorted(t.rotations) == [1, SLOTS - 1]
    keyed(ctx, t)
    x = r.uniform(-1, 1, SLOTS)
    want = sum(v * np.roll(x, -k) for k, v in d.items())
    y = t.apply(ctx.encrypt(x))  # at level 2: dropped to 1 first
    assert y.level == 0
    np.testing.assert_allclose(ctx.decrypt(y), want, atol=1e-5)
    with pytest.raises(polyhe.InvalidParameter, match="at level 0, below the transform's level 1"):
        t.apply(ctx.encrypt(x, level=0))


def test_refusals(ctx):
    m = np.ones((2, 2))
    fresh = ckks.Context(**SMALL).generate_keys(rotations=[1])
    t = fresh.linear_transform(np.eye(SLOTS)[:, ::-1].copy())  # needs rotations
    with pytest.raises(polyhe.InvalidParameter, match="linear transform: no Galois key for step"):
        t.apply(fresh.encrypt([1.0]))
    with pytest.raises(polyhe.MismatchedContext):
        ctx.linear_transform(m).apply(fresh.encrypt([1.0]))
    with pytest.raises(TypeError, match="a matrix or diagonals"):
        ctx.linear_transform()
    with pytest.raises(polyhe.InvalidParameter, match="does not fit 64 slots"):
        ctx.linear_transform(np.ones((65, 2)))
    with pytest.raises(polyhe.InvalidParameter, match="2-D numeric"):
        ctx.linear_transform(np.ones(4))
    with pytest.raises(polyhe.InvalidParameter, match="not finite"):
        ctx.linear_transform(np.array([[np.nan]]))
    with pytest.raises(polyhe.InvalidParameter, match="is not a power of two"):
        ctx.linear_transform(m, baby_steps=3)
    with pytest.raises(polyhe.InvalidParameter, match="diagonal 0 has shape"):
        ctx.linear_transform(diagonals={0: np.ones(3)})
    with pytest.raises(polyhe.InvalidParameter, match="no diagonal"):
        ctx.linear_transform(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="expected a ckks.Ciphertext"):
        ctx.linear_transform(m).apply([1.0])
