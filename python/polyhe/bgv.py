"""BGV and BFV: exact arithmetic on vectors of integers mod t, encrypted.

>>> import numpy as np, polyhe
>>> ctx = polyhe.bgv.Context()                       # BGV, N = 2^14, t = 65537, 128-bit
>>> _ = ctx.generate_keys(rotations=[1])             # secret, public, relinearisation, Galois
>>> x = ctx.encrypt(np.array([1, 2, -3]))            # signed values map to [-t/2, t/2)
>>> y = (x * x + 5).mod_switch()                     # multiply, relinearise; add; switch down
>>> ctx.decrypt(y)
array([ 6,  9, 14])
>>> r = ctx.decrypt(x.rotate_rows(1))                # each row of N/2 slots rotated left:
>>> r[:3], int(r[ctx.row_size - 1])                  # every slot back, the 1 wrapped to the end
(array([ 2, -3,  0]), 1)
>>> ctx.noise_budget(y) > 0                          # bits left before decryption fails
True

``Context(scheme="bfv")`` gives BFV (BGV's scale-invariant mode) with the same interface.
With batching (t prime, t ≡ 1 mod 2N; the default t = 65537 batches up to N = 2^15) a plaintext
holds N slots, a 2 × N/2 matrix, and every operation acts slot-wise mod t; for any other t use
:meth:`Context.encode_coefficients` (the values are the coefficients of a polynomial mod t and
x^N + 1). The operators follow one rule each: ``+``, ``-`` and ``*`` take a ciphertext, a
:class:`Plaintext`, an integer array (encoded the way the ciphertext's values were: slots or
coefficients) or a Python/numpy integer (the constant polynomial c: c in every slot); operands at
different levels are brought to the lower one by modulus switching; ``*`` between ciphertexts
multiplies and relinearises and switches nothing (with coefficients every product is the
polynomial product mod x^N + 1, and a constant c adds to x^0 only). Values are numpy integers of
any dtype or Python ints in [−⌊t/2⌋, t), negative ones taken mod t; decrypt gives int64 in
[−⌊t/2⌋, ⌈t/2⌉), or uint64 in [0, t) with ``signed=False``. Everything else is a method:
:meth:`Ciphertext.mod_switch` (BGV: call it after each product to keep the noise small),
:meth:`~Ciphertext.mod_switch_to`, :meth:`~Ciphertext.rotate_rows`,
:meth:`~Ciphertext.rotate_columns` (the row swap), :meth:`~Ciphertext.multiply` (with
``relinearize=False`` for a size-3 product), :meth:`~Ciphertext.relinearize`.
"""

from __future__ import annotations

import numbers
from typing import Iterable, Optional, Sequence, Union

import numpy as np

from polyhe import _polyhe
from polyhe._checks import (
    byteslike,
    galois_rule,
    index,
    int_list,
    is_galois_element,
    require_rotation_keys,
)
from polyhe._ciphertext import CiphertextBase, length_of, product_length
from polyhe._context import KeyedContext, context_for
from polyhe._device import DeviceArg, resolve
from polyhe.parameters import Parameters

__all__ = [
    "Context",
    "Ciphertext",
    "Plaintext",
    "DEFAULT_Q_BITS",
    "DEFAULT_P_BITS",
    "DEFAULT_T",
    "SLOTS",
    "COEFFICIENTS",
]

#: The default chain (the repository's BFV/BGV bench anchor, SEAL's default at N = 2^14):
#: 48,48,48,49,49,49,49,49 bits (log2 Q = 389, seven modulus switches) with one 49-bit special
#: prime: log2(QP) = 438 ≤ 438, 128-bit secure at N = 2^14.
DEFAULT_Q_BITS = (48, 48, 48, 49, 49, 49, 49, 49)
DEFAULT_P_BITS = (49,)
#: The default plaintext modulus: 2^16 + 1, prime and ≡ 1 mod 2N up to N = 2^15 (batching).
DEFAULT_T = 65537

#: How a plaintext's values sit in the polynomial: in the batching slots, or as coefficients.
SLOTS = "slots"
COEFFICIENTS = "coefficients"

_native = _polyhe.bgv

IntegerValues = Union[np.ndarray, Sequence[int]]

_FLOAT_RULE = (
    "BGV/BFV encode integers mod t (numpy integer arrays of any dtype, or Python ints); round "
    "and cast explicitly, e.g. np.rint(x).astype(np.int64)"
)


def _range_text(t: int) -> str:
    return f"[-{t // 2}, {t - 1}] (t = {t}; negative values are taken mod t)"


def _residues(x: object, t: int, limit: int, what: str, where: str) -> np.ndarray:
    """A 1-D uint64 array of the values' residues mod t, after checking: integers only (TypeError
    naming the dtype), 1-D, at most `limit` values (`where` names the limit), each in
    [−⌊t/2⌋, t) (InvalidParameter naming the index, the value and t)."""
    if isinstance(x, (Ciphertext, Plaintext)):
        raise TypeError(f"{what}: expected integers, got a {type(x).__name__}")
    if isinstance(x, (str, bytes, bytearray)):
        raise TypeError(f"{what}: expected integers, got {type(x).__name__}")
    a = np.asarray(x)
    if a.size == 0 and not isinstance(x, np.ndarray) and a.dtype.kind == "f":
        a = a.astype(np.int64)  # [] or (): numpy's default dtype for an empty list is float64
    kind = a.dtype.kind
    if kind not in "biuO":
        raise TypeError(f"{what}: dtype {a.dtype} is not an integer type; {_FLOAT_RULE}")
    if a.ndim != 1:
        raise _polyhe.InvalidParameter(
            f"{what}: shape {a.shape}; BGV/BFV encode a 1-D vector of at most {limit} values"
        )
    if a.shape[0] > limit:
        raise _polyhe.InvalidParameter(
            f"{what}: {a.shape[0]} values, more than the {limit} {where} of this context"
        )
    if kind == "O":
        return _residues_of_objects(a, t, what)
    if kind == "b":
        return a.astype(np.uint64)
    if kind == "u":
        bad = a >= np.uint64(t)
        out = a.astype(np.uint64)
    else:
        a64 = a.astype(np.int64)
        bad = (a64 < -(t // 2)) | (a64 >= t)
        out = np.where(a64 < 0, a64 + t, a64).astype(np.uint64)
    if bad.any():
        i = int(np.argmax(bad))
        raise _polyhe.InvalidParameter(
            f"{what}[{i}] = {int(a[i])} is outside {_range_text(t)}"
        )
    return np.ascontiguousarray(out)


def _residues_of_objects(a: np.ndarray, t: int, what: str) -> np.ndarray:
    # A list numpy could not type as one integer dtype: Python ints beyond 64 bits, or a mixture.
    out = np.empty(a.shape[0], dtype=np.uint64)
    for i, v in enumerate(a):
        if not isinstance(v, (numbers.Integral, np.integer)):
            raise TypeError(
                f"{what}[{i}]: {type(v).__name__} {v!r} is not an integer; {_FLOAT_RULE}"
            )
        iv = int(v)
        if not -(t // 2) <= iv < t:
            raise _polyhe.InvalidParameter(f"{what}[{i}] = {iv} is outside {_range_text(t)}")
        out[i] = iv % t
    return out


def _constant(c: object, t: int, op: str) -> int:
    """A Python/numpy integer operand as its residue mod t (range as for encoded values)."""
    v = int(c)
    if not -(t // 2) <= v < t:
        raise _polyhe.InvalidParameter(f"{op}: the constant {v} is outside {_range_text(t)}")
    return v % t


def _is_int_scalar(x: object) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def _scalar_of_0d(x: object) -> object:
    """A 0-d numpy array is its scalar (np.array(3) * ct is ct * 3)."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _refuse_scalar(x: object, op: str) -> None:
    """TypeError for a float/complex/bool constant, naming the rule."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{op}: a bool constant ({x!r}); BGV/BFV operate on integers mod t")
    if isinstance(x, numbers.Number):
        raise TypeError(
            f"{op}: the constant {x!r} is a {type(x).__name__}; BGV/BFV operate on integers "
            f"mod t (Python or numpy integers)"
        )


def _encoding_arg(encoding: object) -> str:
    if encoding not in (SLOTS, COEFFICIENTS):
        raise _polyhe.InvalidParameter(
            f"encoding = {encoding!r}: expected {SLOTS!r} or {COEFFICIENTS!r}"
        )
    return encoding  # type: ignore[return-value]


class Context(KeyedContext):
    """Parameters, the plaintext modulus t, the scheme (BGV or BFV), the encoders and the keys:
    everything the integer schemes need, in one object. Safe to share between threads.

    ``Context()`` gives BGV at N = 2^14 with :data:`DEFAULT_Q_BITS` / :data:`DEFAULT_P_BITS` and
    t = 65537 (128-bit secure, batching: 2 × 8192 slots). ``scheme="bfv"`` gives BFV. Pass
    ``params`` (a :class:`polyhe.Parameters`) or the parameter keywords (``log_n``, ``q_bits``,
    ``p_bits``, ``dnum``, ``hamming_weight``, ``security``). ``t`` must satisfy 2 ≤ t < 2^60 and
    divide no prime of Q; batching (:meth:`encode`) needs t prime with t ≡ 1 mod 2N, any other t
    serves :meth:`encode_coefficients`. Then :meth:`generate_keys`. ``device`` (``"cuda"``,
    ``"cuda:N"``, ``"emulated"`` or a :class:`polyhe.Device`; default None, host memory) is where
    the keys and ciphertexts live and the operations run; plaintexts stay on the host.
    """

    _scheme = "bgv"  # BGV and BFV share the class; the scheme is part of the settings

    def __init__(
        self,
        params: Optional[Parameters] = None,
        *,
        t: int = DEFAULT_T,
        scheme: str = "bgv",
        log_n: int = 14,
        q_bits: Optional[Sequence[int]] = None,
        p_bits: Optional[Sequence[int]] = None,
        dnum: int = 0,
        hamming_weight: int = 0,
        security: Union[int, str] = 128,
        device: DeviceArg = None,
    ) -> None:
        where = resolve(device)
        if not isinstance(scheme, str):
            raise TypeError(f"scheme: expected 'bgv' or 'bfv', got {type(scheme).__name__}")
        tv = index("t", t, 0, (1 << 64) - 1)  # the native context checks 2 ≤ t < 2^60
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
        native = _native.Context(params._native, tv, scheme)
        self._init_keyed(params, native)
        self._device = where

    # --- KeyedContext hooks --------------------------------------------------------------------
    def _settings(self) -> tuple:
        return (int(self._native.t), str(self._native.scheme))

    def _origin(self) -> tuple:
        return (2 if self._native.scheme == "bfv" else 3, int(self._native.t), self._key_id or b"")

    @classmethod
    def _make_native(cls, params: Parameters, settings: tuple):
        if (
            len(settings) != 2
            or not isinstance(settings[0], int)
            or isinstance(settings[0], bool)
            or settings[1] not in ("bgv", "bfv")
        ):
            raise _polyhe.CorruptData(
                f"bgv context: settings {settings!r}, expected (t, 'bgv' or 'bfv')"
            )
        return _native.Context(params._native, settings[0], settings[1])

    def _make_evaluator(self):
        return _native.Evaluator(
            self._native, self._placed_key("_relin"), self._placed_key("_galois")
        )

    def _make_encryptor(self, key):
        return _native.Encryptor(self._native, key)

    def generate_keys(
        self,
        rotations: Iterable[int] = (),
        conjugation: bool = False,
        relinearization: bool = True,
        seed: Optional[bytes] = None,
        galois_elements: Iterable[int] = (),
    ) -> "Context":
        """Makes a fresh secret key and, from it, the public key, the relinearisation key (unless
        ``relinearization=False``) and Galois keys: for each step in ``rotations`` a row rotation
        (:meth:`Ciphertext.rotate_rows`: Galois element 5^step mod 2N, negative steps rotate
        right) and, when ``conjugation``, the row swap (:meth:`Ciphertext.rotate_columns`:
        element 2N − 1), and for each Galois element k in ``galois_elements``
        (:meth:`Ciphertext.apply_galois`: x → x^k; over Φ_m, an odd m, the only way to name
        automorphisms: k a unit mod m). Steps and elements are integers, the flags True or False.
        ``seed`` (32 bytes) makes them reproducible, for tests only. Once per context (a context
        holding keys refuses: make a new one); returns self."""
        super().generate_keys(rotations, conjugation, relinearization, seed, galois_elements)
        return self

    # --- what it is ----------------------------------------------------------------------------
    @property
    def t(self) -> int:
        """The plaintext modulus: values are integers mod t."""
        return int(self._native.t)

    @property
    def scheme(self) -> str:
        """'bgv' or 'bfv'."""
        return str(self._native.scheme)

    @property
    def batching(self) -> bool:
        """Whether :meth:`encode` packs N values into slots (x^N + 1 with t prime, t ≡ 1 mod 2N)."""
        return bool(self._native.batching)

    @property
    def slots(self) -> int:
        """The values a slot-encoded plaintext holds: N with batching (two rows of N/2); over
        Φ_m for odd m (BGV) the k·d coordinates of its k slots in GF(p^d) (t = p prime) or
        GR(p^r, d) (t = p^r); 0 when t does not batch (then use :meth:`encode_coefficients`)."""
        with self._lock:
            s = self._cache.get("slots")
        if s is None:
            if self.batching:
                s = int(self._native.n)
            elif self._params.log_n == 0:
                try:  # the slot encoder's count, from the decoding of zero
                    zero = self._native.plaintext(np.zeros(self._native.n, dtype=np.uint64))
                    s = int(self._native.decode(zero).shape[0])
                except _polyhe.InvalidParameter:
                    s = 0
            else:
                s = 0
            with self._lock:
                self._cache["slots"] = s
        return s  # type: ignore[return-value]

    @property
    def row_size(self) -> int:
        """N/2 with batching: the length of each of the two rows that rotate_rows rotates."""
        return int(self._native.n) // 2 if self.batching else 0

    @property
    def max_level(self) -> int:
        """L: fresh ciphertexts are at this level; each modulus switch uses one."""
        return int(self._native.max_level)

    # --- the slots over Φ_m as a hypercube (HElib's EncryptedArray) -----------------------------
    def _slot_array(self, op: str):
        """The native SlotArray, made once (Φ_m with slots: t a prime power; refused by name otherwise)."""
        with self._lock:
            sa = self._cache.get("slot_array")
        if sa is None:
            if self._params.log_n:
                raise _polyhe.InvalidParameter(
                    f"{op}: the ring is x^N + 1, whose slots are two rows (rotate_rows, "
                    f"rotate_columns); the hypercube of slots is Phi_m's (odd m)"
                )
            sa = _native.SlotArray(self._native)
            with self._lock:
                sa = self._cache.setdefault("slot_array", sa)
        return sa

    @property
    def hypercube(self) -> tuple:
        """Over Φ_m (odd m, t = p^r): the slots' hypercube as ``((n_1, good_1), …)``, one pair
        per generator of (Z/mZ)^*/⟨p⟩: the length of the dimension and whether it is good (its
        rotations are one automorphism; a bad one needs two and 0/1 masks, which cost noise).
        The slot index is row-major, the first dimension outermost."""
        sa = self._slot_array("hypercube")
        return tuple(
            (int(sa.dimension_size(r)), bool(sa.good_dimension(r))) for r in range(sa.dimensions)
        )

    def slot_galois_elements(
        self, op: str, step: int = 0, dimension: Optional[int] = None
    ) -> list:
        """The Galois elements a slot operation applies, to generate exactly those keys
        (``generate_keys(galois_elements=...)`` or ``add_galois_keys(galois_elements=...)``):
        ``op`` is "rotate" or "shift" (by ``step``, along ``dimension`` or, None, the whole
        array), "total_sum" or "replicate"."""
        sa = self._slot_array("slot_galois_elements")
        if op in ("rotate", "shift"):
            s = index("step", step, -(1 << 62), 1 << 62)
            if dimension is None:
                got = sa.rotate_elements(s) if op == "rotate" else sa.shift_elements(s)
            else:
                r = index("dimension", dimension, 0, 1 << 20)
                got = (sa.rotate_along_elements(r, s) if op == "rotate"
                       else sa.shift_along_elements(r, s))
        elif op in ("total_sum", "replicate"):
            got = sa.total_sum_elements()
        else:
            raise _polyhe.InvalidParameter(
                f"slot_galois_elements: op = {op!r}; expected 'rotate', 'shift', 'total_sum' or "
                f"'replicate'"
            )
        return [int(g) for g in got]

    # --- encode, encrypt, decrypt --------------------------------------------------------------
    def _encode_residues(self, res: np.ndarray, encoding: str):
        """The native plaintext of checked residues."""
        if encoding == COEFFICIENTS:
            return self._native.encode_coefficients_u64(res)
        slots = self.slots
        if res.shape[0] < slots and self._params.log_n == 0:
            res = np.concatenate([res, np.zeros(slots - res.shape[0], dtype=np.uint64)])
        return self._native.encode_u64(res)

    def _check_batching(self, op: str) -> None:
        if self.slots:
            return
        try:  # the native encoder's own refusal: t, 2N and the rule
            self._native.encode_u64(np.zeros(1, dtype=np.uint64))
        except _polyhe.InvalidParameter as e:
            raise _polyhe.InvalidParameter(
                f"{op}: {e}; in Python: ctx.encode_coefficients(values)"
            ) from None
        raise _polyhe.InvalidParameter(  # not reached: a context without slots cannot encode
            f"{op}: t = {self.t} gives no slots here; use ctx.encode_coefficients(values)"
        )

    def encode(self, values: IntegerValues) -> "Plaintext":
        """Encodes up to :attr:`slots` integers into the slots (batching): slot i of the result
        holds values[i] mod t (0 beyond). Values: any numpy integer dtype or Python ints, each in
        [−⌊t/2⌋, t) (negative ones taken mod t; decoding gives them back signed)."""
        self._check_batching("encode")
        res = _residues(values, self.t, self.slots, "values", "slots")
        return Plaintext(self._encode_residues(res, SLOTS), self, SLOTS, res.shape[0])

    def encode_coefficients(self, values: IntegerValues) -> "Plaintext":
        """Encodes up to N integers as the coefficients of a polynomial mod t (value i is the
        coefficient of x^i; 0 beyond): any t. Products of such plaintexts and ciphertexts are
        polynomial products mod x^N + 1 (negacyclic), not element-wise."""
        res = _residues(values, self.t, int(self._native.n), "values", "coefficients (N)")
        return Plaintext(self._encode_residues(res, COEFFICIENTS), self, COEFFICIENTS, res.shape[0])

    def decode(
        self, plaintext: "Plaintext", length: Optional[int] = None, signed: bool = True
    ) -> np.ndarray:
        """The values of a plaintext, the first ``length`` (default: as many as were encoded):
        int64 in [−⌊t/2⌋, ⌈t/2⌉) when ``signed`` (the default), else uint64 in [0, t)."""
        if not isinstance(plaintext, Plaintext):
            raise TypeError(f"expected a bgv.Plaintext, got {type(plaintext).__name__}")
        self._check_same(plaintext._ctx, "decode")
        return self._output(plaintext._pt, plaintext._encoding, plaintext._length, length, signed)

    def _output(self, pt, encoding: str, stored: Optional[int], length: Optional[int], signed):
        if encoding == COEFFICIENTS:
            values = (
                self._native.decode_coefficients_signed(pt) if signed else pt.coefficients
            )
            limit = int(self._native.n)
        else:
            self._check_batching("decode")
            values = self._native.decode_signed(pt) if signed else self._native.decode(pt)
            limit = self.slots
        # The module hands int64 out as C 'long long'; numpy's own int64 ('long' here) prints
        # without a dtype and compares the same: a view, no copy.
        values = values.view(np.int64 if signed else np.uint64)
        n = stored if length is None else index("length", length, 0, limit)
        return values if n is None or n == values.shape[0] else values[:n].copy()

    def encrypt(self, values: Union[IntegerValues, "Plaintext"]) -> "Ciphertext":
        """Encrypts integers (encoded into the slots) or a :class:`Plaintext` (either encoding)
        with the public key (or, in a context holding only the secret key, symmetrically), at the
        top level."""
        pt = values if isinstance(values, Plaintext) else self.encode(values)
        if pt._ctx is not self:
            self._check_same(pt._ctx, "encrypt")
        ct = self._encryptor().encrypt(pt._pt)
        return Ciphertext(ct, self, pt._encoding, pt._length)

    def _decryptor(self, op: str):
        self._require("secret key", "_sk", op)
        sk = self._placed_key("_sk")
        with self._lock:
            dec = self._cache.get("decryptor")
            if dec is None:
                dec = _native.Decryptor(self._native, sk)
                self._cache["decryptor"] = dec
            return dec

    def decrypt(
        self, ciphertext: "Ciphertext", length: Optional[int] = None, signed: bool = True
    ) -> np.ndarray:
        """Decrypts and decodes: the first ``length`` values (default: the ciphertext's
        :attr:`~Ciphertext.length`: as many as were encrypted, a + b − 1 for a product of
        coefficient vectors, every slot or coefficient after a rotation or when unknown), int64
        in [−⌊t/2⌋, ⌈t/2⌉) when ``signed``, else uint64 in [0, t). Correct while
        :meth:`noise_budget` is positive."""
        if not isinstance(ciphertext, Ciphertext):
            raise TypeError(f"expected a bgv.Ciphertext, got {type(ciphertext).__name__}")
        self._check_same(ciphertext._ctx, "decrypt")
        pt = self._decryptor("decrypt").decrypt(self._place(ciphertext._ct))
        return self._output(pt, ciphertext._encoding, ciphertext._length, length, signed)

    def decrypt_plaintext(self, ciphertext: "Ciphertext") -> "Plaintext":
        """Decrypts without decoding: the plaintext, in the ciphertext's encoding."""
        if not isinstance(ciphertext, Ciphertext):
            raise TypeError(f"expected a bgv.Ciphertext, got {type(ciphertext).__name__}")
        self._check_same(ciphertext._ctx, "decrypt")
        pt = self._decryptor("decrypt").decrypt(self._place(ciphertext._ct))
        return Plaintext(pt, self, ciphertext._encoding, ciphertext._length)

    def noise_budget(self, ciphertext: "Ciphertext") -> int:
        """The noise budget in bits (0 when exhausted): decryption is correct while it is
        positive. Needs the secret key, and the value says something about the noise and hence
        the key: keep it private (for tuning and tests)."""
        if not isinstance(ciphertext, Ciphertext):
            raise TypeError(f"expected a bgv.Ciphertext, got {type(ciphertext).__name__}")
        self._check_same(ciphertext._ctx, "noise_budget")
        return int(self._decryptor("noise_budget").noise_budget(self._place(ciphertext._ct)))

    # --- bytes -----------------------------------------------------------------------------------
    def load_ciphertext(
        self, data: bytes, length: Optional[int] = None, encoding: Optional[str] = None
    ) -> "Ciphertext":
        """A ciphertext from :meth:`Ciphertext.serialize`'s bytes, checked (CorruptData,
        MismatchedContext for another parameter set). Its values decode as ``encoding`` (default:
        slots when this context batches, else coefficients), ``length`` of them (default: all).

        The bytes record the scheme, t and the key set they were made under: a ciphertext of the
        other integer scheme, of another t or of another key set is refused (MismatchedContext
        naming the field); bytes of format version 2, which record none of them, load with a
        :class:`polyhe.FormatWarning`. Bind bytes to their sender with :func:`polyhe.authenticate`
        when they cross a trust boundary."""
        enc = self._default_encoding(encoding)
        n = None if length is None else index("length", length, 0, int(self._native.n))
        ct = self._loaded(byteslike("data", data), self._native.load_ciphertext)
        return Ciphertext(ct, self, enc, n)

    def load_plaintext(
        self, data: bytes, length: Optional[int] = None, encoding: Optional[str] = None
    ) -> "Plaintext":
        """A plaintext from :meth:`Plaintext.serialize`'s bytes, checked (CorruptData,
        MismatchedContext for another parameter set or t); ``length`` and ``encoding`` as for
        :meth:`load_ciphertext`."""
        enc = self._default_encoding(encoding)
        n = None if length is None else index("length", length, 0, int(self._native.n))
        pt = self._native.load_plaintext(byteslike("data", data))
        return Plaintext(pt, self, enc, n)

    def _default_encoding(self, encoding: Optional[str]) -> str:
        if encoding is None:
            return SLOTS if self.slots else COEFFICIENTS
        return _encoding_arg(encoding)


class Plaintext:
    """An encoded vector: N coefficients mod t (a polynomial of Z_t[x]/(x^N + 1)), with how its
    values sit in it (slots or coefficients). Made by :meth:`Context.encode` and
    :meth:`Context.encode_coefficients`; level-free (it serves ciphertexts at any level)."""

    __slots__ = ("_pt", "_ctx", "_encoding", "_length")
    __array_ufunc__ = None  # numpy defers to the ciphertext's operators

    def __init__(self, pt, ctx: Context, encoding: str, length: Optional[int]) -> None:
        self._pt, self._ctx, self._encoding, self._length = pt, ctx, encoding, length

    @property
    def context(self) -> Context:
        """The context it was encoded in."""
        return self._ctx

    @property
    def encoding(self) -> str:
        """'slots' or 'coefficients'."""
        return self._encoding

    @property
    def length(self) -> Optional[int]:
        """How many values decode returns by default (None: all)."""
        return self._length

    @property
    def coefficients(self) -> np.ndarray:
        """The polynomial's N coefficients, uint64 in [0, t) (a copy)."""
        return self._pt.coefficients

    def decode(self, length: Optional[int] = None, signed: bool = True) -> np.ndarray:
        """Its values: :meth:`Context.decode`."""
        return self._ctx.decode(self, length, signed)

    def serialize(self) -> bytes:
        """polyhe's binary form (bgv/serial.hpp: t, N, the coefficients); read back with
        :meth:`Context.load_plaintext`."""
        return self._ctx._native.serialize_plaintext(self._pt)

    to_bytes = serialize

    def __reduce__(self):
        ctx = self._ctx
        return (
            _unpickle_plaintext,
            (
                *ctx._pickled_context(),
                self.serialize(),
                self._encoding,
                self._length,
            ),
        )

    def __repr__(self) -> str:
        return (
            f"polyhe.bgv.Plaintext({self._encoding}, t={self._ctx.t}, length={self._length})"
        )


class Ciphertext(CiphertextBase):
    """An encrypted vector of integers mod t (slots, or coefficients), at a level. Immutable:
    every operation returns a new ciphertext. Pickles as its bytes with its parameter set,
    t, the scheme and its key id (not its keys)."""

    __slots__ = ("_encoding",)

    def __init__(self, ct, ctx: Context, encoding: str, length: Optional[int]) -> None:
        self._ct, self._ctx, self._encoding, self._length = ctx._place(ct), ctx, encoding, length

    def _flag(self) -> str:
        return self._encoding

    # --- what it is ----------------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        """'slots' (operations act slot-wise) or 'coefficients' (polynomial arithmetic)."""
        return self._encoding

    # --- operations ------------------------------------------------------------------------------
    def _new(self, ct, length=...) -> "Ciphertext":
        return Ciphertext(ct, self._ctx, self._encoding, self._length if length is ... else length)

    def _check_encoding(self, encoding: str, op: str) -> None:
        if encoding != self._encoding:
            raise _polyhe.InvalidParameter(
                f"{op}: a {self._encoding}-encoded ciphertext with a {encoding}-encoded operand; "
                f"encode both the same way (Context.encode or Context.encode_coefficients)"
            )

    def _aligned(self, other: "Ciphertext", op: str):
        self._ctx._check_same(other._ctx, op)
        self._check_encoding(other._encoding, op)
        # The other operand where this one lives (a context of the same keys on another device).
        a, b = self._ct, self._ctx._place(other._ct)
        if a.level != b.level:  # BFV needs one level; BGV would switch the same way in C++
            ev = self._ev()
            if a.level > b.level:
                a = ev.mod_switch_to(a, b.level)
            else:
                b = ev.mod_switch_to(b, a.level)
        return a, b

    def _plain_operand(self, other, op: str):
        """A Plaintext or an integer array as (native plaintext, length) for this ciphertext."""
        if isinstance(other, Plaintext):
            self._ctx._check_same(other._ctx, op)
            self._check_encoding(other._encoding, op)
            return other._pt, other._length
        ctx = self._ctx
        if self._encoding == COEFFICIENTS:
            res = _residues(other, ctx.t, int(ctx._native.n), f"{op} operand", "coefficients (N)")
        else:
            ctx._check_batching(op)
            res = _residues(other, ctx.t, ctx.slots, f"{op} operand", "slots")
        return ctx._encode_residues(res, self._encoding), res.shape[0]

    def _constant_plain(self, c: object, op: str):
        """The constant polynomial c mod t: c in every slot (over Φ_m: the element c of
        the slot ring in every slot, powerful-basis coordinate 0 being the basis element 1), or c as
        the constant coefficient."""
        ctx = self._ctx
        v = _constant(c, ctx.t, op)
        coeffs = np.zeros(ctx._native.n, dtype=np.uint64)
        coeffs[0] = v
        return ctx._native.plaintext(coeffs)

    def _add_sub(self, other, sub: bool, op: str) -> "Ciphertext":
        ev = self._ev()
        other = _scalar_of_0d(other)
        if isinstance(other, Ciphertext):
            a, b = self._aligned(other, op)
            ct = ev.sub(a, b) if sub else ev.add(a, b)
            return self._new(ct, length_of(self._length, other._length))
        if _is_int_scalar(other):
            pt = self._constant_plain(other, op)
            ct = ev.sub_plain(self._ct, pt) if sub else ev.add_plain(self._ct, pt)
            # Slots: c in each slot (numpy's broadcast keeps the length); coefficients: c at x^0.
            n = self._length if self._encoding == SLOTS else length_of(self._length, 1)
            return self._new(ct, n)
        _refuse_scalar(other, op)
        if isinstance(other, (Plaintext, np.ndarray, list, tuple)):
            pt, n = self._plain_operand(other, op)
            ct = ev.sub_plain(self._ct, pt) if sub else ev.add_plain(self._ct, pt)
            return self._new(ct, length_of(self._length, n))
        return NotImplemented

    def __mul__(self, other) -> "Ciphertext":
        if isinstance(other, (Ciphertext, Plaintext, numbers.Number, np.generic, np.ndarray,
                              list, tuple)):
            return self.multiply(other)
        return NotImplemented

    __rmul__ = __mul__

    def multiply(self, other, relinearize: bool = True) -> "Ciphertext":
        """The product with a ciphertext (then relinearised, unless ``relinearize=False``: size
        3), a :class:`Plaintext`, an integer array (encoded as this ciphertext's values) or an
        integer (the constant polynomial). No modulus switch: for BGV call :meth:`mod_switch`
        after each product to keep the noise near its floor."""
        ev = self._ev()
        other = _scalar_of_0d(other)
        if isinstance(other, Ciphertext):
            a, b = self._aligned(other, "multiply")
            if relinearize:
                self._ctx._require("relinearisation key", "_relin", "multiply")
                ct = ev.multiply_relin(a, b)
            else:
                ct = ev.multiply(a, b)
            return self._new(ct, self._product_length(other._length))
        if _is_int_scalar(other):
            return self._new(ev.multiply_plain(self._ct, self._constant_plain(other, "multiply")))
        _refuse_scalar(other, "multiply")
        if isinstance(other, (Plaintext, np.ndarray, list, tuple)):
            pt, n = self._plain_operand(other, "multiply")
            return self._new(ev.multiply_plain(self._ct, pt), self._product_length(n))
        raise TypeError(f"multiply: cannot multiply a ciphertext by {type(other).__name__}")

    def _product_length(self, other: Optional[int]) -> Optional[int]:
        """The default length of a product with an operand of length ``other``: slot-wise the
        longer; coefficients a + b − 1, all N once the product wraps (Ciphertext.length)."""
        if self._encoding == SLOTS:
            return length_of(self._length, other)
        return product_length(self._length, other, int(self._ctx._native.n))

    def relinearize(self) -> "Ciphertext":
        """A size-3 product back to size 2 (the relinearisation key)."""
        self._ctx._require("relinearisation key", "_relin", "relinearize")
        return self._new(self._ev().relinearize(self._ct))

    def mod_switch(self) -> "Ciphertext":
        """Drops the last prime (level l → l − 1). BGV: divides the noise by about that prime
        (down to a floor of about t·√N): call it after each product. BFV: the noise stays, later
        operations run on fewer primes."""
        if self.level == 0:
            raise _polyhe.InvalidParameter(
                "mod_switch: the ciphertext is at level 0; no prime is left to switch away"
            )
        return self._new(self._ev().mod_switch_to_next(self._ct))

    def mod_switch_to(self, level: int) -> "Ciphertext":
        """Switches down to ``level`` (≤ the current level; a copy when equal)."""
        lvl = index("level", level, 0, self.level)
        return self._new(self._ev().mod_switch_to(self._ct, lvl))

    def rotate_rows(self, step: int) -> "Ciphertext":
        """Both rows of N/2 slots rotated left by ``step`` (negative: right): slot (r, c) of the
        result is slot (r, (c + step) mod N/2). Needs the Galois key of this step
        (``generate_keys(rotations=[step])``). The result decrypts to every slot by default:
        values move beyond the encrypted length (:attr:`~CiphertextBase.length`)."""
        s = index("step", step, -(1 << 62), 1 << 62)
        self._check_rotation_keys("rotate_rows", [s])
        return self._new(self._ev().rotate_rows(self._ct, s), length=None)

    def rotate_rows_many(self, steps) -> list:
        """``[self.rotate_rows(s) for s in steps]``, the same ciphertexts word for word, computed
        hoisted: the key-switching decomposition of the ciphertext is made once for all the
        steps, so k rotations cost less than k calls of :meth:`rotate_rows`. Needs each step's
        Galois key (every one is checked before any work). At most N/2 steps (one output
        ciphertext each; a row has N/2 distinct rotations)."""
        ss = int_list(
            "rotate_rows_many: steps", steps, -(1 << 62), 1 << 62, int(self._ctx._native.n) // 2,
            "one output ciphertext each; a row has N/2 distinct rotations",
        )
        self._check_rotation_keys("rotate_rows_many", ss)
        return [self._new(ct, length=None) for ct in self._ev().rotate_rows_many(self._ct, ss)]

    def _check_rotation_keys(self, op: str, steps) -> None:
        """Every step's Galois key is present (a step of 0 mod N/2 needs none); over Phi_m (odd m)
        the native evaluator refuses row rotations itself."""
        galois = self._ctx._require("Galois keys", "_galois", op)
        if not self._ctx._params.log_n:
            return
        require_rotation_keys(galois, int(self._ctx._native.n), op, steps)

    def rotate_columns(self) -> "Ciphertext":
        """The two rows swapped (Galois element 2N − 1); needs that key
        (``generate_keys(conjugation=True)``). Decrypts to every slot by default."""
        galois = self._ctx._require("Galois keys", "_galois", "rotate_columns")
        if self._ctx._params.log_n:
            k = int(_polyhe.galois_element_for_conjugation(int(self._ctx._native.n)))
            if not galois.contains(k):
                raise _polyhe.InvalidParameter(
                    f"rotate_columns: no Galois key for the row swap (element {k}); "
                    f"generate_keys(conjugation=True) or ctx.add_galois_keys(conjugation=True)"
                )
        return self._new(self._ev().rotate_columns(self._ct), length=None)

    def apply_galois(self, element: int) -> "Ciphertext":
        """x → x^element (an odd element < 2N, or a unit mod m) with its Galois key
        (``generate_keys(galois_elements=[element])`` or
        ``ctx.add_galois_keys(galois_elements=[element])``). Decrypts to every slot or
        coefficient by default: values move."""
        k = index("element", element, 0, (1 << 64) - 1)
        native = self._ctx._params._native
        m, pow2 = int(native.m), bool(native.log_n)
        if not is_galois_element(k, m, pow2):
            raise _polyhe.InvalidParameter(
                f"apply_galois: {k} is not a Galois element: it must be {galois_rule(m, pow2)}"
            )
        galois = self._ctx._require("Galois keys", "_galois", "apply_galois")
        if k != 1 and not galois.contains(k):
            raise _polyhe.InvalidParameter(
                f"apply_galois: no Galois key for element {k}; "
                f"generate_keys(galois_elements=[{k}, ...]) or "
                f"ctx.add_galois_keys(galois_elements=[{k}])"
            )
        return self._new(self._ev().apply_galois(self._ct, k), length=None)

    # --- the slots over Φ_m: HElib's rotations, shifts, sums ----------------------------------
    def _slot_op(self, op: str, elements: list):
        """The slot array, after checking this is a slot-encoded ciphertext with every key."""
        if self._encoding != SLOTS:
            raise _polyhe.InvalidParameter(
                f"{op}: the ciphertext holds coefficients; slot operations move slots "
                f"(encode with Context.encode)"
            )
        sa = self._ctx._slot_array(op)
        galois = self._ctx._galois
        missing = [g for g in elements if galois is None or not galois.contains(g)]
        if missing:
            raise _polyhe.InvalidParameter(
                f"{op}: no Galois keys for elements {missing}; add them with "
                f"ctx.add_galois_keys(galois_elements=ctx.slot_galois_elements(...)) for this "
                f"operation"
            )
        return sa

    def rotate_slots(self, step: int, dimension: Optional[int] = None) -> "Ciphertext":
        """Over Φ_m: slot i's value moves to slot i + ``step`` (mod the length): along one
        hypercube ``dimension`` (HElib's rotate1D; every line of it), or with None the whole
        array as one row (HElib's rotate). Needs the keys
        ``ctx.slot_galois_elements("rotate", step, dimension)`` names; along a bad dimension
        (:attr:`Context.hypercube`) the masks cost noise."""
        return self._move_slots("rotate", step, dimension)

    def shift_slots(self, step: int, dimension: Optional[int] = None) -> "Ciphertext":
        """:meth:`rotate_slots` with the values pushed past the end (or, step < 0, the start)
        dropped and 0 shifted in (HElib's shift and shift1D). Keys:
        ``ctx.slot_galois_elements("shift", step, dimension)``."""
        return self._move_slots("shift", step, dimension)

    def _move_slots(self, op: str, step: int, dimension: Optional[int]) -> "Ciphertext":
        """rotate_slots and shift_slots: ``op`` names the native SlotArray's pair, ``op`` for
        the whole array and ``op + "_along"`` for one dimension."""
        els = self._ctx.slot_galois_elements(op, step, dimension)
        sa = self._slot_op(op + "_slots", els)
        ev, s = self._ev(), int(step)
        if dimension is None:
            ct = getattr(sa, op)(ev, self._ct, s)
        else:
            ct = getattr(sa, op + "_along")(ev, self._ct, int(dimension), s)
        return self._new(ct, length=None)

    def total_sum(self) -> "Ciphertext":
        """Over Φ_m: every slot holds the sum of all slots (in the slot ring; HElib's totalSums). Keys:
        ``ctx.slot_galois_elements("total_sum")``."""
        sa = self._slot_op("total_sum", self._ctx.slot_galois_elements("total_sum"))
        return self._new(sa.total_sum(self._ev(), self._ct), length=None)

    def replicate(self, slot: int) -> "Ciphertext":
        """Over Φ_m: every slot holds slot ``slot``'s value (HElib's replicate: a mask, then a
        total sum). Keys: ``ctx.slot_galois_elements("replicate")``."""
        i = index("slot", slot, 0, 1 << 62)
        sa = self._slot_op("replicate", self._ctx.slot_galois_elements("replicate"))
        return self._new(sa.replicate(self._ev(), self._ct, i), length=None)

    def __repr__(self) -> str:
        return (
            f"polyhe.bgv.Ciphertext({self._ctx.scheme}, level={self.level}, size={self.size}, "
            f"{self._encoding}, length={self._length})"
        )


def _unpickle_ciphertext(params_bytes, settings_bytes, key_id, ct_bytes, encoding, length):
    ctx = context_for(Context, params_bytes, settings_bytes, key_id)
    ct = ctx._native.load_ciphertext(ct_bytes, ctx._key_id or b"")
    return Ciphertext(ct, ctx, _encoding_arg(encoding), length)


Ciphertext._unpickle = _unpickle_ciphertext


def _unpickle_plaintext(params_bytes, settings_bytes, key_id, pt_bytes, encoding, length):
    ctx = context_for(Context, params_bytes, settings_bytes, key_id)
    pt = ctx._native.load_plaintext(pt_bytes)
    return Plaintext(pt, ctx, _encoding_arg(encoding), length)
