#!/usr/bin/env bash
# One-off follow-up (2026-11-27): the batched device rescale against the runbook's build, same
# machine, alternated; the device tests that cover it; one profile of the new rescale.
set -u
out=${1:-followup-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
w=$(mktemp -d)
export CUDA_MODULE_LOADING=EAGER
new="$here/lib"
old="$here/lib-old:$here/lib"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader
} | tee "$w/summary.txt"
for b in test_ring_poly_cuda test_ckks_cuda test_bgv_cuda test_batch_cuda; do
  LD_LIBRARY_PATH=$new timeout 120 "$here/bin/$b" --gtest_brief=1 >"$w/$b.txt" 2>&1
  rc=$?
  echo "$b rc=$rc: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$w/$b.txt" | tr '\n' ' ')" |
    tee -a "$w/summary.txt"
done
A=50,40,40,40,40,40,40,40,40,50
L24="50$(printf ',40%.0s' {1..24}),50"
run_bench() {  # label libpath args...
  local label=$1 lib=$2
  shift 2
  LD_LIBRARY_PATH=$lib timeout 90 "$here/bin/polyhe" "$@" 2>>"$w/bench.err" |
    sed "s/^{/{\"build\":\"$label\",\"args\":\"$*\",/" >>"$w/bench.jsonl"
}
for round in 1 2 3; do
  for v in old new; do
    lib=$new
    [[ $v == old ]] && lib=$old
    run_bench $v "$lib" bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $A \
      --ops rescale,multiply_relin
    run_bench $v "$lib" bench ckks --backend cuda --json --min-time 0.1 --log-n 16 \
      --primes "$L24" --ops rescale
    run_bench $v "$lib" bench ckks --backend cuda --json --min-time 0.1 --ops rescale,multiply_relin
    run_bench $v "$lib" bench bgv --backend cuda --json --min-time 0.1 --ops mod_switch,multiply_relin
  done
  echo "round $round done at $(date -u +%T)" | tee -a "$w/summary.txt"
done
python3 - "$w/bench.jsonl" <<'PY' | tee -a "$w/summary.txt"
import json, sys
best = {}
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    key = (r["args"].split()[1], r["log_n"], r["limbs"], r["op"])
    slot = best.setdefault(key, {})
    for field in ("median_ns", "enqueue_ns"):
        v = r.get(field)
        if v is not None:
            slot.setdefault((r["build"], field), []).append(v)
for key, slot in sorted(best.items()):
    o = slot.get(("old", "median_ns"), [])
    n = slot.get(("new", "median_ns"), [])
    oe = slot.get(("old", "enqueue_ns"), [])
    ne = slot.get(("new", "enqueue_ns"), [])
    if o and n:
        print(f"{key[0]} logN {key[1]} limbs {key[2]} {key[3]}: old {min(o)/1e3:.1f} us "
              f"(enqueue {min(oe)/1e3 if oe else float('nan'):.1f}), new {min(n)/1e3:.1f} us "
              f"(enqueue {min(ne)/1e3 if ne else float('nan'):.1f}), old/new {min(o)/min(n):.2f}; "
              f"rounds old {[round(x/1e3, 1) for x in o]} new {[round(x/1e3, 1) for x in n]}")
PY
ncu=$(command -v ncu || ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null |
  tail -1)
LD_LIBRARY_PATH=$new timeout 90 "$ncu" --clock-control none --launch-count 24 \
  --profile-from-start off --section SpeedOfLight --section LaunchStats --section Occupancy \
  --export "$w/rescale-new" --force-overwrite "$here/bin/polyhe" bench ckks --backend cuda \
  --min-time 0.02 --log-n 16 --primes $A --ops rescale >"$w/profile.txt" 2>&1
"$ncu" --import "$w/rescale-new.ncu-rep" --csv --page details >"$w/rescale-new.csv" 2>>"$w/profile.txt"
rm -f "$w/rescale-new.ncu-rep"
echo "profile rescale (new): $(python3 "$here/ncu_summary.py" "$w/rescale-new.csv" "$w/rescale-new.md")" |
  tee -a "$w/summary.txt"
cp "$w/summary.txt" "$out/summary.txt"
tar -C "$w" -czf "$out/followup.tar.gz" .
