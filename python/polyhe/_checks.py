"""Argument checks shared by the package: each refuses with the value and the rule."""

from __future__ import annotations

import numbers
from typing import Iterable, Optional

from polyhe import _polyhe


def int_list(name: str, values: Optional[Iterable[object]], lo: int, hi: int) -> list:
    """A list of ints in [lo, hi] from any iterable of integers (None: empty)."""
    if values is None:
        return []
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: expected a sequence of integers, got {type(values).__name__}")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name}[{i}]: expected an integer, got {type(v).__name__} {v!r}")
        iv = int(v)
        if not lo <= iv <= hi:
            raise _polyhe.InvalidParameter(f"{name}[{i}] = {iv} is outside [{lo}, {hi}]")
        out.append(iv)
    return out


def security_name(security: object) -> str:
    """128/192/256 (int or str) or 'none' → the native module's name."""
    if isinstance(security, bool):
        raise TypeError(f"security: expected 128, 192, 256 or 'none', got {security!r}")
    if isinstance(security, numbers.Integral) and int(security) in (128, 192, 256):
        return str(int(security))
    if isinstance(security, str) and security in ("128", "192", "256", "none"):
        return security
    raise _polyhe.InvalidParameter(
        f"security = {security!r} is not a level: 128, 192, 256, or 'none' to opt out by name"
    )


def index(name: str, value: object, lo: int, hi: int) -> int:
    """An integer in [lo, hi] (levels, steps, counts)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    v = int(value)
    if not lo <= v <= hi:
        raise _polyhe.InvalidParameter(f"{name} = {v} is outside [{lo}, {hi}]")
    return v
