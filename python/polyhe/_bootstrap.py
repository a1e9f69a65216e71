"""CKKS bootstrapping from Python: :meth:`polyhe.ckks.Context.bootstrapper` prepares the
transforms and the EvalMod series once (C++ ``ckks::Bootstrapper``); :meth:`Bootstrapper.bootstrap`
refreshes a ciphertext at the bottom of the modulus chain into one with
:attr:`Bootstrapper.levels_after` levels, at its own scale."""

from __future__ import annotations

import threading
from typing import Optional

from polyhe import _polyhe
from polyhe._checks import index, require_rotation_keys

__all__ = ["Bootstrapper"]


class Bootstrapper:
    """Refreshes CKKS ciphertexts of one context. Made by
    :meth:`polyhe.ckks.Context.bootstrapper`; immutable, safe to share between threads. Needs the
    relinearisation key, the conjugation key and the rotation keys named by :attr:`rotations`
    (``ctx.add_galois_keys(b.rotations, conjugation=True)``)."""

    __slots__ = ("_native", "_ctx", "_device_copy", "_lock")

    def __init__(self, native, ctx) -> None:
        self._native, self._ctx = native, ctx
        self._device_copy = None
        self._lock = threading.Lock()

    @property
    def rotations(self) -> list:
        """The rotation steps whose Galois keys bootstrapping needs (plus conjugation)."""
        return list(self._native.rotations)

    @property
    def depth(self) -> int:
        """The levels bootstrapping consumes (CoeffToSlot, EvalMod, SlotToCoeff)."""
        return int(self._native.depth)

    @property
    def levels_after(self) -> int:
        """The level a bootstrapped ciphertext is at: L − depth."""
        return int(self._native.levels_after)

    @property
    def scale(self) -> float:
        """The working scale of its transforms and series."""
        return float(self._native.scale)

    def _placed(self):
        dev = self._ctx._device
        if dev is None:
            return self._native
        with self._lock:
            if self._device_copy is None:
                self._device_copy = self._native.to_device(dev)
            return self._device_copy

    def bootstrap(self, ciphertext):
        """A ciphertext of the same slots at level :attr:`levels_after` and ``ciphertext``'s scale
        (any level in: it is dropped to 0 first). Its values must be small against the first
        prime (the message ``scale·|x|`` well below q_0)."""
        from polyhe import ckks

        if not isinstance(ciphertext, ckks.Ciphertext):
            raise TypeError(f"bootstrap: expected a ckks.Ciphertext, got {type(ciphertext).__name__}")
        ctx = self._ctx
        ctx._check_same(ciphertext._ctx, "bootstrap")
        if ciphertext.size != 2:
            raise _polyhe.InvalidParameter(
                f"bootstrap: the ciphertext has size {ciphertext.size}: relinearise first"
            )
        ctx._require("relinearisation key", "_relin", "bootstrap")
        galois = ctx._require("Galois keys", "_galois", "bootstrap")
        require_rotation_keys(galois, int(ctx._params.n), "bootstrap", self.rotations)
        conj = int(_polyhe.galois_element_for_conjugation(int(ctx._params.n)))
        if not galois.contains(conj):
            raise _polyhe.InvalidParameter(
                "bootstrap: no Galois key for conjugation; "
                "ctx.add_galois_keys(bootstrapper.rotations, conjugation=True)"
            )
        out = self._placed().bootstrap(ctx._evaluator(), ctx._place(ciphertext._ct))
        return ciphertext._new(out)

    __call__ = bootstrap

    def __repr__(self) -> str:
        return (
            f"polyhe.ckks.Bootstrapper(depth={self.depth}, levels_after={self.levels_after}, "
            f"rotations={len(self.rotations)})"
        )


def make(
    ctx,
    coeff_to_slot_levels: int,
    slot_to_coeff_levels: int,
    k: float,
    eval_mod: str,
    sine_degree: int,
    double_angles: int,
    scale: Optional[float],
    eval_mod_baby_steps: int = 0,
) -> Bootstrapper:
    """The body of Context.bootstrapper (arguments as documented there)."""
    if eval_mod not in ("chebyshev", "double_angle"):
        raise _polyhe.InvalidParameter(
            f"bootstrapper: eval_mod = {eval_mod!r}, expected 'chebyshev' or 'double_angle'"
        )
    cts = index("coeff_to_slot_levels", coeff_to_slot_levels, 0, 64)
    stc = index("slot_to_coeff_levels", slot_to_coeff_levels, 0, 64)
    deg = index("sine_degree", sine_degree, 0, int(_polyhe.ckks.max_degree))
    angles = index("double_angles", double_angles, 0, 64)
    try:
        kk = float(k)
    except (TypeError, ValueError):
        raise TypeError(f"bootstrapper: k: expected a number, got {type(k).__name__}") from None
    sc = 0.0 if scale is None else float(scale)
    bs = index("eval_mod_baby_steps", eval_mod_baby_steps, 0, int(_polyhe.ckks.max_degree))
    native = _polyhe.ckks.Bootstrapper(
        ctx._native, cts, stc, kk, eval_mod == "double_angle", deg, angles, sc, bs
    )
    return Bootstrapper(native, ctx)
