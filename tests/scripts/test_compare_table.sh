#!/usr/bin/env bash
# bench/peers/compare_table.py (the table of scripts/compare.sh) on made-up rounds: each side's
# median per op is its fastest round's, composite rows add polyhe's fastest parts, one round says
# "medians", a wrong argument count is refused. Exit 0 iff every check holds.
set -uo pipefail
table=$(cd "$(dirname "$0")/../../bench/peers" && pwd)/compare_table.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}
row() {  # row OP MEDIAN_MS: a polyhe bench line
  printf '{"op":"%s","path":"avx2","median_ns":%s}\n' "$1" "$(python3 -c "print($2 * 1e6)")"
}
peer() {  # peer LIBRARY SCHEME OP MEDIAN_MS
  printf '{"library":"%s","scheme":"%s","op":"%s","median_ms":%s}\n' "$1" "$2" "$3" "$4"
}
# Round 1: polyhe slow, TenSEAL fast; round 2 the other way round.
{ row multiply_relin 20; row rescale 2; row add 0.5; } >"$work/ckks.r1"
{ row multiply_relin 10; row rescale 4; row add 0.4; } >"$work/ckks.r2"
{ row multiply_relin 50; } >"$work/bfv.r1"
{ row multiply_relin 40; } >"$work/bfv.r2"
{ row multiply_relin 30; } >"$work/bfv6.r1"
{ row multiply_relin 35; } >"$work/bfv6.r2"
{ peer tenseal ckks multiply_relin+rescale 24; peer tenseal ckks add 1.0
  peer tenseal bfv multiply_relin 80; peer openfhe bfv multiply_relin 60; } >"$work/peers.r1"
{ peer tenseal ckks multiply_relin+rescale 48; peer tenseal ckks add 0.9
  peer tenseal bfv multiply_relin 70; peer openfhe bfv multiply_relin 66; } >"$work/peers.r2"
python3 "$table" "$work/ckks.r1,$work/ckks.r2" "$work/bfv.r1,$work/bfv.r2" \
  "$work/bfv6.r1,$work/bfv6.r2" "$work/peers.r1,$work/peers.r2" >"$work/two" 2>&1
cat "$work/two"
has() { grep -q -F -- "$1" "$2"; }
check "two rounds: the header says so" has "each side's fastest median of 2 rounds" "$work/two"
# multiply_relin+rescale: polyhe's rounds 20 + 2 and 10 + 4, so 14 (a round's sum, not the
# parts' fastest 10 + 2 from different rounds) against TenSEAL's fastest 24.
check "composite row: the fastest round's sum, ratio 1.71" has "| multiply_relin+rescale | 14.0 | 24.0 | — | 1.71× |" "$work/two"
check "add: fastest of each side (0.400 against 0.900)" has "| add | 0.400 | 0.900 | — | 2.25× |" "$work/two"
check "BFV against TenSEAL: 40 against 70" has "| multiply_relin | 40.0 | 70.0 | 1.75× |" "$work/two"
check "BFV against OpenFHE: 30 against 60" has "| multiply_relin | 30.0 | 60.0 | 2.00× |" "$work/two"

python3 "$table" "$work/ckks.r1" "$work/bfv.r1" "$work/bfv6.r1" "$work/peers.r1" >"$work/one" 2>&1
check "one round: plain medians" has "one thread each, medians," "$work/one"
check "one round: its own numbers (22 against 24)" has "| multiply_relin+rescale | 22.0 | 24.0 | — | 1.09× |" "$work/one"

python3 "$table" "$work/ckks.r1" >"$work/bad" 2>&1
rc=$?
check "three files missing: refused" test "$rc" -ne 0
check "three files missing: the usage is shown" has "Usage: compare_table.py" "$work/bad"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all compare_table checks passed"
