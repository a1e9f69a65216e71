#!/usr/bin/env bash
# polyhe beside a GPU HE library on the same card, in one call: CKKS multiply_relin, rescale and
# rotate at the same parameter sets (N = 2^14 and 2^16, L = 8, 24, 35, one special prime per
# digit and dnum 3; primes 50 + L×40 bits, special primes 50 bits, scale 2^40), BFV
# multiply_relin at polyhe's N = 2^14 default set, then Phantom (gpu-pack/peer-phantom, made by
# scripts/peer-phantom.sh) at the same sets. Writes OUT/peers.jsonl (one JSON line per row of
# either library: library, op, scheme, log_n, L, dnum, special_count, median_ns, …),
# OUT/peers.md (the rows side by side, Phantom's time over polyhe's) and the raw outputs.
#   bash scripts/gpu-peers.sh OUT      (on the device machine, from the repository root, with
#                                       carry ["gpu-pack"]; after the runbook or alone)
# The sets above 128-bit security at their N (2^14 with L = 8, dnum 3: log QP = 520; 2^16 with
# L = 35, dnum 3: 2050) run under --security none, as Phantom runs them; the table marks them.
set -uo pipefail
out="${1:?usage: gpu-peers.sh OUT}"
mkdir -p "$out"
here="$(cd "$(dirname "$0")/.." && pwd)"
export LD_LIBRARY_PATH="$here/gpu-pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDA_MODULE_LOADING=EAGER
polyhe="$here/gpu-pack/bin/polyhe"
log="$out/polyhe.log"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$log" 2>&1 || true
start=$SECONDS
# "log_n L dnum": dnum = L + 1 is one special prime per digit; Phantom cannot key-switch L = 24
# with dnum 3 (9 special primes, 25 primes not a multiple: it substitutes dnum 5), so both run.
for spec in "14 8 9" "14 8 3" "16 8 9" "16 8 3" "16 24 25" "16 24 3" "16 24 5" "16 35 36" "16 35 3"; do
  read -r log_n L dnum <<<"$spec"
  k=$(((L + 1 + dnum - 1) / dnum))
  primes="50$(printf ',40%.0s' $(seq "$L"))"
  special="50$(printf ',50%.0s' $(seq $((k - 1))))"
  [[ $k == 1 ]] && special=50
  echo "== ckks log_n $log_n L $L dnum $dnum (special $k)" >>"$log"
  timeout 60 "$polyhe" bench ckks --backend cuda --json --min-time 0.1 --log-n "$log_n" \
    --primes "$primes" --special "$special" --dnum "$dnum" --security none \
    --ops multiply_relin,rescale,rotate >>"$out/polyhe-ckks.jsonl" 2>>"$log" ||
    echo "polyhe: ckks $spec failed (rc $?)" | tee -a "$log"
done
timeout 90 "$polyhe" bench bfv --backend cuda --json --min-time 0.1 --ops multiply_relin \
  >>"$out/polyhe-bfv.jsonl" 2>>"$log" || echo "polyhe: bfv failed (rc $?)" | tee -a "$log"
echo "polyhe: $(cat "$out"/polyhe-*.jsonl | grep -c '^{') rows in $((SECONDS - start)) s" | tee -a "$log"
if [[ -x "$here/gpu-pack/peer-phantom/bin/phantom_bench" ]]; then
  PEER_TIMEOUT=150 bash "$here/gpu-pack/peer-phantom/run.sh" "$out/phantom"
else
  echo "peers: no gpu-pack/peer-phantom (scripts/peer-phantom.sh makes it)" | tee -a "$log"
fi
python3 "$here/scripts/peers_table.py" "$out" >"$out/peers.md" 2>>"$log" && cat "$out/peers.md"
