#!/usr/bin/env bash
# Peer comparison with HElib (https://github.com/homenc/HElib): builds HElib against Debian's
# NTL and GMP into a private prefix (once), compiles bench/peers/helib_bench.cpp against it and
# runs it pinned to one core. This script never downloads HElib: pass a source checkout (e.g. the
# v2.3.0 tag) as the first argument or in HELIB_SRC. Remaining arguments go to the benchmark:
# [bits=400] [c=3] [reps=31].
#   HELIB_SRC     HElib source directory   (default /work/peers/helib-src)
#   HELIB_PREFIX  install prefix           (default /work/peers/helib)
#   HELIB_BUILD   build directory          (default $HELIB_PREFIX-build)
#   JOBS          parallel build jobs      (default 2)
#   PEER_CORE     core for taskset         (default 1)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# -gt 0 && -d $1 ]]; then HELIB_SRC=$1; shift; fi
src="$(cd "${HELIB_SRC:-/work/peers/helib-src}" && pwd)"
prefix="${HELIB_PREFIX:-/work/peers/helib}"
build="${HELIB_BUILD:-$prefix-build}"
[[ -f $src/CMakeLists.txt && -d $src/src ]] || { echo "peer-helib: no HElib source in $src" >&2; exit 1; }

# NTL and GMP come from apt, like scripts/deps.sh does for polyhe's own dependencies.
missing=()
for p in cmake make g++ libntl-dev libgmp-dev util-linux; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "peer-helib: installing missing packages: ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "peer-helib: need root (or sudo) for: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ ! -f $prefix/lib/libhelib.a || ! -f $prefix/include/helib/helib.h ]]; then
  echo "peer-helib: building HElib from $src into $prefix" >&2
  start=$SECONDS
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPACKAGE_BUILD=OFF -DNTL_DIR=/usr \
    -DGMP_DIR=/usr -DENABLE_THREADS=ON -DPEDANTIC_BUILD=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >&2
  cmake --build "$build" -j "${JOBS:-2}" >&2
  cmake --install "$build" >&2
  echo "peer-helib: HElib built in $((SECONDS - start)) s" >&2
fi

# HElib's version.h is not bumped for every release: name the source by tag/commit instead.
tag="$(sed -n 's/.*(tagged as \(v[0-9.]*\)).*/\1/p' "$src/CHANGES.md" | head -1)"
commit="$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "no git metadata")"
mkdir -p "$build"
g++ -std=c++17 -O2 -march=native -DHELIB_PEER_SOURCE="\"${tag:-unknown} ($commit)\"" \
  -I"$prefix/include" "$repo/bench/peers/helib_bench.cpp" "$prefix/lib/libhelib.a" -lntl -lgmp \
  -pthread -o "$build/helib_bench"
# HElib writes its warnings to ./helib.log: keep that in the build directory, not the caller's.
cd "$build"
exec taskset -c "${PEER_CORE:-1}" "$build/helib_bench" "$@"
