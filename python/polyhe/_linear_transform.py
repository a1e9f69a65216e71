"""Plaintext matrix × encrypted vector for CKKS: :meth:`polyhe.ckks.Context.linear_transform`
prepares a matrix once (its diagonals rotated and encoded at the level and scale they are used at,
baby-step giant-step over hoisted rotations; C++ ``ckks::LinearTransform``), and
:meth:`LinearTransform.apply` computes M·x on a ciphertext."""

from __future__ import annotations

import threading
from typing import Optional

import numpy as np

from polyhe import _polyhe
from polyhe._checks import require_rotation_keys

__all__ = ["LinearTransform"]


class LinearTransform:
    """M·x for encrypted x, M a plaintext matrix prepared once. Made by
    :meth:`polyhe.ckks.Context.linear_transform`; immutable, safe to share between threads.

    ``rotations`` lists the rotation keys it needs (pass them to ``generate_keys`` or
    ``add_galois_keys``); ``apply(ct)`` returns M·ct, rescaled by default so that its scale is
    ct's again."""

    __slots__ = ("_native", "_ctx", "_real", "_device_copy", "_lock")

    def __init__(self, native, ctx, real: bool) -> None:
        self._native, self._ctx, self._real = native, ctx, real
        self._device_copy = None
        self._lock = threading.Lock()

    @property
    def rotations(self) -> list:
        """The left rotation steps whose Galois keys apply() needs (baby and giant steps)."""
        return list(self._native.rotations)

    @property
    def level(self) -> int:
        """The level its diagonals are encoded at: a ciphertext above it is dropped to it."""
        return int(self._native.level)

    @property
    def scale(self) -> float:
        """The scale of its encoded diagonals (by default the prime the rescale divides by)."""
        return float(self._native.scale)

    @property
    def baby_steps(self) -> int:
        """n1 of the baby-step giant-step split (a power of two)."""
        return int(self._native.baby_steps)

    @property
    def diagonal_count(self) -> int:
        """The nonzero diagonals it holds (one encoded plaintext each)."""
        return int(self._native.diagonal_count)

    def _placed(self):
        dev = self._ctx._device
        if dev is None:
            return self._native
        with self._lock:
            if self._device_copy is None:
                self._device_copy = self._native.to_device(dev)
            return self._device_copy

    def apply(self, ciphertext, rescale: bool = True):
        """M·ciphertext. A ciphertext above :attr:`level` is dropped to it first (one below is
        refused: make the transform at its level). ``rescale``: divide by the last prime after,
        which with the default scale gives back the ciphertext's scale exactly. Needs the keys of
        :attr:`rotations`. The result decrypts to every slot by default."""
        from polyhe import ckks

        if not isinstance(ciphertext, ckks.Ciphertext):
            raise TypeError(f"apply: expected a ckks.Ciphertext, got {type(ciphertext).__name__}")
        self._ctx._check_same(ciphertext._ctx, "linear transform")
        if ciphertext.level < self.level:
            raise _polyhe.InvalidParameter(
                f"linear transform: the ciphertext is at level {ciphertext.level}, below the "
                f"transform's level {self.level}: make the transform at level="
                f"{ciphertext.level}"
            )
        if ciphertext.size != 2:
            raise _polyhe.InvalidParameter(
                f"linear transform: the ciphertext has size {ciphertext.size}: relinearise first"
            )
        steps = self.rotations
        if steps:
            galois = self._ctx._require("Galois keys", "_galois", "linear transform")
            require_rotation_keys(galois, int(self._ctx._params.n), "linear transform", steps)
        x = ciphertext if ciphertext.level == self.level else ciphertext.drop_to(self.level)
        ev = self._ctx._evaluator()
        out = self._placed().apply(ev, self._ctx._place(x._ct))
        if rescale:
            out = ev.rescale(out)
        # Real values stay real under a real matrix; a complex one makes them complex.
        return x._new(out, real=x._real and self._real, length=None)

    __call__ = apply

    def __repr__(self) -> str:
        return (
            f"polyhe.ckks.LinearTransform(level={self.level}, diagonals={self.diagonal_count}, "
            f"baby_steps={self.baby_steps}, rotations={len(self.rotations)})"
        )


def make(ctx, matrix, diagonals, transpose: bool, level: Optional[int], scale: Optional[float],
         baby_steps: int) -> LinearTransform:
    """The body of Context.linear_transform (arguments as documented there)."""
    from polyhe._checks import flag, index

    native_ctx = ctx._native
    slots = int(ctx.slots)
    lvl = int(ctx.max_level) if level is None else index("level", level, 0, int(ctx.max_level))
    sc = 0.0 if scale is None else float(scale)
    n1 = index("baby_steps", baby_steps, 0, slots)
    tr = flag("transpose", transpose)
    if (matrix is None) == (diagonals is None):
        raise TypeError("linear_transform: give a matrix or diagonals (exactly one)")
    native = _polyhe.ckks.LinearTransform
    if matrix is not None:
        m = np.asarray(matrix)
        if m.ndim != 2 or not (np.issubdtype(m.dtype, np.number) and m.dtype != np.bool_):
            raise _polyhe.InvalidParameter(
                f"linear_transform: matrix: expected a 2-D numeric array, got shape {m.shape} "
                f"of {m.dtype}"
            )
        real = not np.iscomplexobj(m) or not m.imag.any()
        m = np.ascontiguousarray(m, dtype=np.complex128)
        return LinearTransform(native.from_matrix(native_ctx, m, tr, lvl, sc, n1), ctx, real)
    if tr:
        raise _polyhe.InvalidParameter("linear_transform: transpose applies to a matrix only")
    if not isinstance(diagonals, dict) or not diagonals:
        raise _polyhe.InvalidParameter(
            "linear_transform: diagonals: expected a non-empty dict {index: values}"
        )
    keys = [index("diagonal index", k, 0, slots - 1) for k in diagonals]
    values = np.zeros((len(keys), slots), dtype=np.complex128)
    for row, k in enumerate(diagonals):
        v = np.asarray(diagonals[k])
        if v.ndim != 1 or v.shape[0] != slots:
            raise _polyhe.InvalidParameter(
                f"linear_transform: diagonal {k} has shape {v.shape}, expected ({slots},)"
            )
        values[row] = v
    idx = np.asarray(keys, dtype=np.uint64)
    real = not values.imag.any()
    return LinearTransform(native.from_diagonals(native_ctx, idx, values, lvl, sc, n1), ctx, real)
