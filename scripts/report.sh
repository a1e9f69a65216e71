#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `polyhe report` (self-test, the
# NTT/polymul benchmark and the CKKS/BFV/BGV benchmarks as markdown on stdout) and draw its plots.
# Extra arguments go to `polyhe report` (e.g. --quick); --output and --data are set here.
#
# Into POLYHE_REPORT_DIR (default build/report): report.md (the markdown, with links to the plots
# appended), report-data.jsonl (every measurement, one JSON object a line) and the plots
# report-ntt.png, report-schemes.png and report-fused.png (scripts/plot_report.py, matplotlib).
# Exits with `polyhe report`'s status (1 when the self-test failed), or the plot script's.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${POLYHE_REPORT_DIR:-build/report}"
scripts/deps.sh
cmake --preset release >&2
cmake --build --preset release --target polyhe_cli >&2
mkdir -p "$dir"
rm -f "$dir"/report.md "$dir"/report-data.jsonl "$dir"/report-{ntt,schemes,fused}.png

status=0
build/release/tools/polyhe/polyhe report --output "$dir/report.md" --data "$dir/report-data.jsonl" \
  "$@" || status=$?
if ((status > 1)) || [[ ! -s "$dir/report-data.jsonl" ]]; then  # bad usage, --help, a failure
  exit "$status"
fi

echo "polyhe report: plots..." >&2
scripts/plot_report.py "$dir/report-data.jsonl" "$dir" >&2
cat >>"$dir/report.md" <<'EOF'

## Plots

![NTT time against N, per CPU path and prime size](report-ntt.png)

![CKKS, BFV and BGV op times, per backend](report-schemes.png)

![Fused against unfused polymul](report-fused.png)
EOF
echo "polyhe report: wrote $dir/report.md, $dir/report-data.jsonl and the plots beside them" >&2
exit "$status"
