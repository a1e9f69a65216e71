"""The second hardening pass, each finding pinned: the context's settings section is a bounded,
typed binary section covered by a digest (no Python literal evaluated, no MemoryError or
RecursionError, no silent bit flip), every list a call takes is capped before any work, and
ciphertext bytes record their scheme, t and key set, so that a ciphertext loaded into another
context is refused by name (MismatchedContext) instead of decrypting to garbage."""

import hashlib
import itertools
import struct
import warnings

import numpy as np
import pytest

import polyhe
from polyhe import _context, bgv, ckks

SMALL = dict(log_n=10, q_bits=[50, 40, 40], p_bits=[50], security="none")
N = 1 << 10
HEADER = 24  # magic, version, kind, parameter hash, payload size (rlwe/serial.hpp)
ORIGIN = 25  # scheme u8, t u64, key id (16 bytes)


@pytest.fixture(scope="module")
def cctx():
    return ckks.Context(**SMALL).generate_keys(rotations=[1])


@pytest.fixture(scope="module")
def gctx():
    return bgv.Context(**SMALL, t=65537).generate_keys(rotations=[1])


def context_bytes(parts, magic=_context._MAGIC, scheme=b"ckks"):
    return b"".join(
        [magic, scheme] + [len(p).to_bytes(8, "little") + bytes(p) for p in parts]
    )


# --- 1. the settings section: bounded, typed, checked ---------------------------------------------
@pytest.mark.parametrize(
    "blob",
    [
        b"(" + b"1+" * 50_000 + b"1,)",  # 100 KB of additions: RecursionError before
        b"(" + b"[" * 50_000 + b"]" * 50_000 + b",)",  # nesting: MemoryError before
        b"(" + b"9" * 4_000_000 + b".0,)",  # 4 MB: seconds and a gigabyte before
        b"\xff" * 100,
        b"",
    ],
    ids=["additions", "nesting", "4MB", "binary", "empty"],
)
def test_context_settings_of_any_size_are_corrupt_data_named(cctx, blob):
    parts = cctx.public()._sections(False)
    parts[1] = blob
    with pytest.raises(polyhe.CorruptData, match=r"context: (a settings section of \d+ bytes, above its cap of 64 bytes|unreadable ckks settings)"):
        ckks.Context.load(context_bytes(parts), minimum_security="none")


def test_every_bit_of_the_settings_section_is_checked(cctx, gctx):
    for ctx, cls, scheme in ((cctx, ckks.Context, b"ckks"), (gctx, bgv.Context, b"bgv\0")):
        parts = ctx.public()._sections(False)
        settings = parts[1]
        assert settings.startswith(b"PHST") and len(settings) <= 64
        cls.load(context_bytes(parts, scheme=scheme), minimum_security="none")
        for bit in range(8 * len(settings)):
            flipped = bytearray(settings)
            flipped[bit // 8] ^= 1 << (bit % 8)
            parts[1] = bytes(flipped)
            with pytest.raises(polyhe.CorruptData):
                cls.load(context_bytes(parts, scheme=scheme), minimum_security="none")
        parts[1] = settings


def test_settings_are_tied_to_their_parameters(cctx):
    other = ckks.Context(log_n=10, q_bits=[50, 40], p_bits=[50], security="none")
    parts = cctx.public()._sections(False)
    parts[1] = other._sections(False)[1]  # the same scale, digested with other parameters
    with pytest.raises(polyhe.CorruptData, match="digest does not match"):
        ckks.Context.load(context_bytes(parts), minimum_security="none")


def test_section_caps_are_named(cctx):
    parts = cctx.public()._sections(False)
    big = list(parts)
    big[0] = bytes(parts[0]) + b"\0" * 5000
    with pytest.raises(polyhe.CorruptData, match="a parameters section of 5.* bytes, above its cap of 4096"):
        ckks.Context.load(context_bytes(big), minimum_security="none")
    big = list(parts)
    big[2] = b"k" * 17
    with pytest.raises(polyhe.CorruptData, match="a key id section of 17 bytes, above its cap of 16"):
        ckks.Context.load(context_bytes(big), minimum_security="none")


def test_first_format_contexts_still_load_by_a_fixed_pattern(cctx, gctx):
    parts = cctx.public()._sections(False)
    parts[1] = repr((cctx.scale,)).encode()
    back = ckks.Context.load(context_bytes(parts, _context._MAGIC_V1), minimum_security="none")
    assert back.scale == cctx.scale and back.key_id == cctx.key_id
    parts = gctx.public()._sections(False)
    parts[1] = repr((65537, "bgv")).encode()
    back = bgv.Context.load(context_bytes(parts, _context._MAGIC_V1, b"bgv\0"), minimum_security="none")
    assert back.t == 65537 and back.scheme == "bgv"
    for bad in (b"(1e999,)", b"(__import__('os'),)", b"(2.0, 3.0)", b"[2.0]"):
        parts = cctx.public()._sections(False)
        parts[1] = bad
        with pytest.raises(polyhe.CorruptData):
            ckks.Context.load(context_bytes(parts, _context._MAGIC_V1), minimum_security="none")


# --- 3. lists capped before any work ----------------------------------------------------------------
def test_rotation_lists_are_capped(cctx, gctx):
    c = cctx.encrypt([1.0, 2.0])
    with pytest.raises(polyhe.InvalidParameter, match=r"rotate_many: steps: more than 512 values, above the cap of 512 \(one output ciphertext each"):
        c.rotate_many([1] * 100_000)
    with pytest.raises(polyhe.InvalidParameter, match="above the cap of 512"):
        c.rotate_many(itertools.repeat(1))  # endless: refused, not hung
    assert len(c.rotate_many([0] * 512)) == 512  # at the cap: served
    g = gctx.encrypt([1, 2])
    with pytest.raises(polyhe.InvalidParameter, match=r"rotate_rows_many: steps: more than 512 values"):
        g.rotate_rows_many(itertools.repeat(1))
    for ctx in (ckks.Context(**SMALL), bgv.Context(**SMALL)):
        with pytest.raises(polyhe.InvalidParameter, match=rf"generate_keys: rotations: more than {N} values, above the cap of {N} \(the ring has that many automorphisms\)"):
            ctx.generate_keys(rotations=itertools.count())
        with pytest.raises(polyhe.InvalidParameter, match=rf"galois_elements: more than {N} values"):
            ctx.generate_keys(galois_elements=[3] * (N + 1))
    with pytest.raises(polyhe.InvalidParameter, match=r"add_galois_keys: rotations: more than"):
        cctx.add_galois_keys(itertools.repeat(1))
    with pytest.raises(polyhe.InvalidParameter, match=r"q_bits: more than 64 values, above the cap of 64"):
        polyhe.Parameters(log_n=10, q_bits=itertools.repeat(40), security="none")


# --- 4. ciphertexts know their context ------------------------------------------------------------
def test_key_id_is_blake2b_of_the_public_key(cctx):
    pk = cctx.public()._pk
    want = hashlib.blake2b(pk.serialize(), digest_size=16, person=b"polyhe-keyid").digest()
    assert pk.key_id() == want == cctx.key_id


def test_ciphertext_bytes_record_scheme_t_and_key(cctx, gctx):
    data = cctx.encrypt([1.0]).serialize()
    assert data[HEADER] == 1 and data[HEADER + 9 : HEADER + 25] == cctx.key_id
    data = gctx.encrypt([1]).serialize()
    assert data[HEADER] == 3
    assert struct.unpack_from("<Q", data, HEADER + 1)[0] == 65537
    assert data[HEADER + 9 : HEADER + 25] == gctx.key_id


def test_ciphertexts_of_another_context_are_refused_by_name(cctx, gctx):
    params = gctx.params
    bfv_ctx = bgv.Context(params, t=65537, scheme="bfv").generate_keys()
    other_t = bgv.Context(params, t=12289).generate_keys()
    other_key = bgv.Context(params, t=65537).generate_keys()
    ckks_same_params = ckks.Context(params).generate_keys()
    g = gctx.encrypt([1, 2, 3]).serialize()
    with pytest.raises(polyhe.MismatchedContext, match="scheme: the bytes hold a BGV ciphertext, the context is CKKS"):
        ckks_same_params.load_ciphertext(g)
    with pytest.raises(polyhe.MismatchedContext, match="the bytes hold a BGV ciphertext, the context is BFV"):
        bfv_ctx.load_ciphertext(g)
    with pytest.raises(polyhe.MismatchedContext, match="the bytes hold a BFV ciphertext, the context is BGV"):
        gctx.load_ciphertext(bfv_ctx.encrypt([1]).serialize())
    with pytest.raises(polyhe.MismatchedContext, match="t: the ciphertext was made for t = 65537, the context has t = 12289"):
        other_t.load_ciphertext(g)
    with pytest.raises(polyhe.MismatchedContext, match=f"key id: the ciphertext was made under key set {gctx.key_id.hex()}, the context holds key set {other_key.key_id.hex()}"):
        other_key.load_ciphertext(g)
    with pytest.raises(polyhe.MismatchedContext, match="the bytes hold a CKKS ciphertext, the context is BGV"):
        gctx.load_ciphertext(ckks_same_params.encrypt([1.0]).serialize())
    c = cctx.encrypt([1.0]).serialize()
    with pytest.raises(polyhe.MismatchedContext, match="key id"):
        ckks.Context(cctx.params).generate_keys().load_ciphertext(c)
    # Its own context, and a keyless one of the same settings (no key id to compare), load it.
    assert list(gctx.decrypt(gctx.load_ciphertext(g))[:3]) == [1, 2, 3]
    bgv.Context(params, t=65537).load_ciphertext(g)
    # Pickles carry the same record.
    import pickle

    back = pickle.loads(pickle.dumps(gctx.encrypt([4, 5])))
    assert list(gctx.decrypt(back)[:2]) == [4, 5]


def test_non_unit_bgv_factors_are_refused(gctx):
    # t = 65536 is even: 2 is no unit, so a factor of 2 cannot be divided out.
    ctx = bgv.Context(**SMALL, t=65536).generate_keys()
    data = bytearray(ctx.encrypt(ctx.encode_coefficients([1])).serialize())
    factor_at = HEADER + ORIGIN + 24  # level, size, scale, factor
    for f in (0, 2, 65536, 2**64 - 1):
        data[factor_at : factor_at + 8] = f.to_bytes(8, "little")
        with pytest.raises(polyhe.CorruptData, match="factor"):
            ctx.load_ciphertext(bytes(data))


def test_version_2_ciphertexts_load_with_a_warning(gctx):
    data = gctx.encrypt([7, 8]).serialize()
    v2 = bytearray(data[:HEADER] + data[HEADER + ORIGIN :])
    v2[4] = 2
    v2[16:24] = (len(v2) - HEADER).to_bytes(8, "little")
    with pytest.warns(polyhe.FormatWarning, match="format version 2 record no scheme, t or key id"):
        back = gctx.load_ciphertext(bytes(v2))
    assert list(gctx.decrypt(back)[:2]) == [7, 8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gctx.load_ciphertext(data)  # the current format: no warning
    assert np.array_equal(
        gctx.decrypt(gctx.load_ciphertext(back.serialize()))[:2], [7, 8]
    )


def test_a_sparse_secret_claims_no_security_level():
    # The HE standard's table is for uniform ternary secrets: log2(QP) = 160 at N = 2^16 is far
    # inside its 128-bit row, yet a sparse secret gets no level unless the caller opts out.
    sparse = dict(log_n=16, q_bits=[60, 40], p_bits=[60], hamming_weight=192)
    with pytest.raises(polyhe.InsecureParameters,
                       match=r"hamming_weight = 192 at 128-bit security: .*uniform ternary secrets "
                             r"only.*pass security='none' to opt out by name") as e:
        polyhe.Parameters(**sparse)
    assert "::" not in str(e.value)
    with pytest.raises(polyhe.InsecureParameters, match="hamming_weight = 192"):
        ckks.Context(**sparse)
    assert polyhe.Parameters(**sparse, security="none").hamming_weight == 192
