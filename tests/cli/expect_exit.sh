#!/bin/sh
# expect_exit.sh EXPECTED_STATUS [--stdin TEXT] [--stdout-matches ERE] [--stdout-empty] [--]
#                COMMAND [ARGS...]
# Runs COMMAND (feeding TEXT on stdin, else nothing) and passes iff it exits with
# EXPECTED_STATUS, its stdout matches ERE when given (is empty with --stdout-empty), and, for a
# non-zero status, its stderr is exactly one line starting "polyhe: error: ".
set -u
expected=$1
shift
stdin=""
pattern=""
empty=0
while [ $# -gt 0 ]; do
  case $1 in
    --stdin) stdin=$2; shift 2 ;;
    --stdout-matches) pattern=$2; shift 2 ;;
    --stdout-empty) empty=1; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s' "$stdin" | "$@" >"$tmp/out" 2>"$tmp/err"
status=$?
fail=0
if [ "$status" -ne "$expected" ]; then
  echo "expected exit status $expected, got $status" >&2
  fail=1
fi
if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/out"; then
  echo "stdout does not match: $pattern" >&2
  fail=1
fi
if [ "$empty" -eq 1 ] && [ -s "$tmp/out" ]; then
  echo "stdout is not empty" >&2
  fail=1
fi
if [ "$expected" -ne 0 ]; then
  lines=$(wc -l <"$tmp/err")
  if [ "$lines" -ne 1 ] || ! head -n 1 "$tmp/err" | grep -q '^polyhe: error: '; then
    echo "stderr is not one line 'polyhe: error: ...' ($lines lines)" >&2
    fail=1
  fi
fi
if [ "$fail" -ne 0 ]; then
  echo "--- command: $*" >&2
  echo "--- stdout:" >&2; cat "$tmp/out" >&2
  echo "--- stderr:" >&2; cat "$tmp/err" >&2
fi
exit "$fail"
