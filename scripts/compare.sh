#!/usr/bin/env bash
# polyhe beside TenSEAL (SEAL inside) and OpenFHE, installed from PyPI into a private virtual
# environment, on the same ops and parameters (polyhe's `bench ckks` and `bench bfv` defaults),
# one thread each, pinned to one core, in one run; prints the machine and a table of ratios, then
# polyhe's NTT on every kernel path this CPU has (N = 2^12..2^17, 50- and 60-bit primes) and the
# verdict on issue 17's targets (which applies to the avx2 path on an AVX2-only CPU).
#
#   scripts/compare.sh [min-time-seconds]      (default 0.5)
#
#   POLYHE_CPU       polyhe's kernel path (scalar|avx2|avx512|ifma; default: the best here)
#   COMPARE_CORE     core for taskset (default 1; none when taskset is missing)
#   COMPARE_VENV     the peers' virtual environment (default build/peers-venv)
#   PYTHON310        a Python 3.10 interpreter: OpenFHE's wheel is built for 3.10 only. Without
#                    one (python3.10 on PATH or pyenv's 3.10), TenSEAL runs alone under python3.
#   COMPARE_OUT      directory for the raw JSON (default build/compare)
#   COMPARE_ROUNDS   rounds, polyhe and the peers alternating (default 3); the table takes each
#                    side's fastest median of the rounds, op by op. On a shared VM one round's
#                    medians move by up to 1.6x (an Intel cloud VM), more than the ratios measured.
#   COMPARE_BOOTSTRAP=1  also CKKS bootstrapping at N = 2^16, 128-bit, a uniform ternary secret
#                    with sparse-secret encapsulation, all 2^15 slots, one level left for the
#                    user: polyhe's preset (ckks::bootstrappable_parameters(16, 1)) beside
#                    OpenFHE's EvalBootstrap (SPARSE_ENCAPSULATED), then polyhe's high-precision
#                    preset (two iterations at Δ = 2^50) beside OpenFHE's iterative EvalBootstrap
#                    (two iterations), one round (minutes and about 13 GB of memory each)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
min_time="${1:-0.5}"
rounds="${COMPARE_ROUNDS:-3}"
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
  echo "compare: COMPARE_ROUNDS=$rounds is not a positive whole number" >&2
  exit 2
fi
out="${COMPARE_OUT:-$repo/build/compare}"
venv="${COMPARE_VENV:-$repo/build/peers-venv}"
mkdir -p "$out"

# The peers' interpreter.
# (A candidate must run: pyenv's shims exist on PATH for versions that are not selected.)
py="${PYTHON310:-}"
if [[ -z $py ]]; then
  for c in "$(command -v python3.10 || true)" "$HOME"/.pyenv/versions/3.10*/bin/python3.10; do
    if [[ -n $c && -x $c ]] && "$c" -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null; then
      py="$c"
      break
    fi
  done
fi
libraries="tenseal,openfhe"
if [[ -z $py ]]; then
  echo "compare: no Python 3.10 (OpenFHE's wheel needs it): TenSEAL only; set PYTHON310 to add OpenFHE" >&2
  py="$(command -v python3)"
  libraries="tenseal"
fi
if [[ ! -x $venv/bin/python ]]; then
  echo "compare: creating $venv with $py" >&2
  "$py" -m venv "$venv"
fi
# Versions pinned to the ones measured in docs/perf.md (TenSEAL's newest wheel for 3.10).
pkgs=("tenseal==0.3.16")
[[ $libraries == *openfhe* ]] && pkgs+=("openfhe==1.6.1.0.22.4")
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pkgs[@]}" >&2

# polyhe, built as the README's first command builds it.
polyhe="$repo/build/release/tools/polyhe/polyhe"
if [[ ! -x $polyhe ]]; then
  (cd "$repo" && bash scripts/deps.sh >&2 && cmake --preset release >&2 &&
    cmake --build --preset release --target polyhe >&2)
fi

pin=()
if command -v taskset >/dev/null; then pin=(taskset -c "${COMPARE_CORE:-1}"); fi

echo "## polyhe vs TenSEAL and OpenFHE, $(date -u +%Y-%m-%d)"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) logical cores); flags: $(grep -m1 -o -w -e avx2 -e avx512f -e avx512ifma /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "- $("$polyhe" info | grep -m1 'cpu kernels' | sed 's/  */ /g')"
echo "- peers: $("$venv/bin/python" -m pip list 2>/dev/null | grep -i -E '^(tenseal|openfhe) ' | tr -s ' ' | paste -sd ',' -) under $("$venv/bin/python" --version)"
echo "- one thread each (OMP_NUM_THREADS=1, TenSEAL n_threads=1, polyhe --threads 1), ${pin[*]:-unpinned}, min-time $min_time s per op, $rounds round(s) alternating"

lists=("" "" "" "" "")
for ((r = 1; r <= rounds; r++)); do
  echo "compare: round $r of $rounds" >&2
  f=("$out/polyhe-ckks.r$r.jsonl" "$out/polyhe-bfv.r$r.jsonl"
    "$out/polyhe-bfv-openfhe-sizes.r$r.jsonl" "$out/peers.r$r.jsonl" "$out/polyhe-ntt.r$r.jsonl")
  "${pin[@]}" "$polyhe" bench ckks --threads 1 --min-time "$min_time" --json >"${f[0]}"
  "${pin[@]}" "$polyhe" bench bfv --threads 1 --min-time "$min_time" --json >"${f[1]}"
  "${pin[@]}" "$polyhe" bench bfv --threads 1 --min-time "$min_time" --primes 49,49,49,49,49,49,49 \
    --json >"${f[2]}"
  OMP_NUM_THREADS=1 "${pin[@]}" "$venv/bin/python" "$repo/bench/peers/he_peers.py" \
    --min-time "$min_time" --libraries "$libraries" >"${f[3]}"
  "${pin[@]}" "$polyhe" bench ntt --cpu all --threads 1 --log-n 12-17 --bits 50,60 \
    --ops ntt_forward,ntt_inverse --min-time "$min_time" --json >"${f[4]}"
  for i in 0 1 2 3 4; do lists[i]+="${lists[i]:+,}${f[i]}"; done
done
python3 "$repo/bench/peers/compare_table.py" "${lists[@]}"
if [[ ${COMPARE_BOOTSTRAP:-0} == 1 ]]; then
  if [[ $libraries != *openfhe* ]]; then
    echo "compare: COMPARE_BOOTSTRAP needs OpenFHE (Python 3.10): skipped" >&2
  else
    echo "compare: bootstrapping at N = 2^16 (polyhe's presets, then OpenFHE's)" >&2
    # The presets' chains (src/ckks/bootstrap_presets.cpp, N = 2^16, one user level): standard,
    # then high precision (q_0 of 60 bits, Δ = 2^50, one more bootstrapping prime, two iterations).
    boot=(bench ckks --threads 1 --log-n 16 --special 61,61,61,61 --encapsulation-weight 32
      --eval-mod double_angle --bootstrap-levels 4,3 --message-ratio 9 --ops bootstrap
      --min-time "$min_time" --json)
    "${pin[@]}" "$polyhe" "${boot[@]}" --primes "55,40$(printf ',60%.0s' {1..16})" \
      --scale-bits 40 >"$out/polyhe-bootstrap.jsonl"
    OMP_NUM_THREADS=1 "${pin[@]}" "$venv/bin/python" "$repo/bench/peers/he_peers.py" \
      --libraries openfhe --schemes ckks_bootstrap >"$out/openfhe-bootstrap.jsonl"
    "${pin[@]}" "$polyhe" "${boot[@]}" --primes "60,50$(printf ',60%.0s' {1..17})" \
      --scale-bits 50 --bootstrap-iterations 2 >"$out/polyhe-bootstrap-high.jsonl"
    OMP_NUM_THREADS=1 "${pin[@]}" "$venv/bin/python" "$repo/bench/peers/he_peers.py" \
      --libraries openfhe --schemes ckks_bootstrap --bootstrap-iterations 2 \
      >"$out/openfhe-bootstrap-high.jsonl"
    python3 - "$out/polyhe-bootstrap.jsonl" "$out/openfhe-bootstrap.jsonl" \
      "$out/polyhe-bootstrap-high.jsonl" "$out/openfhe-bootstrap-high.jsonl" <<'PY'
import json
import sys

rows = [[json.loads(line) for line in open(path) if line.startswith("{")][0]
        for path in sys.argv[1:5]]
print()
print("### CKKS bootstrapping, N = 2^16, all 2^15 slots, dense secret + encapsulation, one thread")
print()
print("| library | iterations | median s | levels after | precision bits |")
print("|---|---:|---:|---:|---:|")
for ours, peer in (rows[0:2], rows[2:4]):
    p = peer["params"]
    print(f"| polyhe | {ours['iterations']} | {ours['median_ns'] / 1e9:.2f} | "
          f"{ours['levels_after']} | {ours['precision_bits']} |")
    print(f"| OpenFHE | {p['iterations']} | {peer['median_ms'] / 1e3:.2f} | "
          f"{p['levels_after']} | {p['precision_bits']} |")
print()
for ours, peer in (rows[0:2], rows[2:4]):
    print(f"{ours['iterations']} iteration(s): polyhe is "
          f"{peer['median_ms'] * 1e6 / ours['median_ns']:.2f}x OpenFHE's speed")
PY
  fi
fi
echo
echo "Raw JSON: $out"
