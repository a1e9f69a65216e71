"""The Python API audit's defects, each pinned: 0-d arrays as scalars, decrypt's default length
after operations that move values, key-generation arguments, Galois elements over Φ_m, CKKS
encrypt's level/scale with a Plaintext, CKKS scale and flooding bounds, loaded key sections
checked against each other, and messages that name the value, the rule and the Python fix."""

import numpy as np
import pytest

import polyhe
from polyhe import arith, bgv, ckks

SMALL = dict(log_n=10, q_bits=[50, 40, 40], p_bits=[50], security="none")
N = 1 << 10


def close(got, want, tol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    err = np.max(np.abs(got - want)) if got.size else 0.0
    assert err < tol, f"max error {err}"


@pytest.fixture(scope="module")
def cctx():
    return ckks.Context(**SMALL).generate_keys(rotations=[1, -1], conjugation=True)


@pytest.fixture(scope="module")
def gctx():
    return bgv.Context(**SMALL).generate_keys(rotations=[1, -1], conjugation=True)


# --- 1. a 0-d array is its scalar (CKKS, as BGV) ---------------------------------------------------
def test_ckks_0d_arrays_act_as_scalars(cctx):
    x = np.array([1.0, 1.5, 2.0])
    c = cctx.encrypt(x)
    close(cctx.decrypt(np.array(2.0) * c), 2 * x)
    close(cctx.decrypt(c * np.array(2)), 2 * x)  # numpy integer: the exact product
    close(cctx.decrypt(c.multiply(np.array(0.5))), 0.5 * x)
    close(cctx.decrypt(c + np.array(1.0)), x + 1)
    close(cctx.decrypt(c - np.array(1.0)), x - 1)
    close(cctx.decrypt(np.array(1.0) - c), 1 - x)
    close(cctx.decrypt(c + np.array(1j)).imag, np.ones(3))
    # As values to encode, a 0-d array is refused (it used to become one value silently).
    with pytest.raises(polyhe.InvalidParameter, match=r"shape \(\); .*pass \[x\]"):
        cctx.encrypt(np.array(2.0))


def test_ckks_bool_and_huge_constants_are_refused_clearly(cctx):
    c = cctx.encrypt([1.0])
    for op in (lambda: c + np.bool_(True), lambda: c * np.bool_(True), lambda: c + True,
               lambda: np.bool_(False) - c, lambda: c + np.array(True)):
        with pytest.raises(TypeError, match="a bool constant .*CKKS operates on real or complex"):
            op()
    with pytest.raises(polyhe.InvalidParameter, match=r"add: the constant 1000.*0000 \(401 characters\) does not fit in a double"):
        c + 10**400
    with pytest.raises(polyhe.InvalidParameter, match=r"multiply: the integer 1000.*does not fit in 64 bits"):
        c * 10**400


# --- 2. decrypt's default length never hides a value ---------------------------------------------
def test_coefficient_products_decrypt_every_coefficient(gctx):
    a, b = [1, 2, 3], [1, 1, 1]
    A = gctx.encrypt(gctx.encode_coefficients(a))
    B = gctx.encrypt(gctx.encode_coefficients(b))
    want = np.convolve(a, b)  # [1 3 6 5 3]
    np.testing.assert_array_equal(gctx.decrypt(A * B), want)
    np.testing.assert_array_equal(gctx.decrypt(A * gctx.encode_coefficients(b)), want)
    np.testing.assert_array_equal(gctx.decrypt(A * np.array(b)), want)
    assert (A * B).length == 5 and (A * 3).length == 3 and (A + 7).length == 3
    # A product that wraps past x^N: all N coefficients.
    full = gctx.encrypt(gctx.encode_coefficients(np.ones(N, dtype=np.int64)))
    assert (full * A).length == N
    # A constant adds to x^0: an empty vector plus 5 is the polynomial 5.
    E = gctx.encrypt(gctx.encode_coefficients([]))
    np.testing.assert_array_equal(gctx.decrypt(E + 5), [5])


def test_rotations_decrypt_every_slot(gctx, cctx):
    x = gctx.encrypt([1, 2, 3])
    right = gctx.decrypt(x.rotate_rows(-1))
    assert right.shape == (N,)
    np.testing.assert_array_equal(right[:4], [0, 1, 2, 3])  # the 3 used to be cut off
    left = gctx.decrypt(x.rotate_rows(1))
    np.testing.assert_array_equal(left[:3], [2, 3, 0])
    assert left[N // 2 - 1] == 1  # the 1 wrapped to the end of the row
    for r in x.rotate_rows_many([1, -1]) + [x.rotate_columns()]:
        assert r.length is None
    swapped = gctx.decrypt(x.rotate_columns())
    np.testing.assert_array_equal(swapped[N // 2:N // 2 + 3], [1, 2, 3])
    assert x.mod_switch().length == 3 and (x * x).length == 3  # slot-wise: kept
    c = cctx.encrypt([1.0, 1.5, 2.0])
    got = cctx.decrypt(c.rotate(-1))
    assert got.shape == (cctx.slots,)
    close(got[:4], [0, 1.0, 1.5, 2.0])
    close(cctx.decrypt(c.rotate(1))[-1], 1.0)
    assert all(r.length is None for r in c.rotate_many([1, -1]))
    assert c.conjugate().length == 3  # slot by slot: kept


# --- 3. key-generation arguments are checked, not coerced ------------------------------------------
@pytest.mark.parametrize("make", ["generate_keys", "add_galois_keys"])
def test_rotation_and_flag_arguments_are_checked(make):
    params = polyhe.Parameters(**SMALL)

    def call(**kw):
        ctx = ckks.Context(params)
        if make == "add_galois_keys":
            ctx.generate_keys()
            before = ctx.galois_elements
            try:
                ctx.add_galois_keys(**kw)
            except Exception:
                assert ctx.galois_elements == before  # nothing made on a refusal
                raise
        else:
            try:
                ctx.generate_keys(**kw)
            except Exception:
                assert ctx.key_id is None  # no keys on a refusal
                raise
        return ctx

    with pytest.raises(TypeError, match=r"rotations\[0\]: expected an integer, got float 1.5"):
        call(rotations=[1.5])
    with pytest.raises(TypeError, match=r"rotations\[0\]: expected an integer, got float 2.9"):
        call(rotations=[2.9])
    with pytest.raises(TypeError, match=r"rotations\[1\]: expected an integer, got bool"):
        call(rotations=[1, True])
    with pytest.raises(TypeError, match="rotations: expected a sequence of integers, got str '12'"):
        call(rotations="12")
    with pytest.raises(TypeError, match="rotations: expected a sequence of integers, got int 3"):
        call(rotations=3)
    with pytest.raises(polyhe.InvalidParameter, match=r"rotations\[0\] = 9223372036854775808 is outside \[-4611686018427387904, 4611686018427387904\]"):
        call(rotations=[2**63])
    with pytest.raises(TypeError, match="conjugation: expected True or False, got str 'no'"):
        call(conjugation="no")
    if make == "generate_keys":
        with pytest.raises(TypeError, match="relinearization: expected True or False, got str 'no'"):
            call(relinearization="no")
        with pytest.raises(TypeError, match="relinearization: expected True or False, got int 0"):
            call(relinearization=0)
    # What is allowed: numpy integers, numpy bools, any iterable of integers.
    ctx = call(rotations=np.array([1, -2]), conjugation=np.bool_(True))
    n = ctx.params.n
    want = {polyhe._polyhe.galois_element_for_rotation(n, s) for s in (1, -2)}
    want.add(polyhe._polyhe.galois_element_for_conjugation(n))
    assert set(ctx.galois_elements) == want


# --- 4. Galois elements by name; Φ_m refuses steps ---------------------------------------------------
def test_odd_m_takes_galois_elements_and_refuses_steps():
    p = polyhe.Parameters(m=127, q_bits=[50, 40, 40], p_bits=[50], security="none")
    ctx = bgv.Context(p, t=509).generate_keys()
    for kw in (dict(rotations=[2]), dict(conjugation=True)):
        with pytest.raises(polyhe.InvalidParameter, match=r"ring is Phi_127 \(odd m\).*galois_elements=\[k, \.\.\.\]"):
            ctx.add_galois_keys(**kw)
        with pytest.raises(polyhe.InvalidParameter, match="galois_elements"):
            bgv.Context(p, t=509).generate_keys(**kw)
    assert ctx.galois_elements == []  # the element 25 of x^N + 1's rule is not made
    for bad in (0, 127, 254):
        with pytest.raises(polyhe.InvalidParameter, match=rf"galois_elements\[0\] = {bad} is not a Galois element: k must be in \[1, m\) = \[1, 127\) and coprime"):
            ctx.add_galois_keys(galois_elements=[bad])
    ctx.add_galois_keys(galois_elements=[2, 126])
    assert ctx.galois_elements == [2, 126]
    a = np.arange(126) % 509
    x = ctx.encrypt(a)
    # σ_2 permutes the slots (2 has order 7 mod 127; t = 509 ≡ 1 mod 127 splits Φ_127 fully):
    # applied 7 times it is the identity.
    y = x
    for _ in range(7):
        y = y.apply_galois(2)
        assert y.length is None
    np.testing.assert_array_equal(ctx.decrypt(y), a)
    assert not np.array_equal(ctx.decrypt(x.apply_galois(2)), a)
    with pytest.raises(polyhe.InvalidParameter, match="apply_galois: no Galois key for element 3; .*add_galois_keys\\(galois_elements=\\[3\\]\\)"):
        x.apply_galois(3)
    ctx2 = bgv.Context(p, t=509).generate_keys(galois_elements=[3])
    assert ctx2.galois_elements == [3]


def test_galois_elements_over_x_n_plus_1(gctx):
    with pytest.raises(polyhe.InvalidParameter, match=r"galois_elements\[0\] = 4 is not a Galois element: k must be odd and in \[1, 2N\) = \[1, 2048\)"):
        gctx.add_galois_keys(galois_elements=[4])
    x = gctx.encrypt([1, 2, 3])
    with pytest.raises(polyhe.InvalidParameter, match=r"apply_galois: 2 is not a Galois element: it must be odd and in \[1, 2N\) = \[1, 2048\)"):
        x.apply_galois(2)
    with pytest.raises(polyhe.InvalidParameter, match=r"apply_galois: no Galois key for element 7; generate_keys\(galois_elements=\[7, \.\.\.\]\)"):
        x.apply_galois(7)
    k = polyhe._polyhe.galois_element_for_rotation(N, 1)
    np.testing.assert_array_equal(gctx.decrypt(x.apply_galois(k))[:3], gctx.decrypt(x.rotate_rows(1))[:3])


def test_missing_rotation_keys_name_the_python_call(cctx, gctx):
    c = cctx.encrypt([1.0])
    with pytest.raises(polyhe.InvalidParameter, match=r"rotate: no Galois key for step 3 \(element \d+\); generate_keys\(rotations=\[3, \.\.\.\]\) or ctx.add_galois_keys\(\[3\]\)"):
        c.rotate(3)
    with pytest.raises(polyhe.InvalidParameter, match=r"rotate_many: no Galois key for step 3"):
        c.rotate_many([1, 3])
    bare = ckks.Context(cctx.params).generate_keys(rotations=[1])
    with pytest.raises(polyhe.InvalidParameter, match=r"conjugate: no Galois key for conjugation .*generate_keys\(conjugation=True\)"):
        bare.encrypt([1.0]).conjugate()


# --- 5. encrypt(Plaintext, level=, scale=) --------------------------------------------------------
def test_ckks_encrypt_plaintext_refuses_disagreeing_level_and_scale(cctx):
    pt = cctx.encode([1.0, 2.0])
    with pytest.raises(polyhe.InvalidParameter, match=r"encrypt: level = 1 given with a Plaintext at level 2"):
        cctx.encrypt(pt, level=1)
    with pytest.raises(polyhe.InvalidParameter, match=r"encrypt: scale = 1073741824.0 given with a Plaintext of scale 1099511627776.0"):
        cctx.encrypt(pt, scale=2.0**30)
    ct = cctx.encrypt(pt, level=pt.level, scale=pt.scale)  # agreeing: fine
    assert ct.level == 2 and ct.scale == 2.0**40
    close(cctx.decrypt(ct), [1.0, 2.0])


# --- 6. CKKS scales: finite, >= 1, and what encrypt accepts loads back ---------------------------
def test_ckks_scale_bounds(cctx):
    import pickle

    for bad in (5e-324, 0.5, 0.0, -1.0, float("inf"), float("nan"), 10**400):
        with pytest.raises(polyhe.InvalidParameter, match="a CKKS scale must be a finite number >= 1"):
            ckks.Context(**SMALL, scale=bad)
        with pytest.raises(polyhe.InvalidParameter, match="a CKKS scale must be a finite number >= 1"):
            cctx.encrypt([1.0], scale=bad)
    with pytest.raises(TypeError, match="scale: expected a real number, got bool"):
        cctx.encode([1.0], scale=True)
    # The loader's rule, scale < 2^(bits(Q_l) - 1): Q_0 = one 50-bit prime, Q_1 has 90 bits.
    with pytest.raises(polyhe.InvalidParameter, match=r"encode: scale .* \(2\^49.000\) is not below 2\^49 at level 0 \(Q_0 has 50 bits\)"):
        cctx.encrypt([1.0], level=0, scale=2.0**49)
    with pytest.raises(polyhe.InvalidParameter, match=r"is not below 2\^89 at level 1"):
        cctx.encrypt([1.0], level=1, scale=2.0**89)
    # A context's default scale is checked at the level it is used at.
    big = ckks.Context(**SMALL, scale=2.0**60)
    with pytest.raises(polyhe.InvalidParameter, match=r"not below 2\^49 at level 0"):
        big.encode([1.0], level=0)
    # Everything encrypt accepts pickles and loads back.
    for level, scale in ((0, 2.0**48), (1, 2.0**88), (2, 1.0), (0, 1.5)):
        ct = cctx.encrypt([1.0], level=level, scale=scale)
        back = pickle.loads(pickle.dumps(ct))
        assert back.scale == scale and back.level == level
        cctx.load_ciphertext(ct.serialize())
    close(cctx.decrypt(cctx.encrypt([1.0], level=0, scale=2.0**48)), [1.0])


def test_ckks_context_bytes_with_a_bad_scale_are_refused(cctx):
    from polyhe import _context

    parts = cctx.public()._sections(False)
    parts[1] = _context._encode_settings("ckks", (0.5,), parts[0])
    data = b"".join([_context._MAGIC, b"ckks"] + [len(p).to_bytes(8, "little") + bytes(p) for p in parts])
    with pytest.raises(polyhe.CorruptData, match=r"ckks context: scale 0.5 is not a finite number >= 1"):
        ckks.Context.load(data, minimum_security="none")


# --- 7. flooding_bits bounded by the scale --------------------------------------------------------
def test_ckks_flooding_bits_bounded_by_the_scale(cctx):
    x = np.array([1.0, 1.5, 2.0])
    c = cctx.encrypt(x)
    # N = 2^10, scale 2^40: b <= 40 - 5 - 10 = 25.
    close(cctx.decrypt(c, flooding_bits=25), x, 2e-3)
    for b in (26, 45, 60):
        with pytest.raises(polyhe.InvalidParameter, match=rf"flooding_bits = {b} exceeds 25 = floor\(log2\(scale\) - log2\(N\)/2\) - 10 .*at least 2\^{b + 15}"):
            cctx.decrypt(c, flooding_bits=b)
    low = cctx.encrypt(x, level=0, scale=2.0**30)
    with pytest.raises(polyhe.InvalidParameter, match=r"exceeds 15 "):
        cctx.decrypt(low, flooding_bits=16)
    with pytest.raises(polyhe.InvalidParameter, match=r"flooding_bits = 61 is outside \[0, 60\]"):
        cctx.decrypt(c, flooding_bits=61)


# --- 9. messages --------------------------------------------------------------------------------
def test_ckks_scale_mismatch_names_both_scales_exactly(cctx):
    c = cctx.encrypt([1.0, 2.0])
    sq = c * c
    with pytest.raises(polyhe.InvalidParameter, match=r"add: the operands' scales differ: 1099511\d+\.\d+ \(2\^40\.0000000\d+\) and the other operand's 1099511627776\.0 \(2\^40\.000000000000\).*y \* ctx\.encode\(np\.ones\(ctx\.slots\), level=y\.level\)"):
        sq + c
    # The advice works: the same rescale gives the same scale.
    y = c * cctx.encode(np.ones(cctx.slots), level=c.level)
    assert y.scale == sq.scale
    close(cctx.decrypt(sq + y, length=2), [2.0, 6.0])
    with pytest.raises(polyhe.InvalidParameter, match="sub: the operands' scales differ: .* and the plaintext's"):
        sq - cctx.encode([1.0], level=sq.level)


# --- 8. Context.load checks the key sections against each other ------------------------------------
def _mixed(ctx, other, section: int) -> bytes:
    """ctx's bytes (with its secret key) with one section taken from `other`'s."""
    from polyhe import _context

    parts = ctx._sections(include_secret_key=True)
    parts[section] = other._sections(include_secret_key=True)[section]
    scheme = ctx._scheme.encode().ljust(4, b"\0")
    return b"".join([_context._MAGIC, scheme] + [len(p).to_bytes(8, "little") + bytes(p) for p in parts])


@pytest.mark.parametrize("kind", ["ckks", "bgv", "odd_m"])
def test_load_refuses_key_sections_of_another_key_set(kind):
    if kind == "ckks":
        mk = lambda: ckks.Context(**SMALL).generate_keys(rotations=[1], conjugation=True)  # noqa: E731
    elif kind == "bgv":
        mk = lambda: bgv.Context(**SMALL, scheme="bfv").generate_keys(rotations=[1])  # noqa: E731
    else:
        p = polyhe.Parameters(m=127, q_bits=[50, 40, 40], p_bits=[50], security="none")
        mk = lambda: bgv.Context(p, t=509).generate_keys(galois_elements=[2])  # noqa: E731
    a, b = mk(), mk()
    cls = type(a)
    ok = cls.load(a.serialize(include_secret_key=True), minimum_security="none")
    assert ok.key_id == a.key_id and ok.has_secret_key
    names = {6: "secret key", 4: "relinearisation key", 5: "Galois keys"}
    for section, name in names.items():
        with pytest.raises(polyhe.MismatchedContext, match=f"context: the {name}.* section belongs to another key set"):
            cls.load(_mixed(a, b, section), minimum_security="none")
    # Without the secret key only the public key is tied to the key id (documented).
    pub = a.public()
    assert cls.load(pub.serialize(), minimum_security="none").key_id == a.key_id


def test_messages_name_the_python_spelling(cctx):
    with pytest.raises(polyhe.InvalidParameter, match=r"log_n = -1 is outside \[1, 17\] \(N = 2\^log_n, x\^N \+ 1; or log_n = 0 with an odd m"):
        polyhe.Parameters(log_n=-1, q_bits=[40], p_bits=[40])
    with pytest.raises(polyhe.InvalidParameter, match=r"log_n = 18 is outside \[1, 17\]"):
        polyhe.Parameters(log_n=18, q_bits=[40], p_bits=[40])
    with pytest.raises(polyhe.InsecureParameters, match="pass security='none' to opt out by name") as e:
        polyhe.Parameters(log_n=10, q_bits=[50, 40], p_bits=[50])
    assert "::" not in str(e.value)
    toy = polyhe.Parameters(**SMALL)
    with pytest.raises(polyhe.InsecureParameters, match="minimum_security='none'") as e:
        polyhe.Parameters.load(toy.serialize())
    assert "::" not in str(e.value)
    low = cctx.encrypt([1.0], level=0)
    with pytest.raises(polyhe.InvalidParameter, match=r"ct.rescale\(\), or multiply with rescale=True") as e:
        low.multiply(low, rescale=False)
    assert "::" not in str(e.value)


def test_polymul_blames_q():
    for q in (0, 1):
        with pytest.raises(polyhe.InvalidParameter, match=rf"polymul: q = {q} is not prime"):
            arith.polymul([1, 2], [1, 2], q=q)


def test_ntt_primes_refuses_a_count_no_search_can_meet():
    # 2^63 primes used to search about 2^59 candidates with the GIL released (no Ctrl-C).
    with pytest.raises(polyhe.InvalidParameter, match="9223372036854775808.*65536"):
        arith.ntt_primes(62, 2, 2**63)
    with pytest.raises(polyhe.InvalidParameter, match="256 candidates"):
        arith.ntt_primes(20, 1024, 257)
    assert len(arith.ntt_primes(20, 1024, 3)) == 3
