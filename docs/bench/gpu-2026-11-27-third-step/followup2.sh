#!/usr/bin/env bash
# Follow-up 2 (2026-11-27, fifth session): two changes to the device's fused lift against the
# runbook's libraries (80f21b2), same machine, alternated for 3 rounds:
#   b: the centred lift reduces its magnitude once with a one-word Barrett (reduce_word) instead
#      of two 128-bit reductions, one per side of a branch (LiftColumnNtt 128 -> 108 registers);
#   c: b, and every block program launched with at least 3 blocks of 256 threads per SM
#      (__launch_bounds__(256, 3): ColumnNtt 94 -> 80 registers, LiftColumnNtt 80 with 60 B spilled).
# Only libpolyhe_cuda.so differs; each variant travels gzipped in var-b/ and var-c/.
#   carry ["gpu-pack"]; command: bash gpu-pack/followup2.sh "$OUT"
set -u
out=${1:-followup-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
w=$(mktemp -d)
export CUDA_MODULE_LOADING=EAGER
for v in b c; do
  mkdir -p "$w/lib-$v"
  gunzip -c "$here/var-$v/libpolyhe_cuda.so.gz" >"$w/lib-$v/libpolyhe_cuda.so"
done
lib_for() { case $1 in a) echo "$here/lib" ;; *) echo "$w/lib-$1:$here/lib" ;; esac; }
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader
  head -1 "$here/manifest.txt"
} | tee "$w/summary.txt"
for b in test_ntt_device test_ring_poly_cuda test_ckks_cuda test_bgv_cuda; do
  LD_LIBRARY_PATH=$(lib_for c) timeout 60 "$here/bin/$b" --gtest_brief=1 >"$w/c-$b.txt" 2>&1
  echo "c $b rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$w/c-$b.txt" | tr '\n' ' ')" |
    tee -a "$w/summary.txt"
done
A=50,40,40,40,40,40,40,40,40,50
run_bench() {  # variant args...
  local v=$1
  shift
  LD_LIBRARY_PATH=$(lib_for "$v") timeout 60 "$here/bin/polyhe" "$@" 2>>"$w/bench-$v.err" |
    sed "s/^{/{\"build\":\"$v\",\"args\":\"$*\",/" >>"$w/bench.jsonl"
}
for round in 1 2 3; do
  for v in a b c; do
    run_bench $v bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $A \
      --ops multiply_relin,rotate,rescale
    run_bench $v bench ckks --backend cuda --json --min-time 0.1 --ops multiply_relin,rescale
    run_bench $v bench bfv --backend cuda --json --min-time 0.1 --ops multiply_relin
  done
  echo "round $round done at $(date -u +%T)" | tee -a "$w/summary.txt"
  cp "$w/summary.txt" "$out/summary.txt"
  tar -C "$w" --exclude='lib-*' -czf "$out/followup.tar.gz" .
done
python3 - "$w/bench.jsonl" <<'PY' | tee -a "$w/summary.txt"
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("{"):
        r = json.loads(line)
        key = (r["args"].split()[1], r["op"], r["log_n"], r["limbs"])
        rows.setdefault(key, {}).setdefault(r["build"], []).append(r["median_ns"])
for key, slot in sorted(rows.items()):
    if "a" not in slot:
        continue
    a = min(slot["a"])
    parts = [f"{v} {min(slot[v])/1e3:.1f} us (a/{v} {a/min(slot[v]):.2f})" for v in "bc" if v in slot]
    print(f"{key[0]} {key[1]} logN {key[2]} limbs {key[3]}: a {a/1e3:.1f} us, " + ", ".join(parts)
          + "; rounds " + str({v: [round(x/1e3, 1) for x in slot[v]] for v in sorted(slot)}))
PY
cp "$w/summary.txt" "$out/summary.txt"
tar -C "$w" --exclude='lib-*' -czf "$out/followup.tar.gz" .
