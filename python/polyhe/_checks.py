"""Argument checks shared by the package: each refuses with the value and the rule."""

from __future__ import annotations

import numbers
import pickle
from collections.abc import Iterable
from typing import Optional

import numpy as np

from polyhe import _polyhe


def byteslike(name: str, data: object) -> object:
    """``data`` for a native loader as it is, not copied: bytes, bytearray, memoryview or a
    pickle buffer (the loader reads a read-only buffer in place and copies a writable one first,
    so that nothing written to it meanwhile changes what was checked)."""
    if isinstance(data, (bytes, bytearray, memoryview, pickle.PickleBuffer)):
        return data
    raise TypeError(f"{name}: expected bytes or a bytes-like object, got {type(data).__name__}")


def as_bytes(name: str, data: object) -> bytes:
    """``data`` as immutable bytes (copied unless it is bytes already)."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview, pickle.PickleBuffer)):
        return bytes(data)
    raise TypeError(f"{name}: expected bytes, got {type(data).__name__}")


def int_list(
    name: str, values: Optional[Iterable[object]], lo: int, hi: int, cap: int, why: str
) -> list:
    """A list of at most ``cap`` ints in [lo, hi] from any iterable of integers (None: empty).
    The cap is checked while reading, before any work: an iterable longer than ``cap`` (an endless
    one too) is refused with InvalidParameter naming the cap and ``why`` it is the cap."""
    if values is None:
        return []
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        raise TypeError(
            f"{name}: expected a sequence of integers, got {type(values).__name__} {values!r}"
        )
    out = []
    for i, v in enumerate(values):
        if i == cap:
            raise _polyhe.InvalidParameter(
                f"{name}: more than {cap} values, above the cap of {cap} ({why})"
            )
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


def flag(name: str, value: object) -> bool:
    """A real bool (Python or numpy): "no", 0 or None are refused, not taken for their truth."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name}: expected True or False, got {type(value).__name__} {value!r}")


def galois_rule(m: int, power_of_two: bool) -> str:
    """The rule a Galois element k obeys in the ring of cyclotomic index m."""
    if power_of_two:
        return (
            f"odd and in [1, 2N) = [1, {m}) (x -> x^k is an automorphism of x^N + 1 only for odd k)"
        )
    return (
        f"in [1, m) = [1, {m}) and coprime to m = {m} (x -> x^k is an automorphism of "
        f"Z[x]/Phi_m only for units k mod m)"
    )


def is_galois_element(k: int, m: int, power_of_two: bool) -> bool:
    """Whether x -> x^k is an automorphism of the ring of cyclotomic index m."""
    import math

    if power_of_two:
        return k % 2 == 1 and 1 <= k < m
    return 1 <= k < m and math.gcd(k, m) == 1


# C++ names in native messages, and what a Python caller writes instead.
_CPP_TO_PYTHON = (
    ("set security = SecurityLevel::insecure_none", "pass security='none'"),
    ("minimum = SecurityLevel::insecure_none", "minimum_security='none'"),
    ("SecurityLevel::insecure_none", "security='none'"),
    ("rescale the operands first (Evaluator::rescale)",
     "rescale the operands first (ct.rescale(), or multiply with rescale=True)"),
    ("KeyGenerator::galois_keys or rotation_keys",
     "ctx.add_galois_keys(galois_elements=[...]) or ctx.add_galois_keys([steps])"),
)


def pythonic(error: Exception) -> Exception:
    """The native error with its C++ names rewritten in Python terms, of the same class."""
    text = str(error)
    new = text
    for cpp, py in _CPP_TO_PYTHON:
        new = new.replace(cpp, py)
    return error if new == text else type(error)(new)


def require_rotation_keys(galois, n: int, op: str, steps) -> None:
    """Every step's Galois key is in ``galois`` (a step of 0 mod the row size needs none), or
    InvalidParameter naming the step, its element and the Python call that makes the key."""
    for s in steps:
        k = int(_polyhe.galois_element_for_rotation(n, s))
        if k != 1 and not galois.contains(k):
            raise _polyhe.InvalidParameter(
                f"{op}: no Galois key for step {s} (element {k}); "
                f"generate_keys(rotations=[{s}, ...]) or ctx.add_galois_keys([{s}])"
            )
