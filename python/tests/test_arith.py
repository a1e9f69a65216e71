"""polyhe.arith against slow, obviously correct references in plain Python ints.

Every random input comes from a numpy Generator seeded with SEED (POLYHE_TEST_SEED overrides
it); the seed is printed, so a failure's captured output names the seed that replays it.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from polyhe._polyhe import InvalidParameter, cpu_path, cpu_paths, set_cpu_path
from polyhe._polyhe import arith as lowlevel
from polyhe.arith import (
    DECOMPOSITIONS,
    CyclicNttPlan,
    CyclotomicRing,
    NttPlan,
    cyclotomic_polynomial,
    is_prime,
    ntt_primes,
    polymul,
)

SEED = int(os.environ.get("POLYHE_TEST_SEED", "20251126"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    seed = SEED + sum(request.node.name.encode())  # distinct per test, replayable
    print(f"seed = {seed} (POLYHE_TEST_SEED = {SEED})")
    return np.random.default_rng(seed)


# ---- references ----------------------------------------------------------------------------------


def ref_is_prime(n: int) -> bool:
    """Miller–Rabin with the first twelve primes as bases: exact below 3.3·10^24."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prime_1_mod(L: int, bits: int) -> int:
    """The largest prime q ≡ 1 mod L below 2^bits (the reference test, not polyhe's)."""
    q = ((1 << bits) - 2) // L * L + 1
    while not ref_is_prime(q):
        q -= L
    assert q.bit_length() == bits
    return q


def randoms(rng: np.random.Generator, q: int, shape) -> np.ndarray:
    return rng.integers(0, q, size=shape, dtype=np.uint64)


def ints(a) -> list:
    return [int(v) for v in np.asarray(a).reshape(-1)]


def poly_eval(a, x: int, q: int) -> int:
    r = 0
    for c in reversed(ints(a)):
        r = (r * x + c) % q
    return r


def bit_reverse(i: int, bits: int) -> int:
    return int(format(i, f"0{bits}b")[::-1], 2) if bits else 0


def ref_negacyclic(a, b, q: int) -> list:
    """Schoolbook a·b mod (x^n + 1, q)."""
    a, b = ints(a), ints(b)
    n = len(a)
    c = [0] * n
    for i in range(n):
        for j in range(n):
            if i + j < n:
                c[i + j] += a[i] * b[j]
            else:
                c[i + j - n] -= a[i] * b[j]
    return [v % q for v in c]


def ref_negacyclic_ntt(a, psi: int, q: int) -> list:
    """â[i] = a(ψ^(2·br(i)+1)): the order NttPlan.forward documents."""
    n = len(a)
    return [poly_eval(a, pow(psi, 2 * bit_reverse(i, n.bit_length() - 1) + 1, q), q)
            for i in range(n)]


def ref_dft(a, omega: int, q: int) -> list:
    """X[k] = Σ_j a[j]·ω^(jk) mod q, directly."""
    a = ints(a)
    n = len(a)
    w = [pow(omega, t, q) for t in range(n)]
    return [sum(a[j] * w[j * k % n] for j in range(n)) % q for k in range(n)]


def ref_dft_at(a, omega: int, q: int, k: int) -> int:
    return poly_eval(a, pow(omega, k, q), q)


def ref_poly_mul(a: list, b: list) -> list:
    c = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            c[i + j] += x * y
    return c


def ref_poly_divmod(num: list, den: list) -> tuple[list, list]:
    """Exact division over Z by a monic den (lowest degree first)."""
    num = list(num)
    d = len(den) - 1
    quo = [0] * max(len(num) - d, 1)
    for i in range(len(num) - 1, d - 1, -1):
        c = num[i]
        quo[i - d] = c
        for j, f in enumerate(den):
            num[i - d + j] -= c * f
    return quo, num[:d]


def ref_cyclotomic(m: int) -> list:
    """Φ_m = (x^m − 1) / Π_{d | m, d < m} Φ_d."""
    poly = [-1] + [0] * (m - 1) + [1]
    for d in range(1, m):
        if m % d == 0:
            poly, rem = ref_poly_divmod(poly, ref_cyclotomic(d))
            assert not any(rem)
    while len(poly) > 1 and poly[-1] == 0:
        poly.pop()
    return poly


def ref_ring_mul(a, b, phi: list, q: int) -> list:
    _, rem = ref_poly_divmod(ref_poly_mul(ints(a), ints(b)), phi)
    return [v % q for v in rem]


# ---- primes --------------------------------------------------------------------------------------


def test_is_prime_matches_reference() -> None:
    for n in range(0, 3000):
        assert is_prime(n) == ref_is_prime(n), n
    special = [
        (1 << 61) - 1, (1 << 64) - 59, 561, 1105, 3215031751, 3825123056546413051,
        (1 << 64) - 1, 18446744073709551557 - 2, 4611686018427387903,
    ]
    for n in special:
        assert is_prime(n) == ref_is_prime(n), n
    assert is_prime(np.uint64(97)) is True


@pytest.mark.parametrize("bits,n,count", [(30, 2, 3), (30, 4096, 4), (50, 1024, 3),
                                          (60, 8192, 2), (62, 1 << 17, 1)])
def test_ntt_primes_are_ntt_friendly(bits: int, n: int, count: int) -> None:
    qs = ntt_primes(bits, n, count)
    assert isinstance(qs, list) and len(qs) == count and len(set(qs)) == count
    assert qs == sorted(qs, reverse=True)
    for q in qs:
        assert isinstance(q, int) and q.bit_length() == bits
        assert q % (2 * n) == 1 and ref_is_prime(q)
    # Largest first: no prime ≡ 1 mod 2n lies above the first one.
    top = ((1 << bits) - 2) // (2 * n) * (2 * n) + 1
    assert all(not ref_is_prime(c) for c in range(top, qs[0], -2 * n))


def test_ntt_primes_exactly_the_largest() -> None:
    expected = [c for c in range((1 << 20) - 1, 1 << 19, -1) if c % 16 == 1 and ref_is_prime(c)]
    assert ntt_primes(20, 8, 6) == expected[:6]


# ---- the negacyclic NTT --------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [30, 50, 60])
@pytest.mark.parametrize("n", [2, 4, 8, 32, 64])
def test_forward_matches_evaluation_in_bit_reversed_order(rng, n: int, bits: int) -> None:
    q = ntt_primes(bits, n, 1)[0]
    plan = NttPlan(n, q)
    assert (plan.n, plan.q) == (n, q)
    assert pow(plan.psi, n, q) == q - 1  # a primitive 2n-th root
    a = randoms(rng, q, n)
    got = plan.forward(a)
    assert got.dtype == np.uint64 and got.shape == (n,)
    assert ints(got) == ref_negacyclic_ntt(a, plan.psi, q)
    assert ints(plan.inverse(got)) == ints(a)


def test_known_answers() -> None:
    plan = NttPlan(4, 17)  # ψ = 2: 2^4 = 16 ≡ −1 mod 17
    assert plan.psi == 2
    assert ints(plan.forward([1, 0, 0, 0])) == [1, 1, 1, 1]
    assert ints(plan.forward([0, 0, 0, 0])) == [0, 0, 0, 0]
    q1 = [16, 16, 16, 16]
    assert ints(plan.forward(q1)) == ref_negacyclic_ntt(q1, 2, 17)
    assert ints(plan.multiply([0, 1, 0, 0], [0, 0, 0, 1])) == [16, 0, 0, 0]  # x·x^3 = −1


@pytest.mark.parametrize("bits", [30, 50, 60])
@pytest.mark.parametrize("n", [2, 8, 64])
def test_multiply_matches_schoolbook(rng, n: int, bits: int) -> None:
    q = ntt_primes(bits, n, 1)[0]
    plan = NttPlan(n, q)
    for _ in range(3):
        a, b = randoms(rng, q, n), randoms(rng, q, n)
        expected = ref_negacyclic(a, b, q)
        assert ints(plan.multiply(a, b)) == expected
        assert ints(plan.multiply(a, b, fused=True)) == expected
        assert ints(polymul(a, b, q)) == expected
        assert ints(polymul(a, b, q, fused=True)) == expected
    edge = np.array([q - 1] * n, dtype=np.uint64)
    assert ints(plan.multiply(edge, edge)) == ref_negacyclic(edge, edge, q)


@pytest.mark.parametrize("bits", [30, 50, 60])
@pytest.mark.parametrize("n", [4096, 1 << 14])
def test_large_n(rng, n: int, bits: int) -> None:
    """Round trip, sampled outputs against direct evaluation, the convolution theorem, and the
    product checked at primitive 2n-th roots found independently (where x^n + 1 vanishes)."""
    q = ntt_primes(bits, n, 1)[0]
    plan = NttPlan(n, q)
    a, b = randoms(rng, q, n), randoms(rng, q, n)
    fa, fb = plan.forward(a), plan.forward(b)
    assert ints(plan.inverse(fa)) == ints(a)
    for i in rng.integers(0, n, 3):
        x = pow(plan.psi, 2 * bit_reverse(int(i), n.bit_length() - 1) + 1, q)
        assert int(fa[i]) == poly_eval(a, x, q)
    hadamard = np.array([int(x) * int(y) % q for x, y in zip(fa, fb)], dtype=np.uint64)
    c = plan.multiply(a, b)
    assert np.array_equal(plan.inverse(hadamard), c)
    assert np.array_equal(plan.multiply(a, b, fused=True), c)
    g = next(g for g in range(2, q) if pow(g, (q - 1) // 2, q) == q - 1)  # a non-residue
    root = pow(g, (q - 1) // (2 * n), q)
    for e in (1, 2 * n - 1, 2 * int(rng.integers(0, n)) + 1):
        x = pow(root, e, q)
        assert poly_eval(c, x, q) == poly_eval(a, x, q) * poly_eval(b, x, q) % q


def test_custom_psi(rng) -> None:
    n, q = 16, ntt_primes(30, 16, 1)[0]
    default = NttPlan(n, q)
    other = pow(default.psi, 3, q)  # odd powers of ψ are primitive 2n-th roots too
    plan = NttPlan(n, q, psi=other)
    assert plan.psi == other
    a = randoms(rng, q, n)
    assert ints(plan.forward(a)) == ref_negacyclic_ntt(a, other, q)
    with pytest.raises(InvalidParameter):
        NttPlan(n, q, psi=pow(default.psi, 2, q))  # a 2n-th root that is not primitive


def test_batches_are_row_wise(rng) -> None:
    n, q = 256, ntt_primes(50, 256, 1)[0]
    plan = NttPlan(n, q)
    a, b = randoms(rng, q, (5, n)), randoms(rng, q, (5, n))
    fa = plan.forward(a)
    assert fa.shape == (5, n) and fa.dtype == np.uint64
    for r in range(5):
        assert np.array_equal(fa[r], plan.forward(a[r]))
    assert np.array_equal(plan.inverse(fa), a)
    c = plan.multiply(a, b)
    assert c.shape == (5, n)
    assert np.array_equal(plan.multiply(a, b, fused=True), c)
    assert np.array_equal(polymul(a, b, q), c)
    for r in range(5):
        assert np.array_equal(c[r], plan.multiply(a[r], b[r]))
    small = NttPlan(8, 17)
    x, y = randoms(rng, 17, (3, 8)), randoms(rng, 17, (3, 8))
    assert [ints(r) for r in small.multiply(x, y)] == [
        ref_negacyclic(x[r], y[r], 17) for r in range(3)]
    empty = np.zeros((0, n), dtype=np.uint64)
    assert plan.forward(empty).shape == (0, n)
    assert plan.multiply(empty, empty).shape == (0, n)


def test_input_types_are_converted(rng) -> None:
    n, q = 8, 97
    plan = NttPlan(n, q)
    a = randoms(rng, q, n)
    expected = plan.forward(a)
    assert ints(expected) == ref_negacyclic_ntt(a, plan.psi, q)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64):
        assert np.array_equal(plan.forward(a.astype(dtype)), expected), dtype
    assert np.array_equal(plan.forward(ints(a)), expected)
    assert np.array_equal(plan.forward(tuple(ints(a))), expected)
    assert np.array_equal(plan.forward(np.asfortranarray(np.stack([a, a]))[1]), expected)
    assert np.array_equal(plan.forward(np.repeat(a, 2)[::2]), expected)  # strided
    big = ntt_primes(62, 8, 1)[0]
    values = [big - 1, big - 2] * 4  # near 2^62 from Python ints: read exactly
    assert ints(NttPlan(8, big).inverse(NttPlan(8, big).forward(values))) == values
    before = a.copy()
    plan.forward(a)
    assert np.array_equal(a, before)  # without out, the input is left alone


def test_in_place_is_zero_copy(rng) -> None:
    n, q = 64, ntt_primes(60, 64, 1)[0]
    plan = NttPlan(n, q)
    a = randoms(rng, q, n)
    original = a.copy()
    expected = plan.forward(original)
    pointer = a.ctypes.data
    got = plan.forward(a, out=a)
    assert got is a and a.ctypes.data == pointer
    assert np.shares_memory(got, a)
    assert np.array_equal(a, expected)
    assert plan.inverse(a, out=a) is a
    assert np.array_equal(a, original)
    out = np.empty(n, dtype=np.uint64)
    assert plan.forward(original, out=out) is out
    assert np.array_equal(out, expected) and np.array_equal(original, plan.inverse(expected))
    # Rows of a batch in place, and a row view of a larger buffer.
    batch = randoms(rng, q, (3, n))
    copy = batch.copy()
    assert plan.forward(batch, out=batch) is batch
    assert np.array_equal(batch, plan.forward(copy))
    row = batch[1]
    assert plan.inverse(row, out=row) is row
    assert np.array_equal(batch[1], copy[1])
    # A list with out=: converted into out.
    target = np.zeros(n, dtype=np.uint64)
    assert plan.forward(ints(original), out=target) is target
    assert np.array_equal(target, expected)


def test_cyclic_in_place(rng) -> None:
    n = 12
    q = prime_1_mod(n, 30)
    plan = CyclicNttPlan(n, q)
    a = randoms(rng, q, (2, n))
    expected = plan.forward(a)
    assert plan.forward(a, out=a) is a
    assert np.array_equal(a, expected)
    assert np.shares_memory(plan.inverse(a[0], out=a[0]), a)


def test_polymul_caches_plans(rng) -> None:
    from polyhe.arith import _cached_plan

    q = ntt_primes(40, 32, 1)[0]
    a, b = randoms(rng, q, 32), randoms(rng, q, 32)
    first = polymul(a, b, q)
    hits = _cached_plan.cache_info().hits
    assert np.array_equal(polymul(a, b, q), first)
    assert _cached_plan.cache_info().hits == hits + 1
    assert ints(first) == ref_negacyclic(a, b, q)


@pytest.mark.parametrize("path", cpu_paths())
def test_every_cpu_path(rng, path: str) -> None:
    """The kernels of each CPU path this machine runs, against the references."""
    previous = cpu_path()
    set_cpu_path(path)
    try:
        for n, bits in ((64, 30), (64, 50), (64, 60), (1024, 60)):
            q = ntt_primes(bits, n, 1)[0]
            plan = NttPlan(n, q)
            a, b = randoms(rng, q, (2, n)), randoms(rng, q, (2, n))
            fa = plan.forward(a)
            assert ints(fa[0][:8]) == ref_negacyclic_ntt(a[0], plan.psi, q)[:8]
            assert np.array_equal(plan.inverse(fa), a)
            if n == 64:
                assert ints(plan.multiply(a[1], b[1])) == ref_negacyclic(a[1], b[1], q)
                assert ints(plan.multiply(a, b, fused=True)[1]) == ref_negacyclic(a[1], b[1], q)
        q = prime_1_mod(21 * 1024, 50)
        x = randoms(rng, q, 21)
        assert ints(CyclicNttPlan(21, q).forward(x)) == ref_dft(x, CyclicNttPlan(21, q).omega, q)
    finally:
        set_cpu_path(previous)


def test_threads_share_a_plan(rng) -> None:
    """The GIL is released: many Python threads on one plan give the single-thread words."""
    n, q = 1024, ntt_primes(50, 1024, 1)[0]
    plan = NttPlan(n, q)
    inputs = [randoms(rng, q, (4, n)) for _ in range(8)]
    expected = [plan.multiply(x, x[::-1].copy()) for x in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda x: plan.multiply(x, x[::-1].copy()), inputs))
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))
    assert threading.active_count() >= 1


# ---- the cyclic NTT ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5, 12, 16, 17, 21, 35, 45, 97, 255, 257])
@pytest.mark.parametrize("bits", [30, 50, 60])
def test_cyclic_matches_direct_dft(rng, n: int, bits: int) -> None:
    q = prime_1_mod(n * 1024, bits)  # room for the power-of-two roots Rader and Bluestein want
    plan = CyclicNttPlan(n, q)
    assert (plan.n, plan.q) == (n, q)
    assert pow(plan.omega, n, q) == 1
    assert all(pow(plan.omega, n // p, q) != 1 for p in range(2, n + 1)
               if n % p == 0 and ref_is_prime(p))
    assert isinstance(plan.describe(), str) and plan.describe()
    assert plan.kind in DECOMPOSITIONS and isinstance(plan.flattened, bool)
    a = randoms(rng, q, n)
    got = plan.forward(a)
    assert got.dtype == np.uint64 and ints(got) == ref_dft(a, plan.omega, q)
    assert np.array_equal(plan.inverse(got), a)
    batch = randoms(rng, q, (3, n))
    fb = plan.forward(batch)
    for r in range(3):
        assert ints(fb[r]) == ref_dft(batch[r], plan.omega, q)
    assert np.array_equal(plan.inverse(fb), batch)


@pytest.mark.parametrize("n,decomposition", [
    (5, "direct"), (16, "radix2"), (12, "pfa"), (21, "pfa"), (9, "cooley_tukey"),
    (25, "cooley_tukey"), (17, "rader"), (97, "rader"), (17, "rader_padded"),
    (17, "bluestein"), (12, "bluestein"), (35, "automatic")])
def test_cyclic_forced_decompositions(rng, n: int, decomposition: str) -> None:
    q = prime_1_mod(n * 1024, 50)
    plan = CyclicNttPlan(n, q, decomposition=decomposition)
    if decomposition != "automatic":
        assert plan.kind == decomposition
    a = randoms(rng, q, n)
    assert ints(plan.forward(a)) == ref_dft(a, plan.omega, q)
    assert np.array_equal(plan.inverse(plan.forward(a)), a)


def test_cyclic_custom_omega(rng) -> None:
    n = 12
    q = prime_1_mod(n, 30)
    default = CyclicNttPlan(n, q)
    other = pow(default.omega, 5, q)  # gcd(5, 12) = 1: primitive too
    plan = CyclicNttPlan(n, q, omega=other)
    assert plan.omega == other
    a = randoms(rng, q, n)
    assert ints(plan.forward(a)) == ref_dft(a, other, q)
    with pytest.raises(InvalidParameter):
        CyclicNttPlan(n, q, omega=pow(default.omega, 2, q))  # order 6


def test_cyclic_21845(rng) -> None:
    """HElib's m = 5·17·257: sampled outputs against direct evaluation and the convolution
    theorem against the negacyclic-free cyclic product evaluated at random roots."""
    n = 21845
    q = prime_1_mod(n * 256, 50)
    plan = CyclicNttPlan(n, q)
    assert "257" in plan.describe()
    a, b = randoms(rng, q, n), randoms(rng, q, n)
    fa, fb = plan.forward(a), plan.forward(b)
    for k in [0, 1, n - 1, *rng.integers(0, n, 2)]:
        assert int(fa[k]) == ref_dft_at(a, plan.omega, q, int(k))
    assert np.array_equal(plan.inverse(fa), a)
    prod = np.array([int(x) * int(y) % q for x, y in zip(fa, fb)], dtype=np.uint64)
    c = plan.inverse(prod)  # the cyclic convolution a·b mod (x^n − 1)
    for k in rng.integers(0, n, 2):
        x = pow(plan.omega, int(k), q)
        assert poly_eval(c, x, q) == poly_eval(a, x, q) * poly_eval(b, x, q) % q


# ---- cyclotomic rings ----------------------------------------------------------------------------


@pytest.mark.parametrize("m", [1, 2, 3, 4, 6, 12, 15, 30, 105, 210, 64])
def test_cyclotomic_polynomial_matches_reference(m: int) -> None:
    got = cyclotomic_polynomial(m)
    assert isinstance(got, list) and all(isinstance(c, int) for c in got)
    assert got == ref_cyclotomic(m)
    assert len(got) - 1 == sum(1 for k in range(1, m + 1) if math.gcd(k, m) == 1)


def test_cyclotomic_polynomial_known() -> None:
    assert cyclotomic_polynomial(1) == [-1, 1]
    assert cyclotomic_polynomial(8) == [1, 0, 0, 0, 1]
    assert min(cyclotomic_polynomial(105)) == -2
    assert len(cyclotomic_polynomial(21845)) == 4 * 16 * 256 + 1


@pytest.mark.parametrize("m", [3, 15, 21, 45, 105, 4, 16, 64])
@pytest.mark.parametrize("bits", [30, 60])
def test_ring_multiply_and_slots(rng, m: int, bits: int) -> None:
    L = m * 1024 if m % 2 else m
    q = prime_1_mod(L, bits)
    ring = CyclotomicRing(m, q)
    phi_int = cyclotomic_polynomial(m)
    d = len(phi_int) - 1
    assert (ring.m, ring.degree, ring.q) == (m, d, q)
    assert ring.phi == [c % q for c in phi_int]
    assert ring.slot_exponents == [k for k in range(1, m) if math.gcd(k, m) == 1]
    w = ring.omega
    assert pow(w, m, q) == 1 and all(pow(w, m // p, q) != 1 for p in range(2, m + 1)
                                     if m % p == 0 and ref_is_prime(p))
    a, b = randoms(rng, q, d), randoms(rng, q, d)
    c = ring.multiply(a, b)
    assert c.dtype == np.uint64 and ints(c) == ref_ring_mul(a, b, phi_int, q)
    slots = ring.to_slots(a)
    assert ints(slots) == [poly_eval(a, pow(w, k, q), q) for k in ring.slot_exponents]
    assert np.array_equal(ring.from_slots(slots), a)
    sb = ring.to_slots(b)
    assert ints(ring.to_slots(c)) == [int(x) * int(y) % q for x, y in zip(slots, sb)]
    # Batches, row by row.
    A, B = randoms(rng, q, (3, d)), randoms(rng, q, (3, d))
    C = ring.multiply(A, B)
    S = ring.to_slots(A)
    assert C.shape == S.shape == (3, d)
    for r in range(3):
        assert np.array_equal(C[r], ring.multiply(A[r], B[r]))
        assert np.array_equal(S[r], ring.to_slots(A[r]))
    assert np.array_equal(ring.from_slots(S), A)


def test_ring_21845(rng) -> None:
    m = 21845
    q = prime_1_mod(m * 256, 50)
    ring = CyclotomicRing(m, q)
    d = ring.degree
    assert d == 16384
    a, b = randoms(rng, q, d), randoms(rng, q, d)
    sa, sb = ring.to_slots(a), ring.to_slots(b)
    assert np.array_equal(ring.from_slots(sa), a)
    ks = ring.slot_exponents
    for t in rng.integers(0, d, 2):
        assert int(sa[t]) == poly_eval(a, pow(ring.omega, ks[int(t)], q), q)
    prod = [int(x) * int(y) % q for x, y in zip(sa, sb)]
    assert ints(ring.to_slots(ring.multiply(a, b))) == prod


# ---- bad input -----------------------------------------------------------------------------------


@pytest.fixture
def plan() -> NttPlan:
    return NttPlan(8, 17)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, object, np.bool_])
def test_wrong_dtype_is_type_error(plan: NttPlan, dtype) -> None:
    a = np.zeros(8, dtype=dtype)
    name = np.dtype(dtype).name
    for call in (lambda: plan.forward(a), lambda: plan.inverse(a),
                 lambda: plan.multiply(a, np.zeros(8, np.uint64)),
                 lambda: plan.multiply(np.zeros(8, np.uint64), a),
                 lambda: polymul(a, a, 17)):
        with pytest.raises(TypeError, match=rf"dtype {name}.*integer"):
            call()


def test_wrong_python_values_are_type_error(plan: NttPlan) -> None:
    with pytest.raises(TypeError, match="float64"):
        plan.forward([1.0] * 8)
    with pytest.raises(TypeError, match="object"):
        plan.forward([None] * 8)
    with pytest.raises(TypeError, match="<U1|str"):
        plan.forward(["a"] * 8)
    with pytest.raises(TypeError):
        NttPlan(8.0, 17)
    with pytest.raises(TypeError):
        NttPlan(8, 17, psi="3")
    with pytest.raises(TypeError):
        CyclicNttPlan(12, 13, decomposition=1)
    with pytest.raises(TypeError):
        is_prime(7.0)
    with pytest.raises(TypeError):
        ntt_primes(True, 8, 1)


@pytest.mark.parametrize("shape", [(7,), (9,), (0,), (2, 7), (2, 2, 8), ()])
def test_wrong_shape_is_invalid_parameter(plan: NttPlan, shape) -> None:
    a = np.zeros(shape, dtype=np.uint64)
    pattern = rf"shape {re_shape(shape)}.*\(8,\) or \(rows, 8\)"
    for call in (lambda: plan.forward(a), lambda: plan.inverse(a),
                 lambda: plan.multiply(a, a)):
        with pytest.raises(InvalidParameter, match=pattern):
            call()
    assert issubclass(InvalidParameter, ValueError)


def re_shape(shape) -> str:
    import re

    return re.escape(str(tuple(shape)))


def test_mismatched_operands(plan: NttPlan) -> None:
    with pytest.raises(InvalidParameter, match=r"shapes \(8,\) and \(1, 8\)"):
        plan.multiply(np.zeros(8, np.uint64), np.zeros((1, 8), np.uint64))
    with pytest.raises(InvalidParameter, match=r"shapes \(2, 8\) and \(3, 8\)"):
        plan.multiply(np.zeros((2, 8), np.uint64), np.zeros((3, 8), np.uint64))
    with pytest.raises(InvalidParameter, match="rectangular"):
        plan.forward([[1] * 8, [1] * 7])
    with pytest.raises(InvalidParameter, match="shape"):
        polymul(np.zeros((2, 2, 4), np.uint64), np.zeros((2, 2, 4), np.uint64), 17)


def test_out_of_range_values_name_the_index(plan: NttPlan) -> None:
    a = np.arange(8, dtype=np.int64)
    a[5] = -3
    a[6] = 40
    with pytest.raises(InvalidParameter, match=r"a\[5\] = -3 is outside \[0, q\) with q = 17"):
        plan.forward(a)
    u = np.arange(8, dtype=np.uint64)
    u[2] = 17
    with pytest.raises(InvalidParameter, match=r"a\[2\] = 17 .*q = 17"):
        plan.inverse(u)
    with pytest.raises(InvalidParameter, match=r"b\[2\] = 17"):
        plan.multiply(np.zeros(8, np.uint64), u)
    batch = np.zeros((3, 8), dtype=np.uint64)
    batch[2, 4] = 99
    with pytest.raises(InvalidParameter, match=r"a\[2, 4\] = 99"):
        plan.forward(batch)
    with pytest.raises(InvalidParameter, match=r"a\[1\] = 18446744073709551616"):
        plan.forward([0, 1 << 64] + [0] * 6)
    with pytest.raises(InvalidParameter, match=r"a\[0\] = -1 "):
        plan.forward([-1, 1 << 63] + [0] * 6)  # numpy would read these as float64
    with pytest.raises(InvalidParameter, match=r"a\[3\] = -1"):
        polymul([0, 0, 0, -1], [0, 0, 0, 0], 17)
    before = batch.copy()
    with pytest.raises(InvalidParameter):
        plan.forward(batch, out=batch)
    assert np.array_equal(batch, before)  # refused before any write


def test_bad_out(plan: NttPlan) -> None:
    a = np.zeros(8, dtype=np.uint64)
    with pytest.raises(TypeError, match="out has dtype int64"):
        plan.forward(a, out=np.zeros(8, dtype=np.int64))
    with pytest.raises(TypeError, match="out has dtype >u8"):
        plan.forward(a, out=np.zeros(8, dtype=">u8"))
    with pytest.raises(TypeError, match="numpy array"):
        plan.forward(a, out=[0] * 8)
    with pytest.raises(InvalidParameter, match=r"out has shape \(9,\); expected \(8,\)"):
        plan.forward(a, out=np.zeros(9, dtype=np.uint64))
    with pytest.raises(InvalidParameter, match="C-contiguous"):
        plan.inverse(a, out=np.zeros(16, dtype=np.uint64)[::2])
    frozen = np.zeros(8, dtype=np.uint64)
    frozen.flags.writeable = False
    with pytest.raises(InvalidParameter, match="read-only"):
        plan.forward(frozen, out=frozen)
    assert np.array_equal(plan.forward(frozen), np.zeros(8, np.uint64))  # read-only input is fine


def test_bad_parameters() -> None:
    q = ntt_primes(30, 8, 1)[0]
    with pytest.raises(InvalidParameter, match="12"):
        NttPlan(12, q)  # not a power of two
    with pytest.raises(InvalidParameter):
        NttPlan(8, q + 2)  # not prime or not 1 mod 16
    with pytest.raises(InvalidParameter, match="97"):
        NttPlan(64, 97)  # 97 ≢ 1 mod 128
    with pytest.raises(InvalidParameter, match="-8"):
        NttPlan(-8, q)
    with pytest.raises(InvalidParameter):
        NttPlan(8, 1 << 64)
    with pytest.raises(InvalidParameter):
        polymul([1, 2, 3], [1, 2, 3], 97)  # n = 3
    with pytest.raises(InvalidParameter):
        ntt_primes(1, 8, 1)
    with pytest.raises(InvalidParameter):
        ntt_primes(63, 8, 1)
    with pytest.raises(InvalidParameter):
        ntt_primes(30, 12, 1)
    with pytest.raises(InvalidParameter):
        ntt_primes(8, 64, 5)  # not that many
    with pytest.raises(InvalidParameter, match="-1"):
        is_prime(-1)
    with pytest.raises(InvalidParameter):
        cyclotomic_polynomial(0)
    with pytest.raises(InvalidParameter, match="unknown decomposition 'fft'"):
        CyclicNttPlan(12, 13, decomposition="fft")
    with pytest.raises(InvalidParameter):
        CyclicNttPlan(12, 17)  # 17 ≢ 1 mod 12
    with pytest.raises(InvalidParameter):
        CyclicNttPlan(12, 13, decomposition="radix2")  # 12 is not a power of two
    with pytest.raises(InvalidParameter):
        CyclotomicRing(12, 13)  # even, not a power of two
    with pytest.raises(InvalidParameter):
        CyclotomicRing(15, 17)  # 17 ≢ 1 mod 15


def test_cyclic_and_ring_bad_input(rng) -> None:
    q = prime_1_mod(12, 30)
    cyc = CyclicNttPlan(12, q)
    with pytest.raises(TypeError, match="float64"):
        cyc.forward(np.zeros(12))
    with pytest.raises(InvalidParameter, match=r"shape \(13,\)"):
        cyc.inverse(np.zeros(13, np.uint64))
    with pytest.raises(InvalidParameter, match=rf"a\[1, 0\] = {q} .*q = {q}"):
        cyc.forward(np.array([[0] * 12, [q] + [0] * 11], dtype=np.uint64))
    ring = CyclotomicRing(15, prime_1_mod(15 * 1024, 30))
    with pytest.raises(TypeError, match="complex128"):
        ring.to_slots(np.zeros(8, np.complex128))
    with pytest.raises(InvalidParameter, match=r"shape \(15,\).*\(8,\)"):
        ring.multiply(np.zeros(15, np.uint64), np.zeros(15, np.uint64))
    with pytest.raises(InvalidParameter, match=r"v\[0\] = -2"):
        ring.from_slots([-2] + [0] * 7)
    with pytest.raises(InvalidParameter, match=r"shapes \(8,\) and \(2, 8\)"):
        ring.multiply(np.zeros(8, np.uint64), np.zeros((2, 8), np.uint64))


def test_low_level_module_checks_too() -> None:
    """The native module itself refuses values ≥ q and wrong types (no crash without the
    Python layer's checks)."""
    plan = lowlevel.NttPlan(8, 17, None)
    a = np.full(8, 17, dtype=np.uint64)
    with pytest.raises(InvalidParameter, match=r"a\[0\] = 17"):
        plan.forward(a)
    with pytest.raises(InvalidParameter, match=r"a\[0, 0\] = 17"):
        plan.forward_rows(a.reshape(1, 8))
    with pytest.raises(InvalidParameter, match=r"expected \(rows, 8\)"):
        plan.forward_rows(np.zeros((2, 4), np.uint64))
    with pytest.raises(InvalidParameter, match="expected n = 8"):
        plan.multiply(np.zeros(4, np.uint64), np.zeros(4, np.uint64), False)
    with pytest.raises(TypeError):
        plan.forward(np.zeros(8, dtype=np.int64))  # noconvert: never a silent temporary
    with pytest.raises(TypeError):
        plan.forward(np.zeros(16, dtype=np.uint64)[::2])
    ring = lowlevel.CyclotomicRing(15, 31)
    with pytest.raises(InvalidParameter, match="degree"):
        ring.to_slots(np.zeros(15, np.uint64))
    cyc = lowlevel.CyclicNttPlan(5, 11, None, "automatic")
    with pytest.raises(InvalidParameter, match=r"a\[4\] = 11"):
        cyc.forward(np.array([0, 0, 0, 0, 11], dtype=np.uint64))


def test_reprs() -> None:
    assert repr(NttPlan(4, 17)) == "NttPlan(n=4, q=17, psi=2)"
    assert repr(CyclotomicRing(4, 17)) == "CyclotomicRing(m=4, q=17)"
    assert repr(CyclicNttPlan(4, 17)).startswith("CyclicNttPlan(n=4, q=17, omega=")
