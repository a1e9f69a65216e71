#!/usr/bin/env bash
# Times builds of polyhe against each other on a GPU machine, alternated on the same machine: the
# pack's own build ("head") and every variant the pack carries beside it. Run after the runbook,
# on the warm machine (docs/bench/gpu-runbook.md):
#   carry ["gpu-pack"]; command: bash gpu-pack/gpu-ab.sh "$OUT" [ROUNDS [BENCH_FILE]]
# (ROUNDS: 3; BENCH_FILE: the pack's ab.txt, or another list in its format, e.g. the pack's
# ab-schemes.txt: the scheme rows without the NTT suite, for many variants in one call).
# A variant is a folder gpu-pack/var-NAME/ holding libraries that replace the pack's (*.so, or
# *.so.gz to carry less: libpolyhe_cuda.so is 15 MB, 6 MB gzipped), and optionally bin/polyhe,
# a whole older build's tool when its libraries no longer match the pack's binaries, and
# optionally `env`, lines NAME=VALUE (no spaces; `#` starts a comment) set for its runs only: a
# variant of the pack's own build under a run-time knob needs nothing else (e.g. var-t10/env
# holding POLYHE_CUDA_TILE_LOG=10). Its libraries go ahead of the pack's on LD_LIBRARY_PATH, so
# one that is not there comes from the pack. A malformed env line stops the run before anything
# is timed. ab.txt lists the benchmarks, one line of `polyhe` arguments each (JSON lines out; `#`
# starts a comment); summary.txt names them b1, b2, ... Each round runs every benchmark under every build, in turn, and rotates the
# order of the builds from one round to the next.
# Leaves summary.txt (per row: each build's best median over the rounds, its ratio to the first
# variant, and every round's median) and ab.tar.gz (the JSON lines, each build's stderr). Every
# round rewrites both, so a run cut short keeps what it measured. Exit status 1 when a build
# produced no row at all or a variant is empty.
set -u
out=${1:?usage: gpu-ab.sh OUT_DIR [ROUNDS [BENCH_FILE]]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
benchfile=${3:-$here/ab.txt}
if [[ ! -s "$benchfile" ]]; then
  echo "gpu-ab: no benchmark list at $benchfile" >&2
  exit 1
fi
mkdir -p "$out"
w=$(mktemp -d)
export CUDA_MODULE_LOADING=EAGER

status=0
builds=()
declare -A lib bin envs
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
  envs[$name]=""
  if [[ -f "$d/env" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do
      line=${line%%#*}
      line=${line%"${line##*[![:space:]]}"}
      [[ -z "$line" ]] && continue
      if [[ ! "$line" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]]; then
        echo "gpu-ab: variant $name: env line '$line' is not NAME=VALUE without spaces" |
          tee "$out/summary.txt"
        exit 1
      fi
      envs[$name]+="${envs[$name]:+ }$line"
    done <"$d/env"
  fi
  if [[ -z "$(ls "$w/lib-$name")" && "$tool" == "$here/bin/polyhe" && -z "${envs[$name]}" ]]; then
    echo "gpu-ab: variant $name holds no library, no bin/polyhe and no env" |
      tee -a "$w/summary.txt"
    status=1
  fi
  builds+=("$name")
  lib[$name]="$w/lib-$name:$here/lib"
  bin[$name]=$tool
done
builds+=(head)
lib[head]="$here/lib"
bin[head]="$here/bin/polyhe"
envs[head]=""

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not found"
  head -1 "$here/manifest.txt" 2>/dev/null
  echo "builds: ${builds[*]} (ratios are to ${builds[0]}), $rounds rounds"
  for b in "${builds[@]}"; do
    [[ -n "${envs[$b]}" ]] && echo "build $b runs with ${envs[$b]}"
  done
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

mapfile -t benches < <(grep -v -E '^\s*(#|$)' "$benchfile")
for i in "${!benches[@]}"; do echo "b$((i + 1)): polyhe ${benches[i]}"; done | tee -a "$w/summary.txt"
touch "$w/ab.jsonl"
for ((round = 1; round <= rounds; ++round)); do
  order=("${builds[@]:round % ${#builds[@]}}" "${builds[@]:0:round % ${#builds[@]}}")
  for i in "${!benches[@]}"; do
    args=${benches[i]}
    tag=b$((i + 1))
    for b in "${order[@]}"; do
      # shellcheck disable=SC2086
      env LD_LIBRARY_PATH="${lib[$b]}" ${envs[$b]} timeout 120 "${bin[$b]}" $args 2>>"$w/$b.err" |
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
