#!/usr/bin/env python3
"""The table of scripts/compare.sh: polyhe's bench JSON beside he_peers.py's, as ratios.

Usage: compare_table.py POLYHE_CKKS.jsonl POLYHE_BFV.jsonl POLYHE_BFV_OPENFHE_SIZES.jsonl PEERS.jsonl
A row whose polyhe side is a sum (encode+encrypt, multiply_relin+rescale, decrypt+decode) adds
the medians of polyhe's separate ops; the peers' composite rows are one call (TenSEAL) or timed
together (OpenFHE's multiply_relin+rescale) or summed the same way (OpenFHE's encode+encrypt).
"""

import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def polyhe_ms(rows):
    return {r["op"]: r["median_ns"] / 1e6 for r in rows}


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


def table(title, ours, peers, ops, out):
    out.append(f"\n### {title}\n")
    names = list(peers.keys())
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


def main():
    ckks, bfv, bfv_small, peers = (load(p) for p in sys.argv[1:5])
    peer = {}
    for r in peers:
        peer.setdefault((r["library"], r["scheme"]), {})[r["op"]] = r["median_ms"]
    for key, ms in list(peer.items()):
        peer[key] = with_sums(ms)
    out = []
    path = ckks[0].get("path", "?") if ckks else "?"
    out.append(f"polyhe CPU path: {path}; one thread each, medians, ratios peer / polyhe "
               "(above 1: polyhe faster)")
    ckks_ops = ["encode", "encrypt", "encode+encrypt", "add", "multiply_relin", "rescale",
                "multiply_relin+rescale", "rotate", "decrypt+decode"]
    table("CKKS, N = 2^14, Q = 50 + 8 × 40, P = 50 (OpenFHE: its primes for depth 8, dnum 9)",
          with_sums(polyhe_ms(ckks)),
          {"TenSEAL": peer.get(("tenseal", "ckks"), {}), "OpenFHE": peer.get(("openfhe", "ckks"), {})},
          ckks_ops, out)
    bfv_ops = ["encode", "encrypt", "encode+encrypt", "add", "multiply_relin", "rotate",
               "decrypt+decode"]
    table("BFV, N = 2^14, t = 65537, Q = 48,48,48,49,49,49,49,49 + P = 49 (TenSEAL's same primes)",
          with_sums(polyhe_ms(bfv)), {"TenSEAL": peer.get(("tenseal", "bfv"), {})}, bfv_ops, out)
    table("BFV, N = 2^14, t = 65537, Q = 6 × 49 bits (OpenFHE's largest set for depth 7), P = 49",
          with_sums(polyhe_ms(bfv_small)), {"OpenFHE": peer.get(("openfhe", "bfv"), {})}, bfv_ops,
          out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
