"""ckks.Context.bootstrapper: a ciphertext at the bottom of the chain refreshed to the levels the
bootstrapper states, its slots kept (to the parameters' precision), at its own scale; both EvalMod
methods; the keys it names; refusals."""

import numpy as np
import pytest

import polyhe
from polyhe import ckks

# N = 2^10, a sparse secret, q_0 of 60 bits, two 40-bit levels for the user, 12 bootstrapping
# levels of 58 bits: insecure, for speed.
BOOT = dict(
    log_n=10, q_bits=[60, 40, 40] + [58] * 13, p_bits=[60, 60, 60], hamming_weight=64,
    security="none", scale=2.0**40,
)


@pytest.fixture(scope="module")
def ctx():
    return ckks.Context(**BOOT).generate_keys()


@pytest.mark.parametrize("eval_mod", ["chebyshev", "double_angle"])
def test_bootstrap_refreshes_the_slots(ctx, eval_mod):
    b = ctx.bootstrapper(eval_mod=eval_mod)
    assert b.levels_after == ctx.max_level - b.depth >= 2
    ctx.add_galois_keys(b.rotations, conjugation=True)
    x = np.random.default_rng(3).uniform(-1, 1, ctx.slots)
    low = ctx.encrypt(x, level=0)
    fresh = b.bootstrap(low)
    assert fresh.level == b.levels_after and fresh.scale == low.scale
    got = ctx.decrypt(fresh)
    assert np.max(np.abs(got - x)) < 2.0**-14
    # It computes on.
    np.testing.assert_allclose(ctx.decrypt(fresh * fresh), x * x, atol=2.0**-12)


def test_bootstrapper_refusals(ctx):
    with pytest.raises(polyhe.InvalidParameter, match="eval_mod = 'sine'"):
        ctx.bootstrapper(eval_mod="sine")
    with pytest.raises(polyhe.InvalidParameter, match="coeff_to_slot_levels = 0 is outside"):
        ctx.bootstrapper(coeff_to_slot_levels=0)
    with pytest.raises(polyhe.InvalidParameter, match="K = 0.500000"):
        ctx.bootstrapper(k=0.5)
    small = ckks.Context(log_n=10, q_bits=[60, 40, 40], p_bits=[60], security="none")
    with pytest.raises(polyhe.InvalidParameter, match="bootstrapping takes .* levels"):
        small.bootstrapper()
    fresh_keys = ckks.Context(**BOOT).generate_keys()
    b = fresh_keys.bootstrapper()
    with pytest.raises(polyhe.InvalidParameter, match="no Galois key"):
        b.bootstrap(fresh_keys.encrypt([0.5], level=0))
    with pytest.raises(TypeError, match="expected a ckks.Ciphertext"):
        b.bootstrap([0.5])


def test_the_logistic_regression_example_trains_past_the_chain():
    """python/examples/bootstrapped_logistic_regression.py, in this process: three iterations on
    a chain that allows one (two rounds of bootstraps), the model numpy's within 1e-3."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "bootstrapped_logistic_regression.py"
    spec = importlib.util.spec_from_file_location("bootstrapped_logistic_regression", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--iterations", "3", "--deterministic"]) == 0
