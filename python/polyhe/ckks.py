"""RNS-CKKS: approximate arithmetic on vectors of real or complex numbers, encrypted.

>>> import numpy as np, polyhe
>>> ctx = polyhe.ckks.Context()                      # N = 2^14, 8 levels, 2^40 scale, 128-bit
>>> _ = ctx.generate_keys(rotations=[1])             # secret, public, relinearisation, Galois
>>> x = ctx.encrypt(np.array([1.5, 2.0, -3.25]))
>>> y = x * x + 1.0                                  # multiply, relinearise, rescale; add
>>> np.round(ctx.decrypt(y), 4)
array([ 3.25  ,  5.    , 11.5625])

The operators follow one rule each: ``+`` and ``-`` bring the operand at the higher level down to
the other's (the scale is kept) and need equal scales; ``*`` with a ciphertext, a float or an
array multiplies, relinearises and rescales (one level used; the scale returns to about Δ); ``*``
with a Python or numpy *integer* multiplies exactly and uses no level. Everything else is a
method: :meth:`Ciphertext.rotate`, :meth:`~Ciphertext.conjugate`, :meth:`~Ciphertext.rescale`,
:meth:`~Ciphertext.drop_to`, :meth:`~Ciphertext.multiply` (with ``rescale=False`` to manage
scales yourself).
"""

from __future__ import annotations

import math
import numbers
from typing import Optional, Sequence, Union

import numpy as np

from polyhe import _polyhe
from polyhe._checks import byteslike, index, int_list, pythonic, require_rotation_keys
from polyhe._ciphertext import CiphertextBase, length_of
from polyhe._context import KeyedContext, context_for
from polyhe._device import DeviceArg, resolve
from polyhe.parameters import Parameters

__all__ = [
    "Context",
    "Ciphertext",
    "Plaintext",
    "LinearTransform",
    "Bootstrapper",
    "max_bootstrappable_levels",
    "ChebyshevSeries",
    "PowerSeries",
    "DEFAULT_Q_BITS",
    "DEFAULT_P_BITS",
]

#: The default chain: a 50-bit base prime and eight 40-bit primes (eight multiplications at a
#: 2^40 scale), with one 50-bit special prime: log2(QP) = 420 ≤ 438, 128-bit secure at N = 2^14.
DEFAULT_Q_BITS = (50,) + (40,) * 8
DEFAULT_P_BITS = (50,)

_native = _polyhe.ckks

from polyhe._bootstrap import Bootstrapper  # noqa: E402  (re-exported)
from polyhe._linear_transform import LinearTransform  # noqa: E402  (re-exported)
from polyhe._polynomial import ChebyshevSeries, PowerSeries  # noqa: E402  (re-exported)


def _values(x: object, slots: int, what: str = "values") -> np.ndarray:
    """A 1-D float64 or complex128 array of at most `slots` finite values."""
    if isinstance(x, Ciphertext) or isinstance(x, Plaintext):
        raise TypeError(f"{what}: expected numbers, got a {type(x).__name__}")
    a = np.asarray(x)
    if a.dtype.kind not in "biufc":
        raise TypeError(
            f"{what}: dtype {a.dtype} is not numeric; CKKS encodes real or complex numbers "
            f"(float64 or complex128)"
        )
    # The shape before any conversion: np.ascontiguousarray makes a 0-d array 1-D.
    if a.ndim != 1:
        hint = " (a single number: pass [x])" if a.ndim == 0 else ""
        raise _polyhe.InvalidParameter(
            f"{what}: shape {a.shape}; CKKS encodes a 1-D vector of at most {slots} values{hint}"
        )
    a = np.ascontiguousarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)
    if a.shape[0] > slots:
        raise _polyhe.InvalidParameter(
            f"{what}: {a.shape[0]} values, more than the {slots} slots (N/2) of this context"
        )
    finite = np.isfinite(a)
    if not finite.all():
        i = int(np.argmin(finite))
        raise _polyhe.InvalidParameter(
            f"{what}[{i}] = {a[i]} is not finite; CKKS encodes finite numbers only"
        )
    return a


def _scalar_of_0d(x: object) -> object:
    """A 0-d numpy array is its scalar (np.array(2.0) * ct is ct * 2.0), as in BGV."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _constant(x: object, op: str) -> complex:
    """A Python/numpy number operand as a finite complex constant: TypeError for a bool,
    InvalidParameter for a value that is not finite or does not fit in a double."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(
            f"{op}: a bool constant ({x!r}); CKKS operates on real or complex numbers: "
            f"pass 1.0 or 0.0, or float(flag)"
        )
    try:
        c = complex(x)  # type: ignore[arg-type]
    except OverflowError:
        raise _polyhe.InvalidParameter(
            f"{op}: the constant {_short(x)} does not fit in a double (|c| < 2^1024); CKKS "
            f"constants are floating-point numbers"
        ) from None
    if not np.isfinite(c):
        raise _polyhe.InvalidParameter(f"{op}: the constant {x!r} is not finite")
    return c


def _short(x: object) -> str:
    """repr(x), shortened in the middle past 60 characters (a 400-digit integer)."""
    r = repr(x)
    return r if len(r) <= 60 else f"{r[:25]}...{r[-25:]} ({len(r)} characters)"


def _is_scalar(x: object) -> bool:
    """A Python or numpy number, bools included (refused by _constant with the rule)."""
    return isinstance(x, (numbers.Number, np.bool_))


class Context(KeyedContext):
    """Parameters, the encoder, the default scale Δ and the keys: everything CKKS needs, in one
    object. Safe to share between threads.

    ``Context()`` gives N = 2^14 with :data:`DEFAULT_Q_BITS` / :data:`DEFAULT_P_BITS` and
    Δ = 2^40 (128-bit secure). Pass ``params`` (a :class:`polyhe.Parameters`) or the parameter
    keywords (``log_n``, ``q_bits``, ``p_bits``, ``dnum``, ``hamming_weight``, ``security``), and
    ``scale`` or ``scale_bits`` (default: the size of the top prime, the one the first rescale
    divides by). Then :meth:`generate_keys`. ``device`` (``"cuda"``, ``"cuda:N"``,
    ``"emulated"`` or a :class:`polyhe.Device`; default None, host memory) is where the keys and
    ciphertexts live and the operations run; encoding and decoding run on the host.
    """

    _scheme = "ckks"

    def __init__(
        self,
        params: Optional[Parameters] = None,
        *,
        scale: Optional[float] = None,
        scale_bits: Optional[int] = None,
        log_n: int = 14,
        q_bits: Optional[Sequence[int]] = None,
        p_bits: Optional[Sequence[int]] = None,
        dnum: int = 0,
        hamming_weight: int = 0,
        security: Union[int, str] = 128,
        device: DeviceArg = None,
    ) -> None:
        where = resolve(device)
        if params is None:
            params = Parameters(
                log_n=log_n,
                q_bits=DEFAULT_Q_BITS if q_bits is None else q_bits,
                p_bits=DEFAULT_P_BITS if p_bits is None else p_bits,
                dnum=dnum,
                hamming_weight=hamming_weight,
                security=security,
            )
        elif not isinstance(params, Parameters):
            raise TypeError(f"params: expected polyhe.Parameters, got {type(params).__name__}")
        if scale is not None and scale_bits is not None:
            raise _polyhe.InvalidParameter("give scale or scale_bits, not both")
        if scale_bits is not None:
            scale = 2.0 ** index("scale_bits", scale_bits, 1, 1000)
        if scale is not None:
            scale = _scale_arg(scale)
        native = _native.Context(params._native, 0.0 if scale is None else scale)
        self._init_keyed(params, native)
        self._device = where

    # --- KeyedContext hooks --------------------------------------------------------------------
    def _settings(self) -> tuple:
        return (float(self._native.scale),)

    def _origin(self) -> tuple:
        return (1, 0, self._key_id or b"")

    @classmethod
    def _make_native(cls, params: Parameters, settings: tuple):
        if len(settings) != 1 or not isinstance(settings[0], float):
            raise _polyhe.CorruptData(f"ckks context: settings {settings!r}, expected (scale,)")
        if not (math.isfinite(settings[0]) and settings[0] >= 1.0):
            raise _polyhe.CorruptData(
                f"ckks context: scale {settings[0]!r} is not a finite number >= 1"
            )
        return _native.Context(params._native, settings[0])

    def _make_evaluator(self):
        return _native.Evaluator(
            self._native, self._placed_key("_relin"), self._placed_key("_galois")
        )

    def _make_encryptor(self, key):
        return _native.Encryptor(self._native, key)

    # --- what it is ----------------------------------------------------------------------------
    @property
    def slots(self) -> int:
        """N/2: the values a ciphertext holds."""
        return self._native.slots

    @property
    def scale(self) -> float:
        """The default scale Δ of encoding and encryption."""
        return self._native.scale

    @property
    def max_level(self) -> int:
        """L: fresh ciphertexts are at this level; each rescale uses one."""
        return self._native.max_level

    # --- encode, encrypt, decrypt --------------------------------------------------------------
    def encode(
        self, values, level: Optional[int] = None, scale: Optional[float] = None
    ) -> "Plaintext":
        """Encodes up to N/2 real or complex values at ``level`` (default: the top) and ``scale``
        (default: Δ). The scale is a finite number in [1, 2^(b−1)), b the bit length of
        Q_level = q_0···q_level: what a ciphertext's bytes may carry at that level, so that every
        ciphertext encrypted here serialises and loads back. (A scale near 1 keeps no precision:
        the encryption noise is a few units, divided by the scale.)"""
        a = _values(values, self.slots)
        lvl = self.max_level if level is None else index("level", level, 0, self.max_level)
        s = self.scale if scale is None else _scale_arg(scale)
        _check_scale_at(self._params, s, lvl, "encode")
        pt = (
            self._native.encode_real(a, lvl, s)
            if a.dtype == np.float64
            else self._native.encode_complex(a, lvl, s)
        )
        return Plaintext(pt, self, a.dtype == np.float64, a.shape[0])

    def decode(self, plaintext: "Plaintext", length: Optional[int] = None) -> np.ndarray:
        """The values of a plaintext: float64 for real input, complex128 otherwise."""
        if not isinstance(plaintext, Plaintext):
            raise TypeError(f"expected a ckks.Plaintext, got {type(plaintext).__name__}")
        return _output(self._native, plaintext._pt, plaintext._real, plaintext._length, length)

    def encrypt(
        self, values, level: Optional[int] = None, scale: Optional[float] = None
    ) -> "Ciphertext":
        """Encrypts values (or a :class:`Plaintext`) with the public key (or, in a context holding
        only the secret key, symmetrically), at ``level`` and ``scale`` as :meth:`encode`. A
        Plaintext is encrypted at its own level and scale: ``level`` or ``scale`` given with one
        must equal its own (InvalidParameter otherwise; encode it at the level and scale
        wanted)."""
        if isinstance(values, Plaintext):
            pt = values
            if pt._ctx is not self:
                self._check_same(pt._ctx, "encrypt")
            if level is not None and index("level", level, 0, self.max_level) != pt.level:
                raise _polyhe.InvalidParameter(
                    f"encrypt: level = {level} given with a Plaintext at level {pt.level}; a "
                    f"Plaintext is encrypted at its own level: encode it at level {level} "
                    f"(ctx.encode(values, level={level})), or leave level out"
                )
            if scale is not None and _scale_arg(scale) != pt.scale:
                raise _polyhe.InvalidParameter(
                    f"encrypt: scale = {scale!r} given with a Plaintext of scale {pt.scale!r}; a "
                    f"Plaintext is encrypted at its own scale: encode it at that scale "
                    f"(ctx.encode(values, scale=...)), or leave scale out"
                )
        else:
            pt = self.encode(values, level, scale)
        ct = self._encryptor().encrypt(self._place(pt._pt))
        return Ciphertext(ct, self, pt._real, pt._length)

    def decrypt(
        self, ciphertext: "Ciphertext", length: Optional[int] = None, flooding_bits: int = 0
    ) -> np.ndarray:
        """Decrypts and decodes: the first ``length`` values (default: the ciphertext's
        :attr:`~Ciphertext.length`: as many as were encrypted, every slot after a rotation),
        float64 when every input was real, else complex128. ``flooding_bits`` = b > 0 adds noise
        flooding before decoding (IND-CPA^D; see docs/security.md) when results are shared: every
        coefficient gets noise uniform in [−2^b, 2^b], which reaches each value with standard
        deviation about 2^b·√(N/3)/Δ (Δ the ciphertext's scale). So that this stays below 2^−10
        (ten bits of precision kept), b ≤ log2(Δ) − log2(N)/2 − 10 (and b ≤ 60); a larger b is
        refused (InvalidParameter naming the bound): to flood with more bits, encrypt at a larger
        scale. The bound also keeps the noise far below Q_level (Δ < Q_level/2)."""
        if not isinstance(ciphertext, Ciphertext):
            raise TypeError(f"expected a ckks.Ciphertext, got {type(ciphertext).__name__}")
        self._check_same(ciphertext._ctx, "decrypt")
        self._require("secret key", "_sk", "decrypt")
        sk = self._placed_key("_sk")
        bits = index("flooding_bits", flooding_bits, 0, 60)
        if bits:
            _check_flooding(bits, ciphertext.scale, int(self._params.n))
        with self._lock:
            key = ("decryptor", bits)
            dec = self._cache.get(key)
            if dec is None:
                dec = _native.Decryptor(sk, bits)
                self._cache[key] = dec
        pt = dec.decrypt(self._place(ciphertext._ct))
        return _output(self._native, pt, ciphertext._real, ciphertext._length, length)

    # --- bytes -----------------------------------------------------------------------------------
    def load_ciphertext(self, data: bytes) -> "Ciphertext":
        """A ciphertext from :meth:`Ciphertext.serialize`'s bytes, checked (CorruptData;
        MismatchedContext for another parameter set, for a BFV or BGV ciphertext, and for one
        made under another key set than this context's). Its values decrypt as complex unless
        marked real with ``ct.as_real()``. Bytes of format version 2 (which record neither the
        scheme nor the key set) load with a :class:`polyhe.FormatWarning`."""
        params = self._params._native
        ct = self._loaded(
            byteslike("data", data), lambda b, key: _native.load_ciphertext(b, params, key)
        )
        return Ciphertext(ct, self, False, None)

    def load_plaintext(self, data: bytes) -> "Plaintext":
        """A plaintext from :meth:`Plaintext.serialize`'s bytes, checked."""
        pt = _native.Plaintext.load(byteslike("data", data), self._params._native)
        return Plaintext(pt, self, False, None)


def _scale_arg(scale: object) -> float:
    """A scale: a real number (not a bool), finite and at least 1 (a CKKS scale below 1 makes
    the encoding round the values to nothing; ciphertext bytes carry scales >= 1)."""
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale: expected a real number, got {type(scale).__name__} {scale!r}")
    try:
        value = float(scale)
    except OverflowError:
        value = math.inf
    if not (math.isfinite(value) and value >= 1.0):
        raise _polyhe.InvalidParameter(
            f"scale = {scale!r}: a CKKS scale must be a finite number >= 1 (typically 2^30 to "
            f"2^60, e.g. scale_bits=40)"
        )
    return value


#: Bits of precision flooding must leave below 1 in each decrypted value (Context.decrypt).
FLOODING_MARGIN_BITS = 10


def _check_flooding(bits: int, scale: float, n: int) -> None:
    """InvalidParameter unless 2^bits·√N ≤ scale·2^−FLOODING_MARGIN_BITS."""
    limit = math.floor(math.log2(scale) - math.log2(n) / 2) - FLOODING_MARGIN_BITS
    need = math.ceil(math.log2(n) / 2) + FLOODING_MARGIN_BITS
    if bits > limit:
        raise _polyhe.InvalidParameter(
            f"decrypt: flooding_bits = {bits} exceeds {max(limit, 0)} = floor(log2(scale) - "
            f"log2(N)/2) - {FLOODING_MARGIN_BITS} for this ciphertext (scale 2^"
            f"{math.log2(scale):.2f}, N = {n}): noise of 2^{bits} per coefficient would leave "
            f"fewer than {FLOODING_MARGIN_BITS} bits of precision (or none). Use fewer bits, or "
            f"encrypt at a scale of at least 2^{bits + need}"
        )


def _scale_limit_bits(params: Parameters, level: int) -> int:
    """b − 1, b the bit length of Q_level = q_0···q_level: scales are below 2^(b − 1) (the
    loader's rule, src/ckks/serial.cpp check_scale)."""
    q = 1
    for p in params._native.q_primes[: level + 1]:
        q *= int(p)
    return q.bit_length() - 1


def _check_scale_at(params: Parameters, scale: float, level: int, op: str) -> None:
    """InvalidParameter unless 1 <= scale < 2^(bits(Q_level) − 1)."""
    limit = _scale_limit_bits(params, level)
    if limit <= 1023 and not scale < math.ldexp(1.0, limit):
        raise _polyhe.InvalidParameter(
            f"{op}: scale {scale!r} (2^{math.log2(scale):.3f}) is not below 2^{limit} at level "
            f"{level} (Q_{level} has {limit + 1} bits): the values times the scale would not fit "
            f"and the ciphertext's bytes would not load; use a smaller scale or a higher level"
        )


def _check_same_scale(a: float, b: float, op: str, plain: bool = False) -> None:
    """InvalidParameter naming both scales exactly (they often differ in the last digits only:
    a rescale leaves Δ²/q, not Δ) and the Python way to match them."""
    if a == b:
        return
    other = "the plaintext" if plain else "the other operand"
    raise _polyhe.InvalidParameter(
        f"{op}: the operands' scales differ: {a!r} (2^{math.log2(a):.12f}) and {other}'s "
        f"{b!r} (2^{math.log2(b):.12f}), ratio {a / b!r}; CKKS adds only at one scale. A "
        f"product's rescale divides by a prime q, leaving Δ²/q rather than Δ: take the other "
        f"operand y through the same rescale, y * ctx.encode(np.ones(ctx.slots), level=y.level) "
        f"(the scale Δ, then divided by the same prime), or encode it at the scale wanted "
        f"(ctx.encode(values, level=x.level, scale=x.scale))"
    )


def _output(native_ctx, pt, real: bool, stored: Optional[int], length: Optional[int]) -> np.ndarray:
    values = native_ctx.decode_real(pt) if real else native_ctx.decode(pt)
    n = stored if length is None else index("length", length, 0, native_ctx.slots)
    return values if n is None or n == values.shape[0] else values[:n].copy()


class Plaintext:
    """An encoded vector: a polynomial at a level, with its scale. Made by
    :meth:`Context.encode`."""

    __slots__ = ("_pt", "_ctx", "_real", "_length")
    __array_ufunc__ = None  # numpy operands on the left defer to our operators

    def __init__(self, pt, ctx: Context, real: bool, length: Optional[int]) -> None:
        self._pt, self._ctx, self._real, self._length = ctx._place(pt), ctx, real, length

    @property
    def level(self) -> int:
        """The level: the plaintext has level + 1 primes."""
        return self._pt.level

    @property
    def scale(self) -> float:
        """Its scale Δ."""
        return self._pt.scale

    @property
    def context(self) -> Context:
        """The context it was encoded in."""
        return self._ctx

    def serialize(self) -> bytes:
        """polyhe's binary form (ckks/serial.hpp)."""
        return self._pt.serialize()

    def __repr__(self) -> str:
        return f"polyhe.ckks.Plaintext(level={self.level}, scale=2^{np.log2(self.scale):.2f})"


class Ciphertext(CiphertextBase):
    """An encrypted vector of up to N/2 real or complex values, at a level and a scale.
    Immutable: every operation returns a new ciphertext. Pickles as its bytes with its parameter
    set and key id (not its keys)."""

    __slots__ = ("_real",)

    def __init__(self, ct, ctx: Context, real: bool, length: Optional[int]) -> None:
        self._ct, self._ctx, self._real, self._length = ctx._place(ct), ctx, real, length

    def _flag(self) -> bool:
        return self._real

    # --- what it is ----------------------------------------------------------------------------
    @property
    def scale(self) -> float:
        """Its scale Δ (values are decoded by dividing by it)."""
        return self._ct.scale

    @property
    def is_real(self) -> bool:
        """Whether the values are real (decrypt gives float64) rather than complex."""
        return self._real

    def as_real(self) -> "Ciphertext":
        """The same ciphertext, decrypted as real values (the imaginary parts dropped)."""
        return Ciphertext(self._ct, self._ctx, True, self._length)

    def as_complex(self) -> "Ciphertext":
        """The same ciphertext, decrypted as complex values."""
        return Ciphertext(self._ct, self._ctx, False, self._length)

    # --- operations ------------------------------------------------------------------------------
    def _new(self, ct, real: Optional[bool] = None, length=...) -> "Ciphertext":
        return Ciphertext(
            ct, self._ctx, self._real if real is None else real,
            self._length if length is ... else length,
        )

    def _aligned(self, other: "Ciphertext", op: str):
        self._ctx._check_same(other._ctx, op)
        # The other operand where this one lives (a context of the same keys on another device).
        a, b = self._ct, self._ctx._place(other._ct)
        ev = self._ev()
        if a.level > b.level:
            a = ev.drop_to_level(a, b.level)
        elif b.level > a.level:
            b = ev.drop_to_level(b, a.level)
        return a, b

    def _plain_for(self, values, scale: float, op: str):
        a = _values(values, self._ctx.slots, f"{op} operand")
        lvl = self.level
        pt = (
            self._ctx._native.encode_real(a, lvl, scale)
            if a.dtype == np.float64
            else self._ctx._native.encode_complex(a, lvl, scale)
        )
        return self._ctx._place(pt), a.dtype == np.float64, a.shape[0]

    def _plain_operand(self, p: Plaintext, op: str):
        self._ctx._check_same(p._ctx, op)
        return self._ctx._place(p._pt)

    def _add_sub(self, other, sub: bool, op: str) -> "Ciphertext":
        ev = self._ev()
        other = _scalar_of_0d(other)
        if isinstance(other, Ciphertext):
            a, b = self._aligned(other, op)
            _check_same_scale(a.scale, b.scale, op)
            ct = ev.sub(a, b) if sub else ev.add(a, b)
            return self._new(ct, self._real and other._real, length_of(self._length, other._length))
        if isinstance(other, Plaintext):
            p = self._plain_operand(other, op)
            _check_same_scale(self.scale, p.scale, op, plain=True)
            ct = ev.sub_plain(self._ct, p) if sub else ev.add_plain(self._ct, p)
            return self._new(ct, self._real and other._real, length_of(self._length, other._length))
        if _is_scalar(other):
            c = _constant(other, op)
            ct = ev.add_const(self._ct, -c if sub else c)
            return self._new(ct, self._real and c.imag == 0)
        if isinstance(other, (np.ndarray, list, tuple)):
            pt, real, n = self._plain_for(other, self.scale, op)
            ct = ev.sub_plain(self._ct, pt) if sub else ev.add_plain(self._ct, pt)
            return self._new(ct, self._real and real, length_of(self._length, n))
        return NotImplemented

    def __mul__(self, other) -> "Ciphertext":
        other = _scalar_of_0d(other)
        if isinstance(other, (numbers.Integral, np.integer)) and not isinstance(
            other, (bool, np.bool_)
        ):
            v = int(other)
            if not -(1 << 63) <= v < (1 << 63):
                raise _polyhe.InvalidParameter(
                    f"multiply: the integer {_short(v)} does not fit in 64 bits "
                    f"([-2^63, 2^63)); multiply by a float instead (approximate, rescaled)"
                )
            return self._new(self._ev().multiply_integer(self._ct, v))
        if isinstance(other, (Ciphertext, Plaintext, np.ndarray, list, tuple)) or _is_scalar(
            other
        ):
            return self.multiply(other)
        return NotImplemented

    __rmul__ = __mul__

    def multiply(self, other, relinearize: bool = True, rescale: bool = True) -> "Ciphertext":
        """The product with a ciphertext, a plaintext, a number (encoded at the last prime's size,
        so that the rescale restores the scale exactly) or a vector (encoded likewise), then
        relinearised (ciphertexts) and rescaled, unless told otherwise."""
        ev = self._ev()
        other = _scalar_of_0d(other)
        if isinstance(other, Ciphertext):
            a, b = self._aligned(other, "multiply")
            try:
                if relinearize:
                    self._ctx._require("relinearisation key", "_relin", "multiply")
                    ct = ev.multiply_relin(a, b)
                else:
                    ct = ev.multiply(a, b)
            except _polyhe.InvalidParameter as e:
                raise pythonic(e) from None
            real = self._real and other._real
            length = length_of(self._length, other._length)
        elif isinstance(other, Plaintext):
            ct = ev.multiply_plain(self._ct, self._plain_operand(other, "multiply"))
            real = self._real and other._real
            length = length_of(self._length, other._length)
        elif _is_scalar(other):
            c = _constant(other, "multiply")
            ct = ev.multiply_const(self._ct, c, 0.0)
            real, length = self._real and c.imag == 0, self._length
        elif isinstance(other, (np.ndarray, list, tuple)):
            pt, preal, n = self._plain_for(other, float(self._last_prime()), "multiply")
            ct = ev.multiply_plain(self._ct, pt)
            real, length = self._real and preal, length_of(self._length, n)
        else:
            raise TypeError(f"multiply: cannot multiply a ciphertext by {type(other).__name__}")
        if rescale:
            if ct.level == 0:
                raise _polyhe.InvalidParameter(
                    "multiply: the ciphertext is at level 0, no prime is left to rescale by; "
                    "use multiply(..., rescale=False) or a context with more levels"
                )
            ct = ev.rescale(ct)
        return self._new(ct, real, length)

    def _last_prime(self) -> int:
        return self._ctx._params._native.q_primes[self.level]

    def __pow__(self, exponent: int) -> "Ciphertext":
        e = index("exponent", exponent, 1, 1 << 20)
        result, base = None, self
        while True:
            if e & 1:
                result = base if result is None else result * base
            e >>= 1
            if not e:
                return result
            base = base * base

    def relinearize(self) -> "Ciphertext":
        """A size-3 product back to size 2 (the relinearisation key)."""
        self._ctx._require("relinearisation key", "_relin", "relinearize")
        return self._new(self._ev().relinearize(self._ct))

    def rescale(self) -> "Ciphertext":
        """Divides by the last prime: level l → l − 1, scale Δ → Δ/q_l."""
        return self._new(self._ev().rescale(self._ct))

    def drop_to(self, level: int) -> "Ciphertext":
        """Drops primes down to ``level`` without dividing (the scale is kept)."""
        lvl = index("level", level, 0, self.level)
        return self._new(self._ev().drop_to_level(self._ct, lvl))

    def rotate(self, step: int) -> "Ciphertext":
        """The slots rotated left by ``step`` (negative: right), cyclically over the N/2 slots;
        needs its Galois key. The result decrypts to every slot by default: a rotation moves
        values beyond the encrypted length (see :attr:`length`)."""
        s = index("step", step, -(1 << 62), 1 << 62)
        self._check_rotation_keys("rotate", [s])
        # Values move beyond the encrypted length (left: the first ones wrap to the end): decrypt
        # returns every slot (Ciphertext.length).
        return self._new(self._ev().rotate(self._ct, s), length=None)

    def rotate_many(self, steps) -> list:
        """``[self.rotate(s) for s in steps]``, the same ciphertexts word for word, computed
        hoisted: the key-switching decomposition of the ciphertext is made once for all the
        steps, so k rotations cost less than k calls of :meth:`rotate`. Needs each step's
        Galois key (every one is checked before any work). At most N/2 steps (one output
        ciphertext each; there are N/2 distinct rotations)."""
        ss = int_list(
            "rotate_many: steps", steps, -(1 << 62), 1 << 62, self._ctx.slots,
            "one output ciphertext each; there are N/2 distinct rotations",
        )
        self._check_rotation_keys("rotate_many", ss)
        return [self._new(ct, length=None) for ct in self._ev().rotate_many(self._ct, ss)]

    def _check_rotation_keys(self, op: str, steps) -> None:
        """Every step's Galois key is present (a step of 0 mod N/2 needs none), or the refusal
        names the Python call that makes it."""
        galois = self._ctx._require("Galois keys", "_galois", op)
        require_rotation_keys(galois, int(self._ctx._params.n), op, steps)

    def conjugate(self) -> "Ciphertext":
        """Every slot's complex conjugate; needs the conjugation key."""
        galois = self._ctx._require("Galois keys", "_galois", "conjugate")
        k = int(_polyhe.galois_element_for_conjugation(int(self._ctx._params.n)))
        if not galois.contains(k):
            raise _polyhe.InvalidParameter(
                f"conjugate: no Galois key for conjugation (element {k}); "
                f"generate_keys(conjugation=True) or ctx.add_galois_keys(conjugation=True)"
            )
        return self._new(self._ev().conjugate(self._ct))

    def sum(self, count: Optional[int] = None) -> "Ciphertext":
        """Every slot i < count (a power of two; default: all N/2) holds the sum of slots
        i..i+count−1 (cyclically): slot 0 the total. Needs rotation keys for 1, 2, 4, …,
        count/2 (``generate_keys(rotations=ctx.sum_rotations())``). Decrypts to every slot by
        default, as the rotations it is made of."""
        n = self._ctx.slots if count is None else index("count", count, 1, self._ctx.slots)
        if n & (n - 1):
            raise _polyhe.InvalidParameter(f"sum: count = {n} is not a power of two")
        acc, step = self, 1
        while step < n:
            acc = acc + acc.rotate(step)
            step <<= 1
        return acc

    def evaluate(self, series, *, baby_steps: int = 0, scale: Optional[float] = None):
        """``series`` (a :class:`ChebyshevSeries`, a :class:`PowerSeries`, or a sequence of power
        coefficients c_0 … c_d) of every slot, in ``series.depth()`` levels: the optimal
        ⌈log2(d + 1)⌉ for a power series and a Chebyshev series on [−1, 1], one more on another
        interval. The result has exactly ``scale`` (default: this ciphertext's), so evaluations
        chain level after level without drifting. Real coefficients of real values stay real.
        ``baby_steps``: 0 (default) for the power of two with the fewest ciphertext products
        among those of the optimal depth (``series.products()`` counts them), 2 for the plain
        optimal-depth split; a larger power of two does fewer products and may take one more
        level. Needs the relinearisation key (degree ≥ 2)."""
        if not isinstance(series, (ChebyshevSeries, PowerSeries)):
            series = PowerSeries(series)
        if series.degree >= 2:
            self._ctx._require("relinearisation key", "_relin", "evaluate")
        sc = 0.0 if scale is None else _scale_arg(scale)
        ev = self._ev()
        out = series._evaluate(ev, self._ctx._place(self._ct), sc, baby_steps)
        return self._new(out)

    def __repr__(self) -> str:
        kind = "real" if self._real else "complex"
        return (
            f"polyhe.ckks.Ciphertext(level={self.level}, scale=2^{np.log2(self.scale):.2f}, "
            f"size={self.size}, {kind}, length={self._length})"
        )


def _linear_transform(
    self,
    matrix=None,
    *,
    diagonals=None,
    transpose: bool = False,
    level: Optional[int] = None,
    scale: Optional[float] = None,
    baby_steps: int = 0,
):
    """A :class:`LinearTransform` computing M·x on ciphertexts of this context, prepared once.

    ``matrix``: a rows × cols array (each side ≤ N/2) placed in the top-left corner of the
    N/2 × N/2 slot matrix, so that M·x reads the first cols slots and writes the first rows;
    ``transpose=True`` uses its transpose (x·matrix for a row vector x). Or ``diagonals``: a dict
    {k: N/2 values} of the slot matrix's nonzero diagonals, d_k[j] = M[j][(j + k) mod N/2].
    ``level``: where its diagonals are encoded (default: the top; a ciphertext above is dropped
    to it); ``scale``: theirs (default: the prime the rescale after it divides by, which gives
    back the ciphertext's scale exactly); ``baby_steps``: n1 of the baby-step giant-step split
    (a power of two; 0 chooses the one with the fewest rotations). Generate the keys it names in
    ``.rotations``."""
    from polyhe import _linear_transform

    return _linear_transform.make(self, matrix, diagonals, transpose, level, scale, baby_steps)


Context.linear_transform = _linear_transform  # type: ignore[attr-defined]


_BOOTSTRAP_DEFAULTS = dict(
    coeff_to_slot_levels=2, slot_to_coeff_levels=2, k=16, eval_mod="chebyshev",
    encapsulation_weight=0, message_ratio_bits=0, arcsine_degree=0, iterations=1,
)


def _bootstrapper(
    self,
    *,
    coeff_to_slot_levels: Optional[int] = None,
    slot_to_coeff_levels: Optional[int] = None,
    k: Optional[float] = None,
    eval_mod: Optional[str] = None,
    sine_degree: int = 0,
    double_angles: int = 4,
    scale: Optional[float] = None,
    eval_mod_baby_steps: int = 0,
    encapsulation_weight: Optional[int] = None,
    message_ratio_bits: Optional[float] = None,
    arcsine_degree: Optional[int] = None,
    iterations: Optional[int] = None,
    iteration_precision_bits: int = 0,
):
    """A :class:`Bootstrapper` for this context: ciphertexts at the bottom of the chain come back
    with ``levels_after`` levels. ``coeff_to_slot_levels`` / ``slot_to_coeff_levels``: the
    levels (merged FFT stages) of the homomorphic decoding and encoding; ``k``: the bound K on
    ModRaise's multiple of q_0 (at least 6σ, σ = √((h + 1)/12) for the secret raised, of Hamming
    weight h: the ephemeral one with ``encapsulation_weight``, else the context's: a sparse
    ``hamming_weight=64``, which claims no security level, ``security='none'``); ``eval_mod``:
    'chebyshev' (a
    Chebyshev series of the scaled sine, fewer levels) or 'double_angle' (a short cosine series
    and ``double_angles`` doublings, fewer products); ``sine_degree`` (0: chosen);
    ``scale``: the working scale (default: the top prime's size); ``eval_mod_baby_steps``: the
    series' baby steps (0: the fewest ciphertext products in its optimal depth; a larger power of
    two may do fewer for one more level); ``encapsulation_weight``: sparse-secret encapsulation, ModRaise
    under an ephemeral secret of that many nonzero coefficients (32), so that the context's secret
    may be dense and claim 128 bits; ``message_ratio_bits``: ρ, ModRaise's message ratio
    log2(q_0/m): the input is multiplied by 2^b, b = ⌊log2(q_0/Δ) − ρ⌋, before ModRaise, which
    puts the bootstrap's own noise b bits further below the message, while EvalMod's sine costs
    a coefficient m a relative (2π·m/q_0)²/6 (a constant vector keeps about 2ρ − 2.7 bits;
    0: no scaling); ``arcsine_degree``: 0, or an odd degree 3 … 15 of arcsin's series after
    EvalMod, which turns that relative error into about (3/40)·(2π·m/q_0)^4 (degree 3) for
    ⌈log2(d + 1)⌉ more levels, so a small ratio suits every input; ``iterations``: 1, or 2 for
    iterative bootstrapping (the first bootstrap's error, times 2^p, bootstrapped and subtracted:
    twice the time and one more level for about twice the bits against the input's decryption),
    ``iteration_precision_bits`` p a bit or two under one bootstrap's precision (0: estimated
    from the error budget). Generate its keys with ``b.generate_keys()`` (or, without
    encapsulation, ``ctx.add_galois_keys(b.rotations, conjugation=True)``). Made once per context
    and configuration: a second call returns the same object. Arguments left out (None) take
    the preset's values for a context made by :meth:`Context.bootstrappable`, else 2, 2, 16,
    'chebyshev', 0, 0, 0 and 1."""
    from polyhe import _bootstrap

    given = dict(
        coeff_to_slot_levels=coeff_to_slot_levels, slot_to_coeff_levels=slot_to_coeff_levels,
        k=k, eval_mod=eval_mod, encapsulation_weight=encapsulation_weight,
        message_ratio_bits=message_ratio_bits, arcsine_degree=arcsine_degree,
        iterations=iterations,
    )
    defaults = getattr(self, "_bootstrap_preset", None) or _BOOTSTRAP_DEFAULTS
    chosen = {name: defaults[name] if v is None else v for name, v in given.items()}
    coeff_to_slot_levels = chosen["coeff_to_slot_levels"]
    slot_to_coeff_levels = chosen["slot_to_coeff_levels"]
    k, eval_mod = chosen["k"], chosen["eval_mod"]
    encapsulation_weight = chosen["encapsulation_weight"]
    message_ratio_bits = chosen["message_ratio_bits"]
    arcsine_degree = chosen["arcsine_degree"]
    iterations = chosen["iterations"]

    key = ("bootstrapper", coeff_to_slot_levels, slot_to_coeff_levels, k, eval_mod, sine_degree,
           double_angles, scale, eval_mod_baby_steps, encapsulation_weight, message_ratio_bits,
           arcsine_degree, iterations, iteration_precision_bits)
    with self._lock:
        made = self._cache.get(key)
    if made is None:
        made = _bootstrap.make(
            self, coeff_to_slot_levels, slot_to_coeff_levels, k, eval_mod, sine_degree,
            double_angles, scale, eval_mod_baby_steps, encapsulation_weight, message_ratio_bits,
            arcsine_degree, iterations, iteration_precision_bits,
        )
        with self._lock:
            made = self._cache.setdefault(key, made)
    return made


Context.bootstrapper = _bootstrapper  # type: ignore[attr-defined]


def _bootstrappable(
    cls, log_n: int, levels: int, *, precision: str = "standard", device: DeviceArg = None
) -> "Context":
    """A context of a 128-bit bootstrappable preset (C++ ``ckks::bootstrappable_parameters``):
    N = 2^``log_n`` (15 or 16) with ``levels`` levels for the user (at most
    :func:`max_bootstrappable_levels`), a uniform ternary secret, Δ = 2^40 (2^35 for N = 2^15); its
    :meth:`bootstrapper` takes the preset's configuration (sparse-secret encapsulation included)
    and returns ciphertexts at level ``levels``. ``precision``: 'standard' (one bootstrap, about
    18 bits) or 'high' (N = 2^16 only: Δ = 2^50, q_0 of 60 bits and two iterations, about 33
    bits for twice the time, at most 8 levels). docs/ckks-bootstrapping.md lists the chains."""
    high = _high_precision(precision)
    preset = _polyhe.ckks.bootstrappable_parameters(
        index("log_n", log_n, 1, 17), index("levels", levels, 0, 64), high
    )
    ctx = cls(
        log_n=log_n, q_bits=list(preset["q_bits"]), p_bits=list(preset["p_bits"]),
        scale=float(preset["scale"]), device=device,
    )
    ctx._bootstrap_preset = dict(preset["bootstrapper"])
    return ctx


Context.bootstrappable = classmethod(_bootstrappable)  # type: ignore[attr-defined]


def _high_precision(precision: object) -> bool:
    if precision not in ("standard", "high"):
        raise _polyhe.InvalidParameter(
            f"bootstrappable: precision = {precision!r}, expected 'standard' or 'high'"
        )
    return precision == "high"


def max_bootstrappable_levels(log_n: int, precision: str = "standard") -> int:
    """The most user levels :meth:`Context.bootstrappable` gives for N = 2^log_n at 128 bits
    (``precision`` 'standard' or 'high')."""
    return int(
        _polyhe.ckks.max_bootstrappable_levels(
            index("log_n", log_n, 1, 17), _high_precision(precision)
        )
    )


def sum_rotations(slots: int) -> list:
    """The rotation steps :meth:`Ciphertext.sum` needs for every count up to ``slots``."""
    out, s = [], 1
    while s < slots:
        out.append(s)
        s <<= 1
    return out


Context.sum_rotations = lambda self: sum_rotations(self.slots)  # type: ignore[attr-defined]
Context.sum_rotations.__doc__ = "The rotation steps Ciphertext.sum needs: 1, 2, 4, …, N/4."


def _unpickle_ciphertext(params_bytes, settings_bytes, key_id, ct_bytes, real, length):
    ctx = context_for(Context, params_bytes, settings_bytes, key_id)
    ct = _native.load_ciphertext(ct_bytes, ctx._params._native, ctx._key_id or b"")
    return Ciphertext(ct, ctx, bool(real), length)


Ciphertext._unpickle = _unpickle_ciphertext
