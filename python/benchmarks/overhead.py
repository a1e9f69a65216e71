#!/usr/bin/env python3
"""The Python binding's overhead, measured: CKKS ops from Python against the same ops timed in C++
by `polyhe bench ckks`, same parameters (the bench defaults: N = 2^14, Q = 50 + 8×40, P = 50,
Δ = 2^40), one thread, in one run; rounds alternate between the two so that drift hits both.

    build/pyenv/bin/python python/benchmarks/overhead.py --cli build/release/tools/polyhe/polyhe

Compared (per round the median call; then the median over --rounds rounds):
  multiply_relin  C++ Evaluator::multiply_relin  vs  ct.multiply(ct, rescale=False) from Python
  encrypt         C++ encode + encrypt            vs  ctx.encrypt(numpy complex array)
  decrypt         C++ decrypt + decode            vs  ctx.decrypt(ct) → numpy complex array
Prints a markdown table and the ratios Python / C++ (the targets: ≤ 1.05, ≤ 1.10, ≤ 1.10).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("POLYHE_THREADS", "1")
import polyhe  # noqa: E402
from polyhe import ckks  # noqa: E402


def cxx_times(cli: str, min_time: float) -> dict:
    out = subprocess.run(
        [cli, "bench", "ckks", "--json", "--threads", "1", "--min-time", str(min_time),
         "--ops", "encode,encrypt,multiply_relin,decrypt,decode"],
        check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    t = {r["op"]: r["median_ns"] for r in rows}
    return {
        "multiply_relin": t["multiply_relin"],
        "encrypt": t["encode"] + t["encrypt"],
        "decrypt": t["decrypt"] + t["decode"],
    }


def py_time(fn, min_time: float) -> float:
    """The median of single calls over at least min_time seconds (the C++ bench's statistic)."""
    fn()
    times, start = [], time.perf_counter()
    while time.perf_counter() - start < min_time or len(times) < 5:
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/release/tools/polyhe/polyhe")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5)
    args = ap.parse_args()
    polyhe.set_threads(1)
    ctx = ckks.Context()  # the bench defaults
    ctx.generate_keys()
    rng = np.random.default_rng(1)
    z = rng.uniform(-1, 1, ctx.slots) * np.exp(2j * np.pi * rng.uniform(0, 1, ctx.slots))
    x, y = ctx.encrypt(z), ctx.encrypt(z)
    py_ops = {
        "multiply_relin": lambda: x.multiply(y, rescale=False),
        "encrypt": lambda: ctx.encrypt(z),
        "decrypt": lambda: ctx.decrypt(x),
    }
    samples = {op: ([], []) for op in py_ops}
    for _ in range(args.rounds):
        c = cxx_times(args.cli, args.min_time)
        for op, fn in py_ops.items():
            samples[op][0].append(c[op])
            samples[op][1].append(py_time(fn, args.min_time))
    print(f"polyhe {polyhe.__version__}, CPU path {polyhe.cpu_path()}, 1 thread, "
          f"N = 2^14, L = 8, {args.rounds} rounds")
    print("| op | C++ (ms) | Python (ms) | Python / C++ |")
    print("|---|---:|---:|---:|")
    for op, (c, p) in samples.items():
        cm, pm = statistics.median(c), statistics.median(p)
        print(f"| {op} | {cm / 1e6:.3f} | {pm / 1e6:.3f} | {pm / cm:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
