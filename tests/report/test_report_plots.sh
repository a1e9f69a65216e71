#!/bin/sh
# test_report_plots.sh POLYHE PLOT_SCRIPT
# Runs `polyhe report --quick --data` with tiny measurements (about 3 s), checks the data file
# holds one JSON line per row of the report's measurement tables, then draws the plots with
# scripts/plot_report.py and checks the three PNGs: present, PNG magic bytes, over 10 kB.
set -u
polyhe=$1
plot=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$polyhe" report --quick --min-time 0.001 --seed 1 --output "$tmp/report.md" \
  --data "$tmp/data.jsonl" >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
[ "$got" -eq 0 ] || { cat "$tmp/stderr" >&2; fail "polyhe report exited $got"; }
cmp -s "$tmp/stdout" "$tmp/report.md" || fail "--output differs from stdout"
[ -s "$tmp/data.jsonl" ] || fail "--data wrote nothing"

# One JSON object a line, one line per measurement row (a row whose first cell is an op name).
lines=$(wc -l <"$tmp/data.jsonl")
rows=$(grep -Ec '^\| [a-z][a-z_]* \|' "$tmp/report.md")
rows=$((rows - $(grep -c '^| op |' "$tmp/report.md")))
[ "$lines" -eq "$rows" ] || fail "$lines data lines for $rows measurement rows"
grep -vq '^{"op":"[a-z_]*","backend":"[a-z-]*",.*"median_ns":[0-9.]*,' "$tmp/data.jsonl" &&
  fail "a data line is not a measurement object: $(grep -v '^{"op":' "$tmp/data.jsonl" | head -n 1)"
for op in ntt_forward ntt_inverse polymul polymul_fused; do
  grep -q "^{\"op\":\"$op\"," "$tmp/data.jsonl" || fail "no $op line"
done
grep -q '^{"op":"bootstrap",.*"levels_after":3,.*"precision_bits":' "$tmp/data.jsonl" ||
  fail "no bootstrap line with its levels_after and precision_bits"
for scheme in ckks bfv bgv; do
  grep -q "\"scheme\":\"$scheme\"" "$tmp/data.jsonl" || fail "no $scheme line"
done

mkdir "$tmp/plots"
"$plot" "$tmp/data.jsonl" "$tmp/plots" >"$tmp/plot.out" 2>"$tmp/plot.err"
got=$?
[ "$got" -eq 0 ] || { cat "$tmp/plot.err" >&2; fail "plot_report.py exited $got"; }
png_magic=$(printf '\211PNG\r\n\032\n' | od -An -tx1)
for name in report-ntt.png report-schemes.png report-fused.png; do
  f="$tmp/plots/$name"
  [ -f "$f" ] || fail "$name was not written"
  [ "$(head -c 8 "$f" | od -An -tx1)" = "$png_magic" ] || fail "$name is not a PNG"
  size=$(wc -c <"$f")
  [ "$size" -gt 10000 ] || fail "$name is only $size bytes"
done
echo "ok: $lines measurements, three plots"
