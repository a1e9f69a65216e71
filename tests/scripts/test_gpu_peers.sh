#!/usr/bin/env bash
# scripts/gpu-peers.sh and scripts/peers_table.py on a fake pack (no GPU needed): a fake `polyhe`
# prints one JSON row per op with a median of 1000 µs and records its arguments; a fake Phantom
# (gpu-pack/peer-phantom) writes rows at 1500 or 900 µs. Checks: every set runs with the special
# primes and dnum it names (L = 35, dnum 3: twelve 50-bit special primes) under --security none;
# both libraries' rows reach peers.jsonl in one form; the table pairs rows by (scheme, op, log N,
# L, dnum) and gives the peer's time over polyhe's; a peer row without a polyhe row is listed; a
# missing peer folder is said, not fatal.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../../scripts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() {  # description command...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

repo="$work/repo"
mkdir -p "$repo/scripts" "$repo/gpu-pack/bin" "$repo/gpu-pack/lib" "$repo/gpu-pack/peer-phantom/bin"
cp "$src/gpu-peers.sh" "$src/peers_table.py" "$repo/scripts/"
cat >"$repo/gpu-pack/bin/polyhe" <<'EOF'
#!/bin/bash
# Fake polyhe: records its arguments, one row per op of --ops.
echo "$*" >>"$CALLS"
scheme=$2; log_n=14; primes=""; special=""; dnum=0; ops=""
while (($#)); do
  case $1 in
    --log-n) log_n=$2; shift ;;
    --primes) primes=$2; shift ;;
    --special) special=$2; shift ;;
    --dnum) dnum=$2; shift ;;
    --ops) ops=$2; shift ;;
  esac
  shift
done
limbs=$(awk -F, '{print NF}' <<<"${primes:-1,1,1,1,1,1,1,1}")
IFS=, read -ra list <<<"$ops"
for op in "${list[@]}"; do
  echo "{\"op\":\"$op\",\"scheme\":\"$scheme\",\"log_n\":$log_n,\"limbs\":$limbs,\"dnum\":${dnum/#0/8},\"special\":[${special:-50}],\"median_ns\":1000000.0}"
done
EOF
cat >"$repo/gpu-pack/peer-phantom/bin/phantom_bench" <<'EOF'
#!/bin/bash
echo '{"library":"phantom","op":"multiply_relin","scheme":"ckks","log_n":16,"L":35,"dnum":3,"secure128":false,"median_ns":900000.0}'
echo '{"library":"phantom","op":"rotate","scheme":"ckks","log_n":14,"L":8,"dnum":9,"secure128":true,"median_ns":1500000.0}'
echo '{"library":"phantom","op":"ntt_forward","scheme":"ckks","log_n":16,"L":8,"dnum":9,"median_ns":20000.0}'
EOF
cat >"$repo/gpu-pack/peer-phantom/run.sh" <<'EOF'
#!/bin/bash
mkdir -p "$1"
"$(dirname "$0")/bin/phantom_bench" >"$1/peers.jsonl"
EOF
chmod +x "$repo/gpu-pack/bin/polyhe" "$repo/gpu-pack/peer-phantom/bin/phantom_bench"

export CALLS="$work/calls.txt"
out="$work/out"
(cd "$repo" && PATH="/usr/bin:/bin" bash scripts/gpu-peers.sh "$out" >"$work/stdout.txt" 2>&1)
check "nine CKKS sets and one BFV run" test "$(wc -l <"$CALLS")" -eq 10
check "L = 35, dnum 3 has twelve special primes" \
  grep -q -- "--special 50,50,50,50,50,50,50,50,50,50,50,50 --dnum 3 --security none" "$CALLS"
check "L = 8, dnum 9 has one special prime and 9 primes" \
  grep -q -- "--log-n 14 --primes 50,40,40,40,40,40,40,40,40 --special 50 --dnum 9" "$CALLS"
check "both libraries in peers.jsonl" \
  test "$(grep -c '"library": "polyhe"' "$out/peers.jsonl")" -eq 28 -a \
  "$(grep -c '"library": "phantom"' "$out/peers.jsonl")" -eq 3
check "the peer's time over polyhe's" grep -q "| ckks | multiply_relin | 16 | 35 | 3 (not 128-bit) | 1000.0 | phantom | 900.0 | 0.90 | no |" "$out/peers.md"
check "1.5x marked" grep -q "| ckks | rotate | 14 | 8 | 9 | 1000.0 | phantom | 1500.0 | 1.50 | yes |" "$out/peers.md"
check "a peer row without a polyhe row is listed" grep -q "('ckks', 'ntt_forward', 16, 8, 9)" "$out/peers.md"

rm -rf "$repo/gpu-pack/peer-phantom" "$out"
: >"$CALLS"
(cd "$repo" && PATH="/usr/bin:/bin" bash scripts/gpu-peers.sh "$out" >"$work/stdout2.txt" 2>&1)
check "no peer folder: said, and polyhe's rows still written" \
  grep -q "no gpu-pack/peer-phantom" "$work/stdout2.txt"
check "no peer folder: polyhe rows kept" test "$(grep -c '"library": "polyhe"' "$out/peers.jsonl")" -eq 28

if ((fails)); then
  echo "test_gpu_peers: $fails failed"
  cat "$work/stdout.txt"
  exit 1
fi
echo "test_gpu_peers: all passed"
