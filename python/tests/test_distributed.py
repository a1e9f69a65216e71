"""polyhe.distributed on a local Ray instance (2 CPUs, loopback only): the logistic-regression
example's workload checked against numpy, order, errors, the secret key staying home, shutdown."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import ray

import polyhe
from polyhe import bgv, ckks
from polyhe.distributed import Pool, RemoteTraceback, WorkerError, map_encrypted

_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_logistic_regression.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("ray_logistic_regression", _EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = _load_example()
# The workers cannot import this file or the example by name: their functions travel by value.
ray.cloudpickle.register_pickle_by_value(example)
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def local_ray():
    assert not ray.is_initialized(), "another test left Ray running"
    # The workers inherit this process's environment (PYTHONPATH: the polyhe under test). Ray's
    # processes talk to each other only (it addresses this machine by its own IP address even
    # when told 127.0.0.1); no usage statistics are sent.
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
    )
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def ctx():
    return example.make_context(seed=bytes(range(32)))


class _Shared:
    pool = None


@pytest.fixture
def pool(local_ray, ctx):
    """A 2-worker pool shared by the tests that use it (restarted when a test needed the CPUs)."""
    if _Shared.pool is None or _Shared.pool.closed:
        _Shared.pool = Pool(ctx, workers=2)
    return _Shared.pool


@pytest.fixture
def all_cpus(local_ray):
    """Both CPUs free: the shared pool shut down."""
    if _Shared.pool is not None:
        _Shared.pool.shutdown()
    deadline = time.time() + 30
    while ray.available_resources().get("CPU", 0) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert ray.available_resources().get("CPU", 0) == 2


@pytest.fixture(scope="module", autouse=True)
def _close_shared_pool():
    yield
    if _Shared.pool is not None:
        _Shared.pool.shutdown()


def _add_index(c, item):
    i, ct = item
    time.sleep(0.02 * ((7 * i) % 4))  # finish out of order
    return i, ct * 2 + float(i)


def _fail_on_5(c, x):
    if x == 5:
        raise ValueError(f"bad item {x}")
    return x * 10


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("this exception does not pickle")


def _fail_unpicklable(c, x):
    if x == 2:
        raise _Unpicklable("the worker's own error")
    return x


def _decrypt_on_worker(c, ct):
    return c.decrypt(ct)


def test_ray_pickling_of_ckks_ciphertexts(pool, ctx, monkeypatch):
    # The pool registered its serializer in this process: the same objects come back, each
    # under its own key set, without parsing the parameters again once the context is known.
    other = example.make_context(seed=bytes(range(1, 33)))
    for c in (ctx, other):  # the first ciphertext of a context looks it up
        ray.get(ray.put(c.encrypt([0.0])))
    loads = []
    real_load = polyhe.Parameters.load.__func__
    monkeypatch.setattr(
        polyhe.Parameters, "load",
        classmethod(lambda cls, *a, **k: loads.append(1) or real_load(cls, *a, **k)),
    )
    for c in (ctx, other):
        ct = c.encrypt([1.5, -2.0, 3.25]) * 2.0
        back = ray.get(ray.put(ct))
        assert type(back) is ckks.Ciphertext and back.context is c
        assert (back.level, back.scale, back.size, back.is_real, back.length) == (
            ct.level, ct.scale, ct.size, True, 3)
        np.testing.assert_allclose(c.decrypt(back), [3.0, -4.0, 6.5], atol=1e-6)
        assert back.serialize() == ct.serialize()
    complex_ct = ctx.encrypt(np.array([1 + 2j]))
    back = ray.get(ray.put(complex_ct))
    assert not back.is_real and abs(ctx.decrypt(back)[0] - (1 + 2j)) < 1e-6
    assert loads == []
    # Plain pickling finds the parameter set by its bytes too (polyhe.parameters' cache).
    import pickle

    pickle.loads(pickle.dumps(complex_ct))
    assert loads == []


def test_workers_import_this_polyhe(pool):
    files = pool.for_each_worker(lambda c: (polyhe.__file__, os.getpid()))
    assert [f for f, _ in files] == [polyhe.__file__] * 2
    assert len({pid for _, pid in files}) == 2
    assert os.getpid() not in {pid for _, pid in files}


def test_logistic_regression_matches_numpy(pool, ctx):
    features, rows = 8, 2 * ctx.slots + 1000  # three chunks, the last one partial
    Xt, yt, _, _ = example.make_data(4000, features, seed=3)
    w, b = example.train(Xt, yt, steps=100)
    X, y, _, _ = example.make_data(rows, features, seed=4)
    items = example.encrypt_rows(ctx, X)
    assert len(items) == 3 and all(len(item) == features for item in items)
    scorer = example.EncryptedScorer(tuple(map(float, w)), float(b))
    out = pool.map(scorer, items, chunksize=1)
    assert len(out) == 3 and all(isinstance(ct, ckks.Ciphertext) for ct in out)
    scores = example.decrypt_scores(ctx, out, rows)
    assert scores.shape == (rows,)
    r = example.check(scores, X, y, w, b)
    assert r["max_abs_error_vs_numpy"] < 1e-3, r
    assert r["max_abs_error_poly_vs_sigmoid"] < 0.15, r  # the degree-3 fit on this data
    assert r["label_agreement_vs_sigmoid"] > 0.98, r
    assert abs(r["accuracy_encrypted"] - r["accuracy_plain"]) < 0.02, r
    # The same scores computed in this process, without Ray.
    local = [scorer(ctx, item) for item in items]
    np.testing.assert_allclose(example.decrypt_scores(ctx, local, rows), scores, atol=2e-4)


def test_the_example_runs_as_a_script(all_cpus, capsys):
    # main() uses the Ray instance already running (and leaves it running).
    rc = example.main(
        ["--rows", "8192", "--features", "8", "--workers", "1,2", "--repeats", "1",
         "--rounds", "1"]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "check: ok" in out
    assert "workers 1: scoring" in out and "workers 2: scoring" in out
    assert "speedup 2 vs 1 workers: scoring" in out
    assert ray.is_initialized()


@pytest.mark.parametrize("chunksize", [None, 1, 3, 100])
def test_map_keeps_the_order(pool, ctx, chunksize):
    n = 11
    cts = [(i, ctx.encrypt(np.full(4, float(i)))) for i in range(n)]
    out = pool.map(_add_index, cts, chunksize=chunksize)
    assert [i for i, _ in out] == list(range(n))
    for i, ct in out:
        np.testing.assert_allclose(ctx.decrypt(ct), np.full(4, 3.0 * i), atol=1e-6)


def test_map_of_plain_values_and_empty(pool):
    assert pool.map(lambda c, x: x * x, range(50)) == [x * x for x in range(50)]
    assert pool.map(lambda c, x: x, []) == []


def test_items_in_the_object_store(pool, ctx):
    refs = [ray.put(ctx.encrypt([float(i), 1.0])) for i in range(4)]
    out = pool.map(lambda c, x: x + x, refs)
    assert [round(float(ctx.decrypt(ct)[0]), 6) for ct in out] == [0.0, 2.0, 4.0, 6.0]


def test_an_exception_in_fn_is_raised_with_the_item(pool):
    with pytest.raises(ValueError, match="bad item 5") as info:
        pool.map(_fail_on_5, range(12), chunksize=2)
    err = info.value
    assert isinstance(err.__cause__, RemoteTraceback)
    assert "_fail_on_5" in str(err.__cause__) and "ValueError" in str(err.__cause__)
    if sys.version_info >= (3, 11):
        assert any("item 5" in note for note in err.__notes__)
    # The pool still works after a failed map.
    assert pool.map(lambda c, x: x + 1, range(6)) == list(range(1, 7))


def test_an_unpicklable_exception_becomes_a_worker_error(pool):
    with pytest.raises(WorkerError, match=r"item 2 .*_Unpicklable: the worker's own error") as info:
        pool.map(_fail_unpicklable, range(4), chunksize=1)
    assert info.value.index == 2
    assert "_fail_unpicklable" in info.value.remote_traceback


def test_the_secret_key_stays_home(pool, ctx):
    assert ctx.has_secret_key
    assert not pool.context.has_secret_key
    info = pool.worker_info()
    assert len(info) == 2
    for w in info:
        assert w["key_id"] == ctx.key_id
        assert w["has_secret_key"] is False
        assert w["has_public_key"] and w["has_relinearization_key"]
        assert w["threads"] == 1
    assert pool.for_each_worker(lambda c: c.has_secret_key) == [False, False]
    # A worker cannot decrypt: the error is polyhe's, raised here.
    with pytest.raises(polyhe.InvalidParameter, match="secret key"):
        pool.map(_decrypt_on_worker, [ctx.encrypt([1.0])])
    # The worker's context also holds no secret under another name: its ciphertexts decrypt
    # only here.
    ct = pool.map(lambda c, _: c.encrypt([2.5]), [0])[0]
    assert ct.context.has_secret_key
    assert abs(float(ctx.decrypt(ct)[0]) - 2.5) < 1e-6


def _bgv_square_plus_5(c, x):
    return (x * x + 5).mod_switch()


def test_bgv_ciphertexts(all_cpus):
    # A pool serves one key set: BGV ciphertexts go to a pool of their own context.
    ctx = bgv.Context(log_n=13, q_bits=[54, 54, 54], p_bits=[54])
    ctx.generate_keys(seed=bytes(32))
    with Pool(ctx, workers=2) as p:
        assert [w["key_id"] for w in p.worker_info()] == [ctx.key_id] * 2
        cts = [ctx.encrypt(np.arange(8) + 10 * i) for i in range(5)]
        out = p.map(_bgv_square_plus_5, cts, chunksize=2)
    for i, ct in enumerate(out):
        v = np.arange(8) + 10 * i
        np.testing.assert_array_equal(ctx.decrypt(ct)[:8], v * v + 5)


def _square_where(c, x):
    y = x * x
    return y, y._ct.is_on(c.device)


def test_workers_on_a_device(all_cpus, ctx):
    # Each worker moves its context, and the ciphertexts it receives, to the emulated device (the
    # CUDA code path on the host); the results come home as bytes and decrypt here.
    x = np.linspace(-1, 1, 16)
    cts = [ctx.encrypt(x + i) for i in range(3)]
    with Pool(ctx, workers=2, device="emulated") as p:
        assert [w["device"] for w in p.worker_info()] == ["cuda-emulated"] * 2
        out = p.map(_square_where, cts, chunksize=1)
    for i, (y, on_device) in enumerate(out):
        assert on_device
        np.testing.assert_allclose(ctx.decrypt(y), (x + i) ** 2, atol=1e-3)
    with pytest.raises(RuntimeError, match="failed to start"):
        Pool(ctx, workers=1, device="gpu")  # not a device name: the worker refuses to start


def test_shutdown_frees_the_workers(all_cpus, ctx):
    before = ray.available_resources().get("CPU", 0)
    pool = Pool(ctx, workers=1, threads_per_worker=2)
    assert pool.workers == 1 and pool.worker_info()[0]["threads"] == 2
    assert pool.map(lambda c, x: -x, [1, 2]) == [-1, -2]
    pool.shutdown()
    assert pool.closed
    pool.shutdown()  # again: nothing
    with pytest.raises(RuntimeError, match="shut down"):
        pool.map(lambda c, x: x, [1])
    deadline = time.time() + 30
    while ray.available_resources().get("CPU", 0) < before and time.time() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == before


def test_workers_that_cannot_import_polyhe(all_cpus, ctx, tmp_path):
    # Workers whose environment gives them no working polyhe: the pool says so. A package of that
    # name that fails to import, first on the workers' PYTHONPATH, stands for it, whether polyhe
    # comes from a build tree (PYTHONPATH) or is installed (site-packages, after PYTHONPATH).
    broken = tmp_path / "polyhe"
    broken.mkdir()
    (broken / "__init__.py").write_text(
        "raise ImportError('this polyhe cannot be imported (test_distributed)')\n"
    )
    env = {"env_vars": {"PYTHONPATH": str(tmp_path)}}
    want = r"(?s)failed to start; the workers must import.*this polyhe cannot be imported"
    with pytest.raises(RuntimeError, match=want):
        Pool(ctx, workers=1, runtime_env=env, start_timeout=120)


def test_map_encrypted_and_argument_checks(all_cpus, ctx):
    cts = [ctx.encrypt([float(i)]) for i in range(3)]
    out = map_encrypted(ctx, lambda c, x: x * 3, cts, workers=2)
    assert [round(float(ctx.decrypt(ct)[0]), 6) for ct in out] == [0.0, 3.0, 6.0]
    with pytest.raises(polyhe.InvalidParameter, match="needs 3 CPUs"):
        Pool(ctx, workers=3)
    with pytest.raises(polyhe.InvalidParameter, match="workers = 0"):
        Pool(ctx, workers=0)
    with pytest.raises(TypeError, match="context"):
        Pool("not a context", workers=1)
    keyless = ckks.Context(log_n=13, q_bits=[50, 38, 38, 38], p_bits=[50])
    with pytest.raises(polyhe.InvalidParameter, match="no keys"):
        Pool(keyless, workers=1)
