#!/usr/bin/env bash
# Builds the CUDA parts here (Release, CUDA on) and packs what a lent GPU machine needs to verify
# them into gpu-pack/ (git-ignored; carry it with the device tool): the `gpu` test binaries, the
# `polyhe` tool, the shared libraries they need that a bare CUDA image lacks (GMP, libsodium),
# and scripts/gpu-run.sh. The device machine needs no compiler, no network and no packages.
#
#   scripts/gpu-pack.sh            # then, on the device: bash gpu-pack/gpu-run.sh "$OUT"
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/gpu-pack
cmake --preset release -B "$build" -DPOLYHE_CUDA=ON -DPOLYHE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target polyhe_cli test_arith_device test_cuda_runtime \
  test_elementwise_device test_ntt_device test_streamed_polymul test_gpu_info
rm -rf gpu-pack
mkdir -p gpu-pack/bin gpu-pack/lib
for t in test_arith_device test_cuda_runtime test_elementwise_device test_ntt_device \
  test_streamed_polymul test_gpu_info; do
  f=$(find "$build/tests" -name "$t" -type f -perm -u+x | head -1)
  if [[ -n "$f" ]]; then cp "$f" gpu-pack/bin/; fi
done
cp "$build/tools/polyhe/polyhe" gpu-pack/bin/
# Libraries outside glibc/libstdc++ and the CUDA runtime (which the device image has).
for f in gpu-pack/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | grep -E 'libgmp|libsodium|libgtest|libbenchmark' | while read -r lib; do
  cp -L "$lib" gpu-pack/lib/
done
cp scripts/gpu-run.sh gpu-pack/
du -sh gpu-pack
