#!/usr/bin/env bash
# The device runbook (scripts/gpu-run.sh) on a fake pack, without a GPU: fake gtest binaries that
# pass, skip, fail, hang and run nothing, a fake `polyhe` benchmark and a fake nvidia-smi. Checks
# what one call on a GPU machine depends on: exactly two files come back, every step has its line
# in the summary, a skip / an empty binary / a hang / a failure each fail the run, the timeout
# and the deadline hold, CUDA_MODULE_LOADING=EAGER reaches the binaries, the tarball has the raw
# outputs. Exit 0 iff every check holds.
set -uo pipefail
runner=$(cd "$(dirname "$0")/../../scripts" && pwd)/gpu-run.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

make_pack() {  # make_pack DIR: a pack whose tests.txt / bench.txt the caller writes
  mkdir -p "$1/bin" "$1/lib" "$1/fakebin"
  cp "$runner" "$1/"
  echo "fake pack" >"$1/manifest.txt"
  cat >"$1/fakebin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "Fake H100, 580.00, 81559 MiB, 1980 MHz, 2619 MHz"
EOF
  cat >"$1/bin/test_pass" <<'EOF'
#!/bin/sh
[ "$CUDA_MODULE_LOADING" = EAGER ] || { echo "CUDA_MODULE_LOADING=$CUDA_MODULE_LOADING"; exit 3; }
echo "[ RUN      ] Arith.Add"
echo "[       OK ] Arith.Add (1 ms)"
echo "[ RUN      ] Arith.Mul"
echo "[       OK ] Arith.Mul (2 ms)"
echo "[  PASSED  ] 2 tests."
for a in "$@"; do case $a in --gtest_output=json:*) echo '{"tests": 2}' >"${a#--gtest_output=json:}";; esac; done
EOF
  cat >"$1/bin/test_skip" <<'EOF'
#!/bin/sh
echo "[ RUN      ] Ntt.Device"
echo "tests/support/cuda_context.hpp:27: Skipped"
echo "no CUDA device: cudaGetDeviceCount returned 100"
echo "[  SKIPPED ] Ntt.Device (0 ms)"
echo "[ RUN      ] Ntt.Host"
echo "[       OK ] Ntt.Host (0 ms)"
echo "[  PASSED  ] 1 test."
echo "[  SKIPPED ] 1 test, listed below:"
echo "[  SKIPPED ] Ntt.Device"
EOF
  cat >"$1/bin/test_fail" <<'EOF'
#!/bin/sh
echo "[ RUN      ] Ckks.Multiply"
echo "[  FAILED  ] Ckks.Multiply (3 ms)"
echo "[  FAILED  ] 1 test, listed below:"
echo "[  FAILED  ] Ckks.Multiply"
exit 1
EOF
  cat >"$1/bin/test_empty" <<'EOF'
#!/bin/sh
echo "[==========] 0 tests from 0 test suites ran. (0 ms total)"
echo "[  PASSED  ] 0 tests."
EOF
  cat >"$1/bin/test_hang" <<'EOF'
#!/bin/sh
echo "[ RUN      ] Stream.Overlap"
exec sleep 30
EOF
  cat >"$1/bin/polyhe" <<'EOF'
#!/bin/sh
read -r line && { echo "stdin was not closed: $line" >&2; exit 4; }
echo '{"op":"ntt_forward","backend":"cuda","median_ns":1000}'
echo '{"op":"ntt_inverse","backend":"cuda","median_ns":1100}'
echo "polyhe bench: measured the floors" >&2
EOF
  chmod +x "$1"/bin/* "$1"/fakebin/*
}

# 1. Everything passes: status 0, two files, a PASS line per step.
p="$work/good"
make_pack "$p"
printf 'test_pass 20\n' >"$p/tests.txt"
printf 'bench-cuda 20 bench --backend cuda --json\n' >"$p/bench.txt"
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out1" >"$work/log1" 2>&1
rc=$?
check "a passing pack exits 0" test "$rc" -eq 0
check "exactly two files come back" test "$(ls "$work/out1" | wc -l)" -eq 2
check "summary has the device line" grep -q '^device: Fake H100' "$work/out1/summary.txt"
check "summary: test PASS with its count" grep -q '^PASS test_pass: 2 tests' "$work/out1/summary.txt"
check "summary: bench PASS with its rows" grep -q '^PASS bench bench-cuda: 2 rows' "$work/out1/summary.txt"
check "summary printed last" grep -q 'every step passed' "$work/log1"
mkdir "$work/x1" && tar -C "$work/x1" -xzf "$work/out1/gpu-results.tar.gz"
for f in device.txt ldd.txt test_pass.txt test_pass.json bench-cuda.jsonl bench-cuda.err; do
  check "tarball holds $f" test -s "$work/x1/$f"
done
check "bench JSON lines kept apart from stderr" test "$(grep -c '^{' "$work/x1/bench-cuda.jsonl")" -eq 2

# 2. A skip, a failure, an empty binary and a hang: each its own line, the run fails, and the
#    timeout stops the hang.
p="$work/bad"
make_pack "$p"
printf 'test_pass 20\ntest_skip 20\ntest_fail 20\ntest_empty 20\ntest_hang 2\n' >"$p/tests.txt"
t0=$(date +%s)
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out2" >"$work/log2" 2>&1
rc=$?
took=$(($(date +%s) - t0))
s="$work/out2/summary.txt"
check "a failing pack exits non-zero" test "$rc" -ne 0
check "a skip is a failure, with the reason" grep -q '^SKIPPED test_skip: 1 skipped.*Ntt.Device.*no CUDA device' "$s"
check "a failure names the test" grep -q '^FAIL test_fail: exit 1, 0 passed, 1 failed: Ckks.Multiply' "$s"
check "a binary that runs no test fails" grep -q '^FAIL test_empty: no test ran' "$s"
check "a hang is stopped by its timeout" grep -q '^TIMEOUT test_hang' "$s"
check "the hang did not hold the run (took ${took} s)" test "$took" -lt 20
check "still two files" test "$(ls "$work/out2" | wc -l)" -eq 2

# 3. The deadline: a step with too little time left is NOT RUN, and the run fails.
p="$work/late"
make_pack "$p"
printf 'test_hang 30\ntest_pass 20\n' >"$p/tests.txt"
PATH="$p/fakebin:$PATH" POLYHE_GPU_DEADLINE_S=17 bash "$p/gpu-run.sh" "$work/out3" >"$work/log3" 2>&1
rc=$?
check "deadline: run fails" test "$rc" -ne 0
check "deadline: the hang is cut to the time left" grep -q '^TIMEOUT test_hang' "$work/out3/summary.txt"
check "deadline: the next step is NOT RUN" grep -q '^NOT RUN test_pass' "$work/out3/summary.txt"

# 4. A library that does not resolve fails the run before any test.
p="$work/nolib"
make_pack "$p"
printf 'test_pass 20\n' >"$p/tests.txt"
printf 'int main(void) { return 0; }\n' >"$work/m.c"
if cc -o "$work/libneeded.so" -shared -fPIC "$work/m.c" 2>/dev/null &&
  cc -o "$p/bin/test_needs_lib" "$work/m.c" -Wl,--no-as-needed -L"$work" -lneeded 2>/dev/null; then
  PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out4" >"$work/log4" 2>&1
  rc=$?
  check "missing library: run fails" test "$rc" -ne 0
  check "missing library: named" grep -q '^FAIL libraries: libneeded.so' "$work/out4/summary.txt"
  check "missing library: no test ran" bash -c "! grep -q '^PASS' '$work/out4/summary.txt'"
else
  echo "FAILED: could not build the missing-library fixture with cc"
  failures=$((failures + 1))
fi

# 5. The Python step (a pack with python/): passes only when tests ran on "cuda" and none
#    skipped or failed.
for mode in good host-only skip; do
  p="$work/py-$mode"
  make_pack "$p"
  printf 'test_pass 20\n' >"$p/tests.txt"
  mkdir -p "$p/python/polyhe" "$p/python/tests"
  touch "$p/python/polyhe/__init__.py" "$p/python/tests/test_device.py"
  cat >"$p/fakebin/python3" <<EOF
#!/bin/sh
case "\$PYTHONPATH" in "$p/python") ;; *) echo "PYTHONPATH=\$PYTHONPATH"; exit 5;; esac
echo "tests/test_device.py::test_device_names PASSED [ 25%]"
echo "tests/test_device.py::test_ckks_on_a_device[emulated] PASSED [ 50%]"
case $mode in
  good) echo "tests/test_device.py::test_bgv_bfv_on_a_device[cuda-bgv] PASSED [ 75%]";;
  skip) echo "tests/test_device.py::test_ckks_on_a_device[cuda] SKIPPED (no GPU) [ 75%]"
        echo "SKIPPED [1] tests/test_device.py:60: no GPU";;
esac
EOF
  chmod +x "$p/fakebin/python3"
  PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out-py-$mode" >"$work/log-py-$mode" 2>&1
  rc=$?
  s="$work/out-py-$mode/summary.txt"
  case $mode in
    good)
      check "python: passes with its cuda count" grep -q '^PASS python-device: 3 tests (1 on cuda)' "$s"
      check "python: the run exits 0" test "$rc" -eq 0
      ;;
    host-only)
      check "python: no test on cuda is a failure" grep -q '^FAIL python-device: 2 passed, none on' "$s"
      check "python: host-only run fails" test "$rc" -ne 0
      ;;
    skip)
      check "python: a skip is a failure" grep -q '^SKIPPED python-device: 1 skipped' "$s"
      check "python: skipping run fails" test "$rc" -ne 0
      ;;
  esac
done

# 6. compute-sanitizer steps: a clean report passes, a reported error or a failing test fails,
#    the gtest filter reaches the binary.
p="$work/san"
make_pack "$p"
printf 'test_pass 20\n' >"$p/tests.txt"
cp "$p/bin/test_pass" "$p/bin/test_racy"
cat >"$p/fakebin/compute-sanitizer" <<'EOF'
#!/bin/sh
# compute-sanitizer --tool TOOL --error-exitcode N BINARY ARGS...
tool=$2 code=$4
shift 4
echo "$tool $*" >>"$(dirname "$0")/calls.txt"
"$@"
rc=$?
case "$1" in
  *test_racy) echo "========= ERROR SUMMARY: 3 errors"; exit "$code" ;;
esac
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
exit $rc
EOF
chmod +x "$p/bin/test_racy" "$p/fakebin/compute-sanitizer"
printf 'memcheck test_pass 20\nracecheck test_pass 20 -*Cluster*\nracecheck test_pass 20 *ClusterSmall*\ninitcheck test_racy 20\nmemcheck test_fail 20\n' \
  >"$p/sanitizers.txt"
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out6" >"$work/log6" 2>&1
rc=$?
s="$work/out6/summary.txt"
check "sanitizer: a clean report passes" grep -q '^PASS sanitize memcheck test_pass: ERROR SUMMARY: 0 errors' "$s"
check "sanitizer: racecheck with its filter passes" \
  grep -q '^PASS sanitize racecheck test_pass (-\*Cluster\*): RACECHECK SUMMARY: 0 hazards' "$s"
check "sanitizer: the filter reaches the binary" grep -q -- '--gtest_filter=-\*Cluster\*' "$p/fakebin/calls.txt"
check "sanitizer: a reported error fails" grep -q '^FAIL sanitize initcheck test_racy: exit 9: ERROR SUMMARY: 3 errors' "$s"
check "sanitizer: a failing test fails" grep -q '^FAIL sanitize memcheck test_fail: exit 1' "$s"
check "sanitizer: the run fails" test "$rc" -ne 0
mkdir "$work/x6" && tar -C "$work/x6" -xzf "$work/out6/gpu-results.tar.gz"
check "sanitizer: its log is in the tarball" test -s "$work/x6/sanitize-initcheck-test_racy.txt"
check "sanitizer: one binary under two filters keeps both logs" \
  test -s "$work/x6/sanitize-racecheck-test_pass-__Cluster_.txt" -a \
  -s "$work/x6/sanitize-racecheck-test_pass-_ClusterSmall_.txt"

# 7. Nsight Compute profiles: the benchmark's marked region (--profile-from-start off) or a kernel
#    regex, the clocks left alone; the per-kernel CSV summed into one line; nothing profiled, an
#    exit status or a missing ncu fails the step; the CSV and the table are in the tarball, the
#    report itself is not.
p="$work/prof"
make_pack "$p"
cp "$(dirname "$runner")/ncu_summary.py" "$p/"
printf 'test_pass 20\n' >"$p/tests.txt"
cat >"$p/fakebin/ncu" <<'NCU'
#!/bin/bash
# Profiling: ncu OPTIONS... --export BASE --force-overwrite APP ARGS...; reading: ncu --import
# REPORT --csv --page details (prints what the profiling run left in REPORT).
dir=$(dirname "$0")
if [[ $1 == --import ]]; then cat "$2"; exit 0; fi
echo "$*" >>"$dir/calls.txt"
filter=
while [[ $# -gt 0 && $1 != --export ]]; do
  [[ $1 == --kernel-name ]] && filter=$2
  shift
done
base=$2
shift 3
"$@" >/dev/null
# The shape of Nsight Compute 2025.3's details CSV (H200, 2026-11-27): the header names five rule
# columns after the value, which a metric row leaves out (it ends in an empty field); a rule row
# fills them. Units "us"/"ns" there, "usecond"/"nsecond" in older versions.
h='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"'
k='"void polyhe::cuda::detail::program_kernel<polyhe::cuda::detail::RowNtt<unsigned long, 3>>(T1)","1","13","(256, 1, 1)","(64, 9, 1)","0","9.0"'
if [[ $filter == regex:Nothing ]]; then
  echo "$h" >"$base.ncu-rep"
else
  { echo "$h"
    echo "\"0\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"Duration\",\"us\",\"6.00\","
    echo "\"0\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"DRAM Throughput\",\"%\",\"60\","
    echo "\"0\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\",\"Low throughput\",\"global\",\"50\""
    echo "\"1\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"Duration\",\"ns\",\"4,000\","
    echo "\"1\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"DRAM Throughput\",\"%\",\"30\","
    echo "\"2\",\"1\",\"polyhe\",\"h\",$k,\"SOL\",\"Duration\",\"usecond\",\"2.00\""
  } >"$base.ncu-rep"
fi
[[ $filter == regex:Crash ]] && exit 3
exit 0
NCU
chmod +x "$p/fakebin/ncu"
printf '%s\n' 'profile-region 20 36 region bench ckks --backend cuda --ops rescale' \
  'profile-ntt 20 8 RowNtt|ColumnNtt bench --backend cuda --log-n 16' \
  'profile-none 20 8 Nothing bench --backend cuda' 'profile-crash 20 8 Crash bench --backend cuda' \
  >"$p/profiles.txt"
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out7" >"$work/log7" 2>&1
rc=$?
s="$work/out7/summary.txt"
c="$p/fakebin/calls.txt"
check "profile: the region's kernels summed" \
  grep -q '^PASS profile profile-region: 3 kernels, 12.0 us of device time; most: RowNtt x3 12.0 us (DRAM 40 %)' "$s"
check "profile: region means --profile-from-start off" grep -q -- '--profile-from-start off' "$c"
check "profile: the clocks are left alone" grep -q -- '--clock-control none --launch-count 36' "$c"
check "profile: the regex reaches ncu whole" \
  grep -q -- '--kernel-name-base demangled --kernel-name regex:RowNtt|ColumnNtt' "$c"
check "profile: the benchmark's arguments reach polyhe" \
  grep -q -- 'bin/polyhe bench ckks --backend cuda --ops rescale$' "$c"
check "profile: nothing profiled fails" \
  grep -q '^FAIL profile profile-none: exit 0: no kernel in the report' "$s"
check "profile: an exit status fails" grep -q '^FAIL profile profile-crash: exit 3' "$s"
check "profile: the run fails" test "$rc" -ne 0
mkdir "$work/x7" && tar -C "$work/x7" -xzf "$work/out7/gpu-results.tar.gz"
check "profile: the CSV and the table are in the tarball" \
  test -s "$work/x7/profile-ntt.csv" -a -s "$work/x7/profile-ntt.md"
check "profile: the report is not" test ! -e "$work/x7/profile-ntt.ncu-rep"
p="$work/prof2"
make_pack "$p"
printf 'test_pass 20\n' >"$p/tests.txt"
printf 'profile-x 20 8 region bench\n' >"$p/profiles.txt"
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out8" >"$work/log8" 2>&1
check "profile: no ncu fails the step" \
  grep -q '^FAIL profile profile-x: ncu not found' "$work/out8/summary.txt"

# 9. A test line with settings: the binary runs again with them in its environment (that run only),
#    as its own step and raw files.
p="$work/env"
make_pack "$p"
cat >"$p/bin/test_knob" <<'EOF'
#!/bin/sh
echo "[ RUN      ] Knob.Tile${POLYHE_CUDA_TILE_LOG:-unset}"
echo "[       OK ] Knob.Tile${POLYHE_CUDA_TILE_LOG:-unset} (1 ms)"
echo "[  PASSED  ] 1 test."
for a in "$@"; do case $a in --gtest_output=json:*) echo '{"tests": 1}' >"${a#--gtest_output=json:}";; esac; done
EOF
chmod +x "$p/bin/test_knob"
printf 'test_knob 20\ntest_knob 20 POLYHE_CUDA_TILE_LOG=10\ntest_knob 20 FOO=1 POLYHE_CUDA_TILE_LOG=12\n' \
  >"$p/tests.txt"
PATH="$p/fakebin:$PATH" bash "$p/gpu-run.sh" "$work/out9" >"$work/log9" 2>&1
rc=$?
s="$work/out9/summary.txt"
check "settings: the run passes" test "$rc" -eq 0
check "settings: the plain step" grep -q '^PASS test_knob: 1 tests' "$s"
check "settings: the step named with them" grep -q '^PASS test_knob\[POLYHE_CUDA_TILE_LOG=10\]: 1 tests' "$s"
check "settings: two of them" grep -q '^PASS test_knob\[FOO=1 POLYHE_CUDA_TILE_LOG=12\]: 1 tests' "$s"
mkdir "$work/x9" && tar -C "$work/x9" -xzf "$work/out9/gpu-results.tar.gz"
check "settings: the plain run did not see them" grep -q 'Knob.Tileunset' "$work/x9/test_knob.txt"
check "settings: the run saw them" grep -q 'Knob.Tile10 ' "$work/x9/test_knob.POLYHE_CUDA_TILE_LOG_10.txt"
check "settings: its own gtest JSON" test -s "$work/x9/test_knob.POLYHE_CUDA_TILE_LOG_10.json"
check "settings: each run its own files" grep -q 'Knob.Tile12 ' "$work/x9/test_knob.FOO_1_POLYHE_CUDA_TILE_LOG_12.txt"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  for f in "$work"/log*; do echo "--- $f"; cat "$f"; done
  exit 1
fi
echo "all gpu-run checks passed"
