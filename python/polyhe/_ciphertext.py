"""What the CKKS and the BGV/BFV ciphertexts share: the native ciphertext and its context, the
level and size, the default decrypted length, the operators that only dispatch, copies, bytes and
pickling. Each scheme's class adds its own flag (CKKS: real or complex values; BGV/BFV: slots or
coefficients), the operations and the checks of its operands."""

from __future__ import annotations

from typing import Any, Callable, Optional


def length_of(a: Optional[int], b: Optional[int]) -> Optional[int]:
    """The default decrypted length of a slot-wise result of two operands (None: every value):
    the longer, as numpy pads the shorter with zeros."""
    if a is None or b is None:
        return None
    return max(a, b)


def product_length(a: Optional[int], b: Optional[int], n: int) -> Optional[int]:
    """The default decrypted length of a polynomial product of coefficient vectors of lengths a
    and b: a + b − 1 coefficients (np.convolve's), or all n once the product wraps past x^n."""
    if a is None or b is None:
        return None
    if a == 0 or b == 0:
        return 0
    return min(a + b - 1, n)


class CiphertextBase:
    """The part every polyhe ciphertext shares. Immutable: every operation returns a new
    ciphertext. Pickles as its bytes with its parameter set, its context's settings, its key id
    and its scheme's flag, never its keys: ``_unpickle(params_bytes, settings_bytes, key_id,
    ct_bytes, flag, length)`` (a module-level function of the scheme, so that pickle names it)
    finds the context again."""

    __slots__ = ("_ct", "_ctx", "_length")
    __array_ufunc__ = None  # `array ∘ ct` calls the ciphertext's reflected operator, not numpy's

    #: Set by each scheme: the function that rebuilds a ciphertext from its pickled fields.
    _unpickle: Callable[..., Any]

    # --- the scheme's parts ----------------------------------------------------------------------
    def _flag(self) -> object:
        """The scheme's flag, pickled with the bytes (CKKS: real; BGV/BFV: the encoding)."""
        raise NotImplementedError

    def _new(self, ct, *args: Any, **kwargs: Any) -> "CiphertextBase":
        raise NotImplementedError

    def _add_sub(self, other, sub: bool, op: str):
        raise NotImplementedError

    # --- what it is ------------------------------------------------------------------------------
    @property
    def context(self):
        """The context (parameters, settings and keys) it belongs to."""
        return self._ctx

    @property
    def level(self) -> int:
        """Its level l: l + 1 primes (l rescales or modulus switches left)."""
        return int(self._ct.level)

    @property
    def size(self) -> int:
        """2, or 3 for an unrelinearised product."""
        return int(self._ct.size)

    @property
    def length(self) -> Optional[int]:
        """How many values decrypt returns by default (None: all). The rule: an encrypted vector
        of length L keeps L through operations that act value by value (+, −, slot-wise ×,
        constants, relinearise, rescale, modulus switch; two operands: the longer). Operations
        that move values beyond L drop it (decrypt then returns every slot or coefficient):
        rotations (left ones wrap the first values to the end of the row), the row swap, Galois
        maps. A product of coefficient-encoded vectors of lengths a and b has a + b − 1
        coefficients (all N once it wraps). No default length hides a value a result holds;
        pass ``length=`` to decrypt for fewer."""
        return self._length

    def _ev(self):
        return self._ctx._evaluator()

    # --- the operators that only dispatch --------------------------------------------------------
    def __add__(self, other):
        return self._add_sub(other, False, "add")

    def __radd__(self, other):
        return self._add_sub(other, False, "add")

    def __sub__(self, other):
        return self._add_sub(other, True, "sub")

    def __rsub__(self, other):
        return (-self)._add_sub(other, False, "sub")

    def __neg__(self):
        return self._new(self._ev().negate(self._ct))

    def copy(self):
        """A copy (ciphertexts are immutable; this is for symmetry with numpy)."""
        return self._new(self._ct.copy())

    # --- bytes and pickle ------------------------------------------------------------------------
    def serialize(self) -> bytes:
        """polyhe's binary form (rlwe/serial.hpp: the parts, the level, the scale or plaintext
        factor, and what it was made under: the scheme, t and the context's key id); read back
        with the context's ``load_ciphertext``, which refuses bytes of another scheme, t or key
        set."""
        return self._ct.serialize(*self._ctx._origin())

    to_bytes = serialize

    def __reduce__(self):
        ctx = self._ctx
        return (
            type(self)._unpickle,
            (
                *ctx._pickled_context(),
                self._ct.serialize(*ctx._origin()),
                self._flag(),
                self._length,
            ),
        )
