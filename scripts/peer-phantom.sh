#!/usr/bin/env bash
# Peer comparison with Phantom (https://github.com/encryptorion-lab/phantom-fhe), the CUDA HE
# library, on the GPU machine that runs polyhe's pack. Builds Phantom from a source checkout with
# CMake + nvcc for one architecture (never downloads it: pass the checkout), compiles our driver
# bench/peers/phantom_bench.cu against its public headers, and assembles a self-contained folder
# to carry beside gpu-pack/: bin/phantom_bench, lib/ (libPhantom and every library they load
# except glibc's and the driver's, stripped), run.sh and SOURCE (the commit and how it was built).
#   scripts/peer-phantom.sh [PHANTOM_SRC] [OUT_DIR]
#     PHANTOM_SRC  Phantom source checkout (default /work/peers/phantom-src)
#     OUT_DIR      the folder to assemble (default gpu-pack/peer-phantom, under the repository)
#   PHANTOM_BUILD  build directory, outside the repository (default phantom-build beside the
#                  source)
#   PHANTOM_ARCH   CUDA architecture (default 90, an H200)
#   JOBS           parallel build jobs (default 2)
# On the GPU machine, from the repository root: bash gpu-pack/peer-phantom/run.sh OUT
# writes OUT/peers.jsonl (one JSON line per row, "library": "phantom") and OUT/peer-phantom.log.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
src="$(cd "${1:-/work/peers/phantom-src}" && pwd)"
pack="${2:-$repo/gpu-pack/peer-phantom}"
arch="${PHANTOM_ARCH:-90}"
build="${PHANTOM_BUILD:-$(dirname "$src")/phantom-build}"
[[ -f $src/CMakeLists.txt && -f $src/include/phantom.h ]] ||
  { echo "peer-phantom: no Phantom source in $src" >&2; exit 1; }
case "$(cd "$build/.." 2>/dev/null && pwd)/" in
  "$repo"/*) echo "peer-phantom: build outside the repository, not in $build" >&2; exit 1 ;;
esac
command -v nvcc >/dev/null || { echo "peer-phantom: nvcc is not on PATH" >&2; exit 1; }
commit="$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)"

# Phantom's own CMake: the library only (examples, benchmarks, tests and Python off: they need
# submodules), one architecture, and the shared CUDA runtime, so that the library and the driver
# share one libcudart.
start=$SECONDS
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared -DPHANTOM_ENABLE_EXAMPLE=OFF -DPHANTOM_ENABLE_BENCH=OFF \
  -DPHANTOM_ENABLE_TEST=OFF -DPHANTOM_ENABLE_PYTHON_BINDING=OFF >&2
nice cmake --build "$build" -j "${JOBS:-2}" >&2
lib="$build/lib/libPhantom.so"
[[ -f $lib ]] || { echo "peer-phantom: the build made no $lib" >&2; exit 1; }

# The driver, compiled as Phantom compiles its sources (C++17, its PTX switch, the per-thread
# default stream), linked to the shared runtime; it finds lib/ beside bin/.
mkdir -p "$build/peer"
nice nvcc -std=c++17 -O2 -arch="sm_$arch" --default-stream per-thread -DPHANTOM_USE_CUDA_PTX \
  -DPHANTOM_PEER_COMMIT="\"$commit\"" -I"$src/include" "$repo/bench/peers/phantom_bench.cu" \
  -L"$build/lib" -lPhantom --cudart shared -Xlinker -rpath -Xlinker '$ORIGIN/../lib' \
  -o "$build/peer/phantom_bench"
echo "peer-phantom: Phantom $commit and the driver built in $((SECONDS - start)) s" >&2

rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/lib"
cp "$build/peer/phantom_bench" "$pack/bin/"
cp -L "$lib" "$pack/lib/"
# Libraries: everything ldd resolves except the driver (libcuda, on the device) and glibc's own
# (the rule of scripts/gpu-pack.sh).
system='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libcuda\.so)'
for f in "$pack/bin/phantom_bench" "$pack/lib/libPhantom.so"; do
  LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" |
    awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
  if [[ ! $soname =~ $system && ! -e $pack/lib/$soname ]]; then cp -L "$path" "$pack/lib/$soname"; fi
done
strip --strip-unneeded "$pack"/bin/* "$pack"/lib/*

# Check: with only lib/ added, every dependency resolves to lib/ or to the system set.
bad=0
for f in "$pack"/bin/* "$pack"/lib/*; do
  while read -r soname arrow path _; do
    [[ $arrow == "=>" ]] || continue
    if [[ $path == "not" ]]; then
      [[ $soname =~ ^libcuda\.so ]] && continue  # the GPU machine's driver provides it
      echo "peer-phantom: $(basename "$f") needs $soname, which is not found" >&2
      bad=1
    elif [[ $path != "$pack/lib/"* && ! $soname =~ $system ]]; then
      echo "peer-phantom: $(basename "$f") loads $soname from $path, outside the folder" >&2
      bad=1
    fi
  done < <(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$pack/lib" ldd "$f")
done
((bad == 0)) || exit 1

cat >"$pack/SOURCE" <<EOF
Phantom $commit (https://github.com/encryptorion-lab/phantom-fhe), built by scripts/peer-phantom.sh
on $(date -u +%Y-%m-%dT%H:%MZ): CMake Release, CMAKE_CUDA_ARCHITECTURES=$arch, shared CUDA runtime,
$(nvcc --version | tail -1); driver bench/peers/phantom_bench.cu.
EOF

cat >"$pack/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs Phantom's peer benchmark (bench/peers/phantom_bench.cu; built by scripts/peer-phantom.sh):
#   bash run.sh OUT_DIR [phantom_bench options: --min-time S --min-samples K --only ckks|bfv]
# writes OUT_DIR/peers.jsonl (one JSON line per row) and OUT_DIR/peer-phantom.log (notes, ldd).
# PEER_TIMEOUT (default 180 s) bounds the run; rows written before a timeout are kept.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: run.sh OUT_DIR [phantom_bench options]}"
shift
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log="$out/peer-phantom.log"
{
  cat "$here/SOURCE"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  fi
  ldd "$here/bin/phantom_bench"
} >"$log" 2>&1
start=$SECONDS
timeout "${PEER_TIMEOUT:-180}" "$here/bin/phantom_bench" "$@" >"$out/peers.jsonl" 2>>"$log"
rc=$?
rows=$(grep -c '^{' "$out/peers.jsonl" || true)
echo "peer-phantom: rc $rc, $rows rows in $((SECONDS - start)) s -> $out/peers.jsonl" | tee -a "$log" >&2
grep '^phantom: .*\(skipped\|failed\|lost\|precision\|wrong\)' "$log" >&2 || true
exit $rc
EOF
chmod +x "$pack/run.sh"
echo "peer-phantom: $pack ($(du -sh "$pack" | cut -f1)): bash ${pack#"$repo"/}/run.sh OUT" >&2
