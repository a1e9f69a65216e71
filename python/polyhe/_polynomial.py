"""Polynomials of encrypted CKKS slots: :class:`ChebyshevSeries` (on an interval, with
:meth:`ChebyshevSeries.fit` for a function) and :class:`PowerSeries`, evaluated by
:meth:`polyhe.ckks.Ciphertext.evaluate` in the optimal depth ⌈log2(d + 1)⌉ (C++
``ckks::evaluate``: the result at exactly the ciphertext's scale, level after level)."""

from __future__ import annotations

import math
import numbers
from typing import Callable, Sequence, Tuple

import numpy as np

from polyhe import _polyhe

__all__ = ["ChebyshevSeries", "PowerSeries"]

_native = _polyhe.ckks


def _coefficients(coeffs: object, what: str) -> np.ndarray:
    c = np.asarray(coeffs)
    if c.ndim != 1 or c.size == 0:
        raise _polyhe.InvalidParameter(
            f"{what}: coefficients: expected a non-empty 1-D sequence, got shape {c.shape}"
        )
    if c.dtype == np.bool_ or not np.issubdtype(c.dtype, np.number) or np.iscomplexobj(c):
        raise _polyhe.InvalidParameter(f"{what}: coefficients: expected real numbers, got {c.dtype}")
    c = np.ascontiguousarray(c, dtype=np.float64)
    if not np.all(np.isfinite(c)):
        raise _polyhe.InvalidParameter(f"{what}: coefficient {int(np.argmin(np.isfinite(c)))} is not finite")
    return c


def _baby_steps(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"baby_steps: expected an integer, got {type(k).__name__}")
    return int(k)


class PowerSeries:
    """p(x) = Σ c_i·x^i. ``coeffs``: c_0 … c_d (real)."""

    __slots__ = ("coeffs",)

    def __init__(self, coeffs: Sequence[float]) -> None:
        self.coeffs = _coefficients(coeffs, "PowerSeries")

    @property
    def degree(self) -> int:
        """The index of the last nonzero coefficient (0 for a constant)."""
        nz = np.flatnonzero(self.coeffs)
        return int(nz[-1]) if nz.size else 0

    def depth(self, baby_steps: int = 0) -> int:
        """The levels :meth:`Ciphertext.evaluate` consumes: ⌈log2(d + 1)⌉ (0 for a constant)
        with the default or 2 baby steps; larger baby steps may take one more."""
        return int(_native.power_depth(self.coeffs, _baby_steps(baby_steps)))

    def products(self, baby_steps: int = 0) -> int:
        """The ciphertext products (each a key switch) :meth:`Ciphertext.evaluate` makes."""
        return int(_native.power_products(self.coeffs, _baby_steps(baby_steps)))

    def __call__(self, x):
        """p(x) in double precision (numpy, element-wise)."""
        return np.polynomial.polynomial.polyval(np.asarray(x, dtype=np.float64), self.coeffs)

    def _evaluate(self, ev, ct, scale: float, baby_steps: int):
        return _native.evaluate_power(ev, ct, self.coeffs, scale, _baby_steps(baby_steps))

    def __repr__(self) -> str:
        return f"polyhe.ckks.PowerSeries(degree={self.degree})"


class ChebyshevSeries:
    """p(x) = Σ c_i·T_i(t) with t = (2x − a − b)/(b − a), for x in ``interval`` = (a, b)."""

    __slots__ = ("coeffs", "interval")

    def __init__(self, coeffs: Sequence[float], interval: Tuple[float, float] = (-1.0, 1.0)):
        self.coeffs = _coefficients(coeffs, "ChebyshevSeries")
        self.interval = _interval(interval, "ChebyshevSeries")

    @classmethod
    def fit(cls, f: Callable, interval: Tuple[float, float], degree: int) -> "ChebyshevSeries":
        """The interpolant of ``f`` at the degree + 1 Chebyshev nodes of ``interval``: near the
        best uniform approximation of a smooth f of that degree (e.g. sigmoid, exp, 1/x away
        from 0, a smoothed sign). ``f`` takes a numpy array (or is called value by value)."""
        a, b = _interval(interval, "ChebyshevSeries.fit")
        max_degree = int(_native.max_degree)
        if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
            raise TypeError(f"fit: degree: expected an integer, got {type(degree).__name__}")
        if not 0 <= degree <= max_degree:
            raise _polyhe.InvalidParameter(f"fit: degree {degree} is outside [0, {max_degree}]")
        m = int(degree) + 1
        j = np.arange(m)
        t = np.cos(np.pi * (j + 0.5) / m)
        x = 0.5 * (a + b) + 0.5 * (b - a) * t
        with np.errstate(all="ignore"):  # a non-finite value is refused below, by name
            try:
                y = np.asarray(f(x), dtype=np.float64)
                if y.shape != x.shape:
                    raise ValueError
            except (TypeError, ValueError):
                y = np.array([float(f(float(v))) for v in x])
        if not np.all(np.isfinite(y)):
            bad = x[np.argmin(np.isfinite(y))]
            raise _polyhe.InvalidParameter(f"fit: f({bad!r}) is not finite")
        k = np.arange(m)[:, None]
        c = (np.cos(np.pi * k * (j + 0.5) / m) @ y) * (2.0 / m)
        c[0] /= 2
        return cls(c, (a, b))

    @property
    def degree(self) -> int:
        """The index of the last nonzero coefficient (0 for a constant)."""
        nz = np.flatnonzero(self.coeffs)
        return int(nz[-1]) if nz.size else 0

    def depth(self, baby_steps: int = 0) -> int:
        """The levels :meth:`Ciphertext.evaluate` consumes: ⌈log2(d + 1)⌉ with the default or 2
        baby steps, one more on an interval other than [−1, 1] (the affine map); larger baby
        steps may take one more."""
        a, b = self.interval
        return int(_native.chebyshev_depth(self.coeffs, a, b, _baby_steps(baby_steps)))

    def products(self, baby_steps: int = 0) -> int:
        """The ciphertext products (each a key switch) :meth:`Ciphertext.evaluate` makes (the
        affine map's and the constants' products not counted)."""
        a, b = self.interval
        return int(_native.chebyshev_products(self.coeffs, a, b, _baby_steps(baby_steps)))

    def __call__(self, x):
        """p(x) in double precision (numpy, element-wise)."""
        a, b = self.interval
        t = (2 * np.asarray(x, dtype=np.float64) - a - b) / (b - a)
        return np.polynomial.chebyshev.chebval(t, self.coeffs)

    def _evaluate(self, ev, ct, scale: float, baby_steps: int):
        a, b = self.interval
        return _native.evaluate_chebyshev(ev, ct, self.coeffs, a, b, scale, _baby_steps(baby_steps))

    def __repr__(self) -> str:
        a, b = self.interval
        return f"polyhe.ckks.ChebyshevSeries(degree={self.degree}, interval=({a!r}, {b!r}))"


def _interval(interval: object, what: str) -> Tuple[float, float]:
    try:
        a, b = interval  # type: ignore[misc]
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise _polyhe.InvalidParameter(f"{what}: interval: expected (a, b), got {interval!r}") from None
    if not (math.isfinite(a) and math.isfinite(b) and a < b):
        raise _polyhe.InvalidParameter(f"{what}: interval ({a}, {b}) is not finite with a < b")
    return a, b
