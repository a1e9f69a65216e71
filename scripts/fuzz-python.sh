#!/usr/bin/env bash
# Fuzzes the Python package's loaders with atheris (coverage-guided over polyhe's Python code;
# libFuzzer's engine): Context.load of both schemes, load_ciphertext / load_plaintext, and
# Parameters.load (fuzz/python/py_*.py). Each target runs SECONDS (default 45) from a seed corpus
# of the package's own objects, and fails on any exception other than polyhe's documented errors,
# on an input that takes more than 10 s (-timeout) or on the process passing 2 GiB (-rss_limit_mb:
# the interpreter, numpy and the fixture take about 150 MB of it). Findings go to
# build/fuzz-python/artifacts/, logs to build/fuzz-python/logs/. docs/fuzzing.md.
#
#   scripts/fuzz-python.sh [SECONDS] [TARGET...]
# Uses the installed package of build/pip-venv (scripts/python-package.sh makes it; run here
# when it is missing) and installs atheris from PyPI into it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-45}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))
py="$PWD/build/pip-venv/bin/python"
if ! [[ -x "$py" ]] || ! (cd / && "$py" -c "import polyhe") 2>/dev/null; then
  scripts/python-package.sh
fi
"$py" -m pip install -q "atheris>=2.3"
all_targets=(py_context_load py_ciphertext_load py_parameters_load)
if (($# > 0)); then targets=("$@"); else targets=("${all_targets[@]}"); fi
work="$PWD/build/fuzz-python"
src="$PWD/fuzz/python"
mkdir -p "$work/logs" "$work/artifacts" "$work/corpus"
# The seeds are made by the installed package, from its own run directory (not python/).
(cd "$work" && PYTHONPATH="$src" "$py" "$src/write_seeds.py" "$work/corpus")
failed=()
for t in "${targets[@]}"; do
  echo "== $t: $seconds s"
  if (cd "$work" && PYTHONPATH="$src" POLYHE_THREADS=1 "$py" "$src/$t.py" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$work/artifacts/$t-" "$work/corpus/$t" >"$work/logs/$t.log" 2>&1); then
    grep -E "^(#[0-9]+: |Done )" "$work/logs/$t.log" | tail -1 || true
  else
    echo "polyhe fuzz-python: $t FAILED (log: $work/logs/$t.log)"
    tail -30 "$work/logs/$t.log"
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "polyhe fuzz-python: findings in ${failed[*]}" >&2
  exit 1
fi
echo "polyhe fuzz-python: ${#targets[@]} targets, no findings"
