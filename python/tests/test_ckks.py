"""polyhe.ckks from Python: every operation against numpy on seeded random data, the operators'
rules, bytes and pickle round trips, and bad input."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import polyhe
from polyhe import ckks

SEED = int(os.environ.get("POLYHE_TEST_SEED", "20261126"))


@pytest.fixture(scope="module")
def rng():
    print(f"POLYHE_TEST_SEED={SEED}")
    return np.random.default_rng(SEED)


@pytest.fixture(scope="module")
def ctx():
    # N = 2^12, three levels at a 2^40 scale: too small to be secure, opted out by name for speed
    # (test_default_context_is_secure_and_works runs the secure default).
    c = ckks.Context(log_n=12, q_bits=[50, 40, 40, 40], p_bits=[50], security="none")
    c.generate_keys(rotations=[1, -2, 5] + ckks.sum_rotations(c.slots), conjugation=True)
    return c


def close(got, want, tol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    err = np.max(np.abs(got - want)) if got.size else 0.0
    assert err < tol, f"max error {err}"


def test_default_context_is_secure_and_works():
    c = ckks.Context()
    assert c.params.n == 1 << 14 and c.params.security == "128"
    assert c.slots == 8192 and c.max_level == 8 and c.scale == 2.0**40
    c.generate_keys()
    x = np.linspace(-1, 1, 100)
    y = c.decrypt(c.encrypt(x) * c.encrypt(x) + 1.0)
    close(y, x * x + 1.0, 1e-6)


def test_encrypt_decrypt_real_and_complex(ctx, rng):
    x = rng.uniform(-10, 10, ctx.slots)
    ct = ctx.encrypt(x)
    assert ct.is_real and ct.level == ctx.max_level and ct.length == ctx.slots
    got = ctx.decrypt(ct)
    assert got.dtype == np.float64
    close(got, x)
    z = rng.normal(size=7) + 1j * rng.normal(size=7)
    cz = ctx.encrypt(z)
    got = ctx.decrypt(cz)
    assert got.dtype == np.complex128 and got.shape == (7,)
    close(got, z)
    assert ctx.decrypt(cz, length=10).shape == (10,)
    ints = ctx.decrypt(ctx.encrypt([1, 2, 3]))
    close(ints, [1.0, 2.0, 3.0])


def test_add_sub_neg(ctx, rng):
    x, y = rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64)
    a, b = ctx.encrypt(x), ctx.encrypt(y)
    close(ctx.decrypt(a + b), x + y)
    close(ctx.decrypt(a - b), x - y)
    close(ctx.decrypt(-a), -x)
    close(ctx.decrypt(a + 2.5), x + 2.5)
    close(ctx.decrypt(2.5 + a), x + 2.5)
    close(ctx.decrypt(1.0 - a), 1.0 - x)
    close(ctx.decrypt(a + y), x + y)
    close(ctx.decrypt(a - list(y)), x - y)
    close(ctx.decrypt(a + ctx.encode(y)), x + y)


def test_multiply_forms(ctx, rng):
    x, y = rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64)
    a, b = ctx.encrypt(x), ctx.encrypt(y)
    p = a * b
    assert p.level == ctx.max_level - 1 and p.size == 2
    close(ctx.decrypt(p), x * y)
    close(ctx.decrypt(a * 0.75), x * 0.75)
    close(ctx.decrypt(a * y), x * y)
    close(ctx.decrypt(a * ctx.encode(y, scale=ctx.params.q_primes[-1])), x * y)
    k = a * 3  # an integer: exact, no level used
    assert k.level == a.level
    close(ctx.decrypt(k), 3 * x)
    close(ctx.decrypt(a * np.int64(-2)), -2 * x)
    raw = a.multiply(b, rescale=False)
    assert raw.level == a.level and raw.size == 2
    close(ctx.decrypt(raw.rescale()), x * y)
    three = a.multiply(b, relinearize=False, rescale=False)
    assert three.size == 3
    close(ctx.decrypt(three.relinearize().rescale()), x * y)
    close(ctx.decrypt(a**2), x**2)
    close(ctx.decrypt((a**3)), x**3, 1e-4)


def test_levels_align_and_scales_must_match(ctx, rng):
    x = rng.uniform(-1, 1, 16)
    a = ctx.encrypt(x)
    sq = a * a
    fresh = ctx.encrypt(x, level=sq.level, scale=sq.scale)
    close(ctx.decrypt(sq + fresh), x * x + x)
    dropped = a.drop_to(1)
    assert dropped.level == 1 and dropped.scale == a.scale
    close(ctx.decrypt(a + dropped), 2 * x)  # the higher one comes down
    with pytest.raises(polyhe.InvalidParameter, match="scales differ"):
        _ = sq + a
    low = a.drop_to(0)
    with pytest.raises(polyhe.InvalidParameter, match="level 0"):
        _ = low * low


def test_rotations_conjugation_sum(ctx, rng):
    n = ctx.slots
    x = rng.uniform(-1, 1, n)
    a = ctx.encrypt(x)
    close(ctx.decrypt(a.rotate(1)), np.roll(x, -1))
    close(ctx.decrypt(a.rotate(-2)), np.roll(x, 2))
    close(ctx.decrypt(a.rotate(5)), np.roll(x, -5))
    z = rng.normal(size=n) + 1j * rng.normal(size=n)
    close(ctx.decrypt(ctx.encrypt(z).conjugate()), np.conj(z))
    s = ctx.decrypt(a.sum())
    close(s[0], x.sum(), 1e-3)
    with pytest.raises(polyhe.InvalidParameter, match="3"):
        a.rotate(3)  # no key for step 3: the C++ message names the step
    with pytest.raises(polyhe.InvalidParameter, match="power of two"):
        a.sum(3)


def test_rotate_many_is_rotate_word_for_word(ctx, rng):
    x = rng.uniform(-1, 1, ctx.slots)
    a = ctx.encrypt(x)
    steps = [1, -2, 0, 5, 1]
    many = a.rotate_many(steps)
    assert len(many) == len(steps)
    for s, r in zip(steps, many):
        assert r.serialize() == a.rotate(s).serialize(), s
        close(ctx.decrypt(r), np.roll(x, -s))
    assert a.rotate_many([]) == []
    with pytest.raises(polyhe.InvalidParameter, match="step 3"):
        a.rotate_many([1, 3])


def test_bytes_round_trips(ctx, rng):
    x = rng.uniform(-1, 1, 32)
    ct = ctx.encrypt(x) * 0.5
    back = ctx.load_ciphertext(ct.serialize())
    close(ctx.decrypt(back)[:32], 0.5 * x)
    assert back.as_real().is_real
    pt = ctx.encode(x)
    close(ctx.decode(ctx.load_plaintext(pt.serialize()))[:32], x)
    with pytest.raises(polyhe.CorruptData):
        ctx.load_ciphertext(ct.serialize()[:-1])
    other = ckks.Context(log_n=12, q_bits=[50, 40, 40], p_bits=[50], security="none")
    with pytest.raises(polyhe.MismatchedContext):
        other.load_ciphertext(ct.serialize())
    params = polyhe.Parameters.load(ctx.params.serialize(), "none")
    assert params == ctx.params and params.hash == ctx.params.hash
    with pytest.raises(polyhe.InsecureParameters, match="insecure_none|none"):
        polyhe.Parameters.load(ctx.params.serialize())  # the caller's default policy: 128 bits


def test_serialize_reuses_its_buffer_without_mixing_ciphertexts(ctx, rng):
    # serialize() writes into one buffer per thread, reused from call to call: a large ciphertext,
    # then a smaller one, then the large one again give each its own bytes, of its own length.
    x = rng.uniform(-1, 1, 16)
    big = ctx.encrypt(x)
    small = big * big  # rescaled: one level down
    assert small.level < big.level
    first = big.serialize()
    small_bytes = small.serialize()
    assert len(small_bytes) < len(first)
    assert big.serialize() == first
    assert small.serialize() == small_bytes
    close(ctx.decrypt(ctx.load_ciphertext(small_bytes))[:16], x * x, tol=1e-4)
    close(ctx.decrypt(ctx.load_ciphertext(first))[:16], x)
    # A bytes object already handed out is not touched by later calls.
    kept = small.serialize()
    big.serialize()
    assert kept == small_bytes


def test_loaders_take_bytes_like_objects(ctx, rng):
    x = rng.uniform(-1, 1, 16)
    data = ctx.encrypt(x).serialize()
    # Read-only buffers are read in place: a memoryview, a slice of a larger buffer, a pickle
    # buffer (what Ray hands over out of band).
    framed = b"head" + data + b"tail"
    for view in (memoryview(data), memoryview(framed)[4:-4], pickle.PickleBuffer(data)):
        close(ctx.decrypt(ctx.load_ciphertext(view))[:16], x)
    # A writable buffer is copied before it is checked: the ciphertext does not change with it.
    mutable = bytearray(data)
    loaded = ctx.load_ciphertext(mutable)
    mutable[len(mutable) // 2 :] = bytes(len(mutable) - len(mutable) // 2)
    close(ctx.decrypt(loaded)[:16], x)
    assert ctx.load_ciphertext(memoryview(bytearray(data))).level == loaded.level
    # Parameters and whole contexts too.
    assert polyhe.Parameters.load(memoryview(ctx.params.serialize()), "none") == ctx.params
    pub = ckks.Context.load(bytearray(ctx.public().serialize()), "none")
    close(ctx.decrypt(pub.encrypt(x)), x)
    with pytest.raises(TypeError, match="data: expected bytes or a bytes-like object, got str"):
        ctx.load_ciphertext(data.decode("latin-1"))
    with pytest.raises(TypeError, match="C-contiguous"):  # every other byte: not one block
        ckks._native.load_ciphertext(memoryview(data)[::2], ctx.params._native)
    with pytest.raises(polyhe.CorruptData):
        ctx.load_ciphertext(memoryview(data)[:-1])


def test_context_bytes(ctx, rng):
    x = rng.uniform(-1, 1, 8)
    data = ctx.public().serialize()
    assert b"PHCTX" in data[:8]
    loaded = ckks.Context.load(data, minimum_security="none")
    assert loaded is not ctx  # bytes from elsewhere never join a registered context
    assert loaded.key_id == ctx.key_id and not loaded.has_secret_key
    ct = loaded.encrypt(x)
    close(ctx.decrypt(ct), x)  # same parameters object, settings and key: they combine
    with_secret = ctx.serialize(include_secret_key=True)
    assert len(with_secret) > len(data)
    again = ckks.Context.load(with_secret, "none")
    assert again.has_secret_key
    close(again.decrypt(ct), x)
    with pytest.raises(polyhe.InvalidParameter, match="already holds keys"):
        ctx.generate_keys()
    with pytest.raises(polyhe.CorruptData):
        ckks.Context.load(data[:-3], minimum_security="none")
    with pytest.raises(polyhe.InsecureParameters):
        ckks.Context.load(data)


def test_pickle_sizes_and_round_trip(rng):
    c = ckks.Context()  # N = 2^14, L = 8
    c.generate_keys()
    x = rng.uniform(-1, 1, c.slots)
    ct = c.encrypt(x)
    blob = pickle.dumps(ct, protocol=pickle.HIGHEST_PROTOCOL)
    binary = len(ct.serialize())
    assert len(blob) <= binary * 1.01, (len(blob), binary)
    back = pickle.loads(blob)
    assert back.context is c  # found through the registry
    close(c.decrypt(back), x, 1e-6)
    with pytest.raises(TypeError, match="secret key"):
        pickle.dumps(c)
    pub = c.public()
    assert not pub.has_secret_key and pub.key_id == c.key_id
    assert pickle.loads(pickle.dumps(pub)) is c  # in this process, the key holder's context


def test_pickle_in_a_fresh_process(ctx, rng, tmp_path):
    x = rng.uniform(-1, 1, 16)
    (tmp_path / "in.pkl").write_bytes(pickle.dumps((ctx.public(), ctx.encrypt(x))))
    script = textwrap.dedent(
        f"""
        import pickle, polyhe
        blob = open({str(tmp_path / 'in.pkl')!r}, 'rb').read()
        ctx, ct = pickle.loads(blob)
        assert ct.context is ctx and not ctx.has_secret_key
        y = (ct * ct + 1.0).rotate(1)
        open({str(tmp_path / 'out.pkl')!r}, 'wb').write(pickle.dumps(y))
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, env=dict(os.environ))
    y = pickle.loads((tmp_path / "out.pkl").read_bytes())
    assert y.context is ctx
    close(ctx.decrypt(y)[:15], (x * x + 1.0)[1:16])


def test_ciphertext_before_its_context(ctx, rng, tmp_path):
    x = rng.uniform(-1, 1, 4)
    (tmp_path / "ct.pkl").write_bytes(pickle.dumps(ctx.encrypt(x)))
    (tmp_path / "ctx.pkl").write_bytes(pickle.dumps(ctx.public()))
    script = textwrap.dedent(
        f"""
        import pickle, polyhe
        ct = pickle.loads(open({str(tmp_path / 'ct.pkl')!r}, 'rb').read())
        try:
            ct * ct
        except polyhe.InvalidParameter as e:
            assert "relinearisation key" in str(e), e
        else:
            raise SystemExit("multiplied without a relinearisation key")
        ctx = pickle.loads(open({str(tmp_path / 'ctx.pkl')!r}, 'rb').read())
        assert ct.context is ctx and ctx.has_relinearization_key
        open({str(tmp_path / 'out.pkl')!r}, 'wb').write(pickle.dumps(ct * ct))
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, env=dict(os.environ))
    close(ctx.decrypt(pickle.loads((tmp_path / "out.pkl").read_bytes())), x * x)


def test_mixed_contexts_refused(ctx, rng):
    other = ckks.Context(ctx.params)  # same parameters, other keys
    other.generate_keys()
    a, b = ctx.encrypt([1.0]), other.encrypt([1.0])
    with pytest.raises(polyhe.MismatchedContext, match="different contexts"):
        _ = a + b
    with pytest.raises(polyhe.MismatchedContext):
        ctx.decrypt(b)


def test_bad_input(ctx):
    with pytest.raises(TypeError, match="dtype"):
        ctx.encrypt(np.array(["a", "b"]))
    with pytest.raises(polyhe.InvalidParameter, match="slots"):
        ctx.encrypt(np.zeros(ctx.slots + 1))
    with pytest.raises(polyhe.InvalidParameter, match="shape"):
        ctx.encrypt(np.zeros((2, 2)))
    with pytest.raises(polyhe.InvalidParameter, match=r"values\[1\] = nan"):
        ctx.encrypt([1.0, float("nan")])
    with pytest.raises(polyhe.InvalidParameter, match="not finite"):
        ctx.encrypt([np.inf])
    with pytest.raises(ValueError):  # InvalidParameter is a ValueError
        ctx.encrypt([1.0], level=ctx.max_level + 1)
    a = ctx.encrypt([1.0])
    with pytest.raises(polyhe.InvalidParameter, match="not finite"):
        _ = a + float("inf")
    with pytest.raises(TypeError):
        _ = a + "x"
    y = np.array([2.0])
    close(ctx.decrypt(y + a), [3.0])  # numpy on the left defers to the ciphertext
    close(ctx.decrypt(y * a), [2.0])
    with pytest.raises(TypeError):
        ctx.decrypt(np.zeros(3))
    with pytest.raises(polyhe.InvalidParameter, match="scale"):
        ckks.Context(ctx.params, scale=-1.0)
    with pytest.raises(polyhe.InsecureParameters):
        ckks.Context(log_n=12, q_bits=[60, 60, 60], p_bits=[60])
    keyless = ckks.Context(ctx.params)
    with pytest.raises(polyhe.InvalidParameter, match="public key"):
        keyless.encrypt([1.0])
    pub = ctx.public()
    with pytest.raises(polyhe.InvalidParameter, match="secret key"):
        pub.decrypt(a)


def test_threads_share_a_context(ctx, rng):
    from concurrent.futures import ThreadPoolExecutor

    xs = [rng.uniform(-1, 1, 32) for _ in range(8)]
    cts = [ctx.encrypt(x) for x in xs]

    def work(ct):
        return (ct * ct).rotate(1)

    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(work, cts))
    for x, y in zip(xs, outs):
        close(ctx.decrypt(y)[:31], (x * x)[1:])


def test_keys_joining_a_context_load_under_its_own_parameters(rng):
    # Two Parameters objects of the same values are alive; Parameters.load finds the first, but the
    # context a key joins was made under the second: the key must be loaded under the second.
    first = polyhe.Parameters(log_n=11, q_bits=[40, 30], p_bits=[40], security="none")
    second = polyhe.Parameters(log_n=11, q=first.q_primes, p=first.p_primes, security="none")
    assert first == second and first._native is not second._native
    c = ckks.Context(second)
    c.generate_keys(relinearization=False)
    sender = c.public()
    sender._relin = polyhe._polyhe.KeyGenerator(second._native).relinearization_key(c._sk)
    received = pickle.loads(pickle.dumps(sender))
    assert received is c and c.has_relinearization_key
    x = rng.uniform(-1, 1, 8)
    close(c.decrypt(c.encrypt(x) * c.encrypt(x)), x * x, 1e-4)
