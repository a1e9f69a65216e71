#!/usr/bin/env bash
# On a GPU machine, from a pack made by scripts/gpu-pack.sh: runs the pack's test binaries in
# the order of tests.txt (arithmetic, runtime, element-wise, NTT, products, schemes), then each
# benchmark of bench.txt once (JSON lines), and leaves exactly two files in the output directory
# $1 (default gpu-out), which the device tool brings back (it returns at most 8):
#   summary.txt          one line per step (PASS / FAIL / SKIPPED / TIMEOUT / NOT RUN) and the
#                        device line; also printed last, so the tool's output tail shows it
#   gpu-results.tar.gz   everything raw: device.txt (nvidia-smi), ldd.txt, each test's output and
#                        gtest JSON, each benchmark's JSON lines and stderr
# Rules (docs/bench/gpu-runbook.md): every binary runs under its own `timeout`, cut to what is left
# of POLYHE_GPU_DEADLINE_S seconds (default 540, under the tool's 600-second limit; a step with
# under 15 s left is NOT RUN, a failure); CUDA_MODULE_LOADING=EAGER (module load errors at start, not
# mid-test); a test binary that skips any test, runs no test, or dies is a FAILURE here (on a GPU
# nothing may skip); a library the binaries need that is missing fails the run before any test.
# Exit status 0 only if every step passed. Never changes the card's settings.
#
# tests.txt: lines "BINARY TIMEOUT_S [NAME=VALUE ...]" (binaries in bin/; the settings, if any, are
# the environment of that run only, and name its step "BINARY[NAME=VALUE ...]" and its raw files
# BINARY.NAME_VALUE...: the scheme tests again under a run-time knob). bench.txt: lines
# "NAME TIMEOUT_S ARGS..." (runs bin/polyhe ARGS..., stdout to NAME.jsonl).
# python/ (packed with POLYHE_PACK_PYTHON): after the test binaries, the machine's python3 runs
# python/tests with pytest against the packed module; a skip, a failure, or no test run on "cuda"
# fails the step.
# sanitizers.txt: lines "TOOL BINARY TIMEOUT_S [GTEST_FILTER]", run last: compute-sanitizer
# --tool TOOL over bin/BINARY; passes only when the binary's tests pass and the tool reports no
# error or hazard (its summary line goes into summary.txt).
# profiles.txt: lines "NAME TIMEOUT_S LAUNCHES FILTER ARGS...", run after the sanitizers: Nsight
# Compute (ncu, clocks left alone) over bin/polyhe ARGS..., at most LAUNCHES kernels: with FILTER
# `region` those of the benchmark's timed calls (--profile-from-start off; the benchmark marks
# them), else those whose demangled name matches the regex FILTER. The report's per-kernel CSV
# and ncu_summary.py's table go into the tarball; summary.txt gets the kernel count, their device
# time and the kernels that took most of it. No kernel profiled fails the step.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-gpu-out}
deadline=${POLYHE_GPU_DEADLINE_S:-540}
start=$(date +%s)
mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$(mktemp -d)
summary="$raw/summary.txt"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDA_MODULE_LOADING=EAGER
status=0

note() { echo "$*" | tee -a "$summary"; }
elapsed() { echo $(($(date +%s) - start)); }

# Packs the raw outputs and the summary into $out; runs on every exit path.
finish() {
  cp "$summary" "$out/summary.txt"
  tar -C "$raw" -czf "$out/gpu-results.tar.gz" .
  rm -rf "$raw"
}
trap finish EXIT

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader
  nvidia-smi -L
  nvidia-smi
} >"$raw/device.txt" 2>&1
note "device: $(head -2 "$raw/device.txt" | tail -1)"
note "pack: $(cat "$here/manifest.txt" 2>/dev/null | head -1)"

# Every library every binary needs must resolve (from lib/ or the machine's driver and libc).
missing=0
for f in "$here"/bin/* "$here"/python/polyhe/*.so; do
  [[ -e "$f" ]] || continue
  echo "== $(basename "$f")"
  ldd "$f" 2>&1
done >"$raw/ldd.txt"
if grep -q 'not found' "$raw/ldd.txt"; then
  note "FAIL libraries: $(grep 'not found' "$raw/ldd.txt" | awk '{print $1}' | sort -u | tr '\n' ' ')"
  missing=1
  status=1
fi

# run NAME TIMEOUT_S STDOUT_FILE STDERR_FILE COMMAND...: the command under its own timeout,
# within the deadline, stdin closed; sets $rc (124: timed out; -1: not run) and $took.
run() {
  local name=$1 limit=$2 file=$3 errfile=$4
  shift 4
  local left=$((deadline - $(elapsed)))
  if ((left < 15)); then
    rc=-1
    note "NOT RUN $name: ${left} s left of the ${deadline}-s deadline"
    return
  fi
  if ((left < limit)); then limit=$left; fi
  local t0
  t0=$(date +%s)
  if [[ "$file" == "$errfile" ]]; then
    timeout --signal=TERM --kill-after=10 "$limit" "$@" </dev/null >"$file" 2>&1
  else
    timeout --signal=TERM --kill-after=10 "$limit" "$@" </dev/null >"$file" 2>"$errfile"
  fi
  rc=$?
  took=$(($(date +%s) - t0))
}

# verdict NAME PASSED SKIPPED FAILED REQUIRED SKIP_DETAIL FAIL_DETAIL NONE_MESSAGE PASS_DETAIL:
# the summary line of a test step that has run (rc, took set by `run`): a timeout, a skip, a
# failure, or REQUIRED = 0 (none of the tests that must run did) fails it (status=1).
verdict() {
  local name=$1 passed=$2 skipped=$3 failed=$4 required=$5
  if ((rc == 124 || rc == 137)); then
    note "TIMEOUT $name after ${took} s ($passed passed before)"
    status=1
  elif ((skipped > 0)); then
    note "SKIPPED $name: $skipped skipped (a failure on a GPU)$6"
    status=1
  elif ((rc != 0 || failed > 0)); then
    note "FAIL $name: exit $rc, $passed passed, $failed failed: $7"
    status=1
  elif ((required == 0)); then
    note "FAIL $name: $8"
    status=1
  else
    note "PASS $name: $passed tests$9 in ${took} s"
  fi
}

if ((missing == 0)); then
  while read -r bin limit settings; do
    [[ -z "$bin" || "$bin" == \#* ]] && continue
    name=$bin
    file=$bin
    if [[ -n "$settings" ]]; then
      name="${bin}[${settings}]"
      file="$bin.$(printf '%s' "$settings" | tr -c 'A-Za-z0-9' '_')"
    fi
    log="$raw/$file.txt"
    # shellcheck disable=SC2086
    run "$name" "$limit" "$log" "$log" env $settings "$here/bin/$bin" --gtest_color=no \
      "--gtest_output=json:$raw/$file.json"
    ((rc == -1)) && { status=1; continue; }
    # Per-test lines end with the test's time: "[  SKIPPED ] Suite.Name (0 ms)".
    passed=$(grep -c '^\[       OK \] .* ms)$' "$log")
    first=$(grep -m1 '^\[  SKIPPED \] .* ms)$' "$log" | sed 's/^\[  SKIPPED \] //')
    why=$(grep -m1 -A1 ': Skipped$' "$log" | tail -1)
    verdict "$name" "$passed" "$(grep -c '^\[  SKIPPED \] .* ms)$' "$log")" \
      "$(grep -c '^\[  FAILED  \] .* ms)$' "$log")" "$passed" ", first $first: $why" \
      "$(grep -m3 '^\[  FAILED  \] .* ms)$' "$log" | sed 's/^\[  FAILED  \] //' | tr '\n' ' ')" \
      "no test ran" ""
  done <"$here/tests.txt"

  if [[ -d "$here/python/polyhe" ]]; then
    log="$raw/python-device.txt"
    run python-device 120 "$log" "$log" env PYTHONPATH="$here/python" PYTHONDONTWRITEBYTECODE=1 \
      python3 -m pytest -p no:cacheprovider -v -rs "$here/python/tests"
    if ((rc == -1)); then
      status=1
    else
      # pytest -v: "path::test_name[cuda-bgv] PASSED [ 50%]".
      passed=$(grep -c ' PASSED' "$log")
      on_cuda=$(grep -c '\[[^]]*cuda[^]]*\] PASSED' "$log")
      verdict python-device "$passed" "$(grep -c ' SKIPPED' "$log")" \
        "$(grep -c ' FAILED\| ERROR' "$log")" "$on_cuda" ": $(grep -m1 '^SKIPPED' "$log")" \
        "$(grep -m3 ' FAILED\| ERROR' "$log" | tr '\n' ' ')" \
        "$passed passed, none on \"cuda\" (polyhe.gpus() empty or no CUDA backend in the module)" \
        " ($on_cuda on cuda)"
    fi
  fi

  if [[ -f "$here/bench.txt" ]]; then
    while read -r name limit args; do
      [[ -z "$name" || "$name" == \#* ]] && continue
      # shellcheck disable=SC2086  # args is a word list by design
      run "$name" "$limit" "$raw/$name.jsonl" "$raw/$name.err" "$here/bin/polyhe" $args
      ((rc == -1)) && { status=1; continue; }
      rows=$(grep -c '^{' "$raw/$name.jsonl")
      if ((rc == 124 || rc == 137)); then
        note "TIMEOUT bench $name after ${took} s ($rows rows before)"
        status=1
      elif ((rc != 0 || rows == 0)); then
        note "FAIL bench $name: exit $rc, $rows rows: $(tail -1 "$raw/$name.err")"
        status=1
      else
        note "PASS bench $name: $rows rows in ${took} s"
      fi
    done <"$here/bench.txt"
  fi

  if [[ -f "$here/sanitizers.txt" ]]; then
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    while read -r tool name limit filter; do
      [[ -z "$tool" || "$tool" == \#* ]] && continue
      step="$tool $name${filter:+ ($filter)}"
      if [[ ! -x "$sanitizer" ]]; then
        note "FAIL sanitize $step: compute-sanitizer not found"
        status=1
        continue
      fi
      # A binary may run under one tool with two filters: each keeps its own log.
      tag=${filter//[^A-Za-z0-9]/_}
      log="$raw/sanitize-$tool-$name${tag:+-$tag}.txt"
      run "sanitize $step" "$limit" "$log" "$log" "$sanitizer" --tool "$tool" --error-exitcode 9 \
        "$here/bin/$name" --gtest_color=no --gtest_brief=1 ${filter:+"--gtest_filter=$filter"}
      ((rc == -1)) && { status=1; continue; }
      said=$(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$log" | sed 's/^=* *//')
      if ((rc == 124 || rc == 137)); then
        note "TIMEOUT sanitize $step after ${took} s"
        status=1
      elif ((rc != 0)) || ! grep -q -E 'SUMMARY: 0 (errors|hazards)' "$log"; then
        note "FAIL sanitize $step: exit $rc: ${said:-no summary}"
        status=1
      else
        note "PASS sanitize $step: $said in ${took} s"
      fi
    done <"$here/sanitizers.txt"
  fi

  if [[ -f "$here/profiles.txt" ]]; then
    ncu=$(command -v ncu || ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null |
      tail -1)
    while read -r name limit launches filter args; do
      [[ -z "$name" || "$name" == \#* ]] && continue
      if [[ -z "$ncu" || ! -x "$ncu" ]]; then
        note "FAIL profile $name: ncu not found"
        status=1
        continue
      fi
      if [[ "$filter" == region ]]; then
        select=(--profile-from-start off)
      else
        select=(--kernel-name-base demangled --kernel-name "regex:$filter")
      fi
      log="$raw/$name.txt"
      # shellcheck disable=SC2086  # args is a word list by design
      run "profile $name" "$limit" "$log" "$log" "$ncu" --clock-control none --launch-count \
        "$launches" "${select[@]}" --section SpeedOfLight --section LaunchStats \
        --section Occupancy --export "$raw/$name" --force-overwrite "$here/bin/polyhe" $args
      ((rc == -1)) && { status=1; continue; }
      if ((rc == 124 || rc == 137)); then
        note "TIMEOUT profile $name after ${took} s"
        status=1
        continue
      fi
      "$ncu" --import "$raw/$name.ncu-rep" --csv --page details >"$raw/$name.csv" 2>>"$log"
      said=$(python3 "$here/ncu_summary.py" "$raw/$name.csv" "$raw/$name.md" 2>&1)
      summarised=$?
      # The report is large (the tarball comes back only under 16 MiB): the CSV keeps its values.
      rm -f "$raw/$name.ncu-rep"
      if ((rc != 0 || summarised != 0)); then
        note "FAIL profile $name: exit $rc: $said: $(grep -m1 -i 'error' "$log")"
        status=1
      else
        note "PASS profile $name: $said in ${took} s"
      fi
    done <"$here/profiles.txt"
  fi
fi

note "total: $(elapsed) s; $([[ $status == 0 ]] && echo 'every step passed' || echo 'FAILURES above')"
exit $status
