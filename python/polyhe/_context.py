"""What the CKKS and BGV/BFV contexts share: the keys a context holds, their identity, the
process-wide registry that pickling relies on, and the context's own bytes.

Identity. A context's keys are named by ``key_id``: the first 16 bytes of BLAKE2b over its public
key's bytes, so the secret holder and every server that received the public key agree on it.

Pickling. A context pickles its parameters, its scheme's settings and its *public* keys (a context
holding the secret key refuses to pickle: send ``ctx.public()``). A ciphertext pickles its bytes
with its parameter set and its context's key_id, never the keys. Unpickling looks the context up in
this process's registry by (scheme settings, key_id): a context unpickled twice is one object, its
keys loaded once; a ciphertext unpickled before its context gets a keyless context, which the
context's keys join when they arrive; back in the process that holds the secret key, ciphertexts
find that context and decrypt. Pickle runs code: use it between your own processes (Ray); for bytes
from elsewhere use the ``load`` functions, which check everything and apply a security policy.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
import threading
import warnings
import weakref
from typing import Dict, Iterable, Optional, Tuple

import numpy as np

from polyhe import _polyhe
from polyhe._checks import flag, galois_rule, int_list, is_galois_element
from polyhe.parameters import Parameters, from_trusted_bytes

__all__ = ["KeyedContext", "FormatWarning"]


class FormatWarning(UserWarning):
    """Bytes of an older format loaded: what that format does not record was not checked (a
    ciphertext of format version 2 records no scheme, t or key id, so its context cannot be)."""

_MAGIC = b"PHCTX\x02"
_MAGIC_V1 = b"PHCTX\x01"  # settings as a Python literal, unchecked: still read (strictly)

# The largest parameters section (rlwe/serial.hpp: header, fields, at most 64 primes) is about 600
# bytes; sections above these caps are refused before they are copied or parsed.
_MAX_PARAMETERS_BYTES = 4096
_MAX_SETTINGS_BYTES = 64

_registry: "weakref.WeakValueDictionary[Tuple, KeyedContext]" = weakref.WeakValueDictionary()
_registry_lock = threading.RLock()


def key_id_of(public_key: "_polyhe.PublicKey") -> bytes:
    """16 bytes naming a key set: BLAKE2b-128 of its public key's bytes (personalisation
    "polyhe-keyid"; rlwe::key_id, which the ciphertext bytes record)."""
    return public_key.key_id()


class KeyedContext:
    """The base of ckks.Context and bgv.Context: parameters, a native scheme context, and the keys
    it holds (any of secret, public, relinearisation, Galois). Subclasses define ``_settings()``
    (what besides the parameters makes their native context, e.g. the default scale or t and the
    scheme), ``_make_native(params, settings)`` and ``_make_evaluator()``."""

    _scheme: str = ""

    def _init_keyed(self, params: Parameters, native) -> None:
        self._params = params
        self._native = native
        self._sk = None
        self._pk = None
        self._relin = None
        self._galois = None
        self._key_id: Optional[bytes] = None
        self._lock = threading.RLock()
        self._cache: Dict[object, object] = {}
        self._device = None  # a native Device, or None: host memory

    # --- subclass hooks ----------------------------------------------------------------------
    def _settings(self) -> tuple:
        raise NotImplementedError

    @classmethod
    def _make_native(cls, params: Parameters, settings: tuple):
        raise NotImplementedError

    def _pickled_context(self) -> tuple:
        """What a pickled object of this context carries to find it again: (parameters bytes,
        settings bytes, key id or b"")."""
        params_bytes = self._params.serialize()
        settings = _encode_settings(self._scheme, self._settings(), params_bytes)
        return (params_bytes, settings, self._key_id or b"")

    def _origin(self) -> tuple:
        """What this context's ciphertext bytes record (rlwe/origin.hpp): (scheme tag, t, key id):
        CKKS (1, 0, id), BFV (2, t, id), BGV (3, t, id); the id b"" while no keys are held."""
        raise NotImplementedError

    def _loaded(self, data, load):
        """``load(data, key_id)``'s ciphertext, the bytes checked against this context's origin by
        the native loader; a FormatWarning when they are of a format that records none."""
        ct = load(data, self._key_id or b"")
        head = memoryview(data).cast("B")[:8].tobytes()
        if _polyhe.format_version(head) < 3:
            warnings.warn(
                "load_ciphertext: bytes of format version 2 record no scheme, t or key id, so "
                "their context could not be checked (re-serialise them to record it)",
                FormatWarning,
                stacklevel=3,
            )
        return ct

    @classmethod
    def _from_native(cls, params: Parameters, native) -> "KeyedContext":
        obj = cls.__new__(cls)
        obj._init_keyed(params, native)
        return obj

    # --- keys --------------------------------------------------------------------------------
    def generate_keys(
        self,
        rotations: Iterable[int] = (),
        conjugation: bool = False,
        relinearization: bool = True,
        seed: Optional[bytes] = None,
        galois_elements: Iterable[int] = (),
    ) -> "KeyedContext":
        """Makes a fresh secret key and, from it, the public key, the relinearisation key (unless
        ``relinearization=False``) and Galois keys for the slot rotations in ``rotations`` (steps,
        negative: right), for conjugation / the row swap when ``conjugation``, and for each Galois
        element (x → x^k) named in ``galois_elements``. Steps and elements are integers (numpy
        integers too, not bools or floats), the flags True or False. Over Φ_m (an odd m, BGV)
        there are no rotations by steps: name the Galois elements (units mod m). ``seed`` (32
        bytes) makes them reproducible, for tests only. Once per context (a context holding keys
        refuses: make a new one for new keys); returns self."""
        if self._key_id is not None:
            raise _polyhe.InvalidParameter(
                f"generate_keys: this context already holds keys (key id {_hex(self._key_id)}); "
                "ciphertexts made under them would no longer decrypt. Make a new context for new "
                "keys, or add rotations with add_galois_keys"
            )
        relin_wanted = flag("relinearization", relinearization)
        elements = self._galois_elements_for(
            "generate_keys", rotations, conjugation, galois_elements
        )
        gen = _polyhe.KeyGenerator(self._params._native, seed)
        sk = gen.secret_key()
        pk = gen.public_key(sk)
        relin = gen.relinearization_key(sk) if relin_wanted else None
        galois = gen.galois_keys(sk, elements) if elements else None
        with self._lock:
            self._sk, self._pk, self._relin, self._galois = sk, pk, relin, galois
            self._key_id = key_id_of(pk)
            self._cache.clear()
        _register(self, replace=True)
        return self

    def add_galois_keys(
        self,
        rotations: Iterable[int] = (),
        conjugation: bool = False,
        galois_elements: Iterable[int] = (),
    ) -> None:
        """Adds Galois keys (needs the secret key): for rotation steps, conjugation / the row swap
        and named Galois elements, as :meth:`generate_keys` checks them. Over Φ_m (odd m) only
        ``galois_elements``."""
        if self._sk is None:
            raise _polyhe.InvalidParameter(
                "add_galois_keys: this context holds no secret key (Galois keys are made by the "
                "secret key's holder and sent as ctx.public())"
            )
        wanted = set(
            self._galois_elements_for("add_galois_keys", rotations, conjugation, galois_elements)
        )
        have = set(self._galois.elements) if self._galois is not None else set()
        new = sorted(wanted - have)
        if not new:
            return
        galois = _polyhe.KeyGenerator(self._params._native).galois_keys(self._sk, new)
        with self._lock:
            self._galois = galois if self._galois is None else self._galois.merged(galois)
            self._cache.clear()

    def _galois_elements_for(
        self, op: str, rotations: object, conjugation: object, galois_elements: object
    ) -> list:
        """The Galois elements of rotation steps, conjugation and named elements, each checked
        (TypeError for a non-integer or a non-bool flag, InvalidParameter naming the rule)."""
        # Steps as Ciphertext.rotate / rotate_rows take them.
        native = self._params._native
        n = int(native.n)
        why = "the ring has that many automorphisms"
        steps = int_list(f"{op}: rotations", rotations, -(1 << 62), 1 << 62, n, why)
        conj = flag(f"{op}: conjugation", conjugation)
        named = int_list(f"{op}: galois_elements", galois_elements, 0, (1 << 64) - 1, n, why)
        m, pow2 = int(native.m), bool(native.log_n)
        if not pow2 and (steps or conj):
            what = f"rotations = {steps}" if steps else "conjugation = True"
            raise _polyhe.InvalidParameter(
                f"{op}: {what}, but the ring is Phi_{m} (odd m): rotations by 5^step and the row "
                f"swap are the slots of x^N + 1. Name the automorphisms x -> x^k instead: "
                f"galois_elements=[k, ...] with k {galois_rule(m, pow2)} (x -> x^-1: k = {m - 1})"
            )
        for i, k in enumerate(named):
            if not is_galois_element(k, m, pow2):
                raise _polyhe.InvalidParameter(
                    f"{op}: galois_elements[{i}] = {k} is not a Galois element: k must be "
                    f"{galois_rule(m, pow2)}"
                )
        elements = [int(_polyhe.galois_element_for_rotation(n, s)) for s in steps]
        if conj:
            elements.append(int(_polyhe.galois_element_for_conjugation(n)))
        elements += named
        # A step of 0 mod N/2 is the identity (element 1): rotations by it need no key.
        return sorted({k for k in elements if k != 1 or k in named})

    @property
    def params(self) -> Parameters:
        """The parameter set."""
        return self._params

    @property
    def key_id(self) -> Optional[bytes]:
        """16 bytes naming the key set (BLAKE2b of the public key), None without keys."""
        return self._key_id

    @property
    def has_secret_key(self) -> bool:
        """Whether this context can decrypt."""
        return self._sk is not None

    @property
    def has_public_key(self) -> bool:
        """Whether this context can encrypt with the public key."""
        return self._pk is not None

    @property
    def has_relinearization_key(self) -> bool:
        """Whether ciphertext products can be relinearised."""
        return self._relin is not None

    @property
    def galois_elements(self) -> list:
        """The Galois elements (x → x^k) this context has keys for."""
        return list(self._galois.elements) if self._galois is not None else []

    @property
    def secret_key(self):
        """The native secret key (its ``serialize()`` gives the secret's bytes)."""
        return self._sk

    @property
    def public_key(self):
        """The native public key."""
        return self._pk

    @property
    def relinearization_key(self):
        """The native relinearisation key."""
        return self._relin

    @property
    def galois_keys(self):
        """The native Galois keys."""
        return self._galois

    def public(self) -> "KeyedContext":
        """A context with the same parameters and the public and evaluation keys, without the
        secret key: what to send to whoever computes (it pickles; this one does not)."""
        other = type(self)._from_native(self._params, self._native)
        other._copy_settings_from(self)
        other._pk, other._relin, other._galois = self._pk, self._relin, self._galois
        other._key_id = self._key_id
        other._device = self._device
        _register(other, replace=False)
        return other

    def _copy_settings_from(self, other: "KeyedContext") -> None:
        """Subclasses copy what _settings() reads that the native context does not hold."""

    def _apply_settings(self, settings: tuple) -> None:
        """Subclasses set what _settings() reads that the native context does not hold."""

    # --- the device --------------------------------------------------------------------------
    @property
    def device(self):
        """Where this context's keys and ciphertexts live and its operations run: a
        :class:`polyhe.Device`, or None for host memory and the CPU kernels. Set at construction
        (``device=``); a context unpickled elsewhere is on the host there."""
        return self._device

    def _placed_key(self, name: str):
        """The key held in attribute ``name`` where this context computes: the host key, or its
        copy on the device (made once, and again after the keys change)."""
        key = getattr(self, name)
        if key is None or self._device is None:
            return key
        with self._lock:
            copy = self._cache.get(("device", name))
            if copy is None:
                copy = key.to_device(self._device)
                self._cache[("device", name)] = copy
            return copy

    def _place(self, native):
        """A native ciphertext or CKKS plaintext where this context computes (moved if not)."""
        dev = self._device
        return native if native.is_on(dev) else native.to_device(dev)

    # --- native helpers ----------------------------------------------------------------------
    def _require(self, what: str, key: str, op: str):
        value = getattr(self, key)
        if value is None:
            hint = {
                "_sk": "decrypting needs the secret key: only the context that generated the keys "
                "(or one loaded with the secret key) can decrypt",
                "_pk": "encrypting needs the public key: call generate_keys(), or use a context "
                "received from the key holder",
                "_relin": "multiplying ciphertexts needs the relinearisation key: "
                "generate_keys(relinearization=True), or a context received with it",
                "_galois": "rotations need Galois keys: generate_keys(rotations=[...]) or "
                "add_galois_keys([...])",
            }[key]
            raise _polyhe.InvalidParameter(f"{op}: this context has no {what}; {hint}")
        return value

    def _encryptor(self):
        with self._lock:
            enc = self._cache.get("encryptor")
            if enc is None:
                key = self._placed_key("_pk" if self._pk is not None else "_sk")
                if key is None:
                    self._require("public key", "_pk", "encrypt")
                enc = self._make_encryptor(key)
                self._cache["encryptor"] = enc
            return enc

    def _evaluator(self):
        with self._lock:
            ev = self._cache.get("evaluator")
            if ev is None:
                ev = self._make_evaluator()
                self._cache["evaluator"] = ev
            return ev

    def _make_evaluator(self):
        raise NotImplementedError

    def _make_encryptor(self, key):
        raise NotImplementedError

    def _check_same(self, other: "KeyedContext", op: str) -> None:
        if other is self:
            return
        if (
            type(other) is type(self)
            and other._params._native is self._params._native
            and other._settings() == self._settings()
            and other._key_id == self._key_id
        ):
            return
        raise _polyhe.MismatchedContext(
            f"{op}: the operands belong to different contexts (parameters {self._params.hash:#x}"
            f" and {other._params.hash:#x}, settings {self._settings()} and {other._settings()},"
            f" keys {_hex(self._key_id)} and {_hex(other._key_id)}); ciphertexts combine only"
            f" under one parameter set object, one scheme setting and one key"
        )

    # --- bytes and pickle --------------------------------------------------------------------
    def serialize(self, include_secret_key: bool = False) -> bytes:
        """The context's bytes: parameters, scheme settings and the keys it holds — the secret
        key only with ``include_secret_key=True`` (those bytes are then the secret). Read back
        with the class's ``load``."""
        if include_secret_key and self._sk is None:
            raise _polyhe.InvalidParameter(
                "serialize(include_secret_key=True): this context holds no secret key"
            )
        sections = self._sections(include_secret_key)
        out = [_MAGIC, self._scheme.encode().ljust(4, b"\0")]
        for s in sections:
            out.append(struct.pack("<Q", len(s)))
            out.append(s)
        return b"".join(out)

    to_bytes = serialize

    @classmethod
    def load(cls, data: bytes, minimum_security=128, device=None) -> "KeyedContext":
        """A context from :meth:`serialize`'s bytes, checked (CorruptData naming what is wrong;
        the parameters under the ``minimum_security`` policy, InsecureParameters below it). Every
        section is parsed and checked against the parameters. The public key must match the key
        id. With a secret key in the bytes, the key sections are checked against each other,
        exactly: a zero encrypted under the public key must decrypt to zero under the secret key,
        and so must its product relinearised with the relinearisation key and its image under
        each Galois key (MismatchedContext naming the section that belongs to another key set).
        Without the secret key the relinearisation and Galois keys cannot be checked: they are
        trusted as sent.
        The result is a context of its own (unpickling, by contrast, joins the context registered
        under the key id); it is registered for unpickling only when no context of that key id is.
        ``device`` as for the constructor."""
        from polyhe._checks import byteslike, security_name
        from polyhe._device import resolve

        where = resolve(device)
        parts = _split(byteslike("data", data), cls._scheme)
        params = Parameters.load(parts[0], security_name(minimum_security))
        ctx = cls._assemble(params, parts, trusted=False)
        ctx._device = where
        return ctx

    @classmethod
    def _assemble(cls, params: Parameters, parts: list, trusted: bool) -> "KeyedContext":
        settings = _decode_settings(cls._scheme, parts[1], parts[0])
        key_id = parts[2] or None
        if key_id is not None and len(key_id) != 16:
            raise _polyhe.CorruptData(f"context: a key id of {len(key_id)} bytes, expected 16")
        if key_id is None and any(parts[3:]):
            raise _polyhe.CorruptData("context: keys without a key id")
        if trusted:
            # Unpickling (the caller's own processes): join the context registered under this key
            # id, so that objects of one key set meet in one context and keys load once.
            ctx = _lookup_or_make(cls, params, settings, key_id)
        else:
            # Bytes from elsewhere: a context of its own. Only the public key is tied to the key id
            # (checked below); evaluation keys from these bytes must not join a registered context.
            ctx = cls._from_native(params, cls._make_native(params, settings))
            ctx._apply_settings(settings)
            ctx._key_id = key_id
        # The context found may hold another Parameters object of the same values: its keys must
        # be loaded under the context's own (objects of two Parameters objects never mix).
        pn = ctx._params._native
        with ctx._lock:
            if parts[3] and ctx._pk is None:
                pk = _polyhe.PublicKey.load(parts[3], pn)
                if key_id_of(pk) != key_id:
                    raise _polyhe.CorruptData(
                        "context: the public key does not match the key id it was sent with"
                    )
                ctx._pk = pk
            if parts[4] and ctx._relin is None:
                ctx._relin = _polyhe.KeySwitchKey.load(parts[4], pn)
            if parts[5]:
                g = _polyhe.GaloisKeys.load(parts[5], pn)
                if ctx._galois is None or not set(g.elements) <= set(ctx._galois.elements):
                    ctx._galois = g if ctx._galois is None else _merge_galois(ctx, g)
            if parts[6] and ctx._sk is None:
                ctx._sk = _polyhe.SecretKey.load(parts[6], pn)
            ctx._cache.clear()
        if not trusted:
            _check_key_sections(ctx)
            _register(ctx, replace=False)
        return ctx

    def __reduce__(self):
        if self._sk is not None:
            raise TypeError(
                "a context holding the secret key does not pickle (the secret would travel with "
                "it): pickle ctx.public(), or use ctx.serialize(include_secret_key=True) on purpose"
            )
        return (_unpickle_context, (type(self), self._sections(include_secret_key=False)))

    def _sections(self, include_secret_key: bool) -> list:
        """The seven sections of serialize() and of the pickle: parameters, settings, key id,
        public, relinearisation and Galois keys, secret key (empty where absent or not asked)."""
        params_bytes = self._params.serialize()
        return [
            params_bytes,
            _encode_settings(self._scheme, self._settings(), params_bytes),
            self._key_id or b"",
            self._pk.serialize() if self._pk is not None else b"",
            self._relin.serialize() if self._relin is not None else b"",
            self._galois.serialize() if self._galois is not None else b"",
            self._sk.serialize() if include_secret_key else b"",
        ]

    def __repr__(self) -> str:
        keys = [
            name
            for name, v in (
                ("secret", self._sk),
                ("public", self._pk),
                ("relin", self._relin),
                ("galois", self._galois),
            )
            if v is not None
        ]
        return (
            f"polyhe.{self._scheme}.Context({self._params!r}, settings={self._settings()}, "
            f"keys={keys or 'none'}, key_id={_hex(self._key_id)})"
        )


# --- key sections from one key set -----------------------------------------------------------
def _check_key_sections(ctx: KeyedContext) -> None:
    """MismatchedContext unless the loaded public, relinearisation and Galois keys belong to the
    loaded secret key (nothing to check without it). The probe is BGV with t = 2 over the same
    parameters, whatever the context's scheme (the keys are the scheme-free RLWE keys): a zero
    encrypted under the public key decrypts to exactly zero, with noise budget left, only under
    its own secret key; a key-switching key made for another secret adds a term of size about
    Q to what it switches, which decrypts to nonzero bits with overwhelming probability."""
    sk = ctx._sk
    if sk is None:
        return
    params = ctx._params._native
    probe = _polyhe.bgv.Context(params, 2, "bgv")
    dec = _polyhe.bgv.Decryptor(probe, sk)

    def is_zero(ct) -> bool:
        return dec.noise_budget(ct) > 0 and not dec.decrypt(ct).coefficients.any()

    def refuse(section: str, why: str) -> None:
        raise _polyhe.MismatchedContext(
            f"context: the {section} section belongs to another key set than the "
            f"{'secret key' if section != 'secret key' else 'public key'} section ({why}; key id "
            f"{_hex(ctx._key_id)}); the bytes mix sections of different key sets"
        )

    zero = probe.plaintext(np.zeros(int(probe.n), dtype=np.uint64))
    ct = _polyhe.bgv.Encryptor(probe, ctx._pk if ctx._pk is not None else sk).encrypt(zero)
    if ctx._pk is not None and not is_zero(ct):
        refuse("secret key", "a zero encrypted under the public key does not decrypt to zero")
    if ctx._relin is None and ctx._galois is None:
        return
    ev = _polyhe.bgv.Evaluator(probe, ctx._relin, ctx._galois)
    if ctx._relin is not None and not is_zero(ev.multiply_relin(ct, ct)):
        refuse("relinearisation key", "a product relinearised with it does not decrypt to zero")
    if ctx._galois is not None:
        for k in ctx._galois.elements:
            if not is_zero(ev.apply_galois(ct, int(k))):
                refuse(
                    f"Galois keys (element {int(k)})",
                    "a zero mapped with it does not decrypt to zero",
                )


# --- the registry ------------------------------------------------------------------------------
def _reg_key(ctx_cls, params: Parameters, settings: tuple, key_id: Optional[bytes]) -> tuple:
    return (ctx_cls._scheme, params.hash, settings, key_id)


def _register(ctx: KeyedContext, replace: bool) -> None:
    if ctx._key_id is None:
        return
    k = _reg_key(type(ctx), ctx._params, ctx._settings(), ctx._key_id)
    with _registry_lock:
        found = _registry.get(k)
        if found is None or replace or (found._sk is None and ctx._sk is not None):
            _registry[k] = ctx


def _lookup_or_make(cls, params: Parameters, settings: tuple, key_id: Optional[bytes]):
    with _registry_lock:
        if key_id is not None:
            found = _registry.get(_reg_key(cls, params, settings, key_id))
            if found is not None:
                return found
        native = cls._make_native(params, settings)
        ctx = cls._from_native(params, native)
        ctx._apply_settings(settings)
        ctx._key_id = key_id
        if key_id is not None:
            _registry[_reg_key(cls, params, settings, key_id)] = ctx
        return ctx


def _merge_galois(ctx: KeyedContext, incoming):
    # Keys of one key_id come from one secret key: the union serves every rotation of either.
    return ctx._galois.merged(incoming)


def _unpickle_context(cls, parts: list) -> KeyedContext:
    params = from_trusted_bytes(parts[0])
    return cls._assemble(params, parts, trusted=True)


def context_for(cls, params_bytes: bytes, settings_bytes: bytes, key_id: bytes) -> KeyedContext:
    """The context an unpickled object belongs to (made keyless when none is registered)."""
    params = from_trusted_bytes(params_bytes)
    settings = _decode_settings(cls._scheme, settings_bytes, params_bytes)
    return _lookup_or_make(cls, params, settings, key_id or None)


# --- encodings ---------------------------------------------------------------------------------
# The settings section: "PHST", then the scheme's fields — CKKS: scale f64; BGV/BFV: t u64 and the
# scheme u8 (2 BFV, 3 BGV) — then 16 bytes of BLAKE2b over the scheme's name, the parameters
# section and the fields, so that a changed bit in the settings (or settings moved to other
# parameters) is refused as CorruptData. Fixed sizes: 4 + 8 + 16 and 4 + 9 + 16 bytes.
_SETTINGS_TAG = b"PHST"
_SETTINGS_FIELDS = {"ckks": struct.Struct("<d"), "bgv": struct.Struct("<QB")}
_DIGEST_BYTES = 16


def _settings_digest(scheme: str, fields: bytes, params_bytes) -> bytes:
    h = hashlib.blake2b(digest_size=_DIGEST_BYTES, person=b"polyhe-settings")
    h.update(scheme.encode().ljust(4, b"\0"))
    h.update(struct.pack("<Q", len(params_bytes)))
    h.update(params_bytes)
    h.update(fields)
    return h.digest()


def _encode_settings(scheme: str, settings: tuple, params_bytes) -> bytes:
    if scheme == "ckks":
        fields = _SETTINGS_FIELDS[scheme].pack(settings[0])
    else:
        fields = _SETTINGS_FIELDS[scheme].pack(settings[0], 2 if settings[1] == "bfv" else 3)
    return _SETTINGS_TAG + fields + _settings_digest(scheme, fields, params_bytes)


def _decode_settings(scheme: str, data, params_bytes) -> tuple:
    """The settings tuple of ``data`` (the binary section above, or the Python literal that
    contexts of the first format held, read by a fixed pattern, never evaluated): CorruptData
    for anything else, naming the size or the field; the values are checked by ``_make_native``."""
    data = bytes(memoryview(data).cast("B")[:_MAX_SETTINGS_BYTES + 1])
    if len(data) > _MAX_SETTINGS_BYTES:
        raise _polyhe.CorruptData(
            f"context: a settings section of more than {_MAX_SETTINGS_BYTES} bytes (the cap)"
        )
    layout = _SETTINGS_FIELDS[scheme]
    if not data.startswith(_SETTINGS_TAG):
        return _decode_legacy_settings(scheme, data)
    expected = len(_SETTINGS_TAG) + layout.size + _DIGEST_BYTES
    if len(data) != expected:
        raise _polyhe.CorruptData(
            f"context: a {scheme} settings section of {len(data)} bytes, expected {expected}"
        )
    fields = data[len(_SETTINGS_TAG) : len(_SETTINGS_TAG) + layout.size]
    if data[-_DIGEST_BYTES:] != _settings_digest(scheme, fields, params_bytes):
        raise _polyhe.CorruptData(
            "context: the settings section's digest does not match its fields and the parameters "
            "(changed bytes, or settings taken from another context)"
        )
    values = layout.unpack(fields)
    if scheme == "ckks":
        return (values[0],)
    if values[1] not in (2, 3):
        raise _polyhe.CorruptData(f"context: scheme byte {values[1]}, expected 2 (BFV) or 3 (BGV)")
    return (values[0], "bfv" if values[1] == 2 else "bgv")


_LEGACY_SETTINGS = {
    "ckks": re.compile(rb"\(([0-9a-z.+\-]{1,32}),\)"),
    "bgv": re.compile(rb"\(([0-9]{1,20}), '(bgv|bfv)'\)"),
}


def _decode_legacy_settings(scheme: str, data: bytes) -> tuple:
    found = _LEGACY_SETTINGS[scheme].fullmatch(data)
    if found is None:
        raise _polyhe.CorruptData(
            f"context: unreadable {scheme} settings (neither the binary section nor the first "
            "format's literal)"
        )
    if scheme == "bgv":
        return (int(found.group(1)), found.group(2).decode())
    try:
        scale = float(found.group(1))
    except ValueError:
        raise _polyhe.CorruptData(f"context: unreadable ckks scale {found.group(1)!r}") from None
    if not math.isfinite(scale):
        raise _polyhe.CorruptData(f"context: ckks scale {scale!r} is not finite")
    return (scale,)


_SECTION_NAMES = ("parameters", "settings", "key id", "public key", "relinearisation key",
                  "Galois keys", "secret key")
# The key sections' sizes follow from the parameters, which their loaders check before reading.
_SECTION_CAPS = (_MAX_PARAMETERS_BYTES, _MAX_SETTINGS_BYTES, 16, None, None, None, None)


def _split(data, scheme: str) -> list:
    """The seven sections of context bytes (any bytes-like object): the parameters, settings and
    key id as bytes, the keys as views of ``data`` (their loaders read them in place)."""
    data = memoryview(data).cast("B")
    if bytes(data[: len(_MAGIC)]) not in (_MAGIC, _MAGIC_V1):
        raise _polyhe.CorruptData("context: not a polyhe context (bad magic)")
    pos = len(_MAGIC)
    tag = bytes(data[pos : pos + 4]).rstrip(b"\0").decode(errors="replace")
    if tag != scheme:
        raise _polyhe.CorruptData(f"context: a {tag!r} context, expected {scheme!r}")
    pos += 4
    parts = []
    for _ in range(7):
        if pos + 8 > len(data):
            raise _polyhe.CorruptData("context: truncated")
        (n,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        if n > len(data) - pos:
            raise _polyhe.CorruptData(f"context: a section of {n} bytes where {len(data) - pos} remain")
        cap = _SECTION_CAPS[len(parts)]
        if cap is not None and n > cap:
            raise _polyhe.CorruptData(
                f"context: a {_SECTION_NAMES[len(parts)]} section of {n} bytes, above its cap of "
                f"{cap} bytes"
            )
        section = data[pos : pos + n]
        parts.append(bytes(section) if len(parts) < 3 else section)
        pos += n
    if pos != len(data):
        raise _polyhe.CorruptData(f"context: {len(data) - pos} trailing bytes")
    return parts


def _hex(b: Optional[bytes]) -> str:
    return b.hex() if b else "none"
