"""Encrypted computations over many ciphertexts on Ray workers (local processes or a cluster).

::

    import numpy as np, ray, polyhe
    from polyhe.distributed import Pool

    ray.init(num_cpus=2)
    ctx = polyhe.ckks.Context()
    ctx.generate_keys()
    cts = [ctx.encrypt(np.full(8, float(i))) for i in range(100)]

    def square_plus_one(c, x):        # on a worker; c: its context (without the secret key)
        return x * x + 1.0

    with Pool(ctx, workers=2) as pool:
        out = pool.map(square_plus_one, cts)    # in input order
    values = [ctx.decrypt(y) for y in out]

How it works. :class:`Pool` starts ``workers`` Ray actors and gives each, once, the context's
*public* part (``context.public()``: parameters, public, relinearisation and Galois keys — never
the secret key), put in the object store one time and read by every actor. Ciphertexts pickle as
their bytes with their parameter set and key id, not the keys; in an actor they find the context
it already holds through polyhe's per-process registry, and back in the caller's process the
results find the context holding the secret key, which decrypts them. :meth:`Pool.map` cuts the
items into contiguous chunks and keeps a few chunks in flight on every actor (``ray.wait``), so
that an actor starts its next chunk while the caller collects the last one; results come back in
input order. An exception raised by ``fn`` is raised again in the caller, its type and message
kept, with the item's index and the worker's traceback attached. :meth:`Pool.put` sends a data
set to the object store once, for any number of maps over it.

Pickling. A ckks.Ciphertext pickled the plain way makes its receiver parse its parameter bytes
again (about a millisecond at N = 2^13, four at 2^14, per ciphertext); every pool registers with
Ray, in the caller's process and in its workers, a serializer for ckks.Ciphertext that yields the
same objects without that cost and sends the ciphertext's bytes out of band (it then serves every
Ray call in those processes). BGV/BFV ciphertexts travel the plain way.

Ray is imported only when a pool starts (``pip install ray`` or ``pip install polyhe[ray]``).
Call ``ray.init(...)`` first to choose the cluster or the local resources; a pool started without
it calls ``ray.init()`` with Ray's defaults. The workers must import the same polyhe: on one
machine they inherit the caller's environment (``PYTHONPATH`` included); on a cluster install
polyhe on every node or pass ``runtime_env``.

Items may be ciphertexts, tuples or lists of them (a batch: one item, e.g. the feature
ciphertexts of one chunk of rows), any other picklable value, or ``ray.ObjectRef`` s of such items
already in the object store (resolved on the worker). ``fn(context, item)`` must be picklable:
functions of the ``__main__`` module travel by value, functions of other modules by name (the
workers must be able to import them, or register the module with
``ray.cloudpickle.register_pickle_by_value``).
"""

from __future__ import annotations

import math
import numbers
import os
import pickle
import threading
import traceback
import weakref
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, TypeVar

from polyhe import _context, _polyhe
from polyhe._context import KeyedContext

__all__ = ["Pool", "map_encrypted", "WorkerError", "RemoteTraceback"]

T = TypeVar("T")
R = TypeVar("R")


def _ray():
    """The ray module, imported on first use."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "polyhe.distributed runs on Ray, which is not installed: pip install ray "
            "(or pip install 'polyhe[ray]')"
        ) from e
    return ray


class WorkerError(RuntimeError):
    """Raised in the caller when ``fn`` failed on a worker with an exception that could not be
    sent back as itself (it did not pickle); names the item, the worker, the exception's type
    and message, and carries the worker's traceback in ``remote_traceback``."""

    def __init__(self, message: str, index: int, worker: int, remote_traceback: str) -> None:
        super().__init__(message)
        self.index = index
        self.worker = worker
        self.remote_traceback = remote_traceback


class RemoteTraceback(Exception):
    """The worker's traceback, attached as ``__cause__`` to an exception raised again in the
    caller (as ``concurrent.futures`` does), so that the report shows where on the worker it
    happened; ``where`` names the item and the worker."""

    def __init__(self, text: str, where: str = "") -> None:
        super().__init__(text)
        self.text = text
        self.where = where

    def __str__(self) -> str:
        head = f"{self.where}; traceback" if self.where else "Traceback"
        return f"\n\n{head} on the worker:\n{self.text}"


class _Failure:
    """What an actor returns instead of its results when ``fn`` raised (or could not be
    unpickled): where, the pickled exception (None when it does not pickle), its type, message
    and traceback."""

    __slots__ = ("index", "worker", "where", "exc_bytes", "type_name", "message", "tb")

    def __init__(self, index: int, worker: int, where: str, exc: BaseException) -> None:
        self.index = index
        self.worker = worker
        self.where = where
        self.type_name = f"{type(exc).__module__}.{type(exc).__qualname__}"
        self.message = str(exc)
        self.tb = traceback.format_exc()
        try:  # cloudpickle: also exceptions of classes sent by value
            self.exc_bytes: Optional[bytes] = _ray().cloudpickle.dumps(exc)
            pickle.loads(self.exc_bytes)
        except Exception:
            self.exc_bytes = None

    def __getstate__(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setstate__(self, state) -> None:
        for k, v in zip(self.__slots__, state):
            setattr(self, k, v)

    def to_exception(self) -> BaseException:
        """The worker's exception, raised again here, or a WorkerError when it did not pickle."""
        where = f"polyhe.distributed: {self.where} (worker {self.worker})"
        exc: Optional[BaseException] = None
        if self.exc_bytes is not None:
            try:
                exc = pickle.loads(self.exc_bytes)
            except Exception:
                exc = None
        if exc is None:
            return WorkerError(
                f"{where}: {self.type_name}: {self.message}\n\nTraceback on the worker:\n{self.tb}",
                self.index,
                self.worker,
                self.tb,
            )
        if hasattr(exc, "add_note"):  # Python >= 3.11
            exc.add_note(where)
        exc.__cause__ = RemoteTraceback(self.tb, where)
        return exc


# --- faster Ray pickling of CKKS ciphertexts -------------------------------------------------
# A ckks.Ciphertext pickles as (its parameter bytes, scheme settings, key id, its bytes, ...) and
# unpickling looks its context up through polyhe._context.context_for, which parses and checks the
# parameter bytes every time (Parameters.load: milliseconds at N = 2^13, more than the work of a
# typical operation). The pool registers with Ray, in the caller's process and in each worker, a
# reducer with the same contents that (1) finds the context through a per-process cache checked
# against the registry (the same context context_for returns) and (2) sends the ciphertext's bytes
# out of band (pickle protocol 5), so that Ray writes them to its object store without another
# copy. What comes out is what plain unpickling gives.

_cache_lock = threading.Lock()
_context_cache: Dict[tuple, tuple] = {}


def _cached_context(cls, params_bytes: bytes, settings_bytes: bytes, key_id: bytes) -> KeyedContext:
    """context_for(cls, ...) without parsing the parameter bytes again when this process has
    already found that context and the registry still names it."""
    key = (cls, params_bytes, settings_bytes, key_id)
    hit = _context_cache.get(key)
    if hit is not None:
        reg_key, ref = hit
        ctx = ref()
        if ctx is not None and _context._registry.get(reg_key) is ctx:
            return ctx
    ctx = _context.context_for(cls, params_bytes, settings_bytes, key_id)
    reg_key = _context._reg_key(cls, ctx._params, ctx._settings(), ctx._key_id)
    with _cache_lock:
        _context_cache[key] = (reg_key, weakref.ref(ctx))
    return ctx


def _ckks_ciphertext_state(ct) -> tuple:
    fn, args = ct.__reduce__()
    if len(args) != 6 or not isinstance(args[3], bytes):  # another layout: the plain way
        return ("plain", fn, args)
    params_bytes, settings_bytes, key_id, data, real, length = args
    return ("v1", params_bytes, settings_bytes, key_id, pickle.PickleBuffer(data), real, length)


def _ckks_ciphertext_from_state(state: tuple):
    if state[0] == "plain":
        return state[1](*state[2])
    from polyhe import ckks

    _, params_bytes, settings_bytes, key_id, data, real, length = state
    ctx = _cached_context(ckks.Context, params_bytes, settings_bytes, key_id)
    ct = ckks._native.load_ciphertext(data, ctx._params._native, ctx._key_id or b"")
    return ckks.Ciphertext(ct, ctx, bool(real), length)


def _register_fast_pickling() -> None:
    """Registers the CKKS ciphertext reducer with Ray in this process (again at every pool:
    cheap, and it survives a ray.shutdown() and ray.init() in between)."""
    from polyhe import ckks

    _ray().util.register_serializer(
        ckks.Ciphertext,
        serializer=_ckks_ciphertext_state,
        deserializer=_ckks_ciphertext_from_state,
    )


class _Worker:
    """The actor: holds the public context (unpickled here first, so that it is in this
    process's registry before any ciphertext arrives) and runs ``fn`` over chunks of items."""

    def __init__(
        self, context: KeyedContext, threads: int, rank: int, device: Optional[str] = None
    ) -> None:
        import polyhe
        from polyhe._device import resolve

        polyhe.set_threads(threads)
        _register_fast_pickling()
        if context.has_secret_key:  # cannot happen through Pool: it sends context.public()
            raise RuntimeError(
                "polyhe.distributed: a worker received a context with the secret key"
            )
        if device is not None:
            # The context this process unpickled, which its ciphertexts find: on the device from
            # now on (nothing has been computed with it yet).
            context._device = resolve(device.replace("{rank}", str(rank)))
            context._cache.clear()
        self._context = context
        self._rank = rank
        self._fn_id: Optional[bytes] = None
        self._fn: Optional[Callable] = None

    def info(self) -> Dict[str, Any]:
        """What the worker holds: its process, rank, polyhe's thread count, its device and its
        context's key id and keys."""
        import polyhe

        c = self._context
        return {
            "pid": os.getpid(),
            "rank": self._rank,
            "threads": polyhe.threads(),
            "device": c.device.name if c.device is not None else None,
            "key_id": c.key_id,
            "has_secret_key": c.has_secret_key,
            "has_public_key": c.has_public_key,
            "has_relinearization_key": c.has_relinearization_key,
        }

    def _function(self, fn_id: bytes, fn_blob: bytes):
        """The map's function, unpickled once per map (the last one is kept)."""
        if self._fn_id != fn_id:
            self._fn = _ray().cloudpickle.loads(fn_blob)
            self._fn_id = fn_id
        return self._fn

    def run(self, fn_id: bytes, fn_blob: bytes, start: int, *items: Any):
        """fn(context, item) for each item (Ray has fetched those sent as ObjectRefs: they are
        arguments of the call); a _Failure for the first item that raised."""
        try:
            fn = self._function(fn_id, fn_blob)
        except Exception as e:
            return _Failure(
                start, self._rank, "fn could not be unpickled on the worker (its module must "
                "be importable there, or registered with "
                "ray.cloudpickle.register_pickle_by_value)", e,
            )
        pending = list(items)
        del items
        out = []
        for k in range(len(pending)):
            item, pending[k] = pending[k], None  # each input dropped once used
            try:
                out.append(fn(self._context, item))
            except Exception as e:  # sent back, raised again by the caller
                return _Failure(start + k, self._rank, f"fn raised on item {start + k}", e)
            del item
        return out

    def call(self, fn_blob: bytes):
        """fn(context) once on this worker (a _Failure when it raised)."""
        try:
            fn = _ray().cloudpickle.loads(fn_blob)
        except Exception as e:
            return _Failure(-1, self._rank, "fn could not be unpickled on the worker", e)
        try:
            return fn(self._context)
        except Exception as e:
            return _Failure(-1, self._rank, "fn raised in for_each_worker", e)


_actor_class = None

#: The largest chunk map sends by default. Each call costs a few milliseconds of CPU beyond its
#: items, spread over the caller, Ray's raylet and the worker (measured on a 2-core machine: about
#: 2 ms in each, with 8 MB items, for an item of about 5 ms of work), so fewer, larger calls leave
#: the cores to the workers; but a chunk's items are all fetched and unpickled on the worker before
#: the first is used, and a worker holds ``in_flight`` chunks at a time.
_MAX_CHUNK = 16


def _actor():
    global _actor_class
    if _actor_class is None:
        _actor_class = _ray().remote(_Worker)
    return _actor_class


class Pool:
    """``workers`` Ray actors holding one context's public keys, mapping a function over
    encrypted items.

    ``context``: a CKKS or BGV/BFV context with keys. When it holds the secret key, the pool sends
    ``context.public()`` instead: the secret never leaves the caller's process, which alone
    decrypts the results. The public context is put in Ray's object store once and every actor
    reads it once, at start.

    ``workers``: actors to start (default: the cluster's CPUs // ``threads_per_worker``, at
    least 1); each asks Ray for ``threads_per_worker`` CPUs and sizes polyhe's thread pool to
    ``threads_per_worker`` (:func:`polyhe.set_threads`). ``runtime_env`` goes to the actors
    (e.g. ``{"env_vars": {"PYTHONPATH": ...}}`` where the workers cannot import polyhe
    otherwise). ``device``: where each worker computes — None (its CPUs), ``"cuda"``,
    ``"cuda:{rank}"`` (worker r on GPU r: ``{rank}`` is replaced by the worker's rank) or
    ``"emulated"``; a worker that cannot open it fails to start (RuntimeError). The ciphertexts
    sent to it are moved there, and its results come back as bytes like any other.
    ``in_flight``: chunks queued on each actor at a time (2: one running, the next arriving). ``start_timeout``: seconds to wait for the actors to start (a cluster without the
    CPUs asked for never starts them: RuntimeError). ``task_events``: whether Ray records the
    actors' calls for its state API and dashboard (off: less overhead per call).

    A context manager: ``with Pool(ctx, 2) as pool: ...`` shuts the actors down at the end.
    """

    def __init__(
        self,
        context: KeyedContext,
        workers: Optional[int] = None,
        threads_per_worker: int = 1,
        *,
        runtime_env: Optional[Dict[str, Any]] = None,
        device: Optional[str] = None,
        in_flight: int = 2,
        start_timeout: float = 300.0,
        task_events: bool = False,
    ) -> None:
        if not isinstance(context, KeyedContext):
            raise TypeError(
                f"context: expected a polyhe.ckks.Context or polyhe.bgv.Context, "
                f"got {type(context).__name__}"
            )
        if context.key_id is None:
            raise _polyhe.InvalidParameter(
                "context: it holds no keys; call generate_keys() (or use a context received "
                "from the key holder) before starting a pool"
            )
        threads = _positive("threads_per_worker", threads_per_worker)
        self._in_flight = _positive("in_flight", in_flight)
        ray = _ray()
        if not ray.is_initialized():
            ray.init()
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if workers is None:
            n = max(1, cpus // threads)
        else:
            n = _positive("workers", workers)
        if n * threads > cpus:
            raise _polyhe.InvalidParameter(
                f"workers = {n} × threads_per_worker = {threads} needs {n * threads} CPUs; "
                f"the Ray cluster has {cpus} (ray.init(num_cpus=...) or fewer workers)"
            )
        _register_fast_pickling()
        self._context = context.public() if context.has_secret_key else context
        self._threads = threads
        self._closed = False
        self._actors: list = []
        self._context_ref = ray.put(self._context)
        # Task events feed Ray's state API and dashboard; off, they cost the raylet and the
        # dashboard agent nothing per call (a few per cent of a core on a small machine).
        options: Dict[str, Any] = {"num_cpus": threads, "enable_task_events": bool(task_events)}
        if runtime_env is not None:
            options["runtime_env"] = runtime_env
        cls = _actor()
        self._actors = [
            cls.options(**options).remote(self._context_ref, threads, rank, device)
            for rank in range(n)
        ]
        try:
            ray.get([a.info.remote() for a in self._actors], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            self.shutdown()
            raise RuntimeError(
                f"polyhe.distributed: {n} workers did not start within {start_timeout:g} s "
                f"(each asks for {threads} CPUs; the cluster has {cpus})"
            ) from None
        except ray.exceptions.RayActorError as e:
            self.shutdown()
            raise RuntimeError(
                "polyhe.distributed: a worker failed to start; the workers must import this "
                "polyhe (on one machine they inherit PYTHONPATH; elsewhere install it or pass "
                f"runtime_env): {e}"
            ) from e
        except BaseException:
            self.shutdown()
            raise

    # --- what it is ------------------------------------------------------------------------------
    @property
    def context(self) -> KeyedContext:
        """The public context the workers hold (no secret key)."""
        return self._context

    @property
    def workers(self) -> int:
        """The number of actors."""
        return len(self._actors)

    @property
    def threads_per_worker(self) -> int:
        """polyhe threads (and Ray CPUs) per actor."""
        return self._threads

    @property
    def closed(self) -> bool:
        """Whether :meth:`shutdown` was called."""
        return self._closed

    def worker_info(self) -> List[Dict[str, Any]]:
        """For each actor: its process id, rank, polyhe thread count, device name (None: its
        CPUs), and what its context holds (``key_id``, ``has_secret_key``, ``has_public_key``,
        ``has_relinearization_key``)."""
        self._check_open()
        ray = _ray()
        return ray.get([a.info.remote() for a in self._actors])

    # --- work ------------------------------------------------------------------------------------
    def map(
        self,
        fn: Callable[[KeyedContext, T], R],
        items: Iterable[T],
        *,
        chunksize: Optional[int] = None,
    ) -> List[R]:
        """``[fn(context, item) for item in items]``, computed on the workers, in input order.

        ``context`` is the worker's public context; an item is a ciphertext, a tuple or list of
        them, any picklable value, or a ``ray.ObjectRef`` of one (from :meth:`put`; Ray fetches
        it for the worker). The items go out in contiguous chunks, each actor keeping
        ``in_flight`` chunks queued, and a worker that finishes a chunk gets the next one. By
        default the chunks are equal, ``len(items) / (workers · in_flight)`` items (at most 16):
        every worker has work queued from the start in as few calls as that allows (each call
        costs milliseconds of CPU in the caller, Ray and the worker); ``chunksize`` fixes the
        size instead (1 for few heavy items of uneven cost; larger for many light ones: a worker
        holds the items of the chunks queued on it). An exception in ``fn`` is raised here (the first one
        met) with the item's index and the worker's traceback attached; the chunks still queued
        run to the end, their results dropped, and the pool stays usable."""
        self._check_open()
        if not callable(fn):
            raise TypeError(f"fn: expected a function of (context, item), got {type(fn).__name__}")
        ray = _ray()
        seq = list(items)
        n = len(seq)
        if n == 0:
            return []
        w = len(self._actors)
        fixed = None if chunksize is None else _positive("chunksize", chunksize)
        results: Dict[int, list] = {}
        fn_id = os.urandom(16)
        fn_ref = ray.put(ray.cloudpickle.dumps(fn))
        pending: Dict[Any, Tuple[int, int]] = {}
        position = 0

        def submit(a: int) -> None:
            nonlocal position
            if fixed is not None:
                size = fixed
            else:
                size = min(_MAX_CHUNK, math.ceil(n / (w * self._in_flight)))
            start, position = position, min(n, position + size)
            # Items as arguments of their own: Ray passes ObjectRefs among them natively (no
            # pickling here) and fetches them for the worker.
            ref = self._actors[a].run.remote(fn_id, fn_ref, start, *seq[start:position])
            pending[ref] = (start, a)

        try:
            for _ in range(self._in_flight):
                for a in range(w):
                    if position < n:
                        submit(a)
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    start, a = pending.pop(ref)
                    value = ray.get(ref)
                    if isinstance(value, _Failure):
                        raise value.to_exception()
                    results[start] = value
                    if position < n:
                        submit(a)
        except BaseException:
            # The chunks already queued (at most in_flight per actor) run to the end and their
            # results are dropped. Cancelling queued actor calls instead can leave an actor waiting
            # for a call number that never comes ("Timed out waiting for seq_no": Ray's
            # ActorUnavailableError), which broke the next map on a loaded machine.
            try:
                ray.wait(list(pending), num_returns=len(pending))
            except Exception:
                pass
            raise
        out: List[R] = []
        for start in sorted(results):
            out.extend(results[start])
        return out

    def put(self, items: Iterable[T]) -> list:
        """Each item put in Ray's object store (``ray.put``), as a list of ``ObjectRef`` s that
        :meth:`map` takes in place of the items: send a data set once and map over it many
        times, or keep the caller's process out of the transfers while the workers compute."""
        self._check_open()
        ray = _ray()
        return [ray.put(item) for item in items]

    def for_each_worker(self, fn: Callable[[KeyedContext], R]) -> List[R]:
        """``fn(context)`` once on every worker (e.g. to load a model or check what it holds);
        the results in worker order."""
        self._check_open()
        ray = _ray()
        fn_ref = ray.put(ray.cloudpickle.dumps(fn))
        values = ray.get([a.call.remote(fn_ref) for a in self._actors])
        for v in values:
            if isinstance(v, _Failure):
                raise v.to_exception()
        return values

    def shutdown(self) -> None:
        """Stops the actors (their CPUs return to Ray); the pool refuses work afterwards.
        Calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        ray = _ray()
        actors, self._actors = self._actors, []
        for a in actors:
            try:
                ray.kill(a, no_restart=True)
            except Exception:
                pass

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("polyhe.distributed.Pool: the pool was shut down")

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._actors)} workers"
        key = self._context.key_id.hex() if self._context.key_id else "none"
        return (
            f"polyhe.distributed.Pool({state}, threads_per_worker={self._threads}, key_id={key})"
        )


def map_encrypted(
    context: KeyedContext,
    fn: Callable[[KeyedContext, T], R],
    items: Iterable[T],
    workers: Optional[int] = None,
    threads_per_worker: int = 1,
    *,
    chunksize: Optional[int] = None,
    **pool_options: Any,
) -> List[R]:
    """One map on a pool started for it and shut down after: ``Pool(context, workers,
    threads_per_worker, **pool_options).map(fn, items, chunksize=chunksize)``. For several maps
    over one context keep a :class:`Pool` (starting the actors and sending the keys take a
    second or more)."""
    with Pool(context, workers, threads_per_worker, **pool_options) as pool:
        return pool.map(fn, items, chunksize=chunksize)


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name}: expected a positive integer, got {type(value).__name__} {value!r}"
        )
    v = int(value)
    if v < 1:
        raise _polyhe.InvalidParameter(f"{name} = {v}: expected a positive integer")
    return v
