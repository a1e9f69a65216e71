#!/usr/bin/env bash
# One-off (2026-11-27): Nsight Compute's full set over the 64-bit two-pass NTT kernels at 2^16 and
# the batched rescale's kernels at 2^16, for where a block program's 12 us go (stall reasons).
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib" CUDA_MODULE_LOADING=EAGER
ncu=$(command -v ncu || ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
w=$(mktemp -d)
"$ncu" --version > "$w/ncu-version.txt" 2>&1
timeout 150 "$ncu" --clock-control none --set full --kernel-name-base demangled \
  --kernel-name 'regex:(Row|Column)Ntt<unsigned long, polyhe::ShoupLazy' --launch-count 2 \
  --export "$w/ntt-full" --force-overwrite "$here/bin/polyhe" bench --backend cuda \
  --min-time 0.01 --log-n 16 >"$w/ntt-full.txt" 2>&1
echo "ntt rc=$?"
timeout 100 "$ncu" --clock-control none --set full --profile-from-start off --launch-count 7 \
  --export "$w/rescale-full" --force-overwrite "$here/bin/polyhe" bench ckks --backend cuda \
  --min-time 0.01 --log-n 16 --primes 50,40,40,40,40,40,40,40,40,50 --ops rescale \
  >"$w/rescale-full.txt" 2>&1
echo "rescale rc=$?"
for r in ntt-full rescale-full; do
  "$ncu" --import "$w/$r.ncu-rep" --csv --page details >"$w/$r.csv" 2>>"$w/$r.txt"
  "$ncu" --import "$w/$r.ncu-rep" --page details >"$w/$r-details.txt" 2>>"$w/$r.txt"
  "$ncu" --import "$w/$r.ncu-rep" --csv --page raw >"$w/$r-raw.csv" 2>>"$w/$r.txt"
  echo "$r: $(python3 "$here/ncu_summary.py" "$w/$r.csv" "$w/$r.md")"
done
ls -la "$w"
grep -h -E "Stall|Warp Cycles Per Issued|Issued Ipc|Registers|Theoretical Occ|Achieved Occ|Duration" "$w/ntt-full-details.txt" | head -60
tar -C "$w" -czf "$out/ntt-full.tar.gz" --exclude='*.ncu-rep' .
cp "$w/ntt-full.ncu-rep" "$w/rescale-full.ncu-rep" "$out/" 2>/dev/null
ls -la "$out"
