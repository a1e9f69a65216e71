#!/usr/bin/env python3
"""The table of scripts/compare.sh: polyhe's bench JSON beside he_peers.py's, as ratios.

Usage: compare_table.py POLYHE_CKKS.jsonl POLYHE_BFV.jsonl POLYHE_BFV_OPENFHE_SIZES.jsonl PEERS.jsonl
                        [POLYHE_NTT.jsonl]
Each argument may be a comma-separated list of the same file from several rounds: each side's
median per op is then the fastest of the rounds' medians (a shared machine slows whole rounds).
POLYHE_NTT.jsonl is `polyhe bench ntt --cpu all --json`: every kernel path this CPU has, so its
paths also say whether the CPU is AVX2-only. Last, the verdict on issue 17's targets (every op
at least 2x both peers; the avx2 NTT at least 2x the scalar one), stated as applying only where
polyhe ran its avx2 path on a CPU without AVX-512.
A row whose polyhe side is a sum (encode+encrypt, multiply_relin+rescale, decrypt+decode) adds
the medians of polyhe's separate ops of one round; the peers' composite rows are one call (TenSEAL) or timed
together (OpenFHE's multiply_relin+rescale) or summed the same way (OpenFHE's encode+encrypt).
"""

import json
import sys


def load(paths):
    """The rows of each file in a comma-separated list: one list per round."""
    rounds = []
    for path in paths.split(","):
        with open(path) as f:
            rounds.append([json.loads(line) for line in f if line.strip().startswith("{")])
    return rounds


def fastest(pairs):
    """{key: the smallest value} over (key, value) pairs."""
    out = {}
    for key, value in pairs:
        out[key] = min(value, out.get(key, value))
    return out


def polyhe_ms(rounds):
    """Op → the fastest round's median; a composite row is the fastest round's sum of its parts,
    so that it is one round's time like the peers' one-call composites."""
    return fastest((op, ms) for rows in rounds
                   for op, ms in with_sums({r["op"]: r["median_ns"] / 1e6 for r in rows}).items())


def with_sums(ms):
    out = dict(ms)
    for name, parts in (("encode+encrypt", ("encode", "encrypt")),
                        ("multiply_relin+rescale", ("multiply_relin", "rescale")),
                        ("decrypt+decode", ("decrypt", "decode"))):
        if all(p in ms for p in parts) and name not in out:
            out[name] = sum(ms[p] for p in parts)
    return out


def fmt(x):
    return "—" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def ratio(peer, ours):
    return "—" if peer is None or ours is None else f"{peer / ours:.2f}×"


def table(title, ours, peers, ops, out, shortfalls=None, missing=None):
    """Appends the table; a peer with no row at all (it did not run: OpenFHE without Python 3.10)
    goes into `missing`, a ratio below TARGET into `shortfalls`."""
    out.append(f"\n### {title}\n")
    names = list(peers.keys())
    if missing is not None:
        missing += [f"{n} ({title.split(',')[0]})" for n in names if not peers[n]]
    out.append("| op | polyhe ms | " + " | ".join(f"{n} ms" for n in names) + " | " +
               " | ".join(f"{n} / polyhe" for n in names) + " |")
    out.append("|---|---:|" + "---:|" * (2 * len(names)))
    for op in ops:
        mine = ours.get(op)
        theirs = [peers[n].get(op) for n in names]
        if all(t is None for t in theirs):
            continue
        out.append(f"| {op} | {fmt(mine)} | " + " | ".join(fmt(t) for t in theirs) + " | " +
                   " | ".join(ratio(t, mine) for t in theirs) + " |")
        if shortfalls is not None and mine is not None:
            shortfalls += [f"{title.split(',')[0]} {op}: {t / mine:.2f}× {n}"
                           for n, t in zip(names, theirs) if t is not None and t / mine < TARGET]


TARGET = 2.0  # issue 17: every op, and the avx2 NTT over the scalar one


def ntt_table(rounds, out):
    """avx2 against scalar (and the AVX-512 paths against avx2 where the CPU has them) per N, prime
    size and direction, fastest median of the rounds. Returns (the paths seen, shortfalls)."""
    fast = fastest(((r["op"], r["log_n"], r["bits"], r["path"]), r["median_ns"] / 1e3)
                   for rows in rounds for r in rows)
    paths = sorted({k[3] for k in fast}, key=["scalar", "avx2", "avx512", "ifma"].index)
    cases = sorted({k[:3] for k in fast}, key=lambda k: (k[0] != "ntt_forward", k[2], k[1]))
    wide = [p for p in ("avx512", "ifma") if p in paths]
    out.append("\n### NTT, one prime, shoup-lazy (`polyhe bench ntt --cpu all`), µs\n")
    out.append("| " + " | ".join(["op", "bits", "N", *paths, "avx2 / scalar",
                                    *(f"{p} / avx2" for p in wide)]) + " |")
    out.append("|---|---:|---:|" + "---:|" * (len(paths) + 1 + len(wide)))
    shortfalls = []
    for op, log_n, bits in cases:
        t = {p: fast.get((op, log_n, bits, p)) for p in paths}
        speedup = (t["scalar"] / t["avx2"]) if t.get("scalar") and t.get("avx2") else None
        if speedup is not None and speedup < TARGET:
            shortfalls.append(f"NTT {op} 2^{log_n} {bits}-bit: {speedup:.2f}× scalar")
        cells = [op, str(bits), f"2^{log_n}", *(fmt(t[p]) for p in paths),
                 "—" if speedup is None else f"{speedup:.2f}×",
                 *(ratio(t.get("avx2"), t[p]) for p in wide)]
        out.append("| " + " | ".join(cells) + " |")
    return paths, shortfalls


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    ckks, bfv, bfv_small, peers = (load(p) for p in sys.argv[1:5])
    rounds = len(sys.argv[4].split(","))
    per_round = []
    for rows in peers:
        by_run = {}
        for r in rows:
            by_run.setdefault((r["library"], r["scheme"]), {})[r["op"]] = r["median_ms"]
        per_round += [((lib, scheme, op), ms) for (lib, scheme), ops in by_run.items()
                      for op, ms in with_sums(ops).items()]
    peer = {}
    for (lib, scheme, op), ms in fastest(per_round).items():
        peer.setdefault((lib, scheme), {})[op] = ms
    out = []
    path = ckks[0][0].get("path", "?") if ckks and ckks[0] else "?"
    medians = "medians" if rounds == 1 else f"each side's fastest median of {rounds} rounds"
    out.append(f"polyhe CPU path: {path}; one thread each, {medians}, ratios peer / polyhe "
               "(above 1: polyhe faster)")
    ckks_ops = ["encode", "encrypt", "encode+encrypt", "add", "multiply_relin", "rescale",
                "multiply_relin+rescale", "rotate", "decrypt+decode"]
    shortfalls, missing = [], []
    table("CKKS, N = 2^14, Q = 50 + 8 × 40, P = 50 (OpenFHE: its primes for depth 8, dnum 9)",
          polyhe_ms(ckks),
          {"TenSEAL": peer.get(("tenseal", "ckks"), {}), "OpenFHE": peer.get(("openfhe", "ckks"), {})},
          ckks_ops, out, shortfalls, missing)
    bfv_ops = ["encode", "encrypt", "encode+encrypt", "add", "multiply_relin", "rotate",
               "decrypt+decode"]
    table("BFV, N = 2^14, t = 65537, Q = 48,48,48,49,49,49,49,49 + P = 49 (TenSEAL's same primes)",
          polyhe_ms(bfv), {"TenSEAL": peer.get(("tenseal", "bfv"), {})}, bfv_ops, out, shortfalls, missing)
    table("BFV, N = 2^14, t = 65537, Q = 6 × 49 bits (OpenFHE's largest set for depth 7), P = 49",
          polyhe_ms(bfv_small), {"OpenFHE": peer.get(("openfhe", "bfv"), {})}, bfv_ops,
          out, shortfalls, missing)
    applies = path == "avx2"
    why = [] if applies else [f"polyhe ran its {path} path, not avx2"]
    ops_verdict = "met" if not shortfalls else "missed: " + "; ".join(shortfalls)
    if missing:
        ops_verdict = ("not judged, a peer did not run: " + ", ".join(missing) +
                       ("" if not shortfalls else "; missed: " + "; ".join(shortfalls)))
    verdicts = [f"- every op at least {TARGET:g}× each peer: " + ops_verdict]
    if len(sys.argv) == 6:
        paths, ntt_short = ntt_table(load(sys.argv[5]), out)
        verdicts.append(f"- the avx2 NTT at least {TARGET:g}× the scalar one: " +
                        ("no avx2 and scalar rows" if not {"avx2", "scalar"} <= set(paths) else
                         "met" if not ntt_short else "missed: " + "; ".join(ntt_short)))
        wide = [p for p in paths if p in ("avx512", "ifma")]
        if wide:
            applies = False
            why.append("this CPU has " + " and ".join(wide))
    else:
        applies = False
        why.append("no NTT rows, so whether the CPU is AVX2-only is not known")
    out.append("\n### Issue 17's targets\n")
    out += verdicts
    out.append("- the verdict " + ("applies: polyhe's avx2 path on an AVX2-only CPU" if applies
                                   else "does not apply (it needs polyhe's avx2 path on an "
                                   "AVX2-only CPU): " + "; ".join(why)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
