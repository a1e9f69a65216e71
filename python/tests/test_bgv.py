"""polyhe.bgv: BGV and BFV from Python — encoding, encryption, the operators against numpy's
arithmetic mod t, rotations, modulus switching, bytes, pickling (also into a fresh process) and
every refusal, with its exception type and message."""

from __future__ import annotations

import doctest
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import polyhe
from polyhe import bgv

T = 65537
LOG_N = 12
N = 1 << LOG_N
ROW = N // 2
# Toy sizes for speed (log2 QP = 220 at N = 2^12 is far from 128-bit secure): opted out by name.
TOY = dict(log_n=LOG_N, q_bits=[50, 40, 40, 40], p_bits=[50], security="none")
ROTATIONS = [1, -3, 5]


def centred(a, t: int = T) -> np.ndarray:
    """a mod t as decrypt(signed=True) gives it: in [−⌊t/2⌋, ⌈t/2⌉)."""
    r = np.mod(np.asarray(a, dtype=np.int64), t)
    return np.where(r >= t - t // 2, r - t, r)


@pytest.fixture(scope="module")
def toy_params():
    return polyhe.Parameters(**TOY)


@pytest.fixture(scope="module", params=["bgv", "bfv"])
def ctx(request, toy_params):
    c = bgv.Context(toy_params, t=T, scheme=request.param)
    c.generate_keys(rotations=ROTATIONS, conjugation=True)
    return c


@pytest.fixture(scope="module")
def bgv_ctx(toy_params):
    return bgv.Context(toy_params, t=T, scheme="bgv").generate_keys(rotations=[1])


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


def rand(rng, n: int = N, lo: int = -(T // 2), hi: int = T // 2) -> np.ndarray:
    return rng.integers(lo, hi, size=n, dtype=np.int64)


# --- the context -----------------------------------------------------------------------------


def test_defaults_and_docstring_example():
    ctx = bgv.Context()
    assert (ctx.t, ctx.scheme, ctx.batching, ctx.slots, ctx.row_size) == (T, "bgv", True, 16384, 8192)
    p = ctx.params
    assert p.n == 1 << 14 and p.security == "128" and p.max_level == ctx.max_level == 7
    assert [int(q).bit_length() for q in p.q_primes] == list(bgv.DEFAULT_Q_BITS)
    assert [int(q).bit_length() for q in p.p_primes] == list(bgv.DEFAULT_P_BITS)
    assert p.log_qp <= 438
    # The module docstring's example runs as written (at the defaults).
    result = doctest.testmod(bgv, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


def test_context_properties(ctx, toy_params):
    assert ctx.t == T and ctx.scheme in ("bgv", "bfv")
    assert ctx.params is toy_params and ctx.max_level == 3
    assert ctx.slots == N and ctx.row_size == ROW and ctx.batching
    assert ctx.has_secret_key and ctx.has_public_key and ctx.has_relinearization_key
    n2 = 2 * N
    assert set(ctx.galois_elements) == {pow(5, s % ROW, n2) for s in ROTATIONS} | {n2 - 1}
    assert f"'{ctx.scheme}'" in repr(ctx)


def test_insecure_toy_sizes_need_opting_out():
    with pytest.raises(polyhe.InsecureParameters):
        bgv.Context(log_n=LOG_N, q_bits=TOY["q_bits"], p_bits=TOY["p_bits"])


def test_context_argument_errors(toy_params):
    with pytest.raises(polyhe.InvalidParameter, match="plaintext modulus t = 1"):
        bgv.Context(toy_params, t=1)
    with pytest.raises(polyhe.InvalidParameter, match="'ckks' is not one of 'bgv', 'bfv'"):
        bgv.Context(toy_params, scheme="ckks")
    with pytest.raises(TypeError, match="scheme: expected 'bgv' or 'bfv'"):
        bgv.Context(toy_params, scheme=None)
    with pytest.raises(TypeError, match="params: expected polyhe.Parameters"):
        bgv.Context("params")
    with pytest.raises(TypeError, match="t: expected an integer"):
        bgv.Context(toy_params, t=65537.0)


# --- encoding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_encode_decode_dtypes(ctx, rng, dtype):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -(T // 2)), min(int(info.max), T - 1)
    v = rng.integers(lo, hi, size=N, endpoint=True).astype(dtype)
    pt = ctx.encode(v)
    assert pt.encoding == "slots" and pt.length == N
    np.testing.assert_array_equal(ctx.decode(pt), centred(v.astype(np.int64)))
    unsigned = ctx.decode(pt, signed=False)
    assert unsigned.dtype == np.uint64
    np.testing.assert_array_equal(unsigned, np.mod(v.astype(np.int64), T).astype(np.uint64))


def test_encode_decode_signed_range_and_lists(ctx):
    edges = [0, 1, -1, T // 2, -(T // 2), T - 1, T // 2 + 1]
    out = ctx.encode(edges).decode()
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [0, 1, -1, T // 2, -(T // 2), -1, -(T // 2)])
    # Python ints beyond 64 bits are refused by value, not by overflow.
    with pytest.raises(polyhe.InvalidParameter, match=r"values\[1\] = 340282366920938463463374607431768211456"):
        ctx.encode([1, 2**128])
    assert ctx.encode([True, False]).decode().tolist() == [1, 0]
    assert ctx.encode([]).decode().shape == (0,)


def test_encode_length_and_decode_length(ctx, rng):
    v = rand(rng, 10)
    pt = ctx.encode(v)
    np.testing.assert_array_equal(pt.decode(), v)
    full = ctx.decode(pt, length=N)
    np.testing.assert_array_equal(full[:10], v)
    assert not full[10:].any()
    np.testing.assert_array_equal(ctx.decode(pt, length=3), v[:3])
    with pytest.raises(polyhe.InvalidParameter, match=f"length = {N + 1} is outside"):
        ctx.decode(pt, length=N + 1)


def test_encode_coefficients_round_trip(ctx, rng):
    v = rand(rng, 100)
    pt = ctx.encode_coefficients(v)
    assert pt.encoding == "coefficients"
    np.testing.assert_array_equal(ctx.decode(pt), v)
    coeffs = pt.coefficients
    assert coeffs.dtype == np.uint64 and coeffs.shape == (N,)
    np.testing.assert_array_equal(coeffs[:100], np.mod(v, T).astype(np.uint64))
    assert not coeffs[100:].any()
    np.testing.assert_array_equal(ctx.decrypt(ctx.encrypt(pt)), v)


# --- encryption and arithmetic ----------------------------------------------------------------


def test_encrypt_decrypt(ctx, rng):
    v = rand(rng)
    ct = ctx.encrypt(v)
    assert (ct.level, ct.size, ct.length, ct.encoding) == (ctx.max_level, 2, N, "slots")
    np.testing.assert_array_equal(ctx.decrypt(ct), v)
    np.testing.assert_array_equal(
        ctx.decrypt(ct, signed=False), np.mod(v, T).astype(np.uint64)
    )
    short = ctx.encrypt(v[:7])
    np.testing.assert_array_equal(ctx.decrypt(short), v[:7])
    assert ctx.decrypt(short, length=N)[7:].tolist() == [0] * (N - 7)
    np.testing.assert_array_equal(ctx.decode(ctx.decrypt_plaintext(short)), v[:7])
    assert ctx.noise_budget(ct) > 0


def test_add_sub_neg(ctx, rng):
    a, b, c = rand(rng), rand(rng), rand(rng)
    x, y = ctx.encrypt(a), ctx.encrypt(b)
    pc = ctx.encode(c)
    cases = {
        "ct+ct": (x + y, a + b),
        "ct-ct": (x - y, a - b),
        "-ct": (-x, -a),
        "ct+pt": (x + pc, a + c),
        "ct-pt": (x - pc, a - c),
        "pt+ct": (pc + x, c + a),
        "pt-ct": (pc - x, c - a),
        "ct+array": (x + c, a + c),
        "array+ct": (c + x, c + a),
        "ct-array": (x - c, a - c),
        "array-ct": (c - x, c - a),
        "list+ct": (list(c[:5]) + x, a + np.pad(c[:5], (0, N - 5))),
        "ct+int": (x + 12345, a + 12345),
        "int+ct": (-7 + x, a - 7),
        "ct-int": (x - 40000, a - 40000),
        "int-ct": (3 - x, 3 - a),
        "ct+np.int": (x + np.int16(-300), a - 300),
        "ct-np.uint": (x - np.uint64(65536), a - 65536),
        "np.int+ct": (np.int32(5) + x, a + 5),
        "np.uint-ct": (np.uint16(2) - x, 2 - a),
        "ct+0d": (x + np.array(9), a + 9),
    }
    for name, (ct, want) in cases.items():
        assert isinstance(ct, bgv.Ciphertext), name
        np.testing.assert_array_equal(ctx.decrypt(ct), centred(want), err_msg=name)


def test_multiply(ctx, rng):
    a, b, c = rand(rng), rand(rng), rand(rng)
    x, y = ctx.encrypt(a), ctx.encrypt(b)
    fresh = ctx.noise_budget(x)
    cases = {
        "ct*ct": (x * y, a * b),
        "ct*pt": (x * ctx.encode(c), a * c),
        "ct*array": (x * c, a * c),
        "array*ct": (c * x, c * a),
        "ct*int": (x * 31337, a * 31337),
        "int*ct": (-2 * x, -2 * a),
        "ct*np.int": (x * np.int64(-32768), a * -32768),
        "np.int*ct": (np.int8(-3) * x, -3 * a),
        "0d*ct": (np.array(4, dtype=np.uint8) * x, 4 * a),
        "square": (x.multiply(x), a * a),
    }
    for name, (ct, want) in cases.items():
        assert ct.size == 2 and ct.level == ctx.max_level, name
        np.testing.assert_array_equal(ctx.decrypt(ct), centred(want), err_msg=name)
        budget = ctx.noise_budget(ct)
        assert 0 < budget < fresh, (name, budget, fresh)
    big = x.multiply(y, relinearize=False)
    assert big.size == 3
    np.testing.assert_array_equal(ctx.decrypt(big), centred(a * b))
    np.testing.assert_array_equal(ctx.decrypt(big.relinearize()), centred(a * b))
    assert big.relinearize().size == 2
    # A short operand multiplies the remaining slots by 0.
    short = x * [2, 3]
    assert short.length == N
    np.testing.assert_array_equal(ctx.decrypt(short)[:3], centred(a[:3] * [2, 3, 0]))


def test_chain_of_products_with_mod_switching(ctx, rng):
    a = rand(rng, N, -30, 30)
    x = ctx.encrypt(a)
    want = a.copy()
    budgets = [ctx.noise_budget(x)]
    for level in range(ctx.max_level - 1, -1, -1):
        x = (x * x).mod_switch()
        want = centred(want * want)
        assert x.level == level
        budgets.append(ctx.noise_budget(x))
        np.testing.assert_array_equal(ctx.decrypt(x), want)
    assert all(b > 0 for b in budgets)
    assert budgets == sorted(budgets, reverse=True) and budgets[-1] < budgets[0]
    with pytest.raises(polyhe.InvalidParameter, match="level 0; no prime is left"):
        x.mod_switch()


def test_mod_switch_to_and_bgv_noise(ctx, rng):
    a = rand(rng)
    x = ctx.encrypt(a)
    for level in (2, 0):
        y = x.mod_switch_to(level)
        assert y.level == level
        np.testing.assert_array_equal(ctx.decrypt(y), a)
        assert ctx.noise_budget(y) > 0
    assert x.mod_switch_to(x.level).level == x.level
    with pytest.raises(polyhe.InvalidParameter, match="level = 4 is outside \\[0, 3\\]"):
        x.mod_switch_to(4)
    if ctx.scheme == "bgv":
        # BGV: switching divides the noise by the prime as well as Q (the budget stays, down to
        # the noise floor), so a product after a switch keeps more budget than one without.
        p = x * x
        q = p * p
        before, after = ctx.noise_budget(q), ctx.noise_budget(q.mod_switch())
        assert after >= before - 2, (before, after)
        switched = p.mod_switch()
        assert ctx.noise_budget(switched * switched) > ctx.noise_budget(p * p) + 5
        np.testing.assert_array_equal(
            ctx.decrypt(switched * switched), centred(centred(a * a) ** 2)
        )


def test_level_alignment(ctx, rng):
    a, b = rand(rng), rand(rng)
    x = ctx.encrypt(a)
    y = ctx.encrypt(b).mod_switch_to(1)
    for name, ct, want in [
        ("add", x + y, a + b),
        ("radd", y + x, a + b),
        ("sub", x - y, a - b),
        ("rsub", y - x, b - a),
        ("mul", x * y, a * b),
        ("rmul", y * x, a * b),
    ]:
        assert ct.level == 1, name
        np.testing.assert_array_equal(ctx.decrypt(ct), centred(want), err_msg=name)


def test_coefficient_encoding_is_polynomial_arithmetic(ctx, rng):
    a = rand(rng, N, -50, 50)
    b = rand(rng, 300, -50, 50)
    x = ctx.encrypt(ctx.encode_coefficients(a))
    assert x.encoding == "coefficients"
    full = np.convolve(a, b)  # a·b in Z[x], then mod x^N + 1 (negacyclic) and mod t
    neg = full[:N].copy()
    neg[: full.shape[0] - N] -= full[N:]
    np.testing.assert_array_equal(ctx.decrypt(x * ctx.encode_coefficients(b)), centred(neg))
    np.testing.assert_array_equal(ctx.decrypt(x * b), centred(neg))
    y = ctx.encrypt(ctx.encode_coefficients(b))
    np.testing.assert_array_equal(ctx.decrypt(x * y), centred(neg))
    # An integer is the constant polynomial: it scales every coefficient and adds to x^0 only.
    np.testing.assert_array_equal(ctx.decrypt(x * 3), centred(3 * a))
    plus = a.copy()
    plus[0] += 5
    np.testing.assert_array_equal(ctx.decrypt(x + 5), centred(plus))
    np.testing.assert_array_equal(ctx.decrypt(x + b), centred(a + np.pad(b, (0, N - 300))))


def test_rotations(ctx, rng):
    a = rand(rng)
    x = ctx.encrypt(a)
    rows = a.reshape(2, ROW)
    for step in ROTATIONS:
        got = ctx.decrypt(x.rotate_rows(step)).reshape(2, ROW)
        np.testing.assert_array_equal(got, np.roll(rows, -step, axis=1), err_msg=str(step))
    # Steps are taken modulo N/2.
    np.testing.assert_array_equal(
        ctx.decrypt(x.rotate_rows(1 + ROW)).reshape(2, ROW), np.roll(rows, -1, axis=1)
    )
    np.testing.assert_array_equal(ctx.decrypt(x.rotate_rows(0)), a)
    np.testing.assert_array_equal(ctx.decrypt(x.rotate_columns()).reshape(2, ROW), rows[::-1])
    np.testing.assert_array_equal(
        ctx.decrypt(x.apply_galois(2 * N - 1)).reshape(2, ROW), rows[::-1]
    )
    # Hoisted: the same ciphertexts as one rotation at a time.
    steps = ROTATIONS + [0, ROTATIONS[0]]
    many = x.rotate_rows_many(steps)
    assert len(many) == len(steps)
    for step, r in zip(steps, many):
        assert r.serialize() == x.rotate_rows(step).serialize(), step
        got = ctx.decrypt(r).reshape(2, ROW)
        np.testing.assert_array_equal(got, np.roll(rows, -step, axis=1), err_msg=str(step))
    assert x.rotate_rows_many([]) == []
    with pytest.raises(polyhe.InvalidParameter, match="step 7"):
        x.rotate_rows_many([1, 7])
    # Rotations at a lower level, composed with arithmetic.
    y = (x * 2).mod_switch_to(1).rotate_rows(-3).rotate_columns()
    np.testing.assert_array_equal(
        ctx.decrypt(y).reshape(2, ROW), centred(np.roll(2 * rows, 3, axis=1)[::-1])
    )


def test_add_galois_keys_later(bgv_ctx, rng):
    a = rand(rng)
    x = bgv_ctx.encrypt(a)
    with pytest.raises(polyhe.InvalidParameter, match=r"no Galois key for step 7 \(element"):
        x.rotate_rows(7)
    with pytest.raises(polyhe.InvalidParameter, match="rotate_columns: no Galois key for the row swap"):
        x.rotate_columns()
    bgv_ctx.add_galois_keys([7], conjugation=True)
    got = bgv_ctx.decrypt(x.rotate_rows(7).rotate_columns()).reshape(2, ROW)
    np.testing.assert_array_equal(got, np.roll(a.reshape(2, ROW), -7, axis=1)[::-1])


# --- bytes and pickle --------------------------------------------------------------------------


def test_serialize_round_trip(ctx, rng):
    a = rand(rng, 40)
    x = ctx.encrypt(a) * 3
    data = x.serialize()
    assert isinstance(data, bytes) and data == x.to_bytes()
    back = ctx.load_ciphertext(data, length=40)
    assert (back.level, back.size, back.length) == (x.level, 2, 40)
    np.testing.assert_array_equal(ctx.decrypt(back), centred(3 * a))
    assert ctx.decrypt(ctx.load_ciphertext(data)).shape == (N,)
    low = x.mod_switch_to(1)
    np.testing.assert_array_equal(
        ctx.decrypt(ctx.load_ciphertext(low.serialize(), length=40)), centred(3 * a)
    )
    pt = ctx.encode(a)
    back_pt = ctx.load_plaintext(pt.serialize(), length=40)
    np.testing.assert_array_equal(back_pt.decode(), a)
    coeff = ctx.load_ciphertext(
        ctx.encrypt(ctx.encode_coefficients(a)).serialize(), length=40, encoding="coefficients"
    )
    np.testing.assert_array_equal(ctx.decrypt(coeff), a)
    with pytest.raises(polyhe.CorruptData):
        ctx.load_ciphertext(data[:-9])
    with pytest.raises(TypeError, match="data: expected bytes"):
        ctx.load_ciphertext("not bytes")
    with pytest.raises(polyhe.InvalidParameter, match="encoding = 'rows'"):
        ctx.load_ciphertext(data, encoding="rows")


def test_load_under_other_parameters_is_refused(ctx, rng):
    other = bgv.Context(log_n=LOG_N, q_bits=[50, 40, 40], p_bits=[50], security="none",
                        scheme=ctx.scheme).generate_keys()
    data = ctx.encrypt(rand(rng, 4)).serialize()
    with pytest.raises(polyhe.MismatchedContext):
        other.load_ciphertext(data)
    other_t = bgv.Context(ctx.params, t=40961, scheme=ctx.scheme)  # also batches at N = 2^12
    with pytest.raises(polyhe.MismatchedContext, match="40961"):
        other_t.load_plaintext(ctx.encode([1, 2]).serialize())


def test_pickle_in_process(ctx, rng):
    a, b = rand(rng, 100), rand(rng, 100)
    x = ctx.encrypt(a)
    back = pickle.loads(pickle.dumps(x))
    assert back.context is ctx and back.length == 100 and back.encoding == "slots"
    np.testing.assert_array_equal(ctx.decrypt(back), a)
    np.testing.assert_array_equal(ctx.decrypt(back + x), centred(2 * a))

    pub = ctx.public()
    assert not pub.has_secret_key and pub.key_id == ctx.key_id
    pub2 = pickle.loads(pickle.dumps(pub))
    assert pub2.key_id == ctx.key_id and pub2.scheme == ctx.scheme and pub2.t == ctx.t
    # Encrypted under the public context, computed on, decrypted by the key holder.
    y = pub.encrypt(b)
    z = pickle.loads(pickle.dumps(y * back))
    np.testing.assert_array_equal(ctx.decrypt(z), centred(a * b))
    with pytest.raises(polyhe.InvalidParameter, match="decrypt: this context has no secret key"):
        pub.decrypt(y)
    with pytest.raises(TypeError, match="a context holding the secret key does not pickle"):
        pickle.dumps(ctx)

    pt = pickle.loads(pickle.dumps(ctx.encode_coefficients(b)))
    assert pt.encoding == "coefficients" and pt.length == 100
    np.testing.assert_array_equal(pt.decode(), b)


_CHILD = r"""
import pickle, sys
import numpy as np
import polyhe
blobs = pickle.loads(sys.stdin.buffer.read())
x, y = pickle.loads(blobs["cts"])          # before the context: a keyless context for them
assert not x.context.has_public_key
ctx = pickle.loads(blobs["ctx"])            # the public context: its keys join that context
assert ctx is x.context and ctx.has_relinearization_key and not ctx.has_secret_key
try:
    ctx.decrypt(x)
except polyhe.InvalidParameter as e:
    assert "no secret key" in str(e)
else:
    raise AssertionError("decrypted without the secret key")
z = x * y + x
if ctx.scheme == "bgv":
    z = z.mod_switch()
r = z.rotate_rows(1)
w = ctx.encrypt(np.arange(5)) - 3 * x
sys.stdout.buffer.write(pickle.dumps((z, r, w)))
"""


@pytest.mark.parametrize("scheme", ["bgv", "bfv"])
def test_pickle_into_a_fresh_process(toy_params, rng, scheme):
    ctx = bgv.Context(toy_params, scheme=scheme).generate_keys(rotations=[1])
    a, b = rand(rng, N, -100, 100), rand(rng, N, -100, 100)
    x, y = ctx.encrypt(a), ctx.encrypt(b)
    blobs = {"cts": pickle.dumps((x, y)), "ctx": pickle.dumps(ctx.public())}
    root = os.path.dirname(os.path.dirname(os.path.abspath(polyhe.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD], input=pickle.dumps(blobs), capture_output=True, env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    z, r, w = pickle.loads(proc.stdout)
    assert z.context is ctx and r.context is ctx and w.context is ctx
    want = centred(a * b + a)
    np.testing.assert_array_equal(ctx.decrypt(z), want)
    np.testing.assert_array_equal(
        ctx.decrypt(r).reshape(2, ROW), np.roll(want.reshape(2, ROW), -1, axis=1)
    )
    np.testing.assert_array_equal(ctx.decrypt(w), centred(np.pad(np.arange(5), (0, N - 5)) - 3 * a))


# --- refusals ----------------------------------------------------------------------------------


def test_float_values_are_refused(ctx):
    x = ctx.encrypt([1, 2, 3])
    for bad in (np.array([1.0, 2.0]), [1.5, 2], np.array([1 + 2j]), np.array(["1"])):
        with pytest.raises(TypeError, match="is not an integer type; BGV/BFV encode integers mod t"):
            ctx.encode(bad)
    with pytest.raises(TypeError, match="dtype float32 is not an integer type"):
        ctx.encode_coefficients(np.ones(3, dtype=np.float32))
    with pytest.raises(TypeError, match="dtype float64 is not an integer type"):
        ctx.encrypt(np.array([0.5]))
    with pytest.raises(TypeError, match="add operand: dtype float64"):
        x + np.array([1.0])
    with pytest.raises(TypeError, match="multiply operand: dtype float64"):
        x * [0.5, 1.0]
    with pytest.raises(TypeError, match=r"values\[1\]: str '2' is not an integer"):
        ctx.encode(np.array([1, "2"], dtype=object))
    for op in (lambda: x + 1.5, lambda: 2.0 * x, lambda: x - np.float64(1), lambda: x * 1j,
               lambda: np.float32(2) * x, lambda: x * np.array(2.0)):
        with pytest.raises(TypeError, match="BGV/BFV operate on integers mod t"):
            op()
    with pytest.raises(TypeError, match="bool constant"):
        x * True
    with pytest.raises(TypeError):
        x + "1"


def test_values_out_of_range_are_refused(ctx):
    with pytest.raises(polyhe.InvalidParameter, match=r"values\[2\] = 65537 is outside \[-32768, 65536\] \(t = 65537"):
        ctx.encode([0, 1, T])
    with pytest.raises(polyhe.InvalidParameter, match=r"values\[1\] = -32769 is outside .*t = 65537"):
        ctx.encode(np.array([5, -(T // 2) - 1], dtype=np.int32))
    with pytest.raises(polyhe.InvalidParameter, match=r"values\[0\] = 18446744073709551615 is outside"):
        ctx.encode_coefficients(np.array([2**64 - 1], dtype=np.uint64))
    x = ctx.encrypt([1])
    with pytest.raises(polyhe.InvalidParameter, match=r"add operand\[0\] = 70000 is outside"):
        x + [70000]
    with pytest.raises(polyhe.InvalidParameter, match="multiply: the constant 65537 is outside .*t = 65537"):
        x * T
    with pytest.raises(polyhe.InvalidParameter, match="sub: the constant -40000 is outside"):
        x - (-40000)


def test_too_many_values_are_refused(ctx):
    with pytest.raises(polyhe.InvalidParameter, match=f"values: {N + 1} values, more than the {N} slots"):
        ctx.encode(np.zeros(N + 1, dtype=np.int64))
    with pytest.raises(polyhe.InvalidParameter, match=f"{N + 1} values, more than the {N} coefficients"):
        ctx.encode_coefficients([0] * (N + 1))
    with pytest.raises(polyhe.InvalidParameter, match=f"add operand: {N + 5} values, more than the {N} slots"):
        ctx.encrypt([1]) + np.zeros(N + 5, dtype=np.int64)
    with pytest.raises(polyhe.InvalidParameter, match=r"shape \(2, 2\); BGV/BFV encode a 1-D vector"):
        ctx.encode(np.zeros((2, 2), dtype=np.int64))


@pytest.mark.parametrize("scheme", ["bgv", "bfv"])
def test_non_batching_t_uses_coefficients(toy_params, rng, scheme):
    ctx = bgv.Context(toy_params, t=257, scheme=scheme).generate_keys()  # 257 ≢ 1 mod 2N
    assert not ctx.batching and ctx.slots == 0 and ctx.row_size == 0
    with pytest.raises(polyhe.InvalidParameter, match="t = 257 .*2N = 8192.*ctx.encode_coefficients"):
        ctx.encode([1, 2, 3])
    with pytest.raises(polyhe.InvalidParameter, match="ctx.encode_coefficients"):
        ctx.encrypt([1, 2, 3])
    a, b = rng.integers(-128, 128, size=N), rng.integers(-128, 128, size=N)
    x = ctx.encrypt(ctx.encode_coefficients(a))
    y = ctx.encrypt(ctx.encode_coefficients(b))
    np.testing.assert_array_equal(ctx.decrypt(x + y), centred(a + b, 257))
    np.testing.assert_array_equal(ctx.decrypt(x - 100), centred(a - np.eye(1, N, 0, dtype=np.int64)[0] * 100, 257))
    np.testing.assert_array_equal(ctx.decrypt(x * -3), centred(-3 * a, 257))
    assert ctx.load_ciphertext(x.serialize()).encoding == "coefficients"


def test_odd_m_slots(rng):
    # BGV over Φ_127 (φ = 126): t = 509 ≡ 1 mod 127 splits it into 126 slots of GF(509).
    p = polyhe.Parameters(m=127, q_bits=[50, 40, 40], p_bits=[50], security="none")
    ctx = bgv.Context(p, t=509).generate_keys()
    assert not ctx.batching and ctx.slots == 126 and ctx.row_size == 0
    a, b = rng.integers(-254, 255, size=126), rng.integers(-254, 255, size=50)
    x = ctx.encrypt(a)
    np.testing.assert_array_equal(ctx.decrypt(x), a)
    b_full = np.pad(b, (0, 76))
    np.testing.assert_array_equal(ctx.decrypt(x * ctx.encrypt(b)), centred(a * b_full, 509))
    np.testing.assert_array_equal(ctx.decrypt(x * b - 7), centred(a * b_full - 7, 509))
    np.testing.assert_array_equal(ctx.decrypt(3 * x + 2), centred(3 * a + 2, 509))
    np.testing.assert_array_equal(ctx.decrypt(x.mod_switch()), a)
    # t = 2 has order 7 mod 127: 18 slots of GF(2^7), 7 coordinates each; the constant 1 is the
    # unit of every slot (its coordinate 0).
    ctx2 = bgv.Context(p, t=2).generate_keys()
    assert ctx2.slots == 126
    bits = rng.integers(0, 2, size=126)
    y = ctx2.encrypt(bits)
    np.testing.assert_array_equal(ctx2.decrypt(y, signed=False), bits)
    unit = np.tile([1, 0, 0, 0, 0, 0, 0], 18)
    np.testing.assert_array_equal(ctx2.decrypt(y + 1, signed=False), bits ^ unit)
    # Row rotations are x^N + 1's: over Φ_m the keys are refused, naming the alternative.
    with pytest.raises(polyhe.InvalidParameter, match="rotations by 5\\^step and the row swap are the slots of x\\^N"):
        bgv.Context(p, t=509).generate_keys(rotations=[1])


def test_odd_m_slot_rotations_shifts_and_sums(rng):
    # Φ_1105 with t = 2: 32 slots of GF(2^24) on a hypercube of a bad dimension of 8 and a good
    # one of 4 (slot index row-major: slot 4·e_1 + e_2), each slot 24 coordinates.
    p = polyhe.Parameters(m=1105, q_bits=[60, 60, 60], p_bits=[60], security="none")
    ctx = bgv.Context(p, t=2)
    assert ctx.hypercube == ((8, False), (4, True))
    ops = [("rotate", 1, None), ("rotate", -3, 0), ("shift", 2, 1), ("shift", -5, None),
           ("total_sum", 0, None)]
    assert len(ctx.slot_galois_elements("rotate", 1, dimension=1)) == 1  # a good dimension
    assert len(ctx.slot_galois_elements("rotate", 1, dimension=0)) == 2  # a bad one
    wanted = sorted({g for op, s, r in ops for g in ctx.slot_galois_elements(op, s, r)})
    ctx.generate_keys(galois_elements=wanted)
    k, d = 32, 24
    v = rng.integers(0, 2, size=k * d)
    x = ctx.encrypt(v)
    slots = v.reshape(k, d)
    cube = v.reshape(8, 4, d)

    def dec(ct):
        return ctx.decrypt(ct, signed=False).reshape(k, d)

    np.testing.assert_array_equal(dec(x.rotate_slots(1)), np.roll(slots, 1, axis=0))
    np.testing.assert_array_equal(
        dec(x.rotate_slots(-3, dimension=0)).reshape(8, 4, d), np.roll(cube, -3, axis=0))
    shifted = np.zeros_like(cube)
    shifted[:, 2:] = cube[:, :2]
    np.testing.assert_array_equal(dec(x.shift_slots(2, dimension=1)).reshape(8, 4, d), shifted)
    left = np.zeros_like(slots)
    left[:-5] = slots[5:]
    np.testing.assert_array_equal(dec(x.shift_slots(-5)), left)
    total = slots.sum(axis=0) % 2  # addition in GF(2^24): coordinate-wise mod 2
    np.testing.assert_array_equal(dec(x.total_sum()), np.tile(total, (k, 1)))
    np.testing.assert_array_equal(dec(x.replicate(5)), np.tile(slots[5], (k, 1)))
    # A rotation without its keys, a slot past the end, and x^N + 1, each refused by name.
    with pytest.raises(polyhe.InvalidParameter, match="no Galois keys for elements"):
        x.rotate_slots(2)
    with pytest.raises(polyhe.InvalidParameter, match="slot 32 is not below k = 32"):
        x.replicate(32)
    with pytest.raises(polyhe.InvalidParameter, match="dimension 2 does not exist"):
        ctx.slot_galois_elements("rotate", 1, dimension=2)
    with pytest.raises(polyhe.InvalidParameter, match="x\\^N \\+ 1"):
        bgv.Context(polyhe.Parameters(**TOY), t=T).hypercube


def test_odd_m_slots_over_a_galois_ring(rng):
    # Φ_1105 with t = 2^8 (HElib's p = 2, r = 8): 32 slots of the Galois ring GR(2^8, 24), on the
    # hypercube of t = 2; slot values are 24 coordinates mod 2^8, added coordinate-wise.
    p = polyhe.Parameters(m=1105, q_bits=[60, 60, 60], p_bits=[60], security="none")
    ctx = bgv.Context(p, t=256)
    assert ctx.slots == 32 * 24
    assert ctx.hypercube == ((8, False), (4, True))
    ops = [("rotate", 1, None), ("total_sum", 0, None)]
    ctx.generate_keys(galois_elements=sorted(
        {g for op, s, r in ops for g in ctx.slot_galois_elements(op, s, r)}))
    k, d = 32, 24
    v = rng.integers(0, 256, size=k * d)
    w = rng.integers(0, 256, size=k * d)
    x, y = ctx.encrypt(v), ctx.encrypt(w)
    slots = v.reshape(k, d)

    def dec(ct):
        return ctx.decrypt(ct, signed=False).reshape(k, d)

    np.testing.assert_array_equal(dec(x), slots)
    np.testing.assert_array_equal(dec(x + y), (slots + w.reshape(k, d)) % 256)
    np.testing.assert_array_equal(dec(x.rotate_slots(1)), np.roll(slots, 1, axis=0))
    np.testing.assert_array_equal(dec(x.total_sum()), np.tile(slots.sum(axis=0) % 256, (k, 1)))
    # The product is slot-wise in GR(2^8, 24): it reduces mod 2 to the product in GF(2^24), the
    # slots of t = 2, and (x · 1) is x.
    two = bgv.Context(p, t=2).generate_keys()
    prod = dec(x * y) % 2
    np.testing.assert_array_equal(prod, two.decrypt(two.encrypt(v % 2) * two.encrypt(w % 2),
                                                     signed=False).reshape(k, d))
    np.testing.assert_array_equal(dec(x * 1), slots)
    with pytest.raises(polyhe.InvalidParameter, match="prime or a prime power"):
        bgv.Context(p, t=6 * 7 * 11 * 19).hypercube


def test_mixed_contexts_are_refused(ctx, toy_params, rng):
    other = bgv.Context(toy_params, t=T, scheme=ctx.scheme).generate_keys()
    x, y = ctx.encrypt([1, 2]), other.encrypt([1, 2])
    for op in (lambda: x + y, lambda: x - y, lambda: x * y, lambda: x * other.encode([1]),
               lambda: x + other.encode([1])):
        with pytest.raises(polyhe.MismatchedContext, match="operands belong to different contexts"):
            op()
    with pytest.raises(polyhe.MismatchedContext, match="decrypt: the operands belong to different"):
        ctx.decrypt(y)
    with pytest.raises(polyhe.MismatchedContext, match="encrypt: the operands belong"):
        ctx.encrypt(other.encode([1]))
    # BGV and BFV under one parameter set are different contexts too.
    twin = bgv.Context(toy_params, t=T, scheme="bfv" if ctx.scheme == "bgv" else "bgv")
    twin.generate_keys()
    with pytest.raises(polyhe.MismatchedContext):
        x + twin.encrypt([1])


def test_mixed_encodings_are_refused(ctx):
    x = ctx.encrypt([1, 2])
    c = ctx.encrypt(ctx.encode_coefficients([1, 2]))
    with pytest.raises(polyhe.InvalidParameter, match="a slots-encoded ciphertext with a coefficients-encoded operand"):
        x + c
    with pytest.raises(polyhe.InvalidParameter, match="a coefficients-encoded ciphertext with a slots-encoded operand"):
        c * ctx.encode([3])


def test_missing_keys_are_refused(toy_params):
    bare = bgv.Context(toy_params)
    with pytest.raises(polyhe.InvalidParameter, match="encrypt: this context has no public key"):
        bare.encrypt([1])
    ctx = bgv.Context(toy_params).generate_keys(relinearization=False)
    x = ctx.encrypt([1, 2])
    with pytest.raises(polyhe.InvalidParameter, match="multiply: this context has no relinearisation key"):
        x * x
    with pytest.raises(polyhe.InvalidParameter, match="relinearize: this context has no relinearisation key"):
        x.multiply(x, relinearize=False).relinearize()
    np.testing.assert_array_equal(ctx.decrypt(x.multiply(x, relinearize=False)), [1, 4])
    with pytest.raises(polyhe.InvalidParameter, match="rotate_rows: this context has no Galois keys"):
        x.rotate_rows(1)
    with pytest.raises(polyhe.InvalidParameter, match="rotate_columns: this context has no Galois keys"):
        x.rotate_columns()
    with pytest.raises(polyhe.InvalidParameter, match="noise_budget: this context has no secret key"):
        ctx.public().noise_budget(x)


def test_wrong_argument_types(ctx):
    x = ctx.encrypt([1])
    with pytest.raises(TypeError, match="expected a bgv.Ciphertext"):
        ctx.decrypt(ctx.encode([1]))
    with pytest.raises(TypeError, match="expected a bgv.Plaintext"):
        ctx.decode(x)
    with pytest.raises(TypeError, match="values: expected integers, got a Ciphertext"):
        ctx.encode(x)
    with pytest.raises(TypeError, match="step: expected an integer"):
        x.rotate_rows(1.0)
    with pytest.raises(TypeError, match="multiply: cannot multiply a ciphertext by"):
        x.multiply("2")
