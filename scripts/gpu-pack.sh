#!/usr/bin/env bash
# Builds polyhe with CUDA here and packs into gpu-pack/ (git-ignored) everything a GPU machine
# needs to verify it: the device test binaries, the `polyhe` tool, every shared library they load
# that is not the driver or glibc (libcudart, libstdc++, GMP, libsodium, …; checked with ldd),
# the run order with a timeout per binary (tests.txt), the benchmarks to run once (bench.txt), a
# manifest (commit, build) and scripts/gpu-run.sh. The device machine then needs no compiler, no
# package and no network. Refuses to finish (exit 1, naming the reason) when a device test binary
# is missing from the run order, a library would not resolve, or the pack is too large to carry.
#
#   scripts/gpu-pack.sh [BUILD_DIR]      # default build/gpu-pack
#   POLYHE_PACK_PYTHON=/path/to/python3.12 scripts/gpu-pack.sh
# With a Python of the device's minor version (3.12 on the GPU machines) that has nanobind —
# POLYHE_PACK_PYTHON, else python3.12 on PATH or under ~/.pyenv, else a private environment of
# such a python3.12 with nanobind and numpy from PyPI (build/pack-py312) — the module is built for it and
# the package goes into the pack (python/polyhe, with python/tests/test_device.py): gpu-run.sh then
# runs the Python device tests with the machine's own python3 (numpy and pytest are there).
# The pack's build links polyhe's own libraries shared (BUILD_SHARED_LIBS): the CUDA kernels are
# then carried once (libpolyhe_cuda.so) instead of once per binary, and everything is stripped.
# then, with the device tool: carry ["gpu-pack"], command `bash gpu-pack/gpu-run.sh "$OUT"`
# (docs/bench/gpu-runbook.md); for a change timed against older builds carried beside the pack in
# gpu-pack/var-*/, `bash gpu-pack/gpu-ab.sh "$OUT"` (scripts/gpu-ab.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-pack}
pack=gpu-pack
max_bytes=$((48 * 1024 * 1024))  # the device tool carries 64 MiB with the working tree

# Run order and timeouts (seconds): arithmetic, runtime, element-wise, NTT, products, schemes;
# "BINARY TIMEOUT [NAME=VALUE ...]" runs a binary again with those settings (gpu-run.sh).
# A new device test binary must be added here (the check below finds any that is not).
tests=(
  "test_gpu_info 60"
  "test_arith_device 120"
  "test_cuda_runtime 60"
  "test_elementwise_device 120"
  "test_ntt_device 300"
  "test_streamed_polymul 120"
  "test_ring_poly_cuda 120"
  "test_ckks_cuda 240"
  "test_bgv_cuda 240"
  "test_batch_cuda 120"
  "test_powerful_cuda 120"
  # The scheme paths again at the largest tile the knob takes (POLYHE_CUDA_TILE_LOG=13, 64 KiB of
  # shared memory a block; tiles 9, 10 and 12 passed on the H200 on 2026-11-27, 13 with the staged
  # twiddles, since taken out, on 2026-11-28).
  "test_ring_poly_cuda 120 POLYHE_CUDA_TILE_LOG=13"
  "test_ckks_cuda 240 POLYHE_CUDA_TILE_LOG=13"
  "test_bgv_cuda 240 POLYHE_CUDA_TILE_LOG=13"
  # The scheme paths with plain launches (POLYHE_CUDA_PDL=0; programmatic dependent launches are
  # the default, measured 1.04–1.18× faster on the H200 on 2026-11-28, where both passed every step;
  # DevicePolyDependentLaunch in test_ring_poly_cuda compares the two under the sanitizers too).
  "test_ring_poly_cuda 120 POLYHE_CUDA_PDL=0"
  "test_ckks_cuda 240 POLYHE_CUDA_PDL=0"
  "test_bgv_cuda 240 POLYHE_CUDA_PDL=0"
  "test_batch_cuda 120 POLYHE_CUDA_PDL=0"
  # Base conversions with one target a thread (POLYHE_CUDA_CONVERT_GROUP=1, the body before 3
  # became the default; 3 and 4 passed here on 2026-11-28): BFV's and BGV's.
  "test_ring_poly_cuda 120 POLYHE_CUDA_CONVERT_GROUP=1"
  "test_bgv_cuda 240 POLYHE_CUDA_CONVERT_GROUP=1"
)
# Benchmarks, each run once as JSON lines: "NAME TIMEOUT_S ARGS..." of bin/polyhe, the schemes
# first (issue 15's targets: CKKS at the anchor set N = 2^16, Q = 50 + 8×40, P = 50, and with
# L = 24; N = 2^14; BFV and BGV at their N = 2^14 defaults), then the NTT suite.
anchor16="50,40,40,40,40,40,40,40,40,50"
l24="50$(printf ',40%.0s' {1..24}),50"
benches=(
  "bench-ckks-2p16 120 bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $anchor16"
  "bench-ckks-2p16-L24 150 bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $l24"
  "bench-ckks-2p14 60 bench ckks --backend cuda --json --min-time 0.1"
  "bench-bfv-2p14 60 bench bfv --backend cuda --json --min-time 0.1"
  "bench-bgv-2p14 60 bench bgv --backend cuda --json --min-time 0.1"
  "bench-cuda 200 bench --backend cuda --json --min-time 0.05"
  # The Φ_m transforms (issue 51's targets: m = 21845 per limb, 8 limbs a call, within 2x the
  # 2^14 NTT of as many limbs, the negacyclic rows of the same call; one limb within 11.9 µs).
  # BGV over Φ_21845 on the card and on one core of the same machine (issue 51: multiply_relin on
  # the card ≥ 20× the core's, ≥ 200× HElib's 199 ms).
  "bench-bgv-m21845 120 bench bgv --m 21845 --backend cuda --json --min-time 0.1"
  "bench-bgv-m21845-cpu 120 bench bgv --m 21845 --json --min-time 0.3 --threads 1 --ops multiply_relin,mod_switch,rotate"
  "bench-powerful 90 bench cyclic --backend cuda --json --min-time 0.1 --n 21845,4369,65535 --ops powerful_forward,powerful_inverse --limbs 1,8,32"
  # The batch pipeline's host staging copies run on the library's pool: 1 thread above, all 16
  # cores of the GPU machine here (with 1 thread an item took 38x the transfer floor on an H200).
  "bench-ckks-2p16-batch-t16 60 bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $anchor16 --ops batch_add,batch_multiply --threads 16"
)
# gpu-ab.sh's benchmarks (ab.txt): the rows that changes to the device code are timed by, the pack's
# build against the variants carried beside it (gpu-pack/var-*/), alternated on one machine.
ab=(
  "bench ckks --backend cuda --json --min-time 0.1 --log-n 16 --primes $anchor16 --ops multiply_relin,rotate,rescale"
  "bench ckks --backend cuda --json --min-time 0.1 --ops multiply_relin,rotate,rescale"
  "bench bfv --backend cuda --json --min-time 0.1 --ops multiply_relin"
  "bench bgv --backend cuda --json --min-time 0.1 --ops multiply_relin,mod_switch"
  "bench --backend cuda --json --min-time 0.03 --log-n 16"
)
# compute-sanitizer, after the benchmarks: "TOOL BINARY TIMEOUT_S [GTEST_FILTER]". Seconds seen on
# the H200 (2026-11-26): memcheck, synccheck and initcheck take 1-9 s per binary; racecheck is
# slower (ckks 39 s, bgv 36 s) and the cluster NTT tests did not finish under it in 45 s, so
# they run apart, only the rings up to 2^10 (the larger ones' barriers are the same code, checked
# by the emulation's barrier tests).
sanitizers=()
for tool in memcheck synccheck initcheck; do
  for b in test_elementwise_device test_ntt_device test_ring_poly_cuda test_ckks_cuda \
    test_bgv_cuda test_batch_cuda test_powerful_cuda; do
    sanitizers+=("$tool $b 40")
  done
done
sanitizers+=(
  "racecheck test_elementwise_device 30"
  "racecheck test_ring_poly_cuda 30"
  "racecheck test_batch_cuda 40"
  "racecheck test_ntt_device 120 -*ClusterOnePass*"
  "racecheck test_ntt_device 90 *ClusterOnePassSmallRings*"
  "racecheck test_ckks_cuda 80"
  "racecheck test_bgv_cuda 150"
  "racecheck test_powerful_cuda 120 -*EveryFusedRing*"
)
# Nsight Compute over a few calls, for where the device time goes: "NAME TIMEOUT_S
# LAUNCHES FILTER ARGS...", FILTER `region` (the benchmark's timed calls only: cudaProfilerStart/
# Stop around them, ncu --profile-from-start off) or a regex over the demangled kernel names.
# Rescale and BFV multiply_relin miss their targets by a fixed cost per op: device time per kernel
# against the call's latency tells launch gaps from kernel time. The two-pass NTT kernels run at
# 3.5x their memory floor: their DRAM and SM throughput say which bound they are nearer.
profiles=(
  "profile-ckks-rescale-2p16 90 36 region bench ckks --backend cuda --min-time 0.02 --log-n 16 --primes $anchor16 --ops rescale"
  "profile-ckks-multiply-2p16 90 40 region bench ckks --backend cuda --min-time 0.02 --log-n 16 --primes $anchor16 --ops multiply_relin"
  "profile-bfv-multiply-2p14 90 120 region bench bfv --backend cuda --min-time 0.02 --ops multiply_relin"
  "profile-ntt-two-pass-2p16 120 8 RowNtt|ColumnNtt bench --backend cuda --min-time 0.01 --log-n 16"
)

scripts/deps.sh
# The device's python3 is 3.12: find an interpreter of that version with nanobind unless named.
if [[ -z "${POLYHE_PACK_PYTHON:-}" ]]; then
  for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if "$c" -c 'import nanobind' >/dev/null 2>&1; then
      POLYHE_PACK_PYTHON=$(command -v "$c")
      break
    fi
  done
fi
# Else a private environment of the first Python 3.12 here (build/pack-py312), with nanobind and
# numpy (the stub generator imports the module) from PyPI: nothing installed by hand.
if [[ -z "${POLYHE_PACK_PYTHON:-}" ]]; then
  for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then
      venv=build/pack-py312
      if [[ ! -x $venv/bin/python ]] && ! "$c" -m venv "$venv" >&2; then
        rm -rf "$venv"
        break
      fi
      if "$venv/bin/python" -c 'import nanobind, numpy' >/dev/null 2>&1 ||
        "$venv/bin/python" -m pip install -q nanobind numpy >&2; then
        POLYHE_PACK_PYTHON=$PWD/$venv/bin/python
      fi
      break
    fi
  done
fi
if [[ -z "${POLYHE_PACK_PYTHON:-}" ]]; then
  echo "gpu-pack: no Python 3.12 with nanobind here (pip install nanobind into one, or set" \
    "POLYHE_PACK_PYTHON): the pack will not test the Python package on the device" >&2
fi
python_args=()
if [[ -n "${POLYHE_PACK_PYTHON:-}" ]]; then
  # FindPython keeps what it found in the cache (_Python_*): a build folder configured before
  # with another interpreter would keep that one's headers, so they are found again.
  python_args=(-DPOLYHE_PYTHON=ON "-DPython_EXECUTABLE=$POLYHE_PACK_PYTHON" -U '_Python_*')
fi
cmake --preset release -B "$build" -DPOLYHE_CUDA=ON -DBUILD_SHARED_LIBS=ON \
  -DPOLYHE_BUILD_BENCH=OFF "${python_args[@]}" >/dev/null
names=()
for line in "${tests[@]}"; do
  b=${line%% *}
  [[ " ${names[*]} " == *" $b "* ]] || names+=("$b")
done
# An object for which ninja holds no header dependencies is never rebuilt when a header changes (a
# build killed while it compiled can leave one: cuda_device.cu.o, holding every scheme kernel, was
# such an object from 2026-11-27 to 2026-11-28), so the pack would carry stale device code under
# the commit's name. Remove them: this build compiles them again and records their headers.
if [[ -f "$build/.ninja_deps" ]] && command -v ninja >/dev/null; then
  ninja -C "$build" -t deps | sed -n 's/^\(.*\.o\): #deps 0,.*/\1/p' | sort -u | while read -r o; do
    echo "gpu-pack: $o has no recorded header dependencies; compiling it again" >&2
    rm -f "$build/$o"
  done
fi
cmake --build "$build" -j "$(nproc)"

# Every binary holding a test labelled gpu must be in the run order.
listed=$(ctest --test-dir "$build" -L gpu --show-only=json-v1 2>/dev/null |
  python3 -c 'import json, os, sys
for t in json.load(sys.stdin)["tests"]:
    print(os.path.basename(t["command"][0]))' | sort -u)
for b in $listed; do
  if [[ " ${names[*]} " != *" $b "* ]]; then
    echo "gpu-pack: $b holds gpu-labelled tests but is not in the run order of $0" >&2
    exit 1
  fi
done

rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/lib"
for t in "${names[@]}"; do
  f=$(find "$build/tests" -name "$t" -type f -perm -u+x | head -1)
  if [[ -z "$f" ]]; then
    echo "gpu-pack: test binary $t was not built in $build" >&2
    exit 1
  fi
  cp "$f" "$pack/bin/"
done
cp "$build/tools/polyhe/polyhe" "$pack/bin/"
if [[ -n "${POLYHE_PACK_PYTHON:-}" ]]; then
  mkdir -p "$pack/python/tests"
  cp -rL "$build/python/polyhe" "$pack/python/"
  rm -rf "$pack/python/polyhe/__pycache__"
  cp python/tests/test_device.py "$pack/python/tests/"
fi

# Libraries: everything ldd resolves except the driver (libcuda, on the device) and glibc's own.
system='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libcuda\.so)'
for f in "$pack"/bin/* "$pack"/python/polyhe/*.so; do
  [[ -e "$f" ]] || continue
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
  if [[ ! "$soname" =~ $system ]]; then cp -L "$path" "$pack/lib/$soname"; fi
done

strip --strip-unneeded "$pack"/bin/* "$pack"/lib/*
if [[ -n "${POLYHE_PACK_PYTHON:-}" ]]; then strip --strip-unneeded "$pack"/python/polyhe/*.so; fi

# Check: with only lib/ added, every dependency resolves to lib/ or to the system set.
bad=0
for f in "$pack"/bin/* "$pack"/python/polyhe/*.so; do
  [[ -e "$f" ]] || continue
  while read -r soname arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    if [[ "$path" == "not" ]]; then
      echo "gpu-pack: $(basename "$f") needs $soname, which is not found" >&2
      bad=1
    elif [[ "$path" != "$PWD/$pack/lib/"* && ! "$soname" =~ $system ]]; then
      echo "gpu-pack: $(basename "$f") loads $soname from $path, outside the pack" >&2
      bad=1
    fi
  done < <(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$PWD/$pack/lib" ldd "$f")
done
((bad == 0)) || exit 1

printf '%s\n' "${tests[@]}" >"$pack/tests.txt"
printf '%s\n' "${benches[@]}" >"$pack/bench.txt"
printf '%s\n' "${sanitizers[@]}" >"$pack/sanitizers.txt"
printf '%s\n' "${profiles[@]}" >"$pack/profiles.txt"
printf '%s\n' "${ab[@]}" >"$pack/ab.txt"
# The scheme rows alone (no NTT suite): for timing many variants in one call (gpu-ab.sh's
# BENCH_FILE), e.g. the device ring's tiles as env variants.
printf '%s\n' "${ab[@]}" | grep -E '^bench (ckks|bfv|bgv) ' >"$pack/ab-schemes.txt"
cp scripts/gpu-run.sh scripts/gpu-ab.sh scripts/ncu_summary.py "$pack/"
{
  echo "polyhe $(git describe --always --dirty) ($(git log -1 --format=%cs)), $build, packed $(date -u +%FT%TZ)"
  echo "nvcc: $(nvcc --version | tail -1)"
  echo "libraries: $(ls "$pack/lib" | tr '\n' ' ')"
  echo "python: ${POLYHE_PACK_PYTHON:-not packed (no Python 3.12 with nanobind)}"
} >"$pack/manifest.txt"

bytes=$(du -sb "$pack" | cut -f1)
if ((bytes > max_bytes)); then
  echo "gpu-pack: $pack is $((bytes >> 20)) MiB; the device tool carries 64 MiB with the tree, keep it under $((max_bytes >> 20))" >&2
  exit 1
fi
echo "gpu-pack: $((bytes >> 20)) MiB in $pack ($(ls "$pack/bin" | wc -l) binaries, $(ls "$pack/lib" | wc -l) libraries)"
cat "$pack/manifest.txt"
