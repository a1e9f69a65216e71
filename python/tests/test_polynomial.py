"""Ciphertext.evaluate: power and Chebyshev series of encrypted slots against numpy, the levels
they consume, exact scales through chained evaluations, ChebyshevSeries.fit, and refusals."""

import numpy as np
import pytest

import polyhe
from polyhe import ckks

DEEP = dict(log_n=7, q_bits=[60] + [40] * 8, p_bits=[60], security="none")


@pytest.fixture(scope="module")
def ctx():
    return ckks.Context(**DEEP).generate_keys()


def values(n, lo=-1.0, hi=1.0):
    return np.random.default_rng(7).uniform(lo, hi, n)


def test_power_series_in_optimal_depth(ctx):
    x = values(ctx.slots)
    ct = ctx.encrypt(x)
    for coeffs in ([0.5, 1.0], [1, 0, -0.5], [0.1, 0.2, 0.3, 0.4], list(np.linspace(1, -1, 16))):
        p = ckks.PowerSeries(coeffs)
        y = ct.evaluate(p)
        assert ct.level - y.level == p.depth() == int(np.ceil(np.log2(len(coeffs))))
        assert y.scale == ct.scale
        np.testing.assert_allclose(ctx.decrypt(y), p(x), atol=1e-6)
    # A plain sequence is a power series.
    np.testing.assert_allclose(ctx.decrypt(ct.evaluate([0, 0, 1])), x * x, atol=1e-6)


def test_fitted_sigmoid_on_an_interval(ctx):
    sigmoid = ckks.ChebyshevSeries.fit(lambda v: 1 / (1 + np.exp(-v)), (-8, 8), 31)
    x = values(ctx.slots, -8, 8)
    assert np.max(np.abs(sigmoid(x) - 1 / (1 + np.exp(-x)))) < 1e-4
    assert sigmoid.depth() == 6  # ⌈log2 32⌉ + 1 for the map onto [-1, 1]
    ct = ctx.encrypt(x)
    y = ct.evaluate(sigmoid)
    assert ct.level - y.level == 6 and y.scale == ct.scale
    np.testing.assert_allclose(ctx.decrypt(y), sigmoid(x), atol=1e-5)
    # Value by value when f does not take arrays.
    import math

    again = ckks.ChebyshevSeries.fit(lambda v: 1 / (1 + math.exp(-v)), (-8, 8), 31)
    np.testing.assert_allclose(again.coeffs, sigmoid.coeffs, atol=1e-15)


def test_chained_evaluations_keep_the_scale(ctx):
    p = ckks.ChebyshevSeries([0.1, 0.6, 0, 0.3])
    x = values(ctx.slots)
    ct = ctx.encrypt(x)
    while ct.level >= p.depth():
        ct = ct.evaluate(p)
        x = p(x)
        assert ct.scale == ctx.scale
    np.testing.assert_allclose(ctx.decrypt(ct), x, atol=1e-5)
    bigger = ctx.encrypt(values(ctx.slots)).evaluate(p, scale=2.0**45)
    assert bigger.scale == 2.0**45


def test_baby_steps_trade_a_level(ctx):
    p = ckks.ChebyshevSeries(values(16))
    x = values(ctx.slots)
    ct = ctx.encrypt(x)
    assert p.depth() == 4 and p.depth(baby_steps=4) == 5
    y = ct.evaluate(p, baby_steps=4)
    assert ct.level - y.level == 5
    np.testing.assert_allclose(ctx.decrypt(y), p(x), atol=1e-5)


def test_default_baby_steps_take_the_fewest_products_in_the_optimal_depth(ctx):
    """Degree 27: 4 baby steps keep the optimal 5 levels with 11 ciphertext products where 2 take
    17; the default evaluates that way, as exactly as the plain split."""
    p = ckks.ChebyshevSeries(values(28) / 28)
    assert p.depth() == p.depth(baby_steps=2) == p.depth(baby_steps=4) == 5
    assert p.products(baby_steps=2) == 17 and p.products() == p.products(baby_steps=4) == 11
    assert ckks.PowerSeries(values(4)).products() == 2
    x = values(ctx.slots)
    ct = ctx.encrypt(x)
    fewest, plain = ct.evaluate(p), ct.evaluate(p, baby_steps=2)
    assert ct.level - fewest.level == ct.level - plain.level == 5
    np.testing.assert_allclose(ctx.decrypt(fewest), p(x), atol=1e-5)
    np.testing.assert_allclose(ctx.decrypt(plain), p(x), atol=1e-5)


def test_refusals(ctx):
    ct = ctx.encrypt([0.5], level=1)
    with pytest.raises(polyhe.InvalidParameter, match="takes 2 levels and the ciphertext has 1"):
        ct.evaluate([1, 1, 1])
    with pytest.raises(polyhe.InvalidParameter, match="not finite"):
        ckks.PowerSeries([1, np.nan])
    with pytest.raises(polyhe.InvalidParameter, match="non-empty 1-D"):
        ckks.ChebyshevSeries([])
    with pytest.raises(polyhe.InvalidParameter, match="real numbers"):
        ckks.PowerSeries([1j])
    with pytest.raises(polyhe.InvalidParameter, match=r"interval \(1.0, 1.0\)"):
        ckks.ChebyshevSeries([1, 2], (1, 1))
    with pytest.raises(polyhe.InvalidParameter, match="degree 5000 is outside"):
        ckks.ChebyshevSeries.fit(np.sin, (-1, 1), 5000)
    with pytest.raises(polyhe.InvalidParameter, match="is not finite"):
        ckks.ChebyshevSeries.fit(np.sqrt, (-1, 1), 4)  # nan at the negative nodes
    with pytest.raises(polyhe.InvalidParameter, match="baby_steps = 3"):
        ctx.encrypt([0.5]).evaluate([0, 1, 1], baby_steps=3)
    with pytest.raises(TypeError, match="baby_steps"):
        ctx.encrypt([0.5]).evaluate([0, 1], baby_steps=1.5)
    nokeys = ckks.Context(**DEEP)
    nokeys.generate_keys(relinearization=False)
    with pytest.raises(polyhe.InvalidParameter, match="relinearisation key"):
        nokeys.encrypt([0.5]).evaluate([0, 0, 1])
