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
check "names the empty variant" grep -q '^gpu-ab: variant empty holds no library and no bin/polyhe' "$s"
check "the other builds' rows are kept" grep -q 'head 2.00 us' "$s"

if ((fails > 0)); then
  echo "$fails gpu-ab check(s) failed"
  exit 1
fi
echo "all gpu-ab checks passed"
