"""Lattice arithmetic: NTT-friendly primes, the negacyclic NTT and its products, cyclic NTTs of
any length, and the cyclotomic rings Z_q[x]/Φ_m(x).

Every operation takes a 1-D array of one element's coefficients or a 2-D array whose rows are
elements (a batch; the rows are spread over polyhe's thread pool), as numpy arrays of any integer
dtype or (nested) lists of Python ints, every value in [0, q). Results are numpy ``uint64`` arrays.
The C++ work runs with the GIL released.

Errors: a non-integer dtype raises ``TypeError``; a wrong shape, a value outside [0, q) or a bad
parameter raises ``polyhe.InvalidParameter`` (a ``ValueError``), the message naming the value and
the rule.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from polyhe import _checks
from polyhe._polyhe import InvalidParameter
from polyhe._polyhe import arith as _lo

__all__ = [
    "DECOMPOSITIONS",
    "CyclicNttPlan",
    "CyclotomicRing",
    "NttPlan",
    "cyclotomic_polynomial",
    "is_prime",
    "ntt_primes",
    "polymul",
]

#: What the transforms and products accept: an integer numpy array or a (nested) list of ints.
ArrayLike = Union[npt.NDArray[np.integer], Sequence[int], Sequence[Sequence[int]]]

_U64_LIMIT = 1 << 64


# ---- argument checks -----------------------------------------------------------------------------


def _int(value: Any, name: str, lo: int = 0, hi: int = _U64_LIMIT) -> int:
    """value as an int in [lo, hi): TypeError for a non-integer, InvalidParameter for a range."""
    return _checks.index(name, value, lo, hi - 1)


def _index_text(flat: int, shape: tuple[int, ...]) -> str:
    return ", ".join(str(int(i)) for i in np.unravel_index(flat, shape))


def _out_of_range(what: str, index: str, value: int, q: int) -> InvalidParameter:
    return InvalidParameter(f"{what}[{index}] = {value} is outside [0, q) with q = {q}")


def _from_sequence(a: Any, what: str, q: int) -> np.ndarray:
    """A non-array argument (a list, a tuple, anything numpy reads) as an integer array."""
    try:
        x = np.asarray(a)
    except ValueError as e:
        raise InvalidParameter(f"{what} is not a rectangular array of integers ({e})") from None
    if x.size == 0 and x.dtype.kind == "f":
        return x.astype(np.uint64)  # [] and [[]]: numpy's default dtype, not the caller's
    if x.dtype.kind in "fO":
        # Python ints beyond int64 (or mixed signs beyond it) make numpy choose float64 or object:
        # read them exactly as Python ints.
        objects = np.asarray(a, dtype=object)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in objects.flat):
            for i, v in enumerate(objects.flat):
                if not 0 <= int(v) < q:
                    raise _out_of_range(what, _index_text(i, objects.shape), int(v), q)
            return objects.astype(np.uint64)
    return x


def _words(a: Any, q: int, n: int, what: str) -> np.ndarray:
    """a as a C-contiguous native uint64 array of shape (n,) or (rows, n) with values in [0, q).

    The result is `a` itself when it already is one; the caller copies before writing.
    """
    x = a if isinstance(a, np.ndarray) else _from_sequence(a, what, q)
    kind = x.dtype.kind
    if kind not in "iu":
        raise TypeError(
            f"{what} has dtype {x.dtype}; expected an integer dtype (or a list of ints) "
            f"with values in [0, q)")
    if x.ndim not in (1, 2) or x.shape[-1] != n:
        raise InvalidParameter(
            f"{what} has shape {x.shape}; expected ({n},) or (rows, {n})")
    if x.size:
        bad = x >= q if kind == "u" else (x < 0) | (x >= q)
        if bad.any():
            flat = int(np.argmax(bad.reshape(-1)))
            value = int(x.reshape(-1)[flat])
            raise _out_of_range(what, _index_text(flat, x.shape), value, q)
    return np.ascontiguousarray(x, dtype=np.uint64)


def _check_out(out: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """out as the destination of a result of `shape`: C-contiguous, writeable, native uint64."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{what}: out must be a numpy array, not {type(out).__name__}")
    if out.dtype != np.dtype(np.uint64):
        raise TypeError(f"{what}: out has dtype {out.dtype}; it must be uint64 (native order)")
    if out.shape != shape:
        raise InvalidParameter(f"{what}: out has shape {out.shape}; expected {shape}")
    if not out.flags.c_contiguous:
        raise InvalidParameter(f"{what}: out must be C-contiguous")
    if not out.flags.writeable:
        raise InvalidParameter(f"{what}: out is read-only")
    return out


def _transform(
    a: Any,
    out: Optional[np.ndarray],
    n: int,
    q: int,
    what: str,
    one: Callable[[np.ndarray], None],
    rows: Callable[[np.ndarray], None],
) -> np.ndarray:
    """Runs an in-place transform (`one` on 1-D, `rows` on 2-D) on a copy of a, or on out."""
    x = _words(a, q, n, what + ": a")
    if out is None:
        target = x.copy() if isinstance(a, np.ndarray) and np.may_share_memory(x, a) else x
    else:
        target = _check_out(out, x.shape, what)
        if target is not x:
            np.copyto(target, x)  # numpy copes with overlap; a itself as out copies nothing
    if target.ndim == 1:
        one(target)
    elif target.shape[0]:
        rows(target)
    return target if out is None else out


def _binary(
    a: Any,
    b: Any,
    n: int,
    q: int,
    what: str,
    one: Callable[[np.ndarray, np.ndarray], np.ndarray],
    rows: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Checks two operands of equal shape and runs the product `one` (1-D) or `rows` (2-D)."""
    x = _words(a, q, n, what + ": a")
    y = _words(b, q, n, what + ": b")
    if x.shape != y.shape:
        raise InvalidParameter(
            f"{what}: operands of shapes {x.shape} and {y.shape}; they must be equal")
    return one(x, y) if x.ndim == 1 else rows(x, y)


# ---- primes and cyclotomic polynomials -----------------------------------------------------------


def ntt_primes(bits: int, n: int, count: int) -> list[int]:
    """`count` distinct primes q ≡ 1 mod 2n of exactly `bits` bits, largest first.

    n is a power of two (the NTT length the primes serve) and bits is in [2, 62]; raises
    InvalidParameter when those rules fail or fewer than `count` such primes exist.
    """
    return list(_lo.ntt_primes(_int(bits, "bits", 0, 1 << 31), _int(n, "n"),
                               _int(count, "count")))


def is_prime(n: int) -> bool:
    """Whether n (0 ≤ n < 2^64) is prime: deterministic Miller–Rabin."""
    return bool(_lo.is_prime(_int(n, "n")))


def cyclotomic_polynomial(m: int) -> list[int]:
    """The integer coefficients of the m-th cyclotomic polynomial Φ_m, lowest degree first.

    Φ_m is monic of degree φ(m). m is in [1, 2^22]; InvalidParameter otherwise (or when a
    coefficient does not fit in 64 bits).
    """
    return list(_lo.cyclotomic_polynomial(_int(m, "m")))


# ---- the negacyclic NTT --------------------------------------------------------------------------


class NttPlan:
    """The negacyclic NTT of length n modulo a prime q, with its twiddle tables built once.

    n is a power of two in [2, 2^17]; q a prime ≡ 1 mod 2n of at most 62 bits; ψ a primitive
    2n-th root of unity mod q (ψ^n ≡ −1), by default the smallest. ``forward`` maps coefficients
    (natural order) to the bit-reversed evaluation form ``â[i] = a(ψ^(2·br(i)+1))``, where br
    reverses the log2(n) bits of i; ``inverse`` is its exact inverse (1/n included). A plan is
    immutable and may be used from several threads at once.
    """

    __slots__ = ("_plan",)

    def __init__(self, n: int, q: int, psi: Optional[int] = None) -> None:
        """Validates n, q and ψ (InvalidParameter naming the broken rule) and builds the tables."""
        self._plan = _lo.NttPlan(_int(n, "n"), _int(q, "q"),
                                 None if psi is None else _int(psi, "psi"))

    @property
    def n(self) -> int:
        """The transform length (a power of two)."""
        return int(self._plan.n)

    @property
    def q(self) -> int:
        """The prime modulus."""
        return int(self._plan.q)

    @property
    def psi(self) -> int:
        """The primitive 2n-th root of unity ψ the transform evaluates at (odd powers)."""
        return int(self._plan.psi)

    def __repr__(self) -> str:
        return f"NttPlan(n={self.n}, q={self.q}, psi={self.psi})"

    def forward(self, a: ArrayLike, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The NTT of a (n values, or rows × n) into the bit-reversed evaluation form.

        Returns a new uint64 array, or, with ``out`` (a C-contiguous uint64 array of a's shape,
        possibly ``a`` itself), writes the result there without a copy and returns ``out``.
        """
        return _transform(a, out, self.n, self.q, "NttPlan.forward", self._plan.forward,
                          self._plan.forward_rows)

    def inverse(self, a: ArrayLike, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The inverse NTT (bit-reversed evaluation form → coefficients), 1/n included.

        Shapes and ``out`` as for :meth:`forward`.
        """
        return _transform(a, out, self.n, self.q, "NttPlan.inverse", self._plan.inverse,
                          self._plan.inverse_rows)

    def multiply(self, a: ArrayLike, b: ArrayLike, fused: bool = False) -> np.ndarray:
        """The negacyclic product a·b mod (x^n + 1, q) of coefficient vectors, as a new array.

        a and b have the same shape, (n,) or rows × n (row i of the result is a[i]·b[i]).
        ``fused`` selects the fused multiplication of [GPU-Polymul, Alg. 8] (truncated
        transforms with a Karatsuba middle stage); the result is the same.
        """
        f = bool(fused)
        return _binary(a, b, self.n, self.q, "NttPlan.multiply",
                       lambda x, y: self._plan.multiply(x, y, f),
                       lambda x, y: self._plan.multiply_rows(x, y, f))


@functools.lru_cache(maxsize=64)
def _cached_plan(n: int, q: int) -> NttPlan:
    return NttPlan(n, q)


def polymul(a: ArrayLike, b: ArrayLike, q: int, fused: bool = False) -> np.ndarray:
    """The negacyclic product a·b mod (x^n + 1, q), n the length of a's rows.

    As :meth:`NttPlan.multiply`, with the plan for (n, q) built on first use and kept (the 64
    most recent).
    """
    qq = _int(q, "q")
    if qq < 2:  # before the values, which no q < 2 can hold: blame q, not a[0]
        raise InvalidParameter(f"polymul: q = {qq} is not prime; q must be a prime ≡ 1 mod 2n")
    x = a if isinstance(a, np.ndarray) else _from_sequence(a, "polymul: a", qq)
    if x.ndim not in (1, 2):
        raise InvalidParameter(f"polymul: a has shape {x.shape}; expected (n,) or (rows, n)")
    x = _words(x, qq, int(x.shape[-1]), "polymul: a")  # dtype and values before n's rules
    return _cached_plan(int(x.shape[-1]), qq).multiply(x, b, fused)


# ---- cyclic transforms and cyclotomic rings ------------------------------------------------------

#: The algorithms a cyclic plan may be forced to use at its root.
DECOMPOSITIONS = ("automatic", "direct", "radix2", "pfa", "cooley_tukey", "rader",
                  "rader_padded", "bluestein")


class CyclicNttPlan:
    """The cyclic NTT ``X[k] = Σ_j x[j]·ω^(jk) mod q`` of any length n the planner serves.

    q is a prime ≡ 1 mod n of at most 62 bits (n ≤ 2^22); ω a primitive n-th root of unity, by
    default g^((q−1)/n) for the smallest g that makes it one. The planner decomposes n
    (radix-2, prime-factor, Cooley–Tukey, Rader, Bluestein); ``decomposition`` forces the
    algorithm at the root (one of :data:`DECOMPOSITIONS`). Natural order in and out;
    ``inverse`` is the exact inverse, 1/n included.
    """

    __slots__ = ("_plan",)

    def __init__(self, n: int, q: int, omega: Optional[int] = None,
                 decomposition: str = "automatic") -> None:
        """Validates n, q, ω and plans the transform (InvalidParameter naming the broken rule)."""
        if not isinstance(decomposition, str):
            raise TypeError(
                f"decomposition must be a str, not {type(decomposition).__name__}")
        self._plan = _lo.CyclicNttPlan(_int(n, "n"), _int(q, "q"),
                                       None if omega is None else _int(omega, "omega"),
                                       decomposition)

    @property
    def n(self) -> int:
        """The transform length."""
        return int(self._plan.n)

    @property
    def q(self) -> int:
        """The prime modulus."""
        return int(self._plan.q)

    @property
    def omega(self) -> int:
        """The primitive n-th root of unity ω."""
        return int(self._plan.omega)

    @property
    def kind(self) -> str:
        """The algorithm at the root of the plan (one of :data:`DECOMPOSITIONS` but automatic)."""
        return str(self._plan.kind)

    @property
    def flattened(self) -> bool:
        """Whether the transform runs as one flattened multi-dimensional pass."""
        return bool(self._plan.flattened)

    def describe(self) -> str:
        """The planner's whole tree, e.g. ``'pfa(5, pfa(17, rader(257 -> radix2(256))))'``."""
        return str(self._plan.decomposition())

    def __repr__(self) -> str:
        return f"CyclicNttPlan(n={self.n}, q={self.q}, omega={self.omega}): {self.describe()}"

    def forward(self, a: ArrayLike, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The cyclic NTT of a (n values, or rows × n), natural order.

        Returns a new uint64 array, or, with ``out`` (a C-contiguous uint64 array of a's shape,
        possibly ``a`` itself), writes the result there without a copy and returns ``out``.
        """
        return _transform(a, out, self.n, self.q, "CyclicNttPlan.forward", self._plan.forward,
                          self._plan.forward_rows)

    def inverse(self, a: ArrayLike, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The inverse cyclic NTT, 1/n included. Shapes and ``out`` as for :meth:`forward`."""
        return _transform(a, out, self.n, self.q, "CyclicNttPlan.inverse", self._plan.inverse,
                          self._plan.inverse_rows)


class CyclotomicRing:
    """The ring Z_q[x]/Φ_m(x) and its slot (evaluation) map.

    m is odd (3 ≤ m ≤ 2^22) or a power of two (4 ≤ m ≤ 2^18); q a prime ≡ 1 mod m of at most
    62 bits. An element is its ``degree`` = φ(m) coefficients in [0, q), lowest degree first.
    Its slots are the values a(ω^k) at the φ(m) exponents 1 ≤ k < m with gcd(k, m) = 1
    (``slot_exponents``, ascending), ω = ``omega`` a primitive m-th root of unity: a ring
    isomorphism onto Z_q^φ(m) with the slot-wise product.
    """

    __slots__ = ("_ring",)

    def __init__(self, m: int, q: int) -> None:
        """Validates m and q (InvalidParameter naming the broken rule) and builds the tables."""
        self._ring = _lo.CyclotomicRing(_int(m, "m"), _int(q, "q"))

    @property
    def m(self) -> int:
        """The index m of Φ_m."""
        return int(self._ring.m)

    @property
    def degree(self) -> int:
        """φ(m): the number of coefficients (and of slots) of an element."""
        return int(self._ring.degree)

    @property
    def q(self) -> int:
        """The prime modulus."""
        return int(self._ring.q)

    @property
    def omega(self) -> int:
        """The primitive m-th root of unity that defines the slots."""
        return int(self._ring.omega)

    @property
    def phi(self) -> list[int]:
        """Φ_m's coefficients mod q, lowest degree first (degree + 1 of them)."""
        return list(self._ring.phi)

    @property
    def slot_exponents(self) -> list[int]:
        """The exponents k of the slots a(ω^k): 1 ≤ k < m with gcd(k, m) = 1, ascending."""
        return list(self._ring.slot_exponents)

    def __repr__(self) -> str:
        return f"CyclotomicRing(m={self.m}, q={self.q})"

    def multiply(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """The product a·b mod (Φ_m, q) as a new array; a and b of shape (degree,) or rows ×
        degree (row i of the result is a[i]·b[i])."""
        return _binary(a, b, self.degree, self.q, "CyclotomicRing.multiply",
                       self._ring.multiply, self._ring.multiply_rows)

    def to_slots(self, a: ArrayLike) -> np.ndarray:
        """The slots of a: a(ω^k) for k in :attr:`slot_exponents` (each row of a 2-D a)."""
        x = _words(a, self.q, self.degree, "CyclotomicRing.to_slots: a")
        return self._ring.to_slots(x) if x.ndim == 1 else self._ring.to_slots_rows(x)

    def from_slots(self, v: ArrayLike) -> np.ndarray:
        """The element whose slots are v: the exact inverse of :meth:`to_slots`."""
        x = _words(v, self.q, self.degree, "CyclotomicRing.from_slots: v")
        return self._ring.from_slots(x) if x.ndim == 1 else self._ring.from_slots_rows(x)
