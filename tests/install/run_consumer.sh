#!/usr/bin/env bash
# Installs this build into a fresh prefix, then configures, builds and runs a small project that
# finds polyhe with find_package, as a user's would. Arguments: the build directory, the consumer
# project's source directory, a scratch directory, and extra C++ flags for the consumer (the
# sanitizer flags when the library was built with them), and the CUDA toolkit's root when the
# library was built with CUDA (its package configuration then finds the CUDA runtime).
set -euo pipefail
build=$1 consumer=$2 scratch=$3 flags=${4:-} cuda_root=${5:-}
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log"
find "$scratch/prefix" -name polyheConfig.cmake | grep -q . \
  || { echo "cmake --install wrote no polyheConfig.cmake under $scratch/prefix"; exit 1; }
# Public headers include no third-party header the user did not ask for: GMP only through
# rns/bigint.hpp (big integers), which polyhe.hpp leaves out.
gmp=$(cd "$scratch/prefix/include" && grep -rlE '#include <gmp(xx)?\.h>' . | sort | tr '\n' ' ')
if [[ "$gmp" != "./polyhe/rns/bigint.hpp " ]]; then
  echo "installed headers including GMP: '$gmp' (only polyhe/rns/bigint.hpp may)"
  exit 1
fi
# Nor any internal header (the kernel interfaces, scratch and benchmark hooks live under src/).
internal=$(cd "$scratch/prefix/include" && grep -rlE '#include "(cpu|cuda|ring|rns|ntt)/' . || true)
if [[ -n "$internal" ]]; then
  echo "installed headers including internal ones: $internal"
  exit 1
fi
# Only the installed tree: the prefix, never the source or build directories.
cmake -S "$consumer" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" ${cuda_root:+-DCUDAToolkit_ROOT="$cuda_root"} \
  >"$scratch/configure.log" \
  || { cat "$scratch/configure.log"; exit 1; }
cmake --build "$scratch/build" >"$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; exit 1; }
"$scratch/build/consumer_ntt"
"$scratch/build/consumer"
