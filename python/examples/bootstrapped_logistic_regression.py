#!/usr/bin/env python3
"""Logistic regression trained on encrypted data, for more gradient-descent iterations than the
modulus chain allows: the model's ciphertexts are bootstrapped between iterations.

A client encrypts its features (one ciphertext per feature: row i in slot i) and its labels and
hands them, with its public keys, to a server that trains without decrypting anything. The model
(weights and bias) stays encrypted, each weight replicated in every slot. One iteration, all in
CKKS:

    z   = b + Σ_j w_j·x_j                      one level (ciphertext products)
    s   = σ(z), a Chebyshev series of degree 7 on [−8, 8]: four levels (polyhe evaluates it in
          the optimal depth ⌈log2 8⌉ plus one for the map onto [−1, 1])
    g_j = (lr/n)·Σ_rows (s − y)·x_j            one level for the products, the row sums by
          rotations (none), and the step lr/n as a power series c·x whose scale lands exactly
          on the weights' own (one level): no scale ever drifts
    w_j ← w_j − g_j,  b ← b − (lr/n)·Σ_rows (s − y)

seven levels an iteration, of the eight that the training primes give: the chain allows one
iteration. Before every later one, each of the model's d + 1 ciphertexts is bootstrapped
(polyhe.ckks.Bootstrapper) and the training goes on. The client decrypts the model
at the end and compares it with numpy's training of the same model on the same data: with the same
sigmoid polynomial (the encryption's error) and with the exact sigmoid (the approximation's).

    build/pyenv/bin/python python/examples/bootstrapped_logistic_regression.py --iterations 6
    build/pyenv/bin/python python/examples/bootstrapped_logistic_regression.py --workers 2

With --workers W > 0 the gradients and the bootstraps run on W Ray actors
(polyhe.distributed.Pool): the public context, with the bootstrapping keys, is sent once; each
iteration maps the features' gradients, then the model's bootstraps, over the actors.

Parameters: N = 2^10 (512 rows a ciphertext), q_0 of 60 bits, 8 levels of 40 bits for the
training, 14 of 58 bits for bootstrapping, a sparse secret (h = 64): **insecure**, chosen so
that the example runs in seconds; a deployment uses N = 2^16 (docs/ckks-bootstrapping.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import polyhe
from polyhe import ckks

LOG_N = 10
PARAMS = dict(
    log_n=LOG_N, q_bits=[60] + [40] * 8 + [58] * 14, p_bits=[60, 60, 60], hamming_weight=64,
    security="none", scale=2.0**40,
)
LEVELS_PER_ITERATION = 7


def make_data(rows: int, features: int, seed: int):
    """Standardised features and 0/1 labels from a noisy linear rule."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, features))
    truth = rng.uniform(-1.5, 1.5, features)
    y = (x @ truth + 0.3 + rng.normal(scale=0.5, size=rows) > 0).astype(np.float64)
    return x, y


def sigmoid_series():
    return ckks.ChebyshevSeries.fit(lambda v: 1 / (1 + np.exp(-v)), (-8, 8), 7)


def train_numpy(x, y, iterations: int, lr: float, sig):
    """The same gradient descent in float64 with the activation ``sig``."""
    n, d = x.shape
    w, b = np.zeros(d), 0.0
    for _ in range(iterations):
        e = sig(x @ w + b) - y
        w = w - lr / n * (x.T @ e)
        b = b - lr / n * e.sum()
    return w, b


# --- the server's work: every function takes the (public) context first, as Pool.map calls it ---
def gradient(ctx, item):
    """(lr/n)·Σ_rows e·x_j replicated in every slot, at exactly the context's scale."""
    err, xj, step = item
    prod = err * xj if xj is not None else err
    return prod.sum().evaluate([0.0, step], scale=ctx.scale)


def refresh(ctx, ct):
    """The ciphertext bootstrapped (the bootstrapper is made once per context in each process)."""
    return ctx.bootstrapper(coeff_to_slot_levels=3, slot_to_coeff_levels=3).bootstrap(ct)


def iteration(ctx, model, xs, y, sig, step, pool=None):
    """One gradient-descent step on the encrypted model (list: weights, then the bias)."""
    *w, b = model
    z = w[0] * xs[0]
    for wj, xj in zip(w[1:], xs[1:]):
        z = z + wj * xj
    # The bias at the products' scale (one level on its copy), then σ at the context's scale.
    z = z + b.evaluate([0.0, 1.0], scale=z.scale)
    err = z.evaluate(sig, scale=ctx.scale) - y
    items = [(err, xj, step) for xj in xs] + [(err, None, step)]
    grads = pool.map(gradient, items) if pool else [gradient(ctx, it) for it in items]
    return [m - g for m, g in zip(model, grads)]


def run(args) -> int:
    n = 1 << (LOG_N - 1)
    x, y = make_data(n, args.features, args.seed)
    sig = sigmoid_series()

    ctx = ckks.Context(**PARAMS).generate_keys(seed=bytes(32) if args.deterministic else None)
    boot = ctx.bootstrapper(coeff_to_slot_levels=3, slot_to_coeff_levels=3)
    ctx.add_galois_keys(sorted(set(boot.rotations) | set(ctx.sum_rotations())), conjugation=True)
    # The client's data, encrypted, and the model (zero), encrypted too: at the level bootstrapping
    # returns to, the top of the 40-bit training primes (the 58-bit ones above are bootstrapping's).
    start_level = boot.levels_after
    xs = [ctx.encrypt(x[:, j], level=start_level) for j in range(args.features)]
    yc = ctx.encrypt(y, level=start_level)
    model = [ctx.encrypt(np.zeros(n), level=start_level) for _ in range(args.features + 1)]
    step = args.lr / n

    pool = None
    if args.workers > 0:
        from polyhe.distributed import Pool

        pool = Pool(ctx, args.workers)
    times, boots = [], 0
    try:
        for it in range(args.iterations):
            start = time.perf_counter()
            if model[0].level < LEVELS_PER_ITERATION:
                model = pool.map(refresh, model) if pool else [refresh(ctx, m) for m in model]
                boots += 1
            model = iteration(ctx, model, xs, yc, sig, step, pool)
            times.append(time.perf_counter() - start)
            print(f"iteration {it + 1}: level {model[0].level}, {times[-1]:.2f} s", flush=True)
    finally:
        if pool:
            pool.shutdown()

    got = np.array([ctx.decrypt(m)[0].real for m in model])
    w_poly, b_poly = train_numpy(x, y, args.iterations, args.lr, sig)
    w_true, b_true = train_numpy(x, y, args.iterations, args.lr, lambda v: 1 / (1 + np.exp(-v)))
    want = np.append(w_poly, b_poly)
    exact = np.append(w_true, b_true)
    err_enc = np.max(np.abs(got - want))
    err_approx = np.max(np.abs(want - exact))
    print(f"{args.iterations} iterations, {boots} rounds of bootstraps ({args.features + 1} "
          f"ciphertexts each); without them the chain allows "
          f"{start_level // LEVELS_PER_ITERATION}")
    print(f"model (encrypted training): {np.round(got, 5)}")
    print(f"model (numpy, same sigmoid polynomial): {np.round(want, 5)}; max difference {err_enc:.2e}")
    print(f"model (numpy, exact sigmoid): {np.round(exact, 5)}; the polynomial's own error "
          f"{err_approx:.2e}")
    print(f"time per iteration: median {statistics.median(times):.2f} s "
          f"({'Ray, ' + str(args.workers) + ' workers' if pool else 'this process'}, "
          f"{polyhe.threads()} polyhe threads)")
    ok = err_enc < args.tolerance
    print("OK" if ok else f"FAILED: the encrypted model differs by {err_enc:.2e} > {args.tolerance}")
    return 0 if ok else 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iterations", type=int, default=6)
    p.add_argument("--features", type=int, default=3)
    p.add_argument("--lr", type=float, default=1.0)
    p.add_argument("--workers", type=int, default=0, help="Ray actors (0: this process)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--tolerance", type=float, default=1e-3)
    p.add_argument("--deterministic", action="store_true", help="fixed key seed (tests)")
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
