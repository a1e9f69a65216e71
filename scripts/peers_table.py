"""Combines a scripts/gpu-peers.sh run: polyhe's benchmark rows (OUT/polyhe-*.jsonl) in the
peers' common form beside the peer's (OUT/phantom/peers.jsonl) into OUT/peers.jsonl, and prints a
markdown table of the rows both libraries have: the peer's median over polyhe's (> 1: polyhe is
faster), with the issue's target of 1.5x marked.

    python3 scripts/peers_table.py OUT > OUT/peers.md
"""

import glob
import json
import os
import sys


def polyhe_rows(out: str) -> list:
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "polyhe-*.jsonl"))):
        with open(path) as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                limbs = int(r["limbs"])
                rows.append({
                    "library": "polyhe",
                    "op": r["op"],
                    "scheme": r.get("scheme", "ckks"),
                    "log_n": int(r["log_n"]),
                    "L": limbs - 1,
                    "dnum": int(r.get("dnum", 0)),
                    "special_count": len(r.get("special", [])),
                    "primes": r.get("primes"),
                    "special": r.get("special"),
                    "median_ns": float(r["median_ns"]),
                    "p10_ns": float(r.get("p10_ns", 0)),
                    "p90_ns": float(r.get("p90_ns", 0)),
                    "enqueue_ns": r.get("enqueue_ns"),
                    "device": r.get("device"),
                })
    return rows


def peer_rows(out: str) -> list:
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*", "peers.jsonl"))):
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.startswith("{")]
    return rows


def key(r: dict) -> tuple:
    return (r.get("scheme", "ckks"), r["op"], int(r["log_n"]), int(r["L"]), int(r["dnum"]))


def main() -> None:
    out = sys.argv[1]
    ours, theirs = polyhe_rows(out), peer_rows(out)
    with open(os.path.join(out, "peers.jsonl"), "w") as f:
        for r in ours + theirs:
            f.write(json.dumps(r) + "\n")
    mine = {key(r): r for r in ours}
    print("| scheme | op | log N | L | dnum | polyhe µs | peer | peer µs | peer / polyhe | ≥ 1.5× |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---|")
    for r in sorted(theirs, key=key):
        m = mine.get(key(r))
        if m is None:
            continue
        ratio = float(r["median_ns"]) / m["median_ns"]
        note = "" if r.get("secure128", True) else " (not 128-bit)"
        print(f"| {key(r)[0]} | {r['op']} | {r['log_n']} | {r['L']} | {r['dnum']}{note} | "
              f"{m['median_ns'] / 1e3:.1f} | {r['library']} | {float(r['median_ns']) / 1e3:.1f} | "
              f"{ratio:.2f} | {'yes' if ratio >= 1.5 else 'no'} |")
    missing = sorted({key(r) for r in theirs} - set(mine))
    if missing:
        print(f"\nPeer rows without a polyhe row: {missing}")


if __name__ == "__main__":
    main()
