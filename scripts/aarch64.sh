#!/usr/bin/env bash
# Builds polyhe for 64-bit ARM Linux on an x86-64 Debian host and runs its tests there under
# qemu-user: the check that the portable (scalar) paths build and give the same answers on ARM,
# where no x86 kernel is compiled (src/cpu/CMakeLists.txt compiles the AVX2, AVX-512 and IFMA
# files for x86 only). Not part of CI (the suite takes tens of minutes under emulation).
#
#   scripts/aarch64.sh                 configure, build, run the tests (below)
#   scripts/aarch64.sh -R Ckks         ... with these arguments given to ctest instead
#
# Under Debian 12's qemu-user (7.2) a guest pthread_create never returns (a three-line program
# with one std::thread hangs, spinning inside qemu). So the tests run with POLYHE_THREADS=1 (the
# library's pool then starts no thread), and the tests that start threads of their own are left
# out by name, as are the slow ones and the command-line tests (their benchmarks take minutes
# under emulation).
#
# Installs, when missing: Debian's cross compiler, the arm64 packages of the libraries the build
# links (multiarch: dpkg --add-architecture arm64) and qemu-user. Build tree: build/aarch64
# (Release; CUDA, the Python module and the benchmarks off).
set -euo pipefail
cd "$(dirname "$0")/.."
# FLINT's development package is not co-installable across architectures (the arm64 one would
# remove the host's): the host's headers serve (nothing in them differs on a 64-bit
# little-endian target that polyhe uses) with the arm64 runtime library, named to CMake below.
packages=(g++-aarch64-linux-gnu qemu-user libgmp-dev:arm64 libsodium-dev:arm64 libflint17:arm64
  libgtest-dev:arm64 libgmock-dev:arm64)
# The arm64 packages need the architecture known to dpkg before deps.sh's apt-get update.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "polyhe: need root (or sudo) to add the arm64 architecture" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo dpkg --add-architecture arm64
fi
# The host's packages (tools, the architecture-independent CLI11 and nlohmann-json headers) and
# these, each checked and installed when missing.
scripts/deps.sh "${packages[@]}"

build=build/aarch64
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DPOLYHE_CUDA=OFF -DPOLYHE_PYTHON=OFF -DPOLYHE_BUILD_BENCH=OFF \
  -DPOLYHE_FLINT_LIBRARY=/usr/lib/aarch64-linux-gnu/libflint.so.17
cmake --build "$build"
export POLYHE_THREADS=1
threaded='ThreadPool|Concurrency|ThreadsSharing|EachThreadWipes|SecretScope|^Batch\.|^Cli'
if (($# > 0)); then
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
else
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -LE slow -E "$threaded"
fi
