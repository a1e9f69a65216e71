#!/usr/bin/env bash
# scripts/gpu-ab.sh on a fake pack (no GPU needed): a fake `polyhe` prints one JSON row whose
# median is read from libmark.so, the first one on LD_LIBRARY_PATH, so each build's rows show
# which libraries it ran with. Checks: variant libraries, plain and gzipped, go ahead of the pack's;
# a variant's own bin/polyhe is used; ratios are to the first variant; every round runs every
# benchmark under every build in a rotated order; the summary and the tarball are left; an empty
# variant or a build without rows fails the run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ab="$here/../../scripts/gpu-ab.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() {  # description command...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

make_pack() {  # dir
  local p=$1
  mkdir -p "$p/bin" "$p/lib"
  cp "$ab" "$p/"
  echo "polyhe fake (2026-11-27)" >"$p/manifest.txt"
  cat >"$p/bin/polyhe" <<'EOF'
#!/bin/bash
# Fake polyhe: one row per call, its median from the first libmark.so on LD_LIBRARY_PATH.
IFS=: read -ra dirs <<<"$LD_LIBRARY_PATH"
for d in "${dirs[@]}"; do
  if [[ -f "$d/libmark.so" ]]; then mark=$(cat "$d/libmark.so"); break; fi
done
echo "${mark:-none} $*" >>"$CALLS"
[[ ${mark:-} == silent ]] && { echo "no device" >&2; exit 2; }
mark=${MARK_OVERRIDE:-$mark}  # set by a variant's env file
echo "{\"op\":\"$2\",\"log_n\":14,\"limbs\":8,\"median_ns\":${mark:-0}}"
EOF
  chmod +x "$p/bin/polyhe"
  echo 2000 >"$p/lib/libmark.so"
  printf 'bench ckks --json\n# a comment\n\nbench bfv --json\n' >"$p/ab.txt"
}

export CALLS="$work/calls.txt"

# 1. Two variants (a: gzipped library; b: its own tool, which prints 500) and the pack's head.
p="$work/p1"
make_pack "$p"
mkdir -p "$p/var-a" "$p/var-b/bin"
echo 1000 | gzip -c >"$p/var-a/libmark.so.gz"
echo 3000 >"$p/var-b/libmark.so"  # its tool ignores it (prints 500); calls.txt shows it
sed 's/median_ns\\":${mark:-0}/median_ns\\":500/' "$p/bin/polyhe" >"$p/var-b/bin/polyhe"
chmod +x "$p/var-b/bin/polyhe"
bash "$p/gpu-ab.sh" "$work/out1" 2 >"$work/log1" 2>&1
rc=$?
s="$work/out1/summary.txt"
check "passes" test "$rc" -eq 0
check "names the builds, ratios to the first" grep -q '^builds: a b head (ratios are to a), 2 rounds' "$s"
check "names the benchmarks" grep -q '^b2: polyhe bench bfv --json' "$s"
check "a gzipped variant library is used" grep -q '^b1 ckks 14 8: a 1.00 us' "$s"
check "a variant's own tool is used, ratio to a" grep -q '^b1 ckks 14 8: a 1.00 us, b 0.50 us (2.00), head 2.00 us (0.50)' "$s"
check "every round's median is kept" grep -q "rounds {'a': \[1.0, 1.0\], 'b': \[0.5, 0.5\], 'head': \[2.0, 2.0\]}" "$s"
check "every benchmark under every build in every round" test "$(wc -l <"$CALLS")" -eq 12
check "the order of the builds rotates" \
  test "$(sed -n 1p "$CALLS" | cut -d' ' -f1)" != "$(sed -n 7p "$CALLS" | cut -d' ' -f1)"
mkdir "$work/x1" && tar -C "$work/x1" -xzf "$work/out1/ab.tar.gz"
check "the tarball holds the rows" test "$(grep -c '"build":"head"' "$work/x1/ab.jsonl")" -eq 4
check "the tarball leaves the unpacked libraries out" test ! -e "$work/x1/lib-a"

# 2. A build that produces no row, and an empty variant: the run fails and says which.
p="$work/p2"
make_pack "$p"
mkdir -p "$p/var-a" "$p/var-empty"
echo silent >"$p/var-a/libmark.so"
bash "$p/gpu-ab.sh" "$work/out2" 1 >"$work/log2" 2>&1
rc=$?
s="$work/out2/summary.txt"
check "fails" test "$rc" -eq 1
check "names the build without rows" grep -q '^gpu-ab: build a produced no row (no device)' "$s"
check "names the empty variant" grep -q '^gpu-ab: variant empty holds no library, no bin/polyhe and no env' "$s"
check "the other builds' rows are kept" grep -q 'head 2.00 us' "$s"

# 3. A variant that is the pack's own build under an environment (its env file: a comment, a blank
# line, two settings, no final newline): only its runs see the settings.
p="$work/p3"
make_pack "$p"
mkdir -p "$p/var-a" "$p/var-t10"
echo 1000 >"$p/var-a/libmark.so"
printf '# the tile knob\n\nMARK_OVERRIDE=700  # the median\nPOLYHE_CUDA_TILE_LOG=10' >"$p/var-t10/env"
: >"$CALLS"
bash "$p/gpu-ab.sh" "$work/out3" 1 >"$work/log3" 2>&1
rc=$?
s="$work/out3/summary.txt"
check "an env-only variant passes" test "$rc" -eq 0
check "the summary names its settings" \
  grep -q '^build t10 runs with MARK_OVERRIDE=700 POLYHE_CUDA_TILE_LOG=10$' "$s"
check "its runs see them, the others do not" grep -q '^b1 ckks 14 8: a 1.00 us, t10 0.70 us (1.43), head 2.00 us (0.50)' "$s"

# 4. A malformed env line stops the run before anything is timed.
p="$work/p4"
make_pack "$p"
mkdir -p "$p/var-bad"
printf 'POLYHE_CUDA_TILE_LOG = 10\n' >"$p/var-bad/env"
: >"$CALLS"
bash "$p/gpu-ab.sh" "$work/out4" 1 >"$work/log4" 2>&1
rc=$?
check "a malformed env line fails" test "$rc" -eq 1
check "and says which" grep -q "^gpu-ab: variant bad: env line 'POLYHE_CUDA_TILE_LOG = 10' is not NAME=VALUE without spaces" "$work/out4/summary.txt"
check "nothing was timed" test ! -s "$CALLS"

# 5. Another benchmark list (BENCH_FILE), and a missing one.
p="$work/p5"
make_pack "$p"
mkdir -p "$p/var-a"
echo 1000 >"$p/var-a/libmark.so"
printf 'bench bgv --json\n' >"$p/ab-schemes.txt"
: >"$CALLS"
bash "$p/gpu-ab.sh" "$work/out5" 1 "$p/ab-schemes.txt" >"$work/log5" 2>&1
rc=$?
check "another list passes" test "$rc" -eq 0
check "its benchmarks run" grep -q '^b1: polyhe bench bgv --json' "$work/out5/summary.txt"
check "only its benchmarks run" test "$(wc -l <"$CALLS")" -eq 2
bash "$p/gpu-ab.sh" "$work/out6" 1 "$p/nothing.txt" >"$work/log6" 2>&1
rc=$?
check "a missing list fails" test "$rc" -eq 1
check "and says so" grep -q "^gpu-ab: no benchmark list at $p/nothing.txt" "$work/log6"

if ((fails > 0)); then
  echo "$fails gpu-ab check(s) failed"
  exit 1
fi
echo "all gpu-ab checks passed"
