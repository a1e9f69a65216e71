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


def test_message_ratio_scales_the_input_for_precision(ctx):
    """message_ratio_bits=8: the input multiplied by 2^b before ModRaise (b = 11 here: q_0 of 60
    bits, Δ = 2^40) comes back several bits more precise than without; a constant vector keeps
    about 2ρ' − 2.7 bits (the sine's error); bad ratios are refused by name."""
    plain = ctx.bootstrapper(eval_mod="double_angle")
    scaled = ctx.bootstrapper(eval_mod="double_angle", message_ratio_bits=8)
    assert plain.input_scaling_bits == 0 and scaled.input_scaling_bits == 11
    ctx.add_galois_keys(plain.rotations, conjugation=True)
    x = np.random.default_rng(4).uniform(-1, 1, ctx.slots)
    low = ctx.encrypt(x, level=0)

    def bits(b, values, ct):
        return -np.log2(np.max(np.abs(ctx.decrypt(b.bootstrap(ct)) - values)))

    assert bits(scaled, x, low) > bits(plain, x, low) + 4
    ones = np.ones(ctx.slots)
    assert abs(bits(scaled, ones, ctx.encrypt(ones, level=0)) - (2 * 9 - 2.7)) < 0.5
    with pytest.raises(polyhe.InvalidParameter, match="is neither 0 .no input scaling. nor in"):
        ctx.bootstrapper(message_ratio_bits=0.5)
    with pytest.raises(TypeError, match="message_ratio_bits: expected a number"):
        ctx.bootstrapper(message_ratio_bits="8")
    with pytest.raises(polyhe.InvalidParameter, match="arcsine_degree = 2 is neither 0"):
        ctx.bootstrapper(arcsine_degree=2)


def test_the_arcsine_lifts_a_constant_vectors_precision():
    """arcsine_degree=3 at a small message ratio (ρ' just under 7): a constant vector of ones
    keeps about 4ρ' − 6.9 = 21 bits instead of 2ρ' − 2.7 = 11.3, for two more levels."""
    c = ckks.Context(**dict(BOOT, q_bits=[60, 40, 40] + [58] * 15)).generate_keys()
    sine = c.bootstrapper(eval_mod="double_angle", message_ratio_bits=6)
    arcsine = c.bootstrapper(eval_mod="double_angle", message_ratio_bits=6, arcsine_degree=3)
    assert arcsine.depth == sine.depth + 2
    c.add_galois_keys(sine.rotations, conjugation=True)
    ones = np.ones(c.slots)
    low = c.encrypt(ones, level=0)

    def bits(b):
        return -np.log2(np.max(np.abs(c.decrypt(b.bootstrap(low)) - ones)))

    assert abs(bits(sine) - 11.3) < 0.5
    assert abs(bits(arcsine) - 21.1) < 1.0


def test_two_iterations_double_the_bits_for_one_level(ctx):
    """iterations=2: the first bootstrap's error, times 2^p at level 0, bootstrapped and
    subtracted at 2^-p: against the input's own decryption, 13 more bits here, for one level."""
    once = ctx.bootstrapper()
    twice = ctx.bootstrapper(iterations=2)
    assert twice.depth == once.depth + 1 and twice.levels_after == once.levels_after - 1
    assert once.iteration_precision_bits == 0 and twice.iteration_precision_bits == 15
    assert ctx.bootstrapper(iterations=2, iteration_precision_bits=12).iteration_precision_bits == 12
    ctx.add_galois_keys(once.rotations, conjugation=True)
    x = np.random.default_rng(6).uniform(-1, 1, ctx.slots)
    low = ctx.encrypt(x, level=0)
    kept = ctx.decrypt(low)

    def bits(b):
        return -np.log2(np.max(np.abs(ctx.decrypt(b.bootstrap(low)) - kept)))

    assert bits(twice) > bits(once) + 8
    with pytest.raises(polyhe.InvalidParameter, match="iterations = 3 is neither 1 nor 2"):
        ctx.bootstrapper(iterations=3)
    with pytest.raises(polyhe.InvalidParameter, match="iteration_precision_bits = 41 is outside"):
        ctx.bootstrapper(iterations=2, iteration_precision_bits=41)
    with pytest.raises(TypeError, match="iteration_precision_bits: expected an integer"):
        ctx.bootstrapper(iterations=2, iteration_precision_bits=1.5)


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


def test_sparse_secret_encapsulation_bootstraps_under_a_dense_secret():
    """A uniform ternary secret (no hamming_weight): the plain bootstrapper is refused by the K
    rule; with encapsulation_weight=32 ModRaise runs under an ephemeral sparse secret, and the
    keys it needs are made by generate_keys, saved and loaded."""
    dense = dict(BOOT)
    del dense["hamming_weight"]
    ctx = ckks.Context(**dense).generate_keys()
    with pytest.raises(polyhe.InvalidParameter, match="set encapsulation_weight"):
        ctx.bootstrapper(eval_mod="double_angle")
    b = ctx.bootstrapper(eval_mod="double_angle", encapsulation_weight=32)
    assert b.encapsulates and "encapsulates=True" in repr(b)
    x = np.random.default_rng(5).uniform(-1, 1, ctx.slots)
    low = ctx.encrypt(x, level=0)
    with pytest.raises(polyhe.InvalidParameter, match="holds no encapsulation keys"):
        b.bootstrap(low)
    b.generate_keys()
    fresh = b.bootstrap(low)
    assert fresh.level == b.levels_after
    assert np.max(np.abs(ctx.decrypt(fresh) - x)) < 2.0**-14
    data = b.save_encapsulation_keys()
    b.load_encapsulation_keys(data)
    again = b.bootstrap(low)
    np.testing.assert_array_equal(ctx.decrypt(again), ctx.decrypt(fresh))
    with pytest.raises(polyhe.CorruptData, match="truncated"):
        b.load_encapsulation_keys(data[:4])
    with pytest.raises(polyhe.CorruptData, match="bytes after the keys"):
        b.load_encapsulation_keys(data + b"x")
    plain = ckks.Context(**BOOT).generate_keys().bootstrapper()
    with pytest.raises(polyhe.InvalidParameter, match="does not encapsulate"):
        plain.load_encapsulation_keys(data)


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


def test_the_128_bit_presets_are_one_call():
    """Context.bootstrappable: a dense-secret 128-bit context whose bootstrapper() takes the
    preset's configuration (built here only at N = 2^15's level count; the bootstrap itself is the
    C++ slow suite's)."""
    ctx = ckks.Context.bootstrappable(log_n=16, levels=10)
    assert ctx.params.security == "128" and ctx.params.hamming_weight == 0
    assert ctx.max_level == 10 + 16  # the user's levels, then 4 + 9 + 3 for the bootstrap
    assert ctx._bootstrap_preset["encapsulation_weight"] == 32
    assert ctx._bootstrap_preset["message_ratio_bits"] == 9
    assert ckks.max_bootstrappable_levels(16) == 12 and ckks.max_bootstrappable_levels(15) == 2
    with pytest.raises(polyhe.InvalidParameter, match=r"levels = 13 is outside \[1, 12\]"):
        ckks.Context.bootstrappable(log_n=16, levels=13)
    with pytest.raises(polyhe.InvalidParameter, match="log_n = 14 has no 128-bit"):
        ckks.Context.bootstrappable(log_n=14, levels=1)
    # High precision: Δ = 2^50, two iterations, one more bootstrapping level, at most 8 levels.
    high = ckks.Context.bootstrappable(log_n=16, levels=8, precision="high")
    assert high.max_level == 8 + 17 and high.scale == 2.0**50
    assert high._bootstrap_preset["iterations"] == 2
    assert ckks.max_bootstrappable_levels(16, precision="high") == 8
    with pytest.raises(polyhe.InvalidParameter, match="high precision needs log_n = 16"):
        ckks.Context.bootstrappable(log_n=15, levels=1, precision="high")
    with pytest.raises(polyhe.InvalidParameter, match="precision = 'best'"):
        ckks.Context.bootstrappable(log_n=16, levels=1, precision="best")
