"""The benchmark scripts under python/benchmarks run and print what docs/perf.md quotes (tiny
sizes: this checks that they work, not how fast anything is)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_ray_scaling_runs():
    pytest.importorskip("ray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    run = subprocess.run(
        [sys.executable, str(_BENCHMARKS / "ray_scaling.py"), "--rows", "8192", "--features",
         "4", "--pairs", "2", "--ceiling-pairs", "1"],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "| 1 |" in out and "| 2 |" in out, out
    assert "speedup 2 vs 1 workers:" in out and "(median of the pairs)" in out, out
    assert "machine ceiling (Python integer loop, 2 processes vs 1, pairs: 1)" in out, out


def test_ray_scaling_refuses_bad_sizes():
    pytest.importorskip("ray")
    run = subprocess.run(
        [sys.executable, str(_BENCHMARKS / "ray_scaling.py"), "--rows", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 2
    assert "must be positive" in run.stderr


def test_overhead_in_process_pairs():
    run = subprocess.run(
        [sys.executable, str(_BENCHMARKS / "overhead.py"), "--rounds", "0", "--pairs", "4"],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split("|") for line in run.stdout.splitlines() if line.startswith("| ")]
    ops = {r[1].strip(): r for r in rows if r[1].strip() != "op"}
    assert set(ops) == {"multiply_relin", "encrypt", "decrypt"}, run.stdout
    for r in ops.values():
        api, native, ratio = float(r[2]), float(r[3]), float(r[4])
        assert api > 0 and native > 0 and 0.2 < ratio < 5, run.stdout
    assert "C++ (ms)" not in run.stdout  # --rounds 0: no polyhe bench


def test_overhead_refuses_nothing_to_do():
    run = subprocess.run(
        [sys.executable, str(_BENCHMARKS / "overhead.py"), "--rounds", "0", "--pairs", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 2
    assert "one must be positive" in run.stderr
