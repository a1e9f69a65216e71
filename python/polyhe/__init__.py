"""polyhe: the arithmetic of lattice homomorphic encryption — NTTs, polynomial products over many
RNS primes, and RNS-CKKS, BFV and BGV on top — from Python, over numpy arrays.

* :mod:`polyhe.ckks` — encrypted real/complex vectors (approximate arithmetic).
* :mod:`polyhe.bgv` — encrypted integer vectors mod t: BGV and BFV.
* :mod:`polyhe.arith` — NTT plans, negacyclic and cyclic transforms, polynomial products.
* :mod:`polyhe.distributed` — the same computations over many ciphertexts on Ray workers.
* :class:`Parameters` — the RLWE parameter sets both schemes are built on.

Errors are :class:`Error` subclasses; those about values are also ``ValueError``. Every heavy call
releases the GIL, so Python threads run in parallel; :func:`set_threads` sizes polyhe's own pool
and :func:`set_cpu_path` picks the CPU kernels (``POLYHE_THREADS`` and ``POLYHE_CPU`` too).
"""

from polyhe._polyhe import (
    CorruptData,
    DeviceError,
    Error,
    InsecureParameters,
    InvalidParameter,
    MismatchedContext,
    __version__,
    best_cpu_path_reason,
    cpu_path,
    cpu_paths,
)
from polyhe._polyhe import authenticate as _authenticate
from polyhe._polyhe import generate_mac_key as _generate_mac_key
from polyhe._polyhe import verify as _verify
from polyhe._polyhe import set_cpu_path as _set_cpu_path
from polyhe._polyhe import set_threads as _set_threads
from polyhe._polyhe import threads
from polyhe._context import FormatWarning
from polyhe._checks import as_bytes as _as_bytes
from polyhe._checks import index as _index
from polyhe.parameters import Parameters
from polyhe._device import Device, cuda_compiled, device, gpus
from polyhe import arith, bgv, ckks

__all__ = [
    "Error",
    "InvalidParameter",
    "InsecureParameters",
    "MismatchedContext",
    "CorruptData",
    "DeviceError",
    "FormatWarning",
    "Parameters",
    "Device",
    "device",
    "gpus",
    "cuda_compiled",
    "arith",
    "bgv",
    "ckks",
    "cpu_path",
    "cpu_paths",
    "set_cpu_path",
    "best_cpu_path_reason",
    "threads",
    "set_threads",
    "generate_mac_key",
    "authenticate",
    "verify",
    "__version__",
]


def set_threads(n: int) -> None:
    """Sizes polyhe's thread pool (1 ≤ n ≤ 1024); the API form of ``POLYHE_THREADS``."""
    _set_threads(_index("threads", n, 1, 1024))


def set_cpu_path(name: str) -> None:
    """Picks the CPU kernels for the whole process: 'scalar', 'avx2', 'avx512' or 'ifma' (a path
    this CPU lacks is refused with the reason); the API form of ``POLYHE_CPU``."""
    if not isinstance(name, str):
        raise TypeError(f"set_cpu_path: expected a path name, got {type(name).__name__}")
    _set_cpu_path(name)


def generate_mac_key() -> bytes:
    """A fresh 32-byte key for :func:`authenticate` / :func:`verify`, from the operating system's
    CSPRNG (libsodium). The key is the caller's secret."""
    return _generate_mac_key()


def authenticate(data: bytes, key: bytes) -> bytes:
    """``data`` followed by its 32-byte keyed BLAKE2b-256 tag under ``key``: integrity and
    authenticity between holders of the key, not secrecy (the bytes stay readable). Use it on any
    serialised object (``ct.serialize()``, ``ctx.public().serialize()``, …)."""
    return _authenticate(_as_bytes("data", data), _as_bytes("key", key))


def verify(sealed: bytes, key: bytes) -> bytes:
    """The object bytes of ``sealed`` when its tag is right under ``key`` (compared in constant
    time); :class:`CorruptData` ("authentication failed") for changed, truncated or extended
    bytes or another key. Load what it returns with the usual ``load`` functions."""
    return _verify(_as_bytes("sealed", sealed), _as_bytes("key", key))

