#!/bin/sh
# test_plot_bad_data.sh PLOT_SCRIPT
# scripts/plot_report.py on missing or malformed data: exit status 2, one line
# "plot_report: error: ..." on stderr, and no plot.
set -u
plot=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
expect_error() {  # expect_error WHAT DATA_FILE
  "$plot" "$2" "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
  got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <"$tmp/stderr")" -ne 1 ] ||
    ! grep -q '^plot_report: error: ' "$tmp/stderr" || [ -n "$(ls "$tmp/out")" ]; then
    echo "FAIL ($1): exit $got, stderr:" >&2
    cat "$tmp/stderr" >&2
    status=1
  fi
}
mkdir "$tmp/out"
ntt='{"op":"ntt_forward","backend":"cpu","device":"x","log_n":10,"bits":30,"limbs":1,"variant":"v","median_ns":1000.0,"p10_ns":900.0,"p90_ns":1100.0,"reps":5,"threads":1,"path":"scalar","unit":"ns"}'
expect_error "missing file" "$tmp/missing.jsonl"
: >"$tmp/empty.jsonl"
expect_error "empty file" "$tmp/empty.jsonl"
printf '%s\n{bad\n' "$ntt" >"$tmp/bad_json.jsonl"
expect_error "bad JSON" "$tmp/bad_json.jsonl"
printf '%s\n' "$ntt" | sed 's/"median_ns":1000.0,//' >"$tmp/no_median.jsonl"
expect_error "no median" "$tmp/no_median.jsonl"
printf '%s\n' "$ntt" >"$tmp/ntt_only.jsonl"  # no scheme rows: it cannot draw report-schemes.png
expect_error "no scheme rows" "$tmp/ntt_only.jsonl"
exit "$status"
