#!/usr/bin/env bash
# On a lent GPU machine, from a gpu-pack/ made by scripts/gpu-pack.sh: runs every `gpu` test
# binary and the CUDA benchmark, and writes the raw outputs, headed by the nvidia-smi device line,
# into the directory $1 (default: gpu-out). Never changes the card's settings.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv
  nvidia-smi -L
} >"$out/device.txt" 2>&1
cat "$out/device.txt"
status=0
for t in "$here"/bin/test_*; do
  name=$(basename "$t")
  echo "== $name"
  if ! "$t" --gtest_color=no >"$out/$name.txt" 2>&1; then status=1; fi
  tail -3 "$out/$name.txt"
done
echo "== polyhe bench --backend cuda"
"$here/bin/polyhe" bench --backend cuda --json >"$out/bench-cuda.jsonl" 2>"$out/bench-cuda.err" ||
  status=1
"$here/bin/polyhe" bench --backend cuda >"$out/bench-cuda.md" 2>>"$out/bench-cuda.err" ||
  status=1
tail -40 "$out/bench-cuda.md"
exit $status
