#!/usr/bin/env python3
"""TenSEAL (SEAL inside) and OpenFHE timed on polyhe's bench defaults, one thread.

Run by scripts/compare.sh inside its private virtual environment; prints one JSON object per
measurement: {"library", "scheme", "op", "median_ms", "reps", "params"}. The parameter sets are
polyhe's `bench ckks` and `bench bfv` defaults: N = 2^14; CKKS Q = 50 + 8 x 40 bits, one 50-bit
special prime, scale 2^40; BFV t = 65537 and Q = 48,48,48,49,49,49,49,49 bits with a 49-bit
special prime. TenSEAL takes those bit sizes as they are; OpenFHE chooses its own primes from
the depth and sizes given (its log2 Q is reported): for CKKS the same 50 + 8 x 40 with dnum = 9
digits (polyhe's default for one special prime), for BFV six 49-bit primes (the most it allows at
N = 2^14). Ops a library has no call for are not printed.
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

N = 1 << 14
SLOTS = N // 2


def measure(fn, min_time):
    """Median of repeated calls after one warm-up call, in ms."""
    fn()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(times) < 5:
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e6, len(times)


def emit(library, scheme, op, fn, min_time, params):
    ms, reps = measure(fn, min_time)
    print(json.dumps({"library": library, "scheme": scheme, "op": op, "median_ms": ms,
                      "reps": reps, "params": params}), flush=True)


def tenseal_ckks(min_time):
    import tenseal as ts

    primes = [50] + [40] * 8 + [50]
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=N, coeff_mod_bit_sizes=primes,
                     n_threads=1)
    ctx.global_scale = 2.0**40
    ctx.generate_relin_keys()
    rng = random.Random(1)
    x = [rng.uniform(-1, 1) for _ in range(SLOTS)]
    y = [rng.uniform(-1, 1) for _ in range(SLOTS)]
    a = ts.ckks_vector(ctx, x)
    b = ts.ckks_vector(ctx, y)
    params = {"log_n": 14, "primes": primes, "scale_bits": 40, "version": ts.__version__}
    emit("tenseal", "ckks", "encode+encrypt", lambda: ts.ckks_vector(ctx, x), min_time, params)
    emit("tenseal", "ckks", "add", lambda: a + b, min_time, params)
    emit("tenseal", "ckks", "multiply_relin+rescale", lambda: a * b, min_time, params)
    emit("tenseal", "ckks", "decrypt+decode", lambda: a.decrypt(), min_time, params)


def tenseal_bfv(min_time):
    import tenseal as ts

    primes = [48, 48, 48, 49, 49, 49, 49, 49, 49]
    ctx = ts.context(ts.SCHEME_TYPE.BFV, poly_modulus_degree=N, plain_modulus=65537,
                     coeff_mod_bit_sizes=primes, n_threads=1)
    ctx.generate_relin_keys()
    rng = random.Random(2)
    x = [rng.randrange(65537) for _ in range(N)]
    y = [rng.randrange(65537) for _ in range(N)]
    a = ts.bfv_vector(ctx, x)
    b = ts.bfv_vector(ctx, y)
    params = {"log_n": 14, "primes": primes, "plain_modulus": 65537, "version": ts.__version__}
    emit("tenseal", "bfv", "encode+encrypt", lambda: ts.bfv_vector(ctx, x), min_time, params)
    emit("tenseal", "bfv", "add", lambda: a + b, min_time, params)
    emit("tenseal", "bfv", "multiply_relin", lambda: a * b, min_time, params)
    emit("tenseal", "bfv", "decrypt+decode", lambda: a.decrypt(), min_time, params)


def openfhe_features(of, cc):
    for f in (of.PKESchemeFeature.PKE, of.PKESchemeFeature.KEYSWITCH,
              of.PKESchemeFeature.LEVELEDSHE):
        cc.Enable(f)


def log2_of(x):
    return round(math.log2(float(x)), 1)


def openfhe_ckks(min_time):
    import openfhe as of

    p = of.CCParamsCKKSRNS()
    p.SetMultiplicativeDepth(8)
    p.SetScalingModSize(40)
    p.SetFirstModSize(50)
    p.SetRingDim(N)
    p.SetBatchSize(SLOTS)
    p.SetScalingTechnique(of.ScalingTechnique.FIXEDMANUAL)
    p.SetKeySwitchTechnique(of.KeySwitchTechnique.HYBRID)
    p.SetNumLargeDigits(9)
    p.SetSecurityLevel(of.SecurityLevel.HEStd_128_classic)
    cc = of.GenCryptoContext(p)
    openfhe_features(of, cc)
    keys = cc.KeyGen()
    cc.EvalMultKeyGen(keys.secretKey)
    cc.EvalRotateKeyGen(keys.secretKey, [1])
    rng = random.Random(1)
    x = [rng.uniform(-1, 1) for _ in range(SLOTS)]
    y = [rng.uniform(-1, 1) for _ in range(SLOTS)]
    px = cc.MakeCKKSPackedPlaintext(x)
    a = cc.Encrypt(keys.publicKey, px)
    b = cc.Encrypt(keys.publicKey, cc.MakeCKKSPackedPlaintext(y))
    prod = cc.EvalMult(a, b)
    params = {"log_n": 14, "log_q": log2_of(cc.GetModulus()), "depth": 8, "scale_bits": 40,
              "first_bits": 50, "dnum": 9, "version": of.get_native_library_version()
              if hasattr(of, "get_native_library_version") else "unknown"}
    emit("openfhe", "ckks", "encode", lambda: cc.MakeCKKSPackedPlaintext(x), min_time, params)
    emit("openfhe", "ckks", "encrypt", lambda: cc.Encrypt(keys.publicKey, px), min_time, params)
    emit("openfhe", "ckks", "add", lambda: cc.EvalAdd(a, b), min_time, params)
    emit("openfhe", "ckks", "multiply_relin", lambda: cc.EvalMult(a, b), min_time, params)
    emit("openfhe", "ckks", "rescale", lambda: cc.Rescale(prod), min_time, params)
    emit("openfhe", "ckks", "multiply_relin+rescale", lambda: cc.Rescale(cc.EvalMult(a, b)),
         min_time, params)
    emit("openfhe", "ckks", "rotate", lambda: cc.EvalRotate(a, 1), min_time, params)
    emit("openfhe", "ckks", "decrypt+decode", lambda: cc.Decrypt(keys.secretKey, a), min_time,
         params)


def openfhe_bfv(min_time):
    import openfhe as of

    # OpenFHE derives Q from the depth; at N = 2^14 depth 7 with 49-bit primes is the largest it
    # allows at 128-bit security (6 primes, 294 bits): compare.sh times polyhe on the same sizes.
    p = of.CCParamsBFVRNS()
    p.SetPlaintextModulus(65537)
    p.SetMultiplicativeDepth(7)
    p.SetScalingModSize(49)
    p.SetRingDim(N)
    p.SetKeySwitchTechnique(of.KeySwitchTechnique.HYBRID)
    p.SetSecurityLevel(of.SecurityLevel.HEStd_128_classic)
    cc = of.GenCryptoContext(p)
    openfhe_features(of, cc)
    keys = cc.KeyGen()
    cc.EvalMultKeyGen(keys.secretKey)
    cc.EvalRotateKeyGen(keys.secretKey, [1])
    rng = random.Random(2)
    x = [rng.randrange(65537) for _ in range(N)]
    y = [rng.randrange(65537) for _ in range(N)]
    px = cc.MakePackedPlaintext(x)
    a = cc.Encrypt(keys.publicKey, px)
    b = cc.Encrypt(keys.publicKey, cc.MakePackedPlaintext(y))
    params = {"log_n": 14, "log_q": log2_of(cc.GetModulus()), "depth": 7, "prime_bits": 49,
              "plain_modulus": 65537}
    emit("openfhe", "bfv", "encode", lambda: cc.MakePackedPlaintext(x), min_time, params)
    emit("openfhe", "bfv", "encrypt", lambda: cc.Encrypt(keys.publicKey, px), min_time, params)
    emit("openfhe", "bfv", "add", lambda: cc.EvalAdd(a, b), min_time, params)
    emit("openfhe", "bfv", "multiply_relin", lambda: cc.EvalMult(a, b), min_time, params)
    emit("openfhe", "bfv", "rotate", lambda: cc.EvalRotate(a, 1), min_time, params)
    emit("openfhe", "bfv", "decrypt+decode", lambda: cc.Decrypt(keys.secretKey, a), min_time,
         params)


def openfhe_bootstrap(min_time, log_n=16, levels_after=1, iterations=1):
    """OpenFHE's EvalBootstrap beside polyhe's preset (compare.sh, COMPARE_BOOTSTRAP=1): all N/2
    slots, a uniform ternary secret with sparse-secret encapsulation (SPARSE_ENCAPSULATED, as
    polyhe's preset: a dense secret alone needs N = 2^17 at 128 bits for OpenFHE's depth),
    128-bit (log_n 16; below, HEStd_NotSet for quick checks),
    FLEXIBLEAUTO with 59-bit scaling primes and a 60-bit first one, level budget [4, 3] (polyhe's
    CoeffToSlot/SlotToCoeff levels), `levels_after` levels left for the user. min_time is
    ignored: a bootstrap takes seconds, so three timed calls after one warm-up. Emits the median,
    OpenFHE's levels after (depth - level - (noise degree - 1), as its examples count them) and the
    precision against the input (uniform in [-1, 1]). iterations=2: OpenFHE's iterative
    bootstrapping (EvalBootstrap(ct, 2, precision), one more level, as its
    iterative-ckks-bootstrapping example sets it up), `precision` the floor of one bootstrap's
    bits measured first on the same ciphertext."""
    import openfhe as of

    del min_time
    dist = of.SecretKeyDist.SPARSE_ENCAPSULATED
    budget = [4, 3]
    p = of.CCParamsCKKSRNS()
    p.SetSecretKeyDist(dist)
    p.SetSecurityLevel(of.SecurityLevel.HEStd_128_classic if log_n >= 16
                       else of.SecurityLevel.HEStd_NotSet)
    p.SetRingDim(1 << log_n)
    p.SetScalingModSize(59)
    p.SetFirstModSize(60)
    p.SetScalingTechnique(of.ScalingTechnique.FLEXIBLEAUTO)
    depth = levels_after + of.CryptoContext.GetBootstrapDepth(budget, dist) + (iterations - 1)
    p.SetMultiplicativeDepth(depth)
    cc = of.GenCryptoContext(p)
    for f in (of.PKESchemeFeature.PKE, of.PKESchemeFeature.KEYSWITCH,
              of.PKESchemeFeature.LEVELEDSHE, of.PKESchemeFeature.ADVANCEDSHE,
              of.PKESchemeFeature.FHE):
        cc.Enable(f)
    slots = cc.GetRingDimension() // 2
    cc.EvalBootstrapSetup(budget)
    keys = cc.KeyGen()
    cc.EvalMultKeyGen(keys.secretKey)
    cc.EvalBootstrapKeyGen(keys.secretKey, slots)
    rng = random.Random(1)
    x = [rng.uniform(-1, 1) for _ in range(slots)]
    ct = cc.Encrypt(keys.publicKey, cc.MakeCKKSPackedPlaintext(x, 1, depth - 1))

    def worst_error(c):
        dec = cc.Decrypt(keys.secretKey, c)
        dec.SetLength(slots)
        return max(abs(v - w) for v, w in zip(dec.GetRealPackedValue(), x))

    out = cc.EvalBootstrap(ct)  # the warm-up, and the result checked
    first_bits = 0
    if iterations > 1:
        first_bits = int(math.floor(-math.log2(worst_error(out))))
        out = cc.EvalBootstrap(ct, iterations, first_bits)
    times = []
    for _ in range(3):
        t0 = time.perf_counter_ns()
        cc.EvalBootstrap(ct, iterations, first_bits)
        times.append(time.perf_counter_ns() - t0)
    worst = worst_error(out)
    params = {"log_n": log_n, "slots": slots, "level_budget": budget, "depth": depth,
              "levels_after": depth - out.GetLevel() - (out.GetNoiseScaleDeg() - 1),
              "precision_bits": round(-math.log2(worst), 2) if worst > 0 else 64.0,
              "first_bits": 60, "scaling_bits": 59, "secret": "sparse_encapsulated",
              "security": "128" if log_n >= 16 else "none",
              "iterations": iterations, "iteration_precision_bits": first_bits}
    print(json.dumps({"library": "openfhe", "scheme": "ckks", "op": "bootstrap",
                      "median_ms": statistics.median(times) / 1e6, "reps": len(times),
                      "params": params}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per op")
    ap.add_argument("--libraries", default="tenseal,openfhe")
    ap.add_argument("--schemes", default="ckks,bfv",
                    help="ckks, bfv, and ckks_bootstrap (OpenFHE only; named, never by default)")
    ap.add_argument("--bootstrap-log-n", type=int, default=16,
                    help="ckks_bootstrap's ring (16: 128-bit; smaller: insecure, quick checks)")
    ap.add_argument("--bootstrap-iterations", type=int, default=1, choices=(1, 2),
                    help="ckks_bootstrap: 1, or 2 for OpenFHE's iterative bootstrapping")
    args = ap.parse_args()
    runs = {("tenseal", "ckks"): tenseal_ckks, ("tenseal", "bfv"): tenseal_bfv,
            ("openfhe", "ckks"): openfhe_ckks, ("openfhe", "bfv"): openfhe_bfv,
            ("openfhe", "ckks_bootstrap"):
                lambda t: openfhe_bootstrap(t, args.bootstrap_log_n,
                                            iterations=args.bootstrap_iterations)}
    status = 0
    for lib in args.libraries.split(","):
        for scheme in args.schemes.split(","):
            if (lib, scheme) not in runs:
                continue  # TenSEAL does not bootstrap
            try:
                runs[(lib, scheme)](args.min_time)
            except Exception as e:  # a peer that fails is reported, the others still run
                print(f"he_peers: {lib} {scheme}: {type(e).__name__}: {e}", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
