#!/usr/bin/env bash
# The first bootstraps on a GPU (H200), with the pack of 2f005fa carried as gpu-pack/:
#   bash docs/bench/gpu-2026-12-04/bootstrap/run.sh "$OUT"
# 1. the device twins of the linear transforms, polynomials and bootstrapping (test_ckks_cuda:
#    the GPU's words against the CPU's);
# 2. polyhe bench ckks --ops bootstrap at N = 2^16, 128-bit by the HE standard's table for
#    log QP (1726 ≤ 1747; a sparse secret, h = 64), CoeffToSlot/SlotToCoeff in 4 levels each,
#    EvalMod as the Chebyshev sine with 16 baby steps, then with double angles, then the sine in
#    its optimal depth.
set -u
out="${1:?usage: run.sh OUT}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/gpu-pack/lib" CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader >"$out/device.txt" 2>&1
timeout 60 gpu-pack/bin/test_ckks_cuda --gtest_filter='*LinearTransform*:*Polynomials*:*Bootstrap*' \
  --gtest_color=no >"$out/twins.txt" 2>&1
echo "twins rc $?" | tee -a "$out/twins.txt"
tail -3 "$out/twins.txt"
q="60$(printf ',40%.0s' {1..8})$(printf ',58%.0s' {1..17})"
run() {  # name timeout extra-args...
  local name=$1 t=$2
  shift 2
  local start=$SECONDS
  timeout "$t" gpu-pack/bin/polyhe bench ckks --backend cuda --log-n 16 --primes "$q" \
    --special 60,60,60,60,60,60 --hamming-weight 64 --ops bootstrap --bootstrap-levels 4,4 \
    --min-time 0.05 --threads 16 --json "$@" >"$out/$name.jsonl" 2>"$out/$name.err"
  echo "$name rc $? in $((SECONDS - start)) s: $(cut -c1-400 "$out/$name.jsonl")"
}
run boot16-sine-bsgs16 70 --eval-mod-baby-steps 16
run boot16-double-angle 60 --eval-mod double_angle
run boot16-sine-optimal 60
