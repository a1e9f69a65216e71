#!/usr/bin/env python3
"""Ray scale-out, measured in pairs: the example's encrypted logistic-regression scoring
(python/examples/ray_logistic_regression.py) with 1 and with 2 workers, both pools alive at once
and their passes alternating, so that the machine's drift touches both alike; the ratio is taken
pass by pass. Then where a worker's time goes in each pool.

    build/pyenv/bin/python python/benchmarks/ray_scaling.py --rows 131072 --pairs 20

Ray is given as many logical CPUs as the pools' workers together (3), so that both pools stay up;
only one pool computes at a time, the other's actors wait for a call. Each pool has the chunks in
the object store (Pool.put), as the example's "scoring" passes do.

Per pool it prints, medians over the pairs:
  pass           one Pool.map over every chunk
  fn per item    the scoring of one chunk inside the worker (wall and CPU time of its thread)
  load only      a pass whose function returns None at once: Ray's calls, the transfer and the
                 unpickling of the chunks' ciphertexts, without the scoring
and the speedup of 2 workers over 1: the ratio of the medians and the median of the pairs' ratios.

Last, the machine's own ceiling for the same question: a loop of Python integer arithmetic (no
memory traffic, no Ray) in 1 and in 2 processes, paired the same way. On a machine whose cores
are not all its own (a small VM) that ratio is itself well below 2 and varies from pair to pair.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import ray  # noqa: E402

import polyhe  # noqa: E402
import ray_logistic_regression as example  # noqa: E402
from polyhe.distributed import Pool  # noqa: E402


class Timed:
    """fn(context, item) that also returns how long the scoring took on the worker."""

    def __init__(self, scorer) -> None:
        self.scorer = scorer

    def __call__(self, ctx, item):
        wall, cpu = time.perf_counter(), time.thread_time()
        self.scorer(ctx, item)
        return time.perf_counter() - wall, time.thread_time() - cpu


def nothing(ctx, item) -> None:
    return None


def spin(n: int) -> int:
    x = 0
    for i in range(n):
        x += i * i
    return x


def ceiling(pairs: int, n: int = 3_000_000) -> list:
    """Throughput of 2 processes over 1 running spin(n) twice each, for each pair."""

    def rate(procs: int) -> float:
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            pool.map(spin, [1000] * procs)  # started
            t0 = time.perf_counter()
            pool.map(spin, [n] * (2 * procs), chunksize=2)
            return 2 * procs * n / (time.perf_counter() - t0)

    return [rate(2) / rate(1) for _ in range(pairs)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=131072)
    ap.add_argument("--features", type=int, default=16)
    ap.add_argument("--pairs", type=int, default=20, help="timed passes per pool")
    ap.add_argument("--log-n", type=int, default=example.LOG_N, choices=(13, 14))
    ap.add_argument("--ceiling-pairs", type=int, default=12,
                    help="pairs of the machine's pure-CPU ceiling (0: skip it)")
    args = ap.parse_args()
    if args.rows < 1 or args.features < 1 or args.pairs < 1:
        ap.error("--rows, --features and --pairs must be positive")

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(example)
    try:
        Xt, yt, _, _ = example.make_data(20000, args.features, 1)
        w, b = example.train(Xt, yt)
        scorer = example.EncryptedScorer(tuple(float(v) for v in w), float(b))
        X, _, _, _ = example.make_data(args.rows, args.features, 2)
        ctx = example.make_context(log_n=args.log_n)
        items = example.encrypt_rows(ctx, X)
        print(f"polyhe {polyhe.__version__}, CPU path {polyhe.cpu_path()}; Ray {ray.__version__}; "
              f"{os.cpu_count()} cores; N = 2^{args.log_n}, {args.rows} rows x {args.features} "
              f"features: {len(items)} chunks; {args.pairs} pairs; load average "
              f"{os.getloadavg()[0]:.2f}")
        timed = Timed(scorer)
        pools = {n: Pool(ctx, workers=n) for n in (1, 2)}
        refs = {n: p.put(items) for n, p in pools.items()}
        for n, p in pools.items():  # imports, caches, the first touch of the object store
            p.map(timed, refs[n])
            p.map(nothing, refs[n])
        passes = {1: [], 2: []}
        loads = {1: [], 2: []}
        fn_wall = {1: [], 2: []}
        fn_cpu = {1: [], 2: []}
        for _ in range(args.pairs):
            for n, p in pools.items():
                t0 = time.perf_counter()
                out = p.map(timed, refs[n])
                passes[n].append(time.perf_counter() - t0)
                fn_wall[n].append(statistics.median(o[0] for o in out))
                fn_cpu[n].append(statistics.median(o[1] for o in out))
            for n, p in pools.items():
                t0 = time.perf_counter()
                p.map(nothing, refs[n])
                loads[n].append(time.perf_counter() - t0)
        for p in pools.values():
            p.shutdown()
    finally:
        ray.shutdown()

    m = statistics.median
    print("| workers | pass | rows/s | fn per item (wall / CPU) | load only |")
    print("|---:|---:|---:|---:|---:|")
    for n in (1, 2):
        print(f"| {n} | {m(passes[n]) * 1e3:.1f} ms | {args.rows / m(passes[n]):,.0f} | "
              f"{m(fn_wall[n]) * 1e3:.2f} / {m(fn_cpu[n]) * 1e3:.2f} ms | "
              f"{m(loads[n]) * 1e3:.1f} ms |")
    pair = m([a / b for a, b in zip(passes[1], passes[2])])
    print(f"speedup 2 vs 1 workers: {m(passes[1]) / m(passes[2]):.2f}x (ratio of medians), "
          f"{pair:.2f}x (median of the pairs); load only {m(loads[1]) / m(loads[2]):.2f}x")
    if args.ceiling_pairs > 0:
        c = ceiling(args.ceiling_pairs)
        print(f"machine ceiling (Python integer loop, 2 processes vs 1, pairs: {len(c)}): median "
              f"{m(c):.2f}x, range {min(c):.2f}-{max(c):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
