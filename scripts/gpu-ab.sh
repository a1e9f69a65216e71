#!/usr/bin/env bash
# Times builds of polyhe against each other on a lent GPU, alternated on the same machine: the
# pack's own build ("head") and every variant the pack carries beside it. Run after the runbook,
# on the warm machine (docs/bench/gpu-status.md):
#   carry ["gpu-pack"]; command: bash gpu-pack/gpu-ab.sh "$OUT" [ROUNDS]    (ROUNDS: 3)
# A variant is a folder gpu-pack/var-NAME/ holding libraries that replace the pack's (*.so, or
# *.so.gz to carry less: libpolyhe_cuda.so is 15 MB, 6 MB gzipped), and optionally bin/polyhe,
# a whole older build's tool when its libraries no longer match the pack's binaries. Its
# libraries go ahead of the pack's on LD_LIBRARY_PATH, so one that is not there comes from the
# pack. ab.txt lists the benchmarks, one line of `polyhe` arguments each (JSON lines out; `#`
# starts a comment); summary.txt names them b1, b2, ... Each round runs every benchmark under every build, in turn, and rotates the
# order of the builds from one round to the next.
# Leaves summary.txt (per row: each build's best median over the rounds, its ratio to the first
# variant, and every round's median) and ab.tar.gz (the JSON lines, each build's stderr). Every
# round rewrites both, so a run cut short keeps what it measured. Exit status 1 when a build
# produced no row at all or a variant is empty.
set -u
out=${1:?usage: gpu-ab.sh OUT_DIR [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
w=$(mktemp -d)
export CUDA_MODULE_LOADING=EAGER

status=0
builds=()
declare -A lib bin
for d in "$here"/var-*/; do
  [[ -d "$d" ]] || continue
  name=$(basename "$d")
  name=${name#var-}
  mkdir -p "$w/lib-$name"
  for f in "$d"*.so "$d"*.so.*; do
    [[ -f "$f" ]] || continue
    case "$f" in
      *.gz) gunzip -c "$f" >"$w/lib-$name/$(basename "${f%.gz}")" ;;
      *) cp "$f" "$w/lib-$name/" ;;
    esac
  done
  tool="$here/bin/polyhe"
  [[ -x "$d/bin/polyhe" ]] && tool="$d/bin/polyhe"
  if [[ -z "$(ls "$w/lib-$name")" && "$tool" == "$here/bin/polyhe" ]]; then
    echo "gpu-ab: variant $name holds no library and no bin/polyhe" | tee -a "$w/summary.txt"
    status=1
  fi
  builds+=("$name")
  lib[$name]="$w/lib-$name:$here/lib"
  bin[$name]=$tool
done
builds+=(head)
lib[head]="$here/lib"
bin[head]="$here/bin/polyhe"

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not found"
  head -1 "$here/manifest.txt" 2>/dev/null
  echo "builds: ${builds[*]} (ratios are to ${builds[0]}), $rounds rounds"
} | tee -a "$w/summary.txt"

summarise() {
  python3 - "$w/ab.jsonl" "${builds[@]}" <<'PY'
import json, sys
path, builds = sys.argv[1], sys.argv[2:]
rows = {}
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    key = tuple(str(r.get(k, "")) for k in ("bench", "op", "log_n", "limbs", "bits", "variant",
                                             "radix", "kernel", "section"))
    rows.setdefault(key, {}).setdefault(r["build"], []).append(r["median_ns"])
for key, by in sorted(rows.items()):
    label = " ".join(k for k in key if k not in ("", "None"))
    base = min(by[builds[0]]) if builds[0] in by else None
    cells = []
    for b in builds:
        if b not in by:
            cells.append(f"{b} -")
            continue
        best = min(by[b])
        ratio = f" ({base / best:.2f})" if base is not None and b != builds[0] else ""
        cells.append(f"{b} {best / 1e3:.2f} us{ratio}")
    rounds = {b: [round(x / 1e3, 2) for x in by[b]] for b in builds if b in by}
    print(f"{label}: " + ", ".join(cells) + f"; rounds {rounds}")
PY
}

mapfile -t benches < <(grep -v -E '^\s*(#|$)' "$here/ab.txt")
for i in "${!benches[@]}"; do echo "b$((i + 1)): polyhe ${benches[i]}"; done | tee -a "$w/summary.txt"
touch "$w/ab.jsonl"
for ((round = 1; round <= rounds; ++round)); do
  order=("${builds[@]:round % ${#builds[@]}}" "${builds[@]:0:round % ${#builds[@]}}")
  for i in "${!benches[@]}"; do
    args=${benches[i]}
    tag=b$((i + 1))
    for b in "${order[@]}"; do
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=${lib[$b]} timeout 120 "${bin[$b]}" $args 2>>"$w/$b.err" |
        sed "s/^{/{\"build\":\"$b\",\"bench\":\"$tag\",/" >>"$w/ab.jsonl"
    done
  done
  echo "round $round done at $(date -u +%T)" | tee -a "$w/summary.txt"
  cp "$w/summary.txt" "$out/summary.txt"
  summarise >>"$out/summary.txt"
  tar -C "$w" --exclude='lib-*' -czf "$out/ab.tar.gz" .
done
for b in "${builds[@]}"; do
  if ! grep -q "^{\"build\":\"$b\"" "$w/ab.jsonl"; then
    echo "gpu-ab: build $b produced no row ($(tail -1 "$w/$b.err" 2>/dev/null))" |
      tee -a "$out/summary.txt"
    status=1
  fi
done
tail -n +2 "$out/summary.txt"
exit "$status"
