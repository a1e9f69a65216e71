#!/usr/bin/env python3
"""Encrypted logistic-regression scoring on Ray workers (polyhe.distributed).

A client holds rows of features it will not show: it encrypts them with CKKS, one ciphertext per
feature per chunk of N/2 rows (the rows of a chunk sit in the slots), and sends the ciphertexts
with its *public* keys. The server holds a logistic-regression model (trained here in the clear
on other data) and scores every row without decrypting anything:

    z = Σ_j w_j·x_j + b                  (products by plaintext constants, one rescale)
    σ(z) ≈ 0.5 + 0.197·z − 0.004·z³      (the degree-3 least-squares fit of the sigmoid on
                                          [−8, 8] of the secure logistic-regression literature;
                                          poor near ±8, fine where most logits are)

spreading the chunks over Ray actors with :class:`polyhe.distributed.Pool`: the public keys are
put in the object store once, each actor reads them once, the chunks go round the actors and the
encrypted scores come back in order. The client decrypts and checks them against numpy (the
same polynomial in float64: the encryption error) and against the exact sigmoid (the
approximation error, reported apart), then reports the scoring throughput for each worker count.

    build/pyenv/bin/python python/examples/ray_logistic_regression.py --rows 131072 --workers 1,2

For each worker count (a new pool per round, the rounds interleaved) it times passes over the
chunks already in the object store ("scoring": the data sent once with Pool.put, as a server
holding its clients' data would) and passes from this process's memory ("end to end": this
process also serialises every chunk to the workers, on the same cores). Few rows (--rows 8192
is two chunks) time Ray's latency rather than the scoring.

Parameters: N = 2^13 (4096 slots), Q = 50 + 3×38 bits, P = 50 bits (log2 QP = 214 ≤ 218: 128-bit
secure for a ternary secret), Δ = 2^38. The score uses three levels: one for the weighted sum
and two for the cubic (z² and (−0.004·z) in parallel, then their product; the linear term is
brought to the cubic's level and scale by one plaintext product).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import List, Sequence, Tuple

import numpy as np

import polyhe
from polyhe import ckks
from polyhe.distributed import Pool

#: The sigmoid fit on [−8, 8]: c0 + c1·z + c3·z³.
SIGMOID3 = (0.5, 0.197, -0.004)

#: N = 2^13; a 50-bit base prime (the result's room: 12 bits above Δ), three 38-bit primes for
#: the three rescales, one 50-bit special prime. log2(QP) = 214 ≤ 218 (128-bit, N = 2^13).
LOG_N = 13
Q_BITS = (50, 38, 38, 38)
P_BITS = (50,)


def make_context(seed: bytes | None = None, log_n: int = LOG_N) -> ckks.Context:
    """The client's context: 128-bit secure parameters and a fresh key set (secret, public and
    relinearisation keys; no rotations are needed). ``log_n`` = 14 doubles the rows per
    ciphertext (the same chain is then further below the bound)."""
    ctx = ckks.Context(log_n=log_n, q_bits=Q_BITS, p_bits=P_BITS, security=128)
    ctx.generate_keys(seed=seed)
    return ctx


# --- the model: trained in the clear on other data ----------------------------------------------
def make_data(
    rows: int, features: int, seed: int, world: int = 0
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """`rows` samples of one synthetic population (fixed by `world`; `seed` draws the rows):
    standardised, correlated features and labels from a logistic model whose logits have a
    standard deviation of 1.5 (inside [−8, 8], the range of the sigmoid fit).
    Returns (X, y, the population's weights, its bias)."""
    pop = np.random.default_rng([world, features])
    mix = pop.normal(size=(features, features)) / math.sqrt(features)
    scale = np.sqrt(np.sum(mix**2, axis=0))  # each feature's standard deviation
    w = pop.normal(size=features)
    w *= 1.5 / math.sqrt(float(w @ (mix / scale).T @ (mix / scale) @ w))
    b = -0.3
    rng = np.random.default_rng([world, features, seed])
    X = (rng.normal(size=(rows, features)) @ mix) / scale
    p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
    y = (rng.random(rows) < p).astype(np.float64)
    return X, y, w, b


def train(
    X: np.ndarray, y: np.ndarray, steps: int = 300, lr: float = 0.5
) -> Tuple[np.ndarray, float]:
    """Plain logistic regression by gradient descent (the server's model, in the clear)."""
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        g = p - y
        w -= lr * (X.T @ g) / len(y)
        b -= lr * float(g.mean())
    return w, b


# --- the server's computation --------------------------------------------------------------------
@dataclass(frozen=True)
class EncryptedScorer:
    """fn(context, features) for Pool.map: the model's scores of one chunk of rows, given the
    chunk's feature ciphertexts (one per feature, rows in the slots)."""

    weights: Tuple[float, ...]
    bias: float
    coefficients: Tuple[float, float, float] = SIGMOID3

    def __call__(self, ctx: ckks.Context, features: Sequence[ckks.Ciphertext]) -> ckks.Ciphertext:
        if len(features) != len(self.weights):
            raise ValueError(
                f"a chunk of {len(features)} feature ciphertexts for a model of "
                f"{len(self.weights)} weights"
            )
        # z = Σ w_j·x_j + b: each product by a constant scales by the last prime q_l, the sum
        # is rescaled once (back to Δ, one level).
        z = None
        for w, x in zip(self.weights, features):
            t = x.multiply(float(w), rescale=False)
            z = t if z is None else z + t
        z = z.rescale() + self.bias
        c0, c1, c3 = self.coefficients
        level, q = z.level, ctx.params.q_primes
        z2 = z * z                      # level l−1, scale Δ²/q_l
        c3z = z * c3                    # level l−1, scale Δ
        cubic = z2 * c3z                # level l−2
        # c1·z at the cubic's scale: times c1 encoded at σ, so that z.scale·σ/q_l equals it.
        sigma = cubic.scale * q[level] / z.scale
        lin = z * ctx.encode(np.full(ctx.slots, c1), level=level, scale=sigma)
        return cubic + lin + c0


def sigmoid3(z: np.ndarray, coefficients: Tuple[float, float, float] = SIGMOID3) -> np.ndarray:
    """The same polynomial in float64."""
    c0, c1, c3 = coefficients
    return c0 + c1 * z + c3 * z**3


# --- the client ----------------------------------------------------------------------------
def encrypt_rows(ctx: ckks.Context, X: np.ndarray) -> List[List[ckks.Ciphertext]]:
    """One item per chunk of ctx.slots rows: the list of its feature ciphertexts."""
    s = ctx.slots
    return [
        [ctx.encrypt(np.ascontiguousarray(X[i : i + s, j])) for j in range(X.shape[1])]
        for i in range(0, X.shape[0], s)
    ]


def decrypt_scores(ctx: ckks.Context, scores: Sequence[ckks.Ciphertext], rows: int) -> np.ndarray:
    """The scores of the first `rows` rows, chunk after chunk."""
    s = ctx.slots
    parts = [ctx.decrypt(ct, length=min(s, rows - k * s)) for k, ct in enumerate(scores)]
    return np.concatenate(parts)


@dataclass
class Timing:
    """Seconds per pass over the data for one worker count, over every round: scoring the chunks
    already in the object store (`seconds`), and end to end from this process's memory
    (`end_to_end`: the transfers to the workers included), plus the one-time uploads."""

    workers: int
    seconds: List[float] = field(default_factory=list)
    end_to_end: List[float] = field(default_factory=list)
    uploads: List[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_end_to_end(self) -> float:
        return statistics.median(self.end_to_end)


def score(
    ctx: ckks.Context,
    items: list,
    scorer: EncryptedScorer,
    timing: Timing,
    repeats: int,
    threads_per_worker: int = 1,
) -> list:
    """One round for one worker count: starts a pool of `timing.workers` actors, uploads the
    items to the object store, warms the workers up on the first chunks, then times `repeats`
    passes over the uploaded chunks, each followed by a pass from this process's memory; the
    times go to `timing`. Returns the encrypted scores of the last pass."""
    with Pool(ctx, workers=timing.workers, threads_per_worker=threads_per_worker) as pool:
        t0 = time.perf_counter()
        refs = pool.put(items)
        timing.uploads.append(time.perf_counter() - t0)
        pool.map(scorer, refs[: pool.workers], chunksize=1)  # imports, evaluators, caches
        out: list = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = pool.map(scorer, refs)
            timing.seconds.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pool.map(scorer, items)
            timing.end_to_end.append(time.perf_counter() - t0)
    return out


def check(
    scores: np.ndarray, X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float
) -> dict:
    """The decrypted scores against numpy: the encryption error (vs the same polynomial), the
    approximation error (polynomial vs exact sigmoid), and the labels they give."""
    z = X @ w + b
    poly = sigmoid3(z)
    exact = 1.0 / (1.0 + np.exp(-z))
    return {
        "max_abs_error_vs_numpy": float(np.max(np.abs(scores - poly))),
        "max_abs_error_poly_vs_sigmoid": float(np.max(np.abs(poly - exact))),
        "mean_abs_error_poly_vs_sigmoid": float(np.mean(np.abs(poly - exact))),
        "max_abs_error_vs_sigmoid": float(np.max(np.abs(scores - exact))),
        "label_agreement_vs_sigmoid": float(np.mean((scores > 0.5) == (exact > 0.5))),
        "accuracy_encrypted": float(np.mean((scores > 0.5) == (y > 0.5))),
        "accuracy_plain": float(np.mean((exact > 0.5) == (y > 0.5))),
        "z_range": (float(z.min()), float(z.max())),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=131072, help="encrypted rows to score")
    ap.add_argument("--features", type=int, default=16, help="features per row")
    ap.add_argument("--workers", default="1,2", help="worker counts to compare, e.g. 1,2")
    ap.add_argument("--repeats", type=int, default=5, help="timed passes per pool")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds over the worker counts (a new pool each), interleaved so that "
                    "a change in the machine's load touches every count alike")
    ap.add_argument("--threads-per-worker", type=int, default=1)
    ap.add_argument("--num-cpus", type=int, default=os.cpu_count(), help="Ray's local CPUs")
    ap.add_argument("--address", default=None, help="a Ray cluster to join instead of a local one")
    ap.add_argument("--log-n", type=int, default=LOG_N, choices=(13, 14),
                    help="ring degree: 2^13 (4096 rows per ciphertext) or 2^14 (8192)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="max |decrypted - numpy| accepted (exit status 1 above it)")
    args = ap.parse_args(argv)
    counts = list(dict.fromkeys(int(c) for c in str(args.workers).split(",") if c.strip()))
    if not counts or min(counts) < 1 or args.rows < 1 or args.features < 1:
        ap.error("--workers, --rows and --features must be positive")

    import ray

    started = not ray.is_initialized()  # an instance already running (a caller's) is used as is
    if started and args.address:
        ray.init(address=args.address, log_to_driver=False)
    elif started:
        # A local instance with this machine's cores (its processes talk to each other only;
        # no usage statistics are sent).
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        # The server's model, trained in the clear on its own data.
        Xt, yt, _, _ = make_data(20000, args.features, args.seed)
        w, b = train(Xt, yt)
        scorer = EncryptedScorer(tuple(float(v) for v in w), float(b))
        # The client's rows, encrypted under the client's keys.
        X, y, _, _ = make_data(args.rows, args.features, args.seed + 1)
        ctx = make_context(log_n=args.log_n)
        t0 = time.perf_counter()
        items = encrypt_rows(ctx, X)
        t_enc = time.perf_counter() - t0
        nbytes = sum(len(ct.serialize()) for item in items for ct in item)
        print(f"polyhe {polyhe.__version__}, CPU path {polyhe.cpu_path()}; Ray {ray.__version__}, "
              f"{int(ray.cluster_resources().get('CPU', 0))} CPUs; load average "
              f"{os.getloadavg()[0]:.2f}")
        print(f"parameters: N = 2^{args.log_n} ({ctx.slots} slots), q bits {list(Q_BITS)}, "
              f"p bits {list(P_BITS)}, log2 QP = {ctx.params.log_qp}, scale "
              f"2^{math.log2(ctx.scale):.0f}, 128-bit")
        print(f"rows {args.rows} x features {args.features}: {len(items)} chunks of up to "
              f"{ctx.slots} rows, {len(items) * args.features} ciphertexts, "
              f"{nbytes / 2**20:.1f} MiB; encrypted in {t_enc:.2f} s")

        timings = {n: Timing(n) for n in counts}
        results = {}
        for _ in range(args.rounds):
            for n in counts:
                out = score(ctx, items, scorer, timings[n], args.repeats, args.threads_per_worker)
                results[n] = decrypt_scores(ctx, out, args.rows)
        for n in counts:
            t = timings[n]
            runs = ", ".join(f"{x:.3f}" for x in t.seconds)
            print(f"workers {n}: scoring {args.rows / t.median:,.0f} rows/s (median "
                  f"{t.median:.3f} s of {len(t.seconds)}: {runs}); end to end "
                  f"{args.rows / t.median_end_to_end:,.0f} rows/s (median "
                  f"{t.median_end_to_end:.3f} s); upload median "
                  f"{statistics.median(t.uploads):.3f} s")
        base = timings[counts[0]]
        for n in counts[1:]:
            t = timings[n]
            print(f"speedup {n} vs {base.workers} workers: scoring "
                  f"{base.median / t.median:.2f}x, end to end "
                  f"{base.median_end_to_end / t.median_end_to_end:.2f}x")

        ok = True
        for n, scores in results.items():
            r = check(scores, X, y, w, b)
            ok &= r["max_abs_error_vs_numpy"] < args.tolerance
            print(f"workers {n}: max |decrypted - numpy polynomial| = "
                  f"{r['max_abs_error_vs_numpy']:.2e}; labels agree with the exact sigmoid on "
                  f"{100 * r['label_agreement_vs_sigmoid']:.3f}% of rows; accuracy "
                  f"{100 * r['accuracy_encrypted']:.2f}% (plaintext model "
                  f"{100 * r['accuracy_plain']:.2f}%)")
        r = check(results[counts[0]], X, y, w, b)
        print(f"sigmoid approximation (degree 3, numpy): max |poly - sigmoid| = "
              f"{r['max_abs_error_poly_vs_sigmoid']:.3e}, mean "
              f"{r['mean_abs_error_poly_vs_sigmoid']:.3e}, over z in "
              f"[{r['z_range'][0]:.2f}, {r['z_range'][1]:.2f}]; load average now "
              f"{os.getloadavg()[0]:.2f}")
        print("check:", "ok" if ok else f"FAILED (tolerance {args.tolerance:g})")
        return 0 if ok else 1
    finally:
        if started:
            ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
