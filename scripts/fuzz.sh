#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: Clang, every library with ASan + UBSan) and
# runs each for SECONDS (default 45), two at a time, on a copy of its seed corpus
# (fuzz/corpus/<target>/ → build/fuzz/corpus-work/<target>/, which keeps what earlier runs found;
# remove it to start again from the seeds). First it replays fuzz/regressions/<target>/*, the
# inputs of earlier findings. Exits non-zero on any crash, timeout, leak or OOM; the artifacts go
# to build/fuzz/artifacts/ and each target's log to build/fuzz/logs/. docs/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   run every target (or the ones named)
#   scripts/fuzz.sh --regenerate-corpus     rewrite fuzz/corpus/ with fuzz_make_corpus
set -euo pipefail
cd "$(dirname "$0")/.."

regenerate=0
if [[ "${1:-}" == "--regenerate-corpus" ]]; then
  regenerate=1
  shift
fi
seconds="${1:-45}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET...] | --regenerate-corpus" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))

# --- Clang and its sanitizer/libFuzzer runtimes, beside what scripts/deps.sh installs ----------
scripts/deps.sh clang libclang-rt-14-dev

# --- Build -------------------------------------------------------------------------------------
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
bin=build/fuzz/fuzz
all_targets=(fuzz_parameters fuzz_secret_key fuzz_public_key fuzz_key_switch_key fuzz_galois_keys
  fuzz_ciphertext fuzz_ckks_plaintext fuzz_bgv_plaintext fuzz_polymul_input)
if (($# > 0)); then targets=("$@"); else targets=("${all_targets[@]}"); fi

need_corpus=$regenerate
for t in "${all_targets[@]}"; do
  [[ -d fuzz/corpus/$t ]] || need_corpus=1
done
if ((need_corpus)); then
  echo "== writing the seed corpus to fuzz/corpus/ (fuzz_make_corpus)"
  "$bin/fuzz_make_corpus" fuzz/corpus
fi
if ((regenerate)); then
  exit 0
fi

work=build/fuzz/corpus-work
artifacts=build/fuzz/artifacts
logs=build/fuzz/logs
mkdir -p "$work" "$artifacts" "$logs"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
flags=(-max_len=65536 -timeout=5 -rss_limit_mb=2048 -print_final_stats=1)

# --- Regressions: the inputs of earlier findings, once each ------------------------------------
failed=()
for t in "${targets[@]}"; do
  [[ -x "$bin/$t" ]] || { echo "polyhe: no fuzz target $t" >&2; exit 2; }
  shopt -s nullglob
  cases=(fuzz/regressions/"$t"/*)
  shopt -u nullglob
  ((${#cases[@]} > 0)) || continue
  echo "== $t: replaying ${#cases[@]} regression input(s)"
  if ! "$bin/$t" "${flags[@]}" "${cases[@]}" >"$logs/$t.regressions.log" 2>&1; then
    echo "FAILED: $t on fuzz/regressions/$t/ (log $logs/$t.regressions.log):"
    grep -E "ERROR: |runtime error|invariant broken|Running: " "$logs/$t.regressions.log" | head -5
    failed+=("$t (regression)")
  fi
done

# --- Fuzzing, two targets at a time -------------------------------------------------------------
run_one() {
  local t=$1 rc=0
  mkdir -p "$work/$t"
  cp -p fuzz/corpus/"$t"/* "$work/$t/"
  "$bin/$t" "${flags[@]}" -max_total_time="$seconds" -artifact_prefix="$artifacts/$t-" \
    "$work/$t" >"$logs/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$t.rc"
}
echo "== fuzzing ${#targets[@]} target(s), ${seconds} s each, two at a time (logs in $logs/)"
running=0
for t in "${targets[@]}"; do
  rm -f "$logs/$t.rc"
  if ((running == 2)); then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait

final_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }
printf '%-22s %12s %10s %8s  %s\n' target executions exec/s new_units result
for t in "${targets[@]}"; do
  log="$logs/$t.log"
  rc=$(cat "$logs/$t.rc" 2>/dev/null || echo "no status")
  result=ok
  if [[ "$rc" != 0 ]]; then
    result="FAILED (exit $rc)"
    failed+=("$t")
  fi
  printf '%-22s %12s %10s %8s  %s\n' "$t" "$(final_stat "$log" number_of_executed_units)" \
    "$(final_stat "$log" average_exec_per_sec)" "$(final_stat "$log" new_units_added)" "$result"
  if [[ "$rc" != 0 ]]; then
    grep -E "ERROR: |runtime error|invariant broken|Test unit written to|^SUMMARY" "$log" |
      head -8 | sed 's/^/    /'
    echo "    full log: $log"
  fi
done

if ((${#failed[@]} > 0)); then
  echo "polyhe fuzz: FAILED: ${failed[*]} (artifacts in $artifacts/)" >&2
  exit 1
fi
echo "polyhe fuzz: no findings"
