#!/usr/bin/env bash
# Follow-up to the runbook (2026-11-27, fifth session): the third step of perf.md §11 (batched
# device steps, lift_forward_sub, lift_digits_forward, the transforms without divisions) against
# the build before it (555377f), on the same machine, alternated for 3 rounds. The third step
# changed the Device interface, so the old build travels whole: gpu-pack/old/bin/polyhe with
# gpu-pack/old/lib (its libpolyhe_*.so) ahead of the pack's libraries.
#   carry ["gpu-pack"]; command: bash gpu-pack/followup.sh "$OUT"
set -u
out=${1:-followup-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
w=$(mktemp -d)
export CUDA_MODULE_LOADING=EAGER
new_lib="$here/lib"
old_lib="$here/old/lib:$here/lib"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader
  cat "$here/manifest.txt"
} | tee "$w/summary.txt"
A=50,40,40,40,40,40,40,40,40,50
run_bench() {  # label args...
  local label=$1 lib bin
  shift
  if [[ $label == old ]]; then lib=$old_lib bin="$here/old/bin/polyhe"; else lib=$new_lib bin="$here/bin/polyhe"; fi
  LD_LIBRARY_PATH=$lib timeout 120 "$bin" "$@" 2>>"$w/bench-$label.err" |
    sed "s/^{/{\"build\":\"$label\",\"args\":\"$*\",/" >>"$w/bench.jsonl"
}
for round in 1 2 3; do
  for v in old new; do
    run_bench $v bench bfv --backend cuda --json --min-time 0.1 --ops multiply_relin
    run_bench $v bench ckks --backend cuda --json --min-time 0.1 --ops multiply_relin,rotate,rescale
    run_bench $v bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $A \
      --ops multiply_relin,rotate,rescale
    run_bench $v bench --backend cuda --json --min-time 0.03 --log-n 16
  done
  echo "round $round done at $(date -u +%T)" | tee -a "$w/summary.txt"
done
python3 - "$w/bench.jsonl" <<'PY' | tee -a "$w/summary.txt"
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    key = (r["args"].split()[1], r["op"], r["log_n"], r["limbs"], r.get("bits"), r.get("variant"),
           r.get("radix"), r.get("kernel"), r.get("section"), r.get("word_bits"))
    rows.setdefault(key, {}).setdefault(r["build"], []).append(r)
scheme, ntt = [], []
for key, slot in rows.items():
    o, n = slot.get("old", []), slot.get("new", [])
    if not o or not n:
        print("only one build:", key, "old" if o else "new")
        continue
    om = min(x["median_ns"] for x in o)
    nm = min(x["median_ns"] for x in n)
    oe = [x["enqueue_ns"] for x in o if x.get("enqueue_ns") is not None]
    ne = [x["enqueue_ns"] for x in n if x.get("enqueue_ns") is not None]
    line = (f"{key[0]} {key[1]} logN {key[2]} limbs {key[3]}"
            + ("" if key[0] != "--backend" else f" {key[4]}-bit {key[5]} r{key[6]} {key[7]} {key[8] or ''}")
            + f": old {om/1e3:.1f} us new {nm/1e3:.1f} us old/new {om/nm:.2f}")
    if oe and ne:
        line += f" (enqueue old {min(oe)/1e3:.1f} new {min(ne)/1e3:.1f})"
    line += f"; rounds old {[round(x['median_ns']/1e3, 1) for x in o]} new {[round(x['median_ns']/1e3, 1) for x in n]}"
    (ntt if key[0] == "--backend" else scheme).append(line)
print("\n".join(sorted(scheme)))
print("\n".join(sorted(ntt)))
PY
cp "$w/summary.txt" "$out/summary.txt"
tar -C "$w" -czf "$out/followup.tar.gz" .
