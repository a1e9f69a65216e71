"""polyhe's package-wide objects: the errors, Parameters (checks, bytes, pickle, the live-set
registry), the CPU path and thread settings, authenticated bytes, and that heavy calls release
the GIL."""

import pickle
import threading
import time

import numpy as np
import pytest

import polyhe
from polyhe import ckks


def test_error_classes():
    for cls in (
        polyhe.InvalidParameter,
        polyhe.InsecureParameters,
        polyhe.MismatchedContext,
        polyhe.CorruptData,
    ):
        assert issubclass(cls, polyhe.Error) and issubclass(cls, ValueError)
    assert issubclass(polyhe.DeviceError, RuntimeError)
    assert polyhe.InvalidParameter.__module__ == "polyhe"


def test_parameters_from_bits_and_primes():
    p = polyhe.Parameters(log_n=13, q_bits=[40, 30, 30], p_bits=[40])
    assert (p.n, p.log_n, p.m, p.max_level) == (8192, 13, 16384, 2)
    assert [q.bit_length() for q in p.q_primes] == [40, 30, 30]
    assert all(q % (2 * p.n) == 1 for q in p.q_primes + p.p_primes)
    assert p.security == "128" and p.log_qp <= 218 and p.dnum == 3
    same = polyhe.Parameters(log_n=13, q=p.q_primes, p=p.p_primes)
    assert same == p and same.hash == p.hash
    assert "log_n=13" in repr(p)


def test_parameters_refusals_name_the_value():
    with pytest.raises(polyhe.InsecureParameters, match="128"):
        polyhe.Parameters(log_n=12, q_bits=[60, 60], p_bits=[60])
    with pytest.raises(polyhe.InvalidParameter, match="log_n"):
        polyhe.Parameters(log_n=99, q_bits=[40], p_bits=[40])
    with pytest.raises(polyhe.InvalidParameter, match=r"q_bits\[1\] = 99"):
        polyhe.Parameters(log_n=12, q_bits=[40, 99], p_bits=[40])
    with pytest.raises(TypeError, match=r"q_bits\[0\]"):
        polyhe.Parameters(log_n=12, q_bits=[40.5], p_bits=[40])
    with pytest.raises(polyhe.InvalidParameter, match="security"):
        polyhe.Parameters(log_n=12, q_bits=[40], p_bits=[40], security=100)
    with pytest.raises(polyhe.InvalidParameter):
        polyhe.Parameters(log_n=12, q=[12], p_bits=[40], security="none")  # 12 is no NTT prime


def test_parameters_bytes_and_pickle():
    p = polyhe.Parameters(log_n=12, q_bits=[40, 30], p_bits=[40], security="none")
    data = p.serialize()
    assert polyhe.Parameters.load(data, "none") is p
    with pytest.raises(polyhe.InsecureParameters):
        polyhe.Parameters.load(data)
    with pytest.raises(polyhe.CorruptData):
        polyhe.Parameters.load(data[:-1], "none")
    bad = bytearray(data)
    bad[-1] ^= 1
    with pytest.raises(polyhe.CorruptData):
        polyhe.Parameters.load(bytes(bad), "none")
    with pytest.raises(TypeError):
        polyhe.Parameters.load("text", "none")
    assert pickle.loads(pickle.dumps(p)) is p


def test_cpu_paths_and_threads():
    paths = polyhe.cpu_paths()
    assert paths[0] == "scalar" and polyhe.cpu_path() in paths
    assert polyhe.best_cpu_path_reason()
    before = polyhe.cpu_path()
    x = np.linspace(-1, 1, 64)
    results = {}
    try:
        for path in paths:
            polyhe.set_cpu_path(path)
            assert polyhe.cpu_path() == path
            c = ckks.Context(log_n=12, q_bits=[50, 40], p_bits=[50], security="none")
            c.generate_keys(seed=bytes(32))
            results[path] = c.decrypt(c.encrypt(x) * c.encrypt(x))
    finally:
        polyhe.set_cpu_path(before)
    for path, got in results.items():
        assert np.max(np.abs(got - x * x)) < 1e-5, path
    with pytest.raises(polyhe.InvalidParameter, match="unknown CPU path"):
        polyhe.set_cpu_path("sse9")
    with pytest.raises(TypeError):
        polyhe.set_cpu_path(3)
    n = polyhe.threads()
    try:
        polyhe.set_threads(2)
        assert polyhe.threads() == 2
    finally:
        polyhe.set_threads(n)
    with pytest.raises(polyhe.InvalidParameter, match="threads = 0"):
        polyhe.set_threads(0)


def test_authenticated_bytes():
    key = polyhe.generate_mac_key()
    assert len(key) == 32
    p = polyhe.Parameters(log_n=12, q_bits=[40, 30], p_bits=[40], security="none")
    sealed = polyhe.authenticate(p.serialize(), key)
    assert polyhe.verify(sealed, key) == p.serialize()
    tampered = bytearray(sealed)
    tampered[10] ^= 4
    with pytest.raises(polyhe.CorruptData, match="authentication failed"):
        polyhe.verify(bytes(tampered), key)
    with pytest.raises(polyhe.CorruptData):
        polyhe.verify(sealed, polyhe.generate_mac_key())
    with pytest.raises(polyhe.InvalidParameter, match="MAC key"):
        polyhe.verify(sealed, b"short")


def test_heavy_calls_release_the_gil():
    # A Python thread spinning in the interpreter keeps its pace while another thread is inside
    # one long polyhe call (Galois keys for 16 rotations at N = 2^14, a few hundred ms). Were the
    # GIL held for the call, the spinner would stop for all of it but one switch interval (5 ms).
    from polyhe import _polyhe

    p = polyhe.Parameters(log_n=14, q_bits=[50] + [40] * 8, p_bits=[50])
    gen = _polyhe.KeyGenerator(p._native)
    sk = gen.secret_key()
    done = threading.Event()
    count = [0]

    def spin():
        while not done.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.02)
        c0, t0 = count[0], time.perf_counter()
        time.sleep(0.1)
        base_rate = (count[0] - c0) / (time.perf_counter() - t0)
        c1, t1 = count[0], time.perf_counter()
        gen.rotation_keys(sk, list(range(1, 17)), False)
        elapsed = time.perf_counter() - t1
        rate = (count[0] - c1) / elapsed
    finally:
        done.set()
        t.join()
    assert elapsed > 0.1, elapsed
    assert rate > 0.2 * base_rate, (rate, base_rate, elapsed)
