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
    :meth:`polyhe.ckks.Context.bootstrapper`; safe to share between threads. Needs the
    relinearisation key, the conjugation key and the rotation keys named by :attr:`rotations`
    (``ctx.add_galois_keys(b.rotations, conjugation=True)``), and with sparse-secret
    encapsulation its two encapsulation keys: :meth:`generate_keys` makes all of them."""

    __slots__ = ("_native", "_ctx", "_device_copy", "_lock", "_keys", "_device_keys")

    def __init__(self, native, ctx) -> None:
        self._native, self._ctx = native, ctx
        self._device_copy = None
        self._lock = threading.Lock()
        self._keys = None  # (to_sparse, to_dense), native KeySwitchKeys in host memory
        self._device_keys = None

    @property
    def encapsulates(self) -> bool:
        """Whether ModRaise runs under an ephemeral sparse secret (``encapsulation_weight``)."""
        return self._native.encapsulation_parameters is not None

    def generate_keys(self) -> "Bootstrapper":
        """Makes every key bootstrapping needs from the context's secret key: the Galois keys of
        :attr:`rotations` and the conjugation (added to the context) and, with encapsulation, the
        two encapsulation keys (kept here; :meth:`save_encapsulation_keys` sends them). Returns
        self."""
        ctx = self._ctx
        if ctx._sk is None:
            raise _polyhe.InvalidParameter(
                "generate_keys: this context holds no secret key (bootstrapping keys are made by "
                "the secret key's holder)"
            )
        ctx.add_galois_keys(self.rotations, conjugation=True)
        if self.encapsulates:
            keygen = _polyhe.KeyGenerator(ctx._params._native)
            pair = self._native.encapsulation_keys(keygen, ctx._sk)
            with self._lock:
                self._keys, self._device_keys = tuple(pair), None
        return self

    def save_encapsulation_keys(self) -> bytes:
        """The two encapsulation keys as bytes (each a serialised key switching key, length
        prefixed), for :meth:`load_encapsulation_keys` on a bootstrapper of the same context and
        configuration elsewhere."""
        keys = self._require_keys("save_encapsulation_keys")
        out = bytearray()
        for key in keys:
            data = bytes(key.serialize())
            out += len(data).to_bytes(8, "little") + data
        return bytes(out)

    def load_encapsulation_keys(self, data) -> "Bootstrapper":
        """Loads the keys :meth:`save_encapsulation_keys` wrote (CorruptData for bytes that are
        not two such keys of this bootstrapper's parameters). Returns self."""
        from polyhe._checks import byteslike

        raw = bytes(byteslike("data", data))
        if not self.encapsulates:
            raise _polyhe.InvalidParameter(
                "load_encapsulation_keys: this bootstrapper does not encapsulate "
                "(encapsulation_weight = 0)"
            )
        blobs, at = [], 0
        for _ in range(2):
            if at + 8 > len(raw):
                raise _polyhe.CorruptData("encapsulation keys: truncated before a key's length")
            size = int.from_bytes(raw[at : at + 8], "little")
            at += 8
            if size > len(raw) - at:
                raise _polyhe.CorruptData(
                    f"encapsulation keys: a key of {size} bytes, {len(raw) - at} left"
                )
            blobs.append(raw[at : at + size])
            at += size
        if at != len(raw):
            raise _polyhe.CorruptData(f"encapsulation keys: {len(raw) - at} bytes after the keys")
        to_sparse = _polyhe.KeySwitchKey.load(blobs[0], self._native.encapsulation_parameters)
        to_dense = _polyhe.KeySwitchKey.load(blobs[1], self._ctx._params._native)
        with self._lock:
            self._keys, self._device_keys = (to_sparse, to_dense), None
        return self

    def _require_keys(self, op: str):
        with self._lock:
            keys = self._keys
        if keys is None:
            raise _polyhe.InvalidParameter(
                f"{op}: this bootstrapper encapsulates and holds no encapsulation keys; call "
                "b.generate_keys() (with the secret key) or b.load_encapsulation_keys(data)"
            )
        return keys

    def _placed_keys(self):
        keys = self._require_keys("bootstrap")
        dev = self._ctx._device
        if dev is None:
            return keys
        with self._lock:
            if self._device_keys is None:
                self._device_keys = (keys[0], keys[1].to_device(dev))
            return self._device_keys

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
    def iteration_precision_bits(self) -> int:
        """p, the second iteration's gain in bits (``iterations=2``; 0 for one iteration)."""
        return int(self._native.iteration_precision_bits)

    @property
    def scale(self) -> float:
        """The working scale of its transforms and series."""
        return float(self._native.scale)

    @property
    def input_scaling_bits(self) -> int:
        """b: the bits by which bootstrapping multiplies its input before ModRaise
        (``message_ratio_bits``; 0 without)."""
        return int(self._native.input_scaling_bits)

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
        keys = self._placed_keys() if self.encapsulates else None
        ctx._require("relinearisation key", "_relin", "bootstrap")
        galois = ctx._require("Galois keys", "_galois", "bootstrap")
        require_rotation_keys(galois, int(ctx._params.n), "bootstrap", self.rotations)
        conj = int(_polyhe.galois_element_for_conjugation(int(ctx._params.n)))
        if not galois.contains(conj):
            raise _polyhe.InvalidParameter(
                "bootstrap: no Galois key for conjugation; "
                "ctx.add_galois_keys(bootstrapper.rotations, conjugation=True)"
            )
        if keys is not None:
            out = self._placed().bootstrap_encapsulated(
                ctx._evaluator(), ctx._place(ciphertext._ct), keys[0], keys[1]
            )
        else:
            out = self._placed().bootstrap(ctx._evaluator(), ctx._place(ciphertext._ct))
        return ciphertext._new(out)

    __call__ = bootstrap

    def __repr__(self) -> str:
        return (
            f"polyhe.ckks.Bootstrapper(depth={self.depth}, levels_after={self.levels_after}, "
            f"rotations={len(self.rotations)}, encapsulates={self.encapsulates})"
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
    encapsulation_weight: int = 0,
    message_ratio_bits: float = 0,
    arcsine_degree: int = 0,
    iterations: int = 1,
    iteration_precision_bits: int = 0,
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
    ew = index("encapsulation_weight", encapsulation_weight, 0, 1 << 17)
    if isinstance(message_ratio_bits, bool) or not isinstance(message_ratio_bits, (int, float)):
        raise TypeError(
            "bootstrapper: message_ratio_bits: expected a number, got "
            f"{type(message_ratio_bits).__name__}"
        )
    asd = index("arcsine_degree", arcsine_degree, 0, 64)
    its = index("iterations", iterations, 0, 64)
    # the rule [0, 40] is the library's; here only what fits an int
    ipb = index("iteration_precision_bits", iteration_precision_bits, -(1 << 30), 1 << 30)
    native = _polyhe.ckks.Bootstrapper(
        ctx._native, cts, stc, kk, eval_mod == "double_angle", deg, angles, sc, bs, ew,
        float(message_ratio_bits), asd, its, ipb,
    )
    return Bootstrapper(native, ctx)
