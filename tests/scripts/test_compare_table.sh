#!/usr/bin/env bash
# bench/peers/compare_table.py (the table of scripts/compare.sh) on made-up rounds: each side's
# median per op is its fastest round's, composite rows add polyhe's fastest parts, one round says
# "medians", a peer that did not run leaves the ops verdict unjudged, a wrong argument count is
# refused. Exit 0 iff every check holds.
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
  peer openfhe ckks rescale 10
  peer tenseal bfv multiply_relin 80; peer openfhe bfv multiply_relin 60; } >"$work/peers.r1"
{ peer tenseal ckks multiply_relin+rescale 48; peer tenseal ckks add 0.9
  peer openfhe ckks rescale 12
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

check "no NTT rows: the verdict does not apply" has "does not apply (it needs polyhe's avx2 path on an AVX2-only CPU): no NTT rows" "$work/two"
check "ops below 2x are listed with their ratio" has "missed: CKKS multiply_relin+rescale: 1.71× TenSEAL" "$work/two"
check "an op at 2x exactly is not a shortfall" sh -c "! grep -q 'multiply_relin: 2.00× OpenFHE' '$work/two'"

# NTT rows: ntt NAME LOG_N BITS PATH MICROSECONDS
ntt() {
  printf '{"op":"%s","log_n":%s,"bits":%s,"path":"%s","median_ns":%s}\n' "$1" "$2" "$3" "$4" \
    "$(python3 -c "print($5 * 1e3)")"
}
{ ntt ntt_forward 12 50 scalar 30; ntt ntt_forward 12 50 avx2 15
  ntt ntt_forward 12 60 scalar 30; ntt ntt_forward 12 60 avx2 20; } >"$work/ntt.r1"
{ ntt ntt_forward 12 50 scalar 36; ntt ntt_forward 12 50 avx2 12
  ntt ntt_forward 12 60 scalar 33; ntt ntt_forward 12 60 avx2 22; } >"$work/ntt.r2"
# Every op at least 2x: polyhe fast in both rounds.
{ row multiply_relin 5; row rescale 1; row add 0.2; } >"$work/fast.ckks"
{ row multiply_relin 20; } >"$work/fast.bfv"
python3 "$table" "$work/fast.ckks" "$work/fast.bfv" "$work/fast.bfv" "$work/peers.r1" \
  "$work/ntt.r1,$work/ntt.r2" >"$work/ntt" 2>&1
cat "$work/ntt"
check "NTT: fastest of each path (30 against 12), 2.50x" has "| ntt_forward | 50 | 2^12 | 30.0 | 12.0 | 2.50× |" "$work/ntt"
check "NTT below 2x listed" has "missed: NTT ntt_forward 2^12 60-bit: 1.50× scalar" "$work/ntt"
check "every op at least 2x: met" has "every op at least 2× each peer: met" "$work/ntt"
check "avx2 path, scalar and avx2 only: the verdict applies" has "the verdict applies: polyhe's avx2 path on an AVX2-only CPU" "$work/ntt"
{ cat "$work/ntt.r1"; ntt ntt_forward 12 50 ifma 6; } >"$work/ntt.wide"
python3 "$table" "$work/fast.ckks" "$work/fast.bfv" "$work/fast.bfv" "$work/peers.r1" \
  "$work/ntt.wide" >"$work/wide" 2>&1
check "a CPU with IFMA: the verdict does not apply" has "does not apply (it needs polyhe's avx2 path on an AVX2-only CPU): this CPU has ifma" "$work/wide"
check "a CPU with IFMA: ifma / avx2 reported" has "| ntt_forward | 50 | 2^12 | 30.0 | 15.0 | 6.000 | 2.00× | 2.50× |" "$work/wide"

# A peer that did not run at all (OpenFHE without Python 3.10) leaves the ops verdict unjudged.
grep -v openfhe "$work/peers.r1" >"$work/tenseal-only"
python3 "$table" "$work/fast.ckks" "$work/fast.bfv" "$work/fast.bfv" "$work/tenseal-only" \
  "$work/ntt.r1,$work/ntt.r2" >"$work/no-openfhe" 2>&1
check "a peer that did not run: not judged, named per table" has \
  "every op at least 2× each peer: not judged, a peer did not run: OpenFHE (CKKS), OpenFHE (BFV)" \
  "$work/no-openfhe"
check "a peer that did not run: not called met" sh -c "! grep -q 'each peer: met' '$work/no-openfhe'"

python3 "$table" "$work/ckks.r1" >"$work/bad" 2>&1
rc=$?
check "three files missing: refused" test "$rc" -ne 0
check "three files missing: the usage is shown" has "Usage: compare_table.py" "$work/bad"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all compare_table checks passed"
