"""RLWE parameter sets: the ring, the primes of Q and P, dnum, the secret and the security level."""

from __future__ import annotations

import threading
import weakref
from typing import Optional, Sequence, Union

from polyhe import _polyhe
from polyhe._checks import byteslike, index, int_list, pythonic, security_name

__all__ = ["Parameters"]

SecurityArg = Union[int, str]

#: The largest log2(N) of x^N + 1 (the native Parameters' rule, src/rlwe/parameters.cpp).
_MAX_LOG_N = 17
#: The most primes a parameter set has (rlwe::kMaxPrimes): the cap of each prime list.
_MAX_PRIMES = 64
_PRIMES_WHY = "a parameter set has at most 64 primes"

# One live Parameters object per parameter hash in this process: objects made under two native
# parameter objects never mix (MismatchedContext), so whatever is unpickled or loaded here reuses
# the set already alive.
_live: "weakref.WeakValueDictionary[int, Parameters]" = weakref.WeakValueDictionary()
_live_lock = threading.Lock()


class Parameters:
    """Checked RLWE parameters: N = 2^log_n (or φ(m) for odd m), the ciphertext primes Q =
    q_0..q_L, the special primes P of hybrid key switching, dnum, the secret's distribution and
    the security level (HomomorphicEncryption.org table).

    Primes are given as bit sizes (``q_bits``, ``p_bits``: generated, ≡ 1 mod 2N) or explicitly
    (``q``, ``p``). ``security`` is 128, 192, 256, or ``"none"`` to opt out of the check by name;
    a set weaker than asked raises :class:`polyhe.InsecureParameters` saying by how much. The
    table is for uniform ternary secrets: a sparse one (``hamming_weight`` > 0) needs
    ``security="none"``.
    Building the tables takes milliseconds to a second (N = 2^17); the object is immutable and
    may be shared by any number of threads.

    >>> p = Parameters(log_n=13, q_bits=[40, 30, 30], p_bits=[40])
    >>> p.n, p.max_level
    (8192, 2)
    """

    __slots__ = ("_native", "__weakref__")

    def __init__(
        self,
        log_n: int = 0,
        q_bits: Optional[Sequence[int]] = None,
        p_bits: Optional[Sequence[int]] = None,
        *,
        q: Optional[Sequence[int]] = None,
        p: Optional[Sequence[int]] = None,
        m: int = 0,
        dnum: int = 0,
        hamming_weight: int = 0,
        security: SecurityArg = 128,
    ) -> None:
        ln = index("log_n", log_n, -(1 << 63), 1 << 63)
        if ln != 0 and not 1 <= ln <= _MAX_LOG_N:
            raise _polyhe.InvalidParameter(
                f"log_n = {ln} is outside [1, {_MAX_LOG_N}] (N = 2^log_n, x^N + 1; or log_n = 0 "
                f"with an odd m for Phi_m)"
            )
        args = dict(
            log_n=ln,
            m=index("m", m, 0, 1 << 40),
            q_bits=int_list("q_bits", q_bits, 0, 64, _MAX_PRIMES, _PRIMES_WHY),
            q=int_list("q", q, 0, (1 << 64) - 1, _MAX_PRIMES, _PRIMES_WHY),
            p_bits=int_list("p_bits", p_bits, 0, 64, _MAX_PRIMES, _PRIMES_WHY),
            p=int_list("p", p, 0, (1 << 64) - 1, _MAX_PRIMES, _PRIMES_WHY),
            dnum=index("dnum", dnum, 0, 1 << 20),
            hamming_weight=index("hamming_weight", hamming_weight, 0, 1 << 40),
            security=security_name(security),
        )
        try:
            native = _polyhe.Parameters(**args)
        except _polyhe.Error as e:
            raise pythonic(e) from None
        self._native = native
        _register(self)

    @classmethod
    def _adopt(cls, native: "_polyhe.Parameters") -> "Parameters":
        """The live Parameters of this native object's hash, or a new one around it."""
        with _live_lock:
            found = _live.get(native.hash)
            if found is not None:
                return found
            obj = cls.__new__(cls)
            obj._native = native
            _live[native.hash] = obj
            return obj

    # --- what the set is ---------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Coefficients of a ring element (N = 2^log_n, or φ(m))."""
        return self._native.n

    @property
    def log_n(self) -> int:
        """log2(N) for x^N + 1; 0 for an odd m."""
        return self._native.log_n

    @property
    def m(self) -> int:
        """The cyclotomic index: 2N for x^N + 1, else the odd m."""
        return self._native.m

    @property
    def max_level(self) -> int:
        """L: a fresh ciphertext has L + 1 primes."""
        return self._native.max_level

    @property
    def q_primes(self) -> list:
        """The ciphertext primes q_0..q_L."""
        return list(self._native.q_primes)

    @property
    def p_primes(self) -> list:
        """The special primes of key switching."""
        return list(self._native.p_primes)

    @property
    def dnum(self) -> int:
        """The digits Q is split into for key switching."""
        return self._native.dnum

    @property
    def hamming_weight(self) -> int:
        """0 for a uniform ternary secret, else its exact number of nonzero coefficients."""
        return self._native.hamming_weight

    @property
    def security(self) -> str:
        """'128', '192', '256' or 'none'."""
        return self._native.security

    @property
    def log_qp(self) -> int:
        """bit_length(Q·P): what the security table bounds."""
        return self._native.log_qp

    @property
    def hash(self) -> int:
        """The 64-bit parameter hash stamped into every serialised object."""
        return self._native.hash

    # --- bytes and pickle --------------------------------------------------------------------
    def serialize(self) -> bytes:
        """polyhe's binary form (header, hash, the fields; rlwe/serial.hpp)."""
        return self._native.serialize()

    def to_bytes(self) -> bytes:
        """The same as :meth:`serialize`."""
        return self._native.serialize()

    @classmethod
    def load(cls, data: bytes, minimum_security: SecurityArg = 128) -> "Parameters":
        """Parameters from :meth:`serialize`'s bytes, refused (InsecureParameters) when the stored
        level is below ``minimum_security`` — a file cannot lower the bar by declaring itself
        insecure; pass ``"none"`` to accept any level by name. Malformed bytes raise
        :class:`polyhe.CorruptData`. The set already alive in this process is reused."""
        data = byteslike("data", data)
        try:
            native = _polyhe.Parameters.load(data, security_name(minimum_security))
        except _polyhe.Error as e:
            raise pythonic(e) from None
        return cls._adopt(native)

    from_bytes = load

    def __reduce__(self):
        return (_unpickle_parameters, (self.serialize(),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Parameters) and other.hash == self.hash

    def __hash__(self) -> int:
        return hash(self._native.hash)

    def __repr__(self) -> str:
        q = self._native.q_primes
        bits = [int(x).bit_length() for x in q]
        pbits = [int(x).bit_length() for x in self._native.p_primes]
        ring = f"log_n={self.log_n}" if self.log_n else f"m={self.m}"
        return (
            f"polyhe.Parameters({ring}, q_bits={bits}, p_bits={pbits}, dnum={self.dnum}, "
            f"security={self.security!r}, log_qp={self.log_qp})"
        )


def _register(obj: Parameters) -> None:
    with _live_lock:
        # A set built again with the same values keeps its own native object (the caller made it
        # on purpose); unpickling and loading find the first one alive.
        _live.setdefault(obj._native.hash, obj)


def _unpickle_parameters(data: bytes) -> Parameters:
    # Pickles travel between the caller's own processes (pickle runs code: never unpickle
    # untrusted bytes); the level stored is accepted as it is. Parameters.load applies a policy.
    return from_trusted_bytes(data)


# The bytes of every parameter set unpickled here, to the set alive: every unpickled ciphertext
# carries its set's bytes, and building a set again costs milliseconds (4 ms at N = 2^14), more
# than loading the ciphertext itself. Equal bytes are equal sets; the entry goes with the set.
_by_bytes: "weakref.WeakValueDictionary[bytes, Parameters]" = weakref.WeakValueDictionary()


def from_trusted_bytes(data: bytes) -> Parameters:
    """The live set of these serialised bytes (pickles between the caller's own processes: any
    stored security level is accepted), built once per process while it is alive."""
    data = bytes(data)
    with _live_lock:
        found = _by_bytes.get(data)
    if found is not None:
        return found
    params = Parameters.load(data, "none")
    with _live_lock:
        _by_bytes[data] = params
    return params

